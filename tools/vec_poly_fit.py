"""The coefficients of iter/vec.h's fitted polynomials, reproduced: a weighted least-squares fit in float64 on
Chebyshev nodes, rounded to float32, and the fit's largest error in float32 ulps of the function.

    python tools/vec_poly_fit.py

log (Note [Vectorized logarithms]): the sixteen pieces of m in [1, 2) (1/c as a float, ln c = -ln(1/c) as hi on
a grid of 2^-17 plus lo) and log1p(r) = r - r^2/2 + r^3 P(r) on [-1/32, 1/16], P of degree 2, weighted by the r^3
term's share of the result (the error that matters is relative to log1p(r)). atan on [0, 1] (degree 8 in x^2),
asin on [0, 1/2] (degree 5), tan on [0, pi/4] (degree 6), sinh on [0, 1] (degree 3): x + x^3 P(x^2), weighted
alike. tanh's pieces (Note [Float32 tanh]): erf's float32 form, thirteen pieces of |x| + 1 by binade quarters, each
fitted and its float32 arithmetic modelled as erf's. erf, whose polynomials are evaluated in float64: erf(x)/x in u = 2x^2 - 1 on [0, 1] (degree 9) and erf(x) in
u = (x - 2.46) / 1.46 on [1, 3.92] (degree 19), Chebyshev interpolants turned into power series of u. lgamma's
(iter/vec_gamma.h, float64 too, fitted to mpmath's values): lgamma(2 + t) / t in u = 2t on [-1/2, 1/2] (degree 11),
sin(pi r) / r in r^2 on [0, 1/4]
(degree 6); digamma's (y - y0) P(y) on [1, 2) (degree 13). iter/vec_double.h's float64 polynomials, least squares in
mpmath's arithmetic on Chebyshev nodes: exp's (e^r - 1 - r) / r^2 on |r| <= ln2/2 (degree 10), expm1's on |r| <= ln 2
(degree 12), log's (2 atanh(s) - 2s) / s^3 in s^2 (degree 7); iter/vec_double_trig.h's (sin, cos, sinh, cosh, tanh,
asin, atan, atanh, asinh) and iter/vec_double_erf.h's (erf's pieces, erfc's tail pieces, erfinv's first guess,
math::erfinv_guess, and the tables of the logarithm erfinv's w takes) alike."""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev


def log_tables(nodes: int = 3000) -> tuple[list[float], list[float], list[float], list[float], float]:
    """kLogInverse, kLogCHi, kLogCLo and kLog1pP, and the fit's largest error in float32 ulps of log1p(r)."""
    import mpmath

    mpmath.mp.dps = 40
    inverses, c_hi, c_lo = [], [], []
    ln2_hi, ln2_lo = 0.693359375, float(np.float32(-2.12194440e-4))  # iter/vec.h's kLn2Hi and kLn2Lo
    for i in range(16):  # the mantissa's top four bits: [1, 2) in sixteenths
        lo, hi = 1 + i / 16, 1 + (i + 1) / 16
        # c = 1 for the first piece, 2 for the last (whose ln c is ln2_hi + ln2_lo, so e = -1 cancels it exactly)
        inverse = 1.0 if i == 0 else 0.5 if i == 15 else float(np.float32(2 / (lo + hi)))
        log_c = -mpmath.log(mpmath.mpf(inverse))
        head = ln2_hi if i == 15 else float(mpmath.nint(log_c * 2**17) / 2**17)  # e ln2_hi + head is exact
        inverses.append(inverse)
        c_hi.append(head)
        c_lo.append(ln2_lo if i == 15 else float(np.float32(float(log_c - head))))
    lo, hi = -1 / 32, 1 / 16
    t = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    r = (lo + hi) / 2 + (hi - lo) / 2 * t
    r = r[np.abs(r) > 1e-4]
    exact = np.array([float(mpmath.log1p(v)) for v in r])
    target = np.array([float((mpmath.log1p(v) - v + v * v / 2) / v**3) for v in r])
    weight = np.abs(r**3 / exact)
    basis = np.vander(r, 3, increasing=True)
    coefficients, *_ = np.linalg.lstsq(basis * weight[:, None], target * weight, rcond=None)
    c32 = coefficients.astype(np.float32).astype(np.float64)
    approx = r - r * r / 2 + r**3 * np.polyval(c32[::-1], r)
    error = float(np.max(np.abs(approx - exact) / np.abs(exact)) / 2.0**-24)
    return inverses, c_hi, c_lo, [float(c) for c in coefficients.astype(np.float32)], error


