"""The special functions and sign/exponent ops of kernels/special_math.h (digamma, lgamma, polygamma, i0,
special.i1, sinc, sgn, signbit, copysign, nextafter, xlogy, logaddexp, logaddexp2, heaviside, ldexp, deg2rad,
rad2deg, positive): float64 accuracy against mpmath's arbitrary-precision values, the special values and errors
against torch, and every dtype against torch. tests/test_ops.py and tests/test_autograd.py also cover each op from
its ops.yaml entry (dtypes, in-place and out= forms, gradients)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yaten
from helpers import from_torch, to_torch

mpmath = pytest.importorskip("mpmath")

INF, NAN = float("inf"), float("nan")


def _rel_error(got: float, exact) -> float:
    exact = float(exact)
    if math.isinf(exact) or exact == 0:
        return 0.0 if got == exact else math.inf
    return abs(got - exact) / abs(exact)


# Arguments spread over each function's domain, away from the poles, and mpmath's value at each (50 digits).
def _grid(low, high, count, seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([np.linspace(low, high, count), rng.uniform(low, high, count)])


CASES = {
    "digamma": (_grid(-30.5, 60, 300, 1), lambda x: mpmath.digamma(x), lambda t: yaten.digamma(t)),
    "lgamma": (_grid(-30.5, 170, 300, 2), lambda x: mpmath.log(abs(mpmath.gamma(x))), lambda t: yaten.lgamma(t)),
    "polygamma1": (_grid(-10.5, 60, 200, 3), lambda x: mpmath.polygamma(1, x), lambda t: yaten.polygamma(1, t)),
    "polygamma2": (_grid(0.01, 60, 200, 4), lambda x: mpmath.polygamma(2, x), lambda t: yaten.polygamma(2, t)),
    "polygamma5": (_grid(0.01, 40, 200, 5), lambda x: mpmath.polygamma(5, x), lambda t: yaten.polygamma(5, t)),
    "i0": (_grid(-700, 700, 300, 6), lambda x: mpmath.besseli(0, x), lambda t: yaten.i0(t)),
    "i1": (_grid(-700, 700, 300, 7), lambda x: mpmath.besseli(1, x), lambda t: yaten.special.i1(t)),
    "sinc": (_grid(-1e4, 1e4, 300, 8), lambda x: mpmath.sinpi(x) / (mpmath.pi * x) if x else mpmath.mpf(1), lambda t: yaten.sinc(t)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_values_agree_with_mpmath(name):
    xs, exact_fn, ours_fn = CASES[name]
    xs = np.array([x for x in xs if not (x <= 0 and x == math.floor(x))])  # no poles
    got = ours_fn(yaten.tensor(xs.tolist(), dtype=yaten.float64)).tolist()
    mpmath.mp.dps = 50
    worst = max(_rel_error(g, exact_fn(mpmath.mpf(float(x)))) for g, x in zip(got, xs))
    # digamma and lgamma lose relative accuracy only next to their zeros, which the grid may come near;
    # the bound is 2^-40 there and a few ulps elsewhere
    bound = {"digamma": 1e-12, "lgamma": 1e-12, "sinc": 1e-12}.get(name, 5e-15)
    assert worst <= bound, (name, worst)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", ["digamma", "lgamma", "i0", "sinc", "sgn"])
def test_unary_functions_match_torch_in_each_float_dtype(torch, name, dtype):
    gen = torch.Generator().manual_seed(len(name) + len(dtype))
    x = (torch.rand(400, generator=gen, dtype=torch.float64) * 40 - 20).to(getattr(torch, dtype))
    ours = getattr(yaten, name)(from_torch(x))
    assert ours.dtype == getattr(yaten, dtype)
    torch.testing.assert_close(to_torch(torch, ours), getattr(torch, name)(x), equal_nan=True,
                               rtol=1e-5 if dtype == "float32" else None, atol=1e-5 if dtype == "float32" else None)


def test_special_values_match_torch(torch):
    specials = [0.0, -0.0, -1.0, -2.0, -1.5, 1.0, 0.5, INF, -INF, NAN, 1e-30, -1e-30, 1e300, 715.0, -715.0, 700.0]
    x = torch.tensor(specials, dtype=torch.float64)
    y = from_torch(x)
    for name, ours, theirs in [
        ("digamma", yaten.digamma(y), torch.digamma(x)),
        ("lgamma", yaten.lgamma(y), torch.lgamma(x)),
        ("sgn", yaten.sgn(y), torch.sgn(x)),
        ("signbit", yaten.signbit(y), torch.signbit(x)),
    ]:
        torch.testing.assert_close(to_torch(torch, ours), theirs, equal_nan=True, rtol=1e-12, atol=1e-30, msg=name)
    # sinc: exact zeros at the integers, where torch's sin(pi x) leaves about 1e-17
    torch.testing.assert_close(to_torch(torch, yaten.sinc(y)), torch.sinc(x), equal_nan=True, rtol=1e-12, atol=1e-15)
    assert yaten.sinc(yaten.tensor([3.0, -7.0, 1e30, 1.0])).tolist() == [0.0, 0.0, 0.0, 0.0]
    # I0 and I1: at +-inf their limits (+inf; -inf for I1 at -inf) where torch's Chebyshev form gives NaN; near
    # their overflow (713.98...) finite where torch's overflows early; elsewhere torch's values
    finite = [v for v in specials if not math.isinf(v)]
    xf = torch.tensor(finite, dtype=torch.float64)
    torch.testing.assert_close(to_torch(torch, yaten.i0(from_torch(xf))), torch.i0(xf), equal_nan=True, rtol=1e-12,
                               atol=0)
    torch.testing.assert_close(to_torch(torch, yaten.special.i1(from_torch(xf))), torch.special.i1(xf),
                               equal_nan=True, rtol=1e-12, atol=0)
    assert yaten.i0(yaten.tensor([INF, -INF, 713.9], dtype=yaten.float64)).tolist()[:2] == [INF, INF]
    assert yaten.special.i1(yaten.tensor([INF, -INF], dtype=yaten.float64)).tolist() == [INF, -INF]
    assert math.isfinite(yaten.i0(yaten.tensor([713.9], dtype=yaten.float64)).item())  # I0(713.9) = 1.648e308
    # polygamma: torch's trigamma is accurate to about 1e-9 and finite at the poles (-1, -2, ...), and its higher
    # orders give NaN at +inf and -inf at -inf; here the poles are inf times the sign of (-1)^(n+1), the limit 0 at
    # +inf, NaN at -inf (docs/torch-differences.md); the rest agrees with torch to its accuracy (mpmath's values above
    # to a few ulps)
    for n in (1, 2, 3):
        ours, theirs = yaten.polygamma(n, y).tolist(), torch.polygamma(n, x).tolist()
        for v, o, t in zip(specials, ours, theirs):
            if math.isinf(v):
                assert (o == 0.0) if v > 0 else math.isnan(o), (n, v, o)
            elif v <= 0 and v == math.floor(v):
                assert o == (INF if n % 2 else -INF), (n, v, o)
            else:
                assert o == pytest.approx(t, rel=1e-8, nan_ok=True), (n, v, o, t)


def test_two_input_special_values_match_torch(torch):
    vals = [0.0, -0.0, 1.0, -1.0, 2.5, INF, -INF, NAN]
    a = torch.tensor([p for p in vals for _ in vals], dtype=torch.float64)
    b = torch.tensor([q for _ in vals for q in vals], dtype=torch.float64)
    ya, yb = from_torch(a), from_torch(b)
    for name in ["copysign", "nextafter", "xlogy", "logaddexp", "logaddexp2", "heaviside"]:
        ours, theirs = getattr(yaten, name)(ya, yb), getattr(torch, name)(a, b)
        # atol: logaddexp2(-1, -1) is exactly 0 here (a + 1 for equal operands), torch's -1e-16
        torch.testing.assert_close(to_torch(torch, ours), theirs, equal_nan=True, rtol=1e-15, atol=1e-15, msg=name)
    # signs of zeros
    assert [math.copysign(1, v) for v in yaten.copysign(ya, yb).tolist()] == \
        [math.copysign(1, v) for v in torch.copysign(a, b).tolist()]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_nextafter_steps_one_unit_in_the_dtype(torch, dtype):
    tdt = getattr(torch, dtype)
    x = torch.tensor([0.0, -0.0, 1.0, -1.0, 65504.0 if dtype == "float16" else 1e30, 1e-7, 3.0], dtype=tdt)
    for target in [torch.full_like(x, INF), torch.full_like(x, -INF), torch.zeros_like(x), x]:
        assert to_torch(torch, yaten.nextafter(from_torch(x), from_torch(target))).tolist() == \
            torch.nextafter(x, target).tolist()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float32"])
def test_integer_and_bool_inputs_promote_like_torch(torch, dtype):
    x = torch.tensor([0, 1, 1, 0], dtype=torch.int64).to(getattr(torch, dtype)) if dtype == "bool" else \
        torch.tensor([0, 3, 5, 2], dtype=getattr(torch, dtype))
    y = from_torch(x)
    for name in ["digamma", "lgamma", "i0", "sinc", "sgn", "signbit", "deg2rad", "rad2deg"]:
        if name in ("deg2rad",) and dtype == "bool":
            continue
        ours, theirs = getattr(yaten, name)(y), getattr(torch, name)(x)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name
        torch.testing.assert_close(to_torch(torch, ours), theirs, equal_nan=True, msg=name)
    for name in ["copysign", "xlogy", "ldexp"]:
        ours, theirs = getattr(yaten, name)(y, y), getattr(torch, name)(x, x)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name
        torch.testing.assert_close(to_torch(torch, ours), theirs, equal_nan=True, msg=name)


def test_complex_forms_match_torch(torch):
    z = torch.tensor([0j, 1 + 1j, -2.5 + 0.5j, 3j, -1e-3 - 2e-3j], dtype=torch.complex128)
    y = from_torch(z)
    torch.testing.assert_close(to_torch(torch, yaten.sgn(y)), torch.sgn(z))
    torch.testing.assert_close(to_torch(torch, yaten.sinc(y)), torch.sinc(z))
    w = torch.tensor([1 - 1j, 0.5j, 2 + 0j, -1 + 0j, 1e-3 + 0j], dtype=torch.complex128)
    torch.testing.assert_close(to_torch(torch, yaten.logaddexp(y, from_torch(w))), torch.logaddexp(z, w))


def test_scalar_forms_match_torch(torch):
    x = torch.tensor([0.0, -1.5, 2.0, 4.0])
    y = from_torch(x)
    torch.testing.assert_close(to_torch(torch, yaten.xlogy(y, 3)), torch.xlogy(x, 3))
    torch.testing.assert_close(to_torch(torch, yaten.xlogy(2, y)), torch.xlogy(2, x), equal_nan=True)
    torch.testing.assert_close(to_torch(torch, yaten.copysign(y, -1)), torch.copysign(x, -1))
    torch.testing.assert_close(to_torch(torch, y.polygamma(1)), x.polygamma(1))
    z = y.clone()
    z.polygamma_(2)
    torch.testing.assert_close(to_torch(torch, z), torch.polygamma(2, x))


def test_bad_inputs_raise_like_torch():
    f = yaten.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="polygamma.*negative n"):
        yaten.polygamma(-1, f)
    with pytest.raises(RuntimeError, match="heaviside.*different dtypes"):
        yaten.heaviside(f, yaten.tensor([1.0], dtype=yaten.float64))
    with pytest.raises(NotImplementedError, match="heaviside"):
        yaten.heaviside(f.to(yaten.complex64), f.to(yaten.complex64))
    with pytest.raises(NotImplementedError, match="signbit"):
        yaten.signbit(f.to(yaten.complex64))
    with pytest.raises(NotImplementedError, match="nextafter"):
        yaten.nextafter(yaten.tensor([1, 2]), yaten.tensor([2, 3]))
    with pytest.raises(NotImplementedError, match="logaddexp"):
        yaten.logaddexp(yaten.tensor([1, 2]), yaten.tensor([2, 3]))
    with pytest.raises(RuntimeError, match="deg2rad is not supported for complex"):
        yaten.deg2rad(f.to(yaten.complex64))
    with pytest.raises(RuntimeError, match="`\\+` operator, on a bool tensor"):
        yaten.positive(yaten.tensor([True]))
    with pytest.raises(NotImplementedError, match="ldexp.*bool"):
        yaten.ldexp(f, yaten.tensor([True, False]))
    with pytest.raises(RuntimeError, match="signbit does not support non-boolean outputs"):
        yaten.signbit(f, out=yaten.empty(2))
    with pytest.raises(RuntimeError, match="can't be cast"):
        yaten.tensor([1, 2]).polygamma_(1)
    p = yaten.positive(f)
    assert p.data_ptr() == f.data_ptr() and p.dtype == f.dtype


def test_in_place_and_out_forms(torch):
    x = torch.tensor([0.25, 1.5, -2.5, 3.0], dtype=torch.float64)
    for name in ["digamma", "lgamma", "i0", "sinc", "sgn", "deg2rad", "rad2deg"]:
        y = from_torch(x)
        getattr(y, name + "_")()
        torch.testing.assert_close(to_torch(torch, y), getattr(torch, name)(x), msg=name)
        out = yaten.empty(4, dtype=yaten.float64)
        assert getattr(yaten, name)(from_torch(x), out=out) is out
        torch.testing.assert_close(to_torch(torch, out), getattr(torch, name)(x), msg=name)
    y = from_torch(x)
    y.ldexp_(yaten.tensor([1, 2, 3, 4]))
    torch.testing.assert_close(to_torch(torch, y), torch.ldexp(x, torch.tensor([1, 2, 3, 4])))
    with pytest.raises(RuntimeError):
        yaten.tensor([1, 2]).deg2rad_()  # a float result cannot be written into int64


def test_gradients_at_the_awkward_points(torch):
    """Where the closed forms divide by zero (i1 and sinc at 0, sgn at 0, copysign at 0) the gradients are finite
    and torch's."""
    x = torch.tensor([0.0, 1e-20, 0.5, -2.0], dtype=torch.float64, requires_grad=True)
    for name, fn in [("i1", lambda lib, t: lib.special.i1(t)), ("sinc", lambda lib, t: lib.sinc(t)),
                     ("copysign", lambda lib, t: lib.copysign(t, -1.0)), ("xlogy", lambda lib, t: lib.xlogy(t, 2.0)),
                     ("i0", lambda lib, t: lib.i0(t))]:
        y = from_torch(x.detach()).requires_grad_()
        fn(yaten, y).sum().backward()
        (g,) = torch.autograd.grad(fn(torch, x).sum(), x)
        torch.testing.assert_close(to_torch(torch, y.grad), g, msg=name)
    z = torch.tensor([0j, 1 + 1j, -2 + 0.5j], dtype=torch.complex128, requires_grad=True)
    yz = from_torch(z.detach()).requires_grad_()
    seed = torch.tensor([1 - 1j, 0.5 + 2j, -1j], dtype=torch.complex128)
    yaten.sgn(yz).backward(from_torch(seed))
    (g,) = torch.autograd.grad(torch.sgn(z), z, seed)
    torch.testing.assert_close(to_torch(torch, yz.grad), g)
    # heaviside: the step's gradient reaches `values` where self is 0, and self gets zeros
    x = yaten.tensor([0.0, 1.5, -2.0, 0.0], dtype=yaten.float64).requires_grad_()
    v = yaten.tensor([0.25, 0.5, 0.75, 1.0], dtype=yaten.float64).requires_grad_()
    yaten.heaviside(x, v).sum().backward()
    assert v.grad.tolist() == [1.0, 0.0, 0.0, 1.0] and x.grad.tolist() == [0.0] * 4


def test_polygamma_of_large_negative_arguments_is_quick_and_right():
    """Summing the Hurwitz zeta series from a negative q up took |q| steps (a hang at -1e15 + 0.5); the reflection
    into three sums over positive arguments costs the same at any q."""
    mpmath.mp.dps = 40
    xs = [-1.5, -0.001, -7.75, -123.456, -30.7]
    for n in (1, 2, 3, 7):
        got = yaten.polygamma(n, yaten.tensor(xs, dtype=yaten.float64)).tolist()
        for x, g in zip(xs, got):
            assert _rel_error(g, mpmath.polygamma(n, x)) <= 1e-12, (n, x, g)
    # trigamma(x) + trigamma(1 - x) = pi^2 / sin^2(pi x): at x = -1e15 + 1/2, pi^2 less trigamma(1e15 + 1/2) ~ 1e-15
    far = yaten.polygamma(1, yaten.tensor([-1e15 + 0.5, -2.0**52 + 0.5], dtype=yaten.float64)).tolist()
    assert far == pytest.approx([math.pi**2, math.pi**2], rel=1e-14)
