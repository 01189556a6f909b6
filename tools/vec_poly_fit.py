"""The coefficients of iter/vec.h's fitted polynomials, reproduced: a weighted least-squares fit in float64 on
Chebyshev nodes, rounded to float32, and the fit's largest error in float32 ulps of the function.

    python tools/vec_poly_fit.py

log: log(1 + f) = f - f^2/2 + f^3 P(f) for f = m - 1, m in [sqrt(1/2), sqrt(2)); P of degree 7, weighted by the f^3
term's share of the result (the error that matters is relative to log(1 + f)). atan on [0, 1] (degree 8 in x^2),
asin on [0, 1/2] (degree 5), tan on [0, pi/4] (degree 6), sinh on [0, 1] (degree 3): x + x^3 P(x^2), weighted
alike. erf, whose polynomials are evaluated in float64: erf(x)/x in u = 2x^2 - 1 on [0, 1] (degree 9) and erf(x) in
u = (x - 2.46) / 1.46 on [1, 3.92] (degree 19), Chebyshev interpolants turned into power series of u. lgamma's
(iter/vec_gamma.h, float64 too, fitted to mpmath's values): lgamma(2 + t) / t in u = 2t on [-1/2, 1/2] (degree 11),
(2 atanh(s) - 2s) / s^3 in s^2 on [0, ((sqrt 2 - 1) / (sqrt 2 + 1))^2] (degree 5), sin(pi r) / r in r^2 on [0, 1/4]
(degree 6)."""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev


def fit_log(degree: int = 7, nodes: int = 4000) -> tuple[list[float], float]:
    lo, hi = np.sqrt(0.5) - 1, np.sqrt(2) - 1
    t = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    f = (lo + hi) / 2 + (hi - lo) / 2 * t
    f = f[np.abs(f) > 1e-3]
    target = (np.log1p(f) - f + f * f / 2) / f**3
    weight = np.abs(f**3 / np.log1p(f))
    basis = np.vander(f, degree + 1, increasing=True)
    coefficients, *_ = np.linalg.lstsq(basis * weight[:, None], target * weight, rcond=None)
    c32 = coefficients.astype(np.float32).astype(np.float64)
    approx = f - f * f / 2 + f**3 * np.polyval(c32[::-1], f)
    error = np.max(np.abs(approx - np.log1p(f)) / np.abs(np.log1p(f))) / 2.0**-24
    return [float(c) for c in coefficients.astype(np.float32)], float(error)


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
    """fit_chebyshev with fn an mpmath function of one mpf (values exact to float64), error checked on 3000 points."""
    import mpmath

    mpmath.mp.dps = 40

    def values(x):
        return np.array([float(fn(mpmath.mpf(float(v)))) for v in x])

    u = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    series = chebyshev.cheb2poly(chebyshev.chebfit(u, values((a + b) / 2 + (b - a) / 2 * u), degree))
    x = np.linspace(a, b, 3000)
    exact = values(x)
    approx = np.polynomial.polynomial.polyval((x - (a + b) / 2) / ((b - a) / 2), series)
    return [float(c) for c in series], float(np.max(np.abs(approx - exact) / np.abs(exact)))


def lgamma_fits():
    import mpmath

    def near_two(t):  # lgamma(2 + t) / t, psi(2) = 1 - Euler's gamma at 0
        return mpmath.loggamma(2 + t) / t if t != 0 else 1 - mpmath.euler

    def atanh_rest(z):  # (2 atanh(s) - 2s) / s^3 for z = s^2
        s = mpmath.sqrt(z)
        return (2 * mpmath.atanh(s) - 2 * s) / (s * z) if z != 0 else mpmath.mpf(2) / 3

    def sin_pi(z):  # sin(pi r) / r for z = r^2
        r = mpmath.sqrt(z)
        return mpmath.sin(mpmath.pi * r) / r if z != 0 else mpmath.pi

    square_max = float(((np.sqrt(2) - 1) / (np.sqrt(2) + 1)) ** 2)
    return [("lgamma(2 + t) / t in u = 2t", fit_chebyshev_mp(near_two, -0.5, 0.5, 11)),
            (f"(2 atanh(s) - 2s) / s^3 in u = s^2 / {square_max / 2!r} - 1",
             fit_chebyshev_mp(atanh_rest, 0.0, square_max, 5)),
            ("sin(pi r) / r in u = 8 r^2 - 1", fit_chebyshev_mp(sin_pi, 0.0, 0.25, 6))]


def erf_over_x_of_square(z):
    root = np.sqrt(z)
    return np.where(z > 0, np.vectorize(math.erf)(root) / np.where(z > 0, root, 1.0), 2 / math.sqrt(math.pi))


if __name__ == "__main__":
    coefficients, error = fit_log()
    print("log P(f), lowest degree first:", ", ".join(f"{c!r}f" for c in coefficients))
    print(f"largest error of the fit: {error:.3f} ulp of log(1 + f)")
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