def fit_odd(fn, a: float, degree: int, nodes: int = 6000) -> tuple[list[float], float]:
    """fn(x) = x + x^3 P(x^2) on [0, a] (atan, asin, tan), weighted by the x^3 term's share of fn(x)."""
    t = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    x = a / 2 + a / 2 * t
    x = x[x > 1e-4]
    target = (fn(x) - x) / x**3
    weight = np.abs(x**3 / fn(x))
    basis = np.vander(x * x, degree + 1, increasing=True)
    coefficients, *_ = np.linalg.lstsq(basis * weight[:, None], target * weight, rcond=None)
    c32 = coefficients.astype(np.float32).astype(np.float64)
    approx = x + x**3 * np.polyval(c32[::-1], x * x)
    error = np.max(np.abs(approx - fn(x)) / np.abs(fn(x))) / 2.0**-24
    return [float(c) for c in coefficients.astype(np.float32)], float(error)


def fit_chebyshev(fn, a: float, b: float, degree: int, nodes: int = 400) -> tuple[list[float], float]:
    """fn on [a, b] as a power series of u = (x - (a + b)/2) / ((b - a)/2), from its Chebyshev interpolant; and the
    series' largest relative error on a fine grid (float64 evaluation)."""
    u = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    series = chebyshev.cheb2poly(chebyshev.chebfit(u, fn((a + b) / 2 + (b - a) / 2 * u), degree))
    x = np.linspace(a, b, 20001)
    exact = fn(x)
    approx = np.polynomial.polynomial.polyval((x - (a + b) / 2) / ((b - a) / 2), series)
    return [float(c) for c in series], float(np.max(np.abs(approx - exact) / np.abs(exact)))


def fit_chebyshev_mp(fn, a: float, b: float, degree: int, nodes: int = 200) -> tuple[list[float], float]:
    """fit_chebyshev with fn an mpmath function of one mpf (its values exact to float64)."""
    import mpmath

    mpmath.mp.dps = 40
    return fit_chebyshev(np.vectorize(lambda v: float(fn(mpmath.mpf(float(v))))), a, b, degree, nodes)


def lgamma_fits():
    import mpmath

    def near_two(t):  # lgamma(2 + t) / t, psi(2) = 1 - Euler's gamma at 0
        return mpmath.loggamma(2 + t) / t if t != 0 else 1 - mpmath.euler

    def sin_pi(z):  # sin(pi r) / r for z = r^2
        r = mpmath.sqrt(z)
        return mpmath.sin(mpmath.pi * r) / r if z != 0 else mpmath.pi

    return [("lgamma(2 + t) / t in u = 2t", fit_chebyshev_mp(near_two, -0.5, 0.5, 11)),
            ("sin(pi r) / r in u = 8 r^2 - 1", fit_chebyshev_mp(sin_pi, 0.0, 0.25, 6))]


# vec::erf's float32 pieces (iter/vec.h, Note [Float32 erf]): sixteen of width 1/4 on [0, 3.921875), each around a
# point m (0 for the first two, the middle elsewhere): erf(m + v) = K_hi + (c1 v + (v R(v) + K_lo)), K = erf(m) split
# into two floats, c1 = erf'(m) rounded to a float (its rounding error is absorbed by R's constant term), R of
# degree 5.
ERF_PIECES = [(k / 4, min((k + 1) / 4, 3.921875), 0.0 if k < 2 else k / 4 + 0.125) for k in range(16)]
# Where a vector register holds 8 floats (AVX2), eight pieces of width 1/2 (m = 0 for the first, the middle
# elsewhere) with R of degree 8, so that each coefficient is one 8-entry table: one vpermps a pick, not two and a
# blend (Note [Float32 erf]).
ERF_PIECES8 = [(k / 2, min((k + 1) / 2, 3.921875), 0.0 if k == 0 else k / 2 + 0.25) for k in range(8)]
ERF_PIECES8_DEGREE = 8


