"""torch.special's Bessel, Airy, error-function, incomplete-gamma and polynomial functions
(kernels/special_functions.h): float64 accuracy against mpmath's arbitrary-precision values over each function's
range (every method the header switches between: series, continued fractions, asymptotic expansions), the special
values and dtypes against torch, the gradients torch defines, and bounded work for hostile degrees and arguments.
tests/test_ops.py and tests/test_autograd.py cover each op from its ops.yaml entry as well."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yaten
from helpers import from_torch, to_torch

mpmath = pytest.importorskip("mpmath")

INF, NAN = float("inf"), float("nan")
S = yaten.special


def _grid(low, high, count, seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([np.linspace(low, high, count), rng.uniform(low, high, count)])


def _log_grid(low, high, count, seed):
    return np.exp(_grid(math.log(low), math.log(high), count, seed))


def _erfcx(x):
    if x > 1e6:  # mpmath's erfc cannot go this far; the asymptotic series' third term is below 1e-36 here
        return (1 - 1 / (2 * x * x)) / (x * mpmath.sqrt(mpmath.pi))
    return mpmath.exp(x * x) * mpmath.erfc(x)


# name -> (arguments, mpmath's function, ours, tolerance). The tolerance is relative to max(|exact|, floor): the
# oscillating functions (J, Y, Ai for x < 0) are accurate to a few ulps of their envelope, not of their value next
# to a zero, which no fixed-precision method near an unknown zero gives.
def _besselk_scaled(order):
    return lambda x: mpmath.exp(x) * mpmath.besselk(order, x)


def _besseli_scaled(order):
    return lambda x: mpmath.exp(-abs(x)) * mpmath.besseli(order, x)


def _wide_and_far(low, high, seed):  # a uniform grid and a logarithmic one out to 1e6
    return np.concatenate([_grid(low, high, 300, seed), _log_grid(1e-8, 1e6, 200, seed + 1)])


UNARY = {
    "airy_ai": (np.concatenate([_grid(-1000, 2.5, 300, 1), _grid(2.5, 100, 200, 2)]), mpmath.airyai, 1e-13, 1e-13),
    "bessel_j0": (_wide_and_far(-40, 40, 3), lambda x: mpmath.besselj(0, x), 1e-14, 3e-14),
    "bessel_j1": (_wide_and_far(-40, 40, 5), lambda x: mpmath.besselj(1, x), 1e-14, 3e-14),
    "bessel_y0": (_wide_and_far(1e-3, 40, 7), lambda x: mpmath.bessely(0, x), 1e-14, 3e-14),
    "bessel_y1": (_wide_and_far(1e-3, 40, 9), lambda x: mpmath.bessely(1, x), 1e-14, 3e-14),
    "modified_bessel_k0": (_log_grid(1e-10, 700, 400, 11), lambda x: mpmath.besselk(0, x), 1e-14, 0),
    "modified_bessel_k1": (_log_grid(1e-10, 700, 400, 12), lambda x: mpmath.besselk(1, x), 1e-14, 0),
    "scaled_modified_bessel_k0": (_log_grid(1e-10, 1e8, 400, 13), _besselk_scaled(0), 1e-14, 0),
    "scaled_modified_bessel_k1": (_log_grid(1e-10, 1e8, 400, 14), _besselk_scaled(1), 1e-14, 0),
    "i0e": (_grid(-3000, 3000, 300, 15), _besseli_scaled(0), 1e-14, 0),
    "i1e": (_grid(-3000, 3000, 300, 16), _besseli_scaled(1), 1e-14, 0),
    "spherical_bessel_j0": (np.concatenate([_grid(-50, 50, 300, 17), _log_grid(1e-9, 1e-2, 50, 18)]),
                            lambda x: mpmath.sin(x) / x, 1e-14, 1e-15),
    "erfcx": (np.concatenate([_grid(-26, 30, 300, 19), _log_grid(1e-3, 1e300, 200, 20)]), _erfcx, 1e-14, 0),
    "log_ndtr": (np.concatenate([_grid(-40, 8, 300, 21), -_log_grid(1, 1e150, 100, 22)]),
                 lambda x: mpmath.log(mpmath.ncdf(x)), 1e-14, 0),
    "entr": (_log_grid(1e-300, 1e300, 200, 25), lambda x: -x * mpmath.log(x), 1e-15, 0),
}


def _check(got, xs, exact_fn, rtol, floor, dps=40):
    mpmath.mp.dps = dps
    worst, where = 0.0, None
    for g, x in zip(got, xs):
        exact = exact_fn(*[mpmath.mpf(float(v)) for v in (x if isinstance(x, tuple) else (x,))])
        exact = float(exact)
        scale = max(abs(exact), floor)
        error = 0.0 if g == exact else (abs(g - exact) / scale if scale else math.inf)
        if error > worst:
            worst, where = error, (x, g, exact)
    assert worst <= rtol, (worst, where)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float64_values_agree_with_mpmath(name):
    xs, exact_fn, rtol, floor = UNARY[name]
    ours_fn = getattr(S, name)
    # the oscillating functions: the envelope of J, Y is sqrt(2 / (pi x)), of Ai(-x) x^(-1/4) / sqrt(pi)
    got = ours_fn(yaten.tensor(xs.tolist(), dtype=yaten.float64)).tolist()
    if floor:
        envelope = {
            "airy_ai": lambda x: max(1.0, -x) ** -0.25 if x < 0 else 0.0,
            "spherical_bessel_j0": lambda x: min(1.0, 1 / abs(x)),
        }.get(name, lambda x: min(1.0, math.sqrt(2 / (math.pi * abs(x)))) if x else 1.0)
        mpmath.mp.dps = 40
        for g, x in zip(got, xs):
            exact = float(exact_fn(mpmath.mpf(float(x))))
            assert abs(g - exact) <= max(rtol * abs(exact), floor * envelope(x)), (name, x, g, exact)
    else:
        _check(got, xs, exact_fn, rtol, 0.0)


def test_ndtri_inverts_mpmaths_ndtr():
    # mpmath has no inverse: the root of log ncdf(t) = log p, found by mpmath from yaten's value, is the reference
    p = np.concatenate([_grid(1e-6, 1 - 1e-6, 200, 23), _log_grid(1e-300, 1e-3, 100, 24),
                        1 - _log_grid(1e-16, 1e-3, 30, 25)])
    got = S.ndtri(yaten.tensor(p.tolist(), dtype=yaten.float64)).tolist()
    mpmath.mp.dps = 40
    for g, pi in zip(got, p.tolist()):
        # ncdf(x) = p, or in the upper half ncdf(-x) = 1 - p, solved in logarithms
        lower = pi < 0.5
        target = mpmath.log(mpmath.mpf(pi)) if lower else mpmath.log1p(-mpmath.mpf(pi))
        exact = float(mpmath.findroot(lambda t: mpmath.log(mpmath.ncdf(t if lower else -t)) - target, mpmath.mpf(g)))
        # the rounding of p itself moves the quantile by up to eps p / phi(x): 3e-16 near p = 1/2
        assert abs(g - exact) <= 2e-15 * abs(exact) + 3e-16, (pi, g, exact)


def test_oscillating_functions_far_out_agree_with_mpmath():
    mpmath.mp.dps = 400
    for name, order in [("bessel_j0", 0), ("bessel_j1", 1), ("bessel_y0", 0), ("bessel_y1", 1)]:
        for x in [1e20, 1e100, 1e300]:
            exact = float((mpmath.besselj if "j" in name[-2] else mpmath.bessely)(order, mpmath.mpf(x)))
            got = getattr(S, name)(yaten.tensor([x], dtype=yaten.float64)).item()
            assert abs(got - exact) <= 1e-14 * math.sqrt(2 / (math.pi * x)), (name, x, got, exact)
    for x in [-750.0, -1e4, -1e6]:
        exact = float(mpmath.airyai(mpmath.mpf(x)))
        got = S.airy_ai(yaten.tensor([x], dtype=yaten.float64)).item()
        assert abs(got - exact) <= 1e-13 * abs(x) ** -0.25, (x, got, exact)


def test_incomplete_gamma_agrees_with_mpmath():
    rng = np.random.default_rng(30)
    a = np.exp(rng.uniform(math.log(1e-3), math.log(1e4), 400))
    x = a * np.exp(rng.uniform(-3, 3, 400))
    # both sides of x = a + 1 (the series and the continued fraction), and tiny a, where Q ~ a E1(x) is small while P
    # is near 1 (Q from the power series of gamma(a, x), not 1 - P)
    a = np.concatenate([a, [1e-30, 1e-30, 1e-30, 1e-10, 1e-10, 0.19, 0.3]])
    x = np.concatenate([x, [0.5, 1e-30, 1.5, 0.25, 1.0, 0.23, 1e-5]])
    lower = S.gammainc(yaten.tensor(a.tolist(), dtype=yaten.float64), yaten.tensor(x.tolist(), dtype=yaten.float64))
    upper = S.gammaincc(yaten.tensor(a.tolist(), dtype=yaten.float64), yaten.tensor(x.tolist(), dtype=yaten.float64))
    pairs = list(zip(a.tolist(), x.tolist()))
    # P and Q are each relative-accurate where they are the smaller of the two; the larger one (near 1) to 1e-15
    _check(lower.tolist(), pairs, lambda s, t: mpmath.gammainc(s, 0, t, regularized=True), 1e-10, 1e-6)
    _check(upper.tolist(), pairs, lambda s, t: mpmath.gammainc(s, t, mpmath.inf, regularized=True), 1e-10, 1e-6)


def test_incomplete_gamma_for_huge_a_agrees_with_scipy():
    # Temme's expansion (a > 1e8 near x = a), where mpmath's series do not converge: SciPy's own Temme expansion
    special = pytest.importorskip("scipy.special")
    big = np.array([1e5, 3e6, 3e8, 1e9, 1e10, 1e12, 5e14])  # the series below 1e7, Temme's above
    a = np.concatenate([big] * 5)
    x = np.concatenate([big * (1 + 1e-5), big * (1 - 0.02), big * 1.2, big - np.sqrt(big), big + 2 * np.sqrt(big)])
    ta, tx = yaten.tensor(a.tolist(), dtype=yaten.float64), yaten.tensor(x.tolist(), dtype=yaten.float64)
    np.testing.assert_allclose(S.gammainc(ta, tx).tolist(), special.gammainc(a, x), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(S.gammaincc(ta, tx).tolist(), special.gammaincc(a, x), rtol=1e-10, atol=1e-300)


def test_zeta_and_xlog1py_agree_with_mpmath():
    rng = np.random.default_rng(31)
    s = rng.uniform(1.01, 40, 200)
    q = np.exp(rng.uniform(-5, 8, 200))
    got = S.zeta(yaten.tensor(s.tolist(), dtype=yaten.float64), yaten.tensor(q.tolist(), dtype=yaten.float64))
    # mpmath's own zeta needs many digits: at 40 its zeta(20, 248) is off in the 10th digit, at 80 its
    # zeta(34.7, 854.7) in the 11th
    _check(got.tolist(), list(zip(s.tolist(), q.tolist())), mpmath.zeta, 1e-13, 0.0, dps=200)
    x = rng.uniform(-5, 5, 200)
    y = np.exp(rng.uniform(-30, 30, 200)) - 1
    got = S.xlog1py(yaten.tensor(x.tolist(), dtype=yaten.float64), yaten.tensor(y.tolist(), dtype=yaten.float64))
    _check(got.tolist(), list(zip(x.tolist(), y.tolist())), lambda a, b: a * mpmath.log1p(b), 1e-14, 0.0)


def _chebyshev_v(n, x):
    return mpmath.chebyu(n, x) - (mpmath.chebyu(n - 1, x) if n else 0)


def _chebyshev_w(n, x):
    return mpmath.chebyu(n, x) + (mpmath.chebyu(n - 1, x) if n else 0)


POLYNOMIALS = {
    "chebyshev_polynomial_t": lambda n, x: mpmath.chebyt(n, x),
    "chebyshev_polynomial_u": lambda n, x: mpmath.chebyu(n, x),
    "chebyshev_polynomial_v": _chebyshev_v,
    "chebyshev_polynomial_w": _chebyshev_w,
    "shifted_chebyshev_polynomial_t": lambda n, x: mpmath.chebyt(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_u": lambda n, x: mpmath.chebyu(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_v": lambda n, x: _chebyshev_v(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_w": lambda n, x: _chebyshev_w(n, 2 * x - 1),
    "hermite_polynomial_h": lambda n, x: mpmath.hermite(n, x),
    "hermite_polynomial_he": lambda n, x: mpmath.hermite(n, x / mpmath.sqrt(2)) / mpmath.power(2, mpmath.mpf(n) / 2),
    "laguerre_polynomial_l": lambda n, x: mpmath.laguerre(n, 0, x),
    "legendre_polynomial_p": lambda n, x: mpmath.legendre(n, x),
}


@pytest.mark.parametrize("name", sorted(POLYNOMIALS))
def test_polynomials_agree_with_mpmath(name):
    rng = np.random.default_rng(len(name))
    shifted = name.startswith("shifted")
    low, high = (0.0, 1.0) if shifted else (-1.0, 1.0)
    # inside the orthogonality interval (the recurrence and, from degree 7, the trigonometric forms) and outside it
    # (the recurrence, and from degree 65 the hyperbolic forms of the Chebyshev polynomials)
    x = np.concatenate([rng.uniform(low, high, 150), rng.uniform(high, high + 0.5, 50),
                        rng.uniform(low - 0.5, low, 50)])
    n = rng.integers(0, 120, x.size).astype(np.float64)
    mpmath.mp.dps = 60
    got = getattr(S, name)(yaten.tensor(x.tolist(), dtype=yaten.float64), yaten.tensor(n.tolist(), dtype=yaten.float64))
    worst = 0.0
    for g, xi, ni in zip(got.tolist(), x.tolist(), n.tolist()):
        exact = float(POLYNOMIALS[name](int(ni), mpmath.mpf(xi)))
        if math.isinf(exact):
            assert g == exact or math.isnan(g), (xi, ni, g, exact)
            continue
        # the scale of the polynomial near x: a value next to one of its zeros is accurate to the scale, not to itself
        neighbours = [abs(float(POLYNOMIALS[name](int(ni), mpmath.mpf(xi) + d))) for d in (-1e-3, 1e-3)]
        scale = max([abs(exact), 1.0] + neighbours)
        worst = max(worst, abs(g - exact) / scale)
    assert worst <= 1e-11, (name, worst)


def test_polynomial_conventions_match_torch(torch):
    x = torch.tensor([0.3, -1.0, 1.0, 2.0, -2.0, 0.0, -0.7, 1.5, NAN, INF, -INF], dtype=torch.float64)
    n = torch.tensor([-1.0, 2.5, 3.0, 7.0, 5.0, 9.0, 12.9, 0.0, 3.0, 2.0, 3.0], dtype=torch.float64)
    for name in POLYNOMIALS:
        ours = getattr(S, name)(from_torch(x), from_torch(n))
        theirs = getattr(torch.special, name)(x, n)
        theirs[8] = NAN  # torch's U_3(NaN) and W_3(NaN) are 1.0; yaten's are NaN (docs/torch-differences.md)
        torch.testing.assert_close(to_torch(torch, ours), theirs, equal_nan=True, rtol=1e-12, atol=0, msg=name)
        # the Scalar forms, and integer degrees promote to float32 as torch's do
        assert getattr(S, name)(0.5, yaten.tensor([1, 2])).dtype == yaten.float32
        assert getattr(S, name)(from_torch(x), 3).dtype == yaten.float64
        assert getattr(S, name)(yaten.tensor([1, 2]), yaten.tensor([3, 4])).dtype == yaten.float32


@pytest.mark.parametrize("name", ["hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
                                  "legendre_polynomial_p", "chebyshev_polynomial_t", "chebyshev_polynomial_w"])
def test_huge_degrees_take_bounded_work(name):
    # each of these would be 9e18 steps of a recurrence per element (torch's loop): yaten's stop early or switch to
    # a closed form, so this returns at once
    x = yaten.tensor([0.5, -0.3, 0.0, 3.0, -2.0, 1e-300], dtype=yaten.float64)
    r = getattr(S, name)(x, yaten.full([6], 9.0e18, dtype=yaten.float64))
    assert r.shape == (6,)


SPECIALS = [0.0, -0.0, -1.0, -2.0, 0.5, 1.0, 2.0, 1e-300, -1e-300, 1e-10, 30.0, 700.0, 750.0, -750.0, 1e300, -1e300,
            INF, -INF, NAN]


@pytest.mark.parametrize("name", sorted(UNARY) + ["ndtri"])
def test_special_values_match_torch(torch, name):
    specials = SPECIALS + ([0.25, 0.75, 1 - 1e-16] if name == "ndtri" else [])
    if name.startswith("bessel_") or name == "airy_ai":
        # far out, torch's phase x - pi/4 (or 2/3 x^1.5 - pi/4) has lost its digits: mpmath is the reference there
        # (test_oscillating_functions_far_out_agree_with_mpmath)
        specials = [v for v in specials if abs(v) < 700 or math.isinf(v)]
    x = torch.tensor(specials, dtype=torch.float64)
    ours = to_torch(torch, getattr(S, name)(from_torch(x)))
    theirs = getattr(torch.special, name)(x)
    torch.testing.assert_close(ours, theirs, equal_nan=True, rtol=1e-12, atol=1e-300)


def test_binary_special_values_match_torch(torch):
    a = torch.tensor([0.0, 1.0, -1.0, 2.0, INF, 0.0, 3.0, INF, NAN, 0.5, 2.0, 1.0], dtype=torch.float64)
    b = torch.tensor([1.0, 0.0, 1.0, INF, 1.0, 0.0, 2.0, INF, 1.0, NAN, -1.5, 0.25], dtype=torch.float64)
    for name in ["gammainc", "gammaincc", "zeta", "xlog1py"]:
        ours = to_torch(torch, getattr(S, name)(from_torch(a), from_torch(b)))
        theirs = getattr(torch.special, name)(a, b)
        if name == "zeta":
            # zeta(s, inf) is 0 and zeta(inf, q) is 0, 1 or inf for q > 1, = 1, < 1 (one term q^-s survives, or none);
            # torch's are NaN but for zeta(inf, 1) (docs/torch-differences.md)
            assert ours[[3, 4, 7]].tolist() == [0.0, 1.0, 0.0] and math.isnan(theirs[3]) and theirs[4] == 1
            theirs[[3, 7]] = 0.0
        torch.testing.assert_close(ours, theirs, equal_nan=True, rtol=1e-12, atol=1e-300, msg=name)
    # a tiny a: Q(a, x) ~ a E1(x), which torch's misses (7.97e-301 for a = 1e-300, x = 1, and P = 1 + 2.4e-14)
    mpmath.mp.dps = 40
    q = S.gammaincc(yaten.tensor([1e-300], dtype=yaten.float64), yaten.tensor([1.0], dtype=yaten.float64)).item()
    assert abs(q - float(mpmath.gammainc(mpmath.mpf(1e-300), 1, mpmath.inf, regularized=True))) <= 4e-15 * q
    one = yaten.tensor([1.0], dtype=yaten.float64)
    assert S.gammainc(yaten.tensor([1e-300], dtype=yaten.float64), one).item() == 1.0
    assert yaten.igamma is not None and S.gammainc(yaten.tensor([2.0]), yaten.tensor([1.0])).allclose(
        yaten.tensor([2.0]).igamma(yaten.tensor([1.0])))


# torch's dtypes: float32 and float64 for most, the 16-bit floats too for i0e, i1e and entr (and xlog1py, igamma)
LOWER = [(name, "float32") for name in ["airy_ai", "bessel_j0", "bessel_y1", "modified_bessel_k0", "erfcx", "ndtri",
                                        "log_ndtr", "spherical_bessel_j0"]]
LOWER += [(name, dtype) for name in ["i0e", "i1e", "entr"] for dtype in ["float16", "bfloat16", "float32"]]


@pytest.mark.parametrize(("name", "dtype"), LOWER)
def test_lower_precision_dtypes_round_the_float64_value(name, dtype):
    # every dtype computes in double and rounds once: the result is the float64 result rounded to the dtype
    x = yaten.tensor(np.random.default_rng(3).uniform(0.01, 0.99 if name == "ndtri" else 20, 300).tolist(),
                     dtype=getattr(yaten, dtype))
    ours = getattr(S, name)(x)
    assert ours.dtype == getattr(yaten, dtype)
    exact = getattr(S, name)(x.to(yaten.float64)).to(getattr(yaten, dtype))
    assert yaten.equal(ours, exact) or bool(yaten.isnan(ours).eq(yaten.isnan(exact)).all()) and bool(
        yaten.where(yaten.isnan(exact), 0.0, ours.to(yaten.float64) - exact.to(yaten.float64)).eq(0).all())


def test_dtypes_torch_lacks_raise_as_torchs_do():
    with pytest.raises(NotImplementedError, match="airy_ai"):
        S.airy_ai(yaten.ones(2, dtype=yaten.float16))
    with pytest.raises(NotImplementedError, match="igamma"):
        S.gammainc(yaten.ones(2, dtype=yaten.int64), yaten.ones(2, dtype=yaten.int64))
    assert S.bessel_j0(yaten.tensor([1, 2])).dtype == yaten.float32  # integers promote


def test_modified_bessel_i_are_the_i0_and_i1_ops():
    x = yaten.tensor([-3.0, 0.5, 40.0], dtype=yaten.float64)
    assert yaten.equal(S.modified_bessel_i0(x), yaten.i0(x))
    assert yaten.equal(S.modified_bessel_i1(x), S.i1(x))


def test_gradients_agree_with_torch(torch):
    for name, values in [("i0e", [-3.0, -0.5, 0.0, 0.7, 40.0]), ("i1e", [-3.0, -0.5, 0.0, 0.7, 40.0]),
                         ("erfcx", [-3.0, 0.0, 0.5, 20.0]), ("ndtri", [0.01, 0.3, 0.5, 0.9]),
                         ("log_ndtr", [-30.0, -2.0, 0.0, 3.0]), ("entr", [0.1, 1.0, 3.0])]:
        ours = yaten.tensor(values, dtype=yaten.float64, requires_grad=True)
        theirs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        getattr(S, name)(ours).sum().backward()
        getattr(torch.special, name)(theirs).sum().backward()
        torch.testing.assert_close(to_torch(torch, ours.grad), theirs.grad, rtol=1e-10, atol=1e-12, msg=name)
    for name in ["gammainc", "gammaincc", "xlog1py"]:
        a = yaten.tensor([1.5, 0.0, 2.0], dtype=yaten.float64, requires_grad=name == "xlog1py")
        b = yaten.tensor([0.7, -1.0, 3.0] if name == "xlog1py" else [0.7, 1.0, 3.0], dtype=yaten.float64,
                         requires_grad=True)
        ta, tb = (torch.tensor(t.tolist(), dtype=torch.float64, requires_grad=t.requires_grad) for t in (a, b))
        getattr(S, name)(a, b).sum().backward()
        getattr(torch.special, name)(ta, tb).sum().backward()
        torch.testing.assert_close(to_torch(torch, b.grad), tb.grad, rtol=1e-10, atol=1e-12, msg=name, equal_nan=True)
        if name == "xlog1py":
            torch.testing.assert_close(to_torch(torch, a.grad), ta.grad, rtol=1e-10, atol=1e-12, msg=name)


def test_zeta_gradient_in_q_and_the_unimplemented_ones():
    s = yaten.tensor([2.0, 3.5], dtype=yaten.float64)
    q = yaten.tensor([1.5, 0.25], dtype=yaten.float64, requires_grad=True)
    assert yaten.autograd.gradcheck(lambda t: S.zeta(s, t), (q,))
    # torch has no derivative in zeta's or igamma's first argument: neither has yaten, and it says so
    for fn in [S.zeta, S.gammainc, S.gammaincc]:
        a = yaten.tensor([2.0], dtype=yaten.float64, requires_grad=True)
        with pytest.raises(NotImplementedError, match="first argument"):
            fn(a, yaten.tensor([1.5], dtype=yaten.float64)).backward()


def test_bessel_airy_and_polynomials_carry_no_gradient():
    x = yaten.tensor([0.5], requires_grad=True)
    for r in [S.bessel_j0(x), S.airy_ai(x), S.chebyshev_polynomial_t(x, 3)]:
        assert not r.requires_grad


def test_on_cuda_they_run_a_cuda_kernel():
    if not yaten.cuda.is_available():
        pytest.skip("no CUDA device")
    x = yaten.linspace(-5, 30, 1000, dtype=yaten.float64)
    for name in sorted(UNARY):
        fn = getattr(S, name)
        arg = x.abs() / 40 if name == "ndtri" else x
        assert yaten.allclose(fn(arg.cuda()).cpu(), fn(arg), rtol=1e-12, atol=1e-300, equal_nan=True), name
    for name in POLYNOMIALS:
        n = yaten.arange(1000, dtype=yaten.float64) % 90
        fn = getattr(S, name)
        assert yaten.allclose(fn((x / 30).cuda(), n.cuda()).cpu(), fn(x / 30, n), rtol=1e-10, equal_nan=True), name