def _tanh_piece(k: int) -> tuple[float, float, float]:
    """Note [Float32 tanh]'s piece k: |x| + 1 in the k % 4-th quarter of the binade [2^(k//4), 2^(k//4 + 1)). Piece
    12 runs to 9.010913848876953, from where tanh rounds to 1; 13 to 15 repeat its coefficients."""
    k = min(k, 12)
    lo = 2.0 ** (k // 4) * (1 + (k % 4) / 4) - 1
    hi = lo + 2.0 ** (k // 4) / 4
    return lo, 9.010913848876953 if k == 12 else hi, 0.0 if k == 0 else (lo + hi) / 2


TANH_PIECES = [_tanh_piece(k) for k in range(16)]


def _erf_derivative(m: float) -> float:
    return 2 / math.sqrt(math.pi) * math.exp(-m * m)


def fit_piece(fn, derivative, lo: float, hi: float, m: float, degree: int = 5, nodes: int = 3000):
    """One piece of Note [Float32 erf]'s form, fn(a) = K_hi + (c1 v + (v R(v) + K_lo)) with v = a - m: K_hi + K_lo
    is fn(m) in two floats, c1 derivative(m) as a float, R of the given degree (its constant term takes up c1's
    rounding), fitted on [lo, hi] weighted by v R(v)'s share of the result."""
    f32 = np.float32
    k_hi = f32(fn(m))
    k_lo = f32(fn(m) - float(k_hi))
    c1 = f32(derivative(m))
    t = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    a = (max(lo, 1e-4) + hi) / 2 + (hi - max(lo, 1e-4)) / 2 * t
    v = a - m
    a, v = a[np.abs(v) > 1e-6], v[np.abs(v) > 1e-6]
    exact = np.vectorize(fn)(a)
    target = (exact - float(k_hi) - float(k_lo) - float(c1) * v) / v
    weight = np.abs(v) / exact  # v R(v)'s share of the result, whose ulps count
    coefficients, *_ = np.linalg.lstsq(np.vander(v, degree + 1, increasing=True) * weight[:, None], target * weight,
                                       rcond=None)
    return float(k_hi), float(k_lo), float(c1), [float(c) for c in coefficients.astype(f32)]


def fit_erf_piece(lo: float, hi: float, m: float, degree: int = 5, nodes: int = 3000):
    return fit_piece(math.erf, _erf_derivative, lo, hi, m, degree, nodes)


def piece_float32_error(fn, lo: float, hi: float, m: float, piece) -> float:
    """The largest error in ulps of a piece's float32 arithmetic as vec::erf and vec::tanh run it (each operation
    rounded to float32, the fused ones once) over float32 values of [lo, hi) (every 7th; every 97th from 2^-20 on
    a first piece)."""
    f32 = np.float32
    k_hi, k_lo, c1, r = piece

    def fma(x, y, z):
        return (x.astype(np.float64) * y + z).astype(f32)

    start, stop = np.array([max(lo, 2.0 ** -20), hi], dtype=f32).view(np.uint32)
    a = np.arange(start, stop, 97 if lo == 0 else 7, dtype=np.uint32).view(f32)
    v = (a - f32(m)).astype(f32)
    p = np.full_like(v, r[-1])
    for c in r[-2::-1]:
        p = fma(p, v.astype(np.float64), float(f32(c)))
    got = (f32(k_hi) + fma(v, float(f32(c1)), fma(v, p.astype(np.float64), float(f32(k_lo))).astype(np.float64)))
    exact = np.vectorize(fn)(a.astype(np.float64))
    return float(np.max(np.abs(got.astype(np.float64) - exact) / np.spacing(exact.astype(f32)).astype(np.float64)))


def erf_float32_error(lo: float, hi: float, m: float, piece) -> float:
    return piece_float32_error(math.erf, lo, hi, m, piece)


def tanh_pieces():
    """Note [Float32 tanh]'s pieces (K_hi, K_lo, c1, R of degree 5) and their float32 arithmetic's largest error."""
    def derivative(m):
        return 1 - math.tanh(m) ** 2

    pieces = [fit_piece(math.tanh, derivative, max(lo - 1e-6, 0.0), hi + 1e-6, m) for lo, hi, m in TANH_PIECES]
    worst = max(piece_float32_error(math.tanh, lo, hi, m, piece) for (lo, hi, m), piece in zip(TANH_PIECES, pieces))
    return pieces, worst


def digamma_fit():
    import mpmath

    mpmath.mp.dps = 40
    zero = mpmath.findroot(mpmath.digamma, 1.46)
    return float(zero), float(zero - mpmath.mpf(float(zero))), fit_chebyshev_mp(
        lambda y: mpmath.digamma(y) / (y - zero), 1.0, 2.0, 13)


def fit_power_mp(fn, a, b, degree: int, nodes: int = 400, weight=None) -> list[float]:
    """Least squares in mpmath's arithmetic (40 digits) on Chebyshev nodes of [a, b], lowest degree first: float64
    coefficients whose fit error is far below float64's rounding. weight(x): each node's error scaled by it."""
    import mpmath

    mpmath.mp.dps = 50
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    xs = [(a + b) / 2 + (b - a) / 2 * mpmath.cos(mpmath.pi * (k + mpmath.mpf(1) / 2) / nodes) for k in range(nodes)]
    w = [weight(x) if weight else 1 for x in xs]
    basis = mpmath.matrix([[wx * x ** j for j in range(degree + 1)] for x, wx in zip(xs, w)])
    values = mpmath.matrix([wx * fn(x) for x, wx in zip(xs, w)])
    solution = mpmath.lu_solve(basis.T * basis, basis.T * values)
    return [float(solution[j]) for j in range(degree + 1)]


def float64_fits():
    import mpmath

    mpmath.mp.dps = 50
    ln2 = mpmath.log(2)

    def exp_rest(r):  # (e^r - 1 - r) / r^2
        return (mpmath.exp(r) - 1 - r) / (r * r) if abs(r) > mpmath.mpf(10) ** -25 else mpmath.mpf(1) / 2

    def log_rest(z):  # (2 atanh(s) - 2s) / s^3 for z = s^2
        s = mpmath.sqrt(z)
        return (2 * mpmath.atanh(s) - 2 * s) / (s * z) if z > mpmath.mpf(10) ** -30 else mpmath.mpf(2) / 3

    square_max = ((mpmath.sqrt(2) - 1) / (mpmath.sqrt(2) + 1)) ** 2
    return [("exp: (e^r - 1 - r) / r^2 on |r| <= ln2/2", fit_power_mp(exp_rest, -ln2 / 2, ln2 / 2, 10)),
            ("expm1: (e^r - 1 - r) / r^2 on |r| <= ln 2", fit_power_mp(exp_rest, -ln2, ln2, 12)),
            ("log: (2 atanh(s) - 2s) / s^3 in z = s^2", fit_power_mp(log_rest, 0, square_max, 7))]


def float64_log_tables():
    """iter/vec_double.h's Note [Float64 logarithms by table]: kLogInverse64, kLogCHi64 (ln c on a grid of 2^-32, as
    ln2_hi, so e ln2_hi + it is exact), kLogCLo64, and kLog1pP64: (log1p(r) - r + r^2/2) / r^3 on [-1/32, 1/16],
    degree 8."""
    import mpmath

    mpmath.mp.dps = 50
    ln2_hi, ln2_lo = 0.6931471803691238, 1.9082149292705877e-10  # kLn2HiDouble, kLn2LoDouble
    inverses, c_hi, c_lo = [], [], []
    for i in range(16):
        lo, hi = 1 + mpmath.mpf(i) / 16, 1 + mpmath.mpf(i + 1) / 16
        inverse = 1.0 if i == 0 else 0.5 if i == 15 else float(2 / (lo + hi))
        log_c = -mpmath.log(mpmath.mpf(inverse))
        head = ln2_hi if i == 15 else float(mpmath.nint(log_c * 2**32) / 2**32)
        inverses.append(inverse)
        c_hi.append(head)
        c_lo.append(ln2_lo if i == 15 else float(log_c - head))

    def log1p_rest(r):
        return (mpmath.log1p(r) - r + r * r / 2) / r**3 if r != 0 else mpmath.mpf(1) / 3

    return inverses, c_hi, c_lo, fit_power_mp(log1p_rest, -1 / 32, 1 / 16, 8, nodes=120)


def float64_trig_fits():
    """iter/vec_double_trig.h's polynomials: f(x) = x + x^3 P(x^2) (odd) or 1 -+ x^2/2 + x^4 P(x^2) (even), P in
    z = x^2 on [0, z_max]."""
    import mpmath

    mp = mpmath
    mp.mp.dps = 50

    def odd(f, at_zero):
        return lambda z: (f(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3 if z > mp.mpf(10) ** -40 else mp.mpf(at_zero)

    def even(f, sign, at_zero):
        return lambda z: (f(mp.sqrt(z)) - 1 - sign * z / 2) / z**2 if z > mp.mpf(10) ** -40 else mp.mpf(at_zero)

    sixth, third = mp.mpf(1) / 6, mp.mpf(1) / 3
    table = [("kSin64", odd(mp.sin, -sixth), 0.62, 6), ("kCos64", even(mp.cos, -1, mp.mpf(1) / 24), 0.62, 5),
             ("kSinh64", odd(mp.sinh, sixth), 1, 6), ("kCosh64", even(mp.cosh, 1, mp.mpf(1) / 24), 1, 6),
             ("kTanh64", odd(mp.tanh, -third), 0.3025, 10), ("kAsin64", odd(mp.asin, sixth), 0.25, 12),
             ("kAtan64", odd(mp.atan, -third), (mp.mpf(7) / 16) ** 2, 11),
             ("kAtanh64", odd(mp.atanh, third), 0.25, 12), ("kAsinh64", odd(mp.asinh, -sixth), 0.25, 11)]
    return [(name, fit_power_mp(g, 0, z_max, degree)) for name, g, z_max, degree in table]


def float64_erf_fits():
    """iter/vec_double_erf.h's tables and math::erfinv_guess (kernels/pointwise_math.h): erf(x)/x - 1 in x^2 on
    [0, 3/4]; erf(m + u) - K on four pieces from 3/4 to 2 (K = erf(m) rounded, the first row); erfc(x) e^x^2 on
    four unit pieces from 2 to 6, degree 15; erfinv(y)/y in w - 2.5, sqrt(w) - 3 and sqrt(w) - 5 for
    w = -log(1 - y^2)."""
    import mpmath

    mp = mpmath
    mp.mp.dps = 50
    small = fit_power_mp(lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) - 1 if z > mp.mpf(10) ** -40
                         else 2 / mp.sqrt(mp.pi) - 1, 0, 0.5625, 11, nodes=200)
    middle = []
    for k in range(4):
        m = mp.mpf(0.75 + 0.3125 * k + 0.15625)
        high = float(mp.erf(m))
        middle.append([high] + fit_power_mp(lambda u: mp.erf(m + u) - high, -0.16, 0.16, 12, nodes=120))
    tail = []
    for k in range(4):  # relative least squares: the fit's error is below its coefficients' rounding
        m = mp.mpf(2.5 + k)
        erfcx = lambda u: mp.erfc(m + u) * mp.exp((m + u) ** 2)  # noqa: E731
        tail.append(fit_power_mp(erfcx, -0.5, 0.5, 15, nodes=150, weight=lambda u: 1 / erfcx(u)))
    mp.mp.dps = 60

    def erfinv_over_y(w):
        y = mp.sqrt(1 - mp.exp(-w))
        return mp.erfinv(y) / y if w > mp.mpf(10) ** -30 else mp.sqrt(mp.pi) / 2

    guess = [fit_power_mp(lambda t: erfinv_over_y(t + mp.mpf(2.5)), -2.5, 2.5, 12, nodes=90),
             fit_power_mp(lambda t: erfinv_over_y((t + 3) ** 2), mp.sqrt(5) - 3, 1.0, 12, nodes=90),
             fit_power_mp(lambda t: erfinv_over_y((t + 5) ** 2), -1.0, 1.13, 12, nodes=90)]
    return small, middle, tail, guess


def erf_tail_absolute_fits(degree: int = 11, nodes: int = 240) -> list[list[float]]:
    """iter/vec_double_erf.h's kErfTail64 (Note [Float64 erf's tail to an ulp of 1]): erfc(x) e^x^2 in u = x - m on
    [2, 3] (m = 2.5) and [3, 6] (m = 4.5), least squares weighted by e^-x^2, so that what is fitted is erfc's absolute
    error, the error erf = 1 - erfc keeps."""
    import mpmath

    mp = mpmath
    return [fit_power_mp(lambda u: mp.erfc(m + u) * mp.exp((m + u) ** 2), lo - m, hi - m, degree, nodes,
                         weight=lambda u: mp.exp(-(m + u) ** 2)) for lo, hi, m in ((2, 3, 2.5), (3, 6, 4.5))]


def erf_middle_fits(degree: int = 15) -> list[list[float]]:
    """iter/vec_double_erf.h's kErfMiddle64 (Note [Float64 erf's tail to an ulp of 1]): erf from 3/4 to 2 on two
    pieces m +- 0.3125 (m = 1.0625, 1.6875), erf(m + u) = K + R(u): K = erf(m) rounded, then R's coefficients."""
    import mpmath

    mpmath.mp.dps = 50
    rows = []
    for m in (mpmath.mpf(1.0625), mpmath.mpf(1.6875)):
        high = float(mpmath.erf(m))
        rows.append([high] + fit_power_mp(lambda u: mpmath.erf(m + u) - high, -0.3125, 0.3125, degree, nodes=160))
    return rows


def erfinv_log_tables():
    """iter/vec_double_erf.h's logarithm for erfinv's w (log_for_erfinv): t = 2^k m with m in [sqrt(1/2), sqrt(2)),
    the eight pieces of m that the top three bits of (t's bits - sqrt(1/2)'s bits) pick, for each 1/c (c the piece's
    middle; 1 for the piece holding 1) and log(c) = -log(1/c) of that double exactly; and log1p(r)/r on |r| <= 0.0568
    (r = m/c - 1 reaches 0.0567 in the sixth piece), degree 6."""
    import struct

    import mpmath

    mpmath.mp.dps = 50

    def double(bits: int) -> float:
        return struct.unpack("<d", struct.pack("<q", bits))[0]

    offset = 0x3FE6A09E667F3BCD
    inverses, logs = [], []
    for i in range(8):
        low, high = double(offset + (i << 49)), double(offset + ((i + 1) << 49) - 1)
        inverse = 1.0 if low <= 1.0 < high else 1.0 / ((low + high) / 2)
        inverses.append(inverse)
        logs.append(float(-mpmath.log(mpmath.mpf(inverse))))
    series = fit_power_mp(lambda r: mpmath.log1p(r) / r if r != 0 else mpmath.mpf(1), -0.0568, 0.0568, 6, nodes=60)
    return inverses, logs, series


def erf_over_x_of_square(z):
    root = np.sqrt(z)
    return np.where(z > 0, np.vectorize(math.erf)(root) / np.where(z > 0, root, 1.0), 2 / math.sqrt(math.pi))


def fit_rational(x, f, basis, u, numerator: int, denominator: int, relative: bool, rounds: int = 100):
    """f = basis P(u) / Q(u), Q(0) = 1, on the nodes x: linearised least squares, P(u) - f Q(u) / basis weighted by
    1/Q of the last round (and 1/f for a relative fit), the weights moved toward the largest errors (Lawson's rule)
    for an equal-ripple fit. Returns P, Q (float32) and the largest error (absolute or relative) in float64 with the
    float32 coefficients."""
    q, weights, best = np.ones_like(x), np.full(x.size, 1.0 / x.size), None
    scale = np.abs(f) if relative else np.ones_like(f)
    for _ in range(rounds):
        a = np.hstack([basis[:, None] * np.vander(u, numerator + 1, increasing=True),
                       -f[:, None] * np.vander(u, denominator + 1, increasing=True)[:, 1:]])
        w = np.sqrt(weights) / (q * scale)
        solution = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)[0]
        p_c, q_c = solution[:numerator + 1], np.concatenate([[1.0], solution[numerator + 1:]])
        q = np.polyval(q_c[::-1], u)
        residual = (basis * np.polyval(p_c[::-1], u) / q - f) / scale
        if best is None or np.abs(residual).max() < best[2]:
            best = (p_c, q_c, np.abs(residual).max())
        weights = weights * np.abs(residual)
        weights /= weights.sum()
    p32, q32 = best[0].astype(np.float32), best[1].astype(np.float32)
    value = basis * np.polyval(p32.astype(np.float64)[::-1], u) / np.polyval(q32.astype(np.float64)[::-1], u)
    return [float(c) for c in p32], [float(c) for c in q32], float(np.abs((value - f) / scale).max())


def gelu_rationals(nodes: int = 8000):
    """Note [Gelu's erf as one rational function]: erf(x / sqrt 2) = x P(x^2) / Q(x^2) on [0, 4 sqrt 2] (P of degree
    5, Q of 6; absolute error), and for the tail Phi(-a) = e^(-a^2/2) R(a) with R = P(a) / Q(a) on [0, 14.5] (degrees
    4 and 5; relative error, R being 0.5 erfcx(a / sqrt 2))."""
    from scipy.special import erf, erfcx

    k = np.arange(nodes)
    chebyshev_nodes = np.cos(np.pi * (k + 0.5) / nodes)
    top = 4.0 * math.sqrt(2.0)
    x = top / 2 + top / 2 * chebyshev_nodes
    erf_fit = fit_rational(x, erf(x / math.sqrt(2.0)), x, x * x, 5, 6, relative=False)
    a = 7.25 + 7.25 * chebyshev_nodes
    tail_fit = fit_rational(a, 0.5 * erfcx(a / math.sqrt(2.0)), np.ones_like(a), a, 4, 5, relative=True)
    return erf_fit, tail_fit


def erfinv_central_rational(y_max: float = 0.95, degree: int = 9, nodes: int = 6000, rounds: int = 80):
    """iter/vec_double_erf.h's kErfinvRationalP/Q: erfinv(y) / y = P(z) / Q(z), z = y^2, Q(0) = 1, for |y| <= y_max,
    by linearised least squares with Lawson's weights toward equal relative ripple, in float64 against SciPy's
    erfinv. Returns P, Q and the largest relative error (float64 evaluation, the coefficients as returned)."""
    from scipy.special import erfinv

    y = np.abs(np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes) * y_max)
    y = y[y > 1e-4]
    z, f = y * y, erfinv(y) / y
    q, weights, best = np.ones_like(z), np.full(z.size, 1.0 / z.size), None
    for _ in range(rounds):
        a = np.hstack([np.vander(z, degree + 1, increasing=True),
                       -f[:, None] * np.vander(z, degree + 1, increasing=True)[:, 1:]])
        w = np.sqrt(weights) / (q * f)
        solution = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)[0]
        p_c, q_c = solution[:degree + 1], np.concatenate([[1.0], solution[degree + 1:]])
        q = np.polyval(q_c[::-1], z)
        residual = (np.polyval(p_c[::-1], z) / q - f) / f
        if best is None or np.abs(residual).max() < best[2]:
            best = (p_c.copy(), q_c.copy(), np.abs(residual).max())
        weights = weights * np.abs(residual)
        weights /= weights.sum()
    dense = np.linspace(0.0, y_max, 400001)[1:]
    zz = dense * dense
    value = np.polyval(best[0][::-1], zz) / np.polyval(best[1][::-1], zz)
    error = float(np.abs(value / (erfinv(dense) / dense) - 1).max())
    return [float(c) for c in best[0]], [float(c) for c in best[1]], error


if __name__ == "__main__":
    *tables, log1p_p, error = log_tables()
    for name, row in zip(("kLogInverse", "kLogCHi", "kLogCLo", "kLog1pP"), (*tables, log1p_p)):
        print(f"{name}:", ", ".join(f"{c!r}f" for c in row))
    print(f"largest error of the log1p(r) fit: {error:.3f} ulp of log1p(r)")
    for name, fn, a, degree in (("atan", np.arctan, 1.0, 8), ("asin", np.arcsin, 0.5, 5), ("tan", np.tan, np.pi / 4, 6),
                                ("sinh", np.sinh, 1.0, 3)):
        coefficients, error = fit_odd(fn, a, degree)
        print(f"{name} P(x^2) on [0, {a:.4f}]:", ", ".join(f"{c!r}f" for c in coefficients))
        print(f"largest error of the fit: {error:.3f} ulp")
    for name, fn, a, b, degree in (("erf(x)/x in u = 2x^2 - 1", erf_over_x_of_square, 0.0, 1.0, 9),
                                   ("erf(x) in u = (x - 2.46) / 1.46", np.vectorize(math.erf), 1.0, 3.92, 19)):
        coefficients, error = fit_chebyshev(fn, a, b, degree)
        print(f"{name}:", ", ".join(repr(c) for c in coefficients))
        print(f"largest relative error of the fit (float64): {error:.2e}")
    for name, (coefficients, error) in lgamma_fits():
        print(f"{name}:", ", ".join(repr(c) for c in coefficients))
        print(f"largest relative error of the fit (float64): {error:.2e}")
    erf_pieces = [fit_erf_piece(lo, hi, m) for lo, hi, m in ERF_PIECES]
    erf_worst = max(erf_float32_error(lo, hi, m, piece) for (lo, hi, m), piece in zip(ERF_PIECES, erf_pieces))
    erf_pieces8 = [fit_erf_piece(lo, hi, m, ERF_PIECES8_DEGREE) for lo, hi, m in ERF_PIECES8]
    erf_worst8 = max(erf_float32_error(lo, hi, m, piece) for (lo, hi, m), piece in zip(ERF_PIECES8, erf_pieces8))
    for fn, layout, (pieces, worst) in (("erf", ERF_PIECES, (erf_pieces, erf_worst)),
                                        ("erf (8 pieces)", ERF_PIECES8, (erf_pieces8, erf_worst8)),
                                        ("tanh", TANH_PIECES, tanh_pieces())):
        print(f"{fn} pieces' m:", ", ".join(f"{m!r}f" for _, _, m in layout))
        for name, column in (("K_hi", 0), ("K_lo", 1), ("c1", 2)):
            print(f"{fn} pieces' {name}:", ", ".join(f"{piece[column]!r}f" for piece in pieces))
        for k in range(len(pieces[0][3])):
            print(f"{fn} pieces' R_{k}:", ", ".join(f"{piece[3][k]!r}f" for piece in pieces))
        print(f"largest error of vec::{fn.split()[0]}'s float32 arithmetic: {worst:.3f} ulp")
    for name, (p, q, error) in zip(("gelu's erf(x / sqrt 2) = x P(x^2) / Q(x^2), absolute",
                                    "gelu's tail Phi(-a) e^(a^2/2) = P(a) / Q(a), relative"), gelu_rationals()):
        print(f"{name} error {error:.2e}: P", ", ".join(f"{c!r}f" for c in p), "Q", ", ".join(f"{c!r}f" for c in q))
    zero_hi, zero_lo, (coefficients, error) = digamma_fit()
    print(f"digamma's zero {zero_hi!r} + {zero_lo!r}; digamma(y) / (y - zero) in u = 2y - 3:",
          ", ".join(repr(c) for c in coefficients))
    print(f"largest relative error of the fit (float64): {error:.2e}")
    for name, coefficients in float64_fits():
        print(f"{name}, lowest degree first:", ", ".join(repr(c) for c in coefficients))
    for name, row in zip(("kLogInverse64", "kLogCHi64", "kLogCLo64", "kLog1pP64"), float64_log_tables()):
        print(f"{name}:", ", ".join(repr(c) for c in row))
    for name, coefficients in float64_trig_fits():
        print(f"{name}, lowest degree first:", ", ".join(repr(c) for c in coefficients))
    small, middle, tail, guess = float64_erf_fits()
    print("kErfSmall64:", ", ".join(repr(c) for c in small))
    for k, row in enumerate(middle):
        print(f"kErfPiece64 piece {k} (K, then R):", ", ".join(repr(c) for c in row))
    for k, row in enumerate(tail):
        print(f"kErfcxPiece64 piece {k}:", ", ".join(repr(c) for c in row))
    for k, row in enumerate(erf_middle_fits()):
        print(f"kErfMiddle64 piece {k} (K, then R):", ", ".join(repr(c) for c in row))
    for k, row in enumerate(erf_tail_absolute_fits()):
        print(f"kErfTail64 piece {k}:", ", ".join(repr(c) for c in row))
    for name, row in zip(("central", "tail", "deep"), guess):
        print(f"erfinv_guess {name}:", ", ".join(repr(c) for c in row))
    for name, row in zip(("kErfinvLogInverse", "kErfinvLogC", "kErfinvLog1p"), erfinv_log_tables()):
        print(f"{name}:", ", ".join(repr(c) for c in row))
    p_c, q_c, error = erfinv_central_rational()
    print("kErfinvRationalP:", ", ".join(repr(c) for c in p_c))
    print("kErfinvRationalQ:", ", ".join(repr(c) for c in q_c))
    print(f"largest relative error of erfinv's central rational (float64): {error:.2e}")
