"""complex64 and complex128: the dtypes, promotion, construction and conversion (Python, NumPy, DLPack), printing,
the views between complex and real numbers, the ops that take complex numbers, and their gradients, against NumPy
and torch."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import yaten
from helpers import from_torch, to_torch, warn_always

COMPLEX = ["complex64", "complex128"]


def crandn(shape, seed, dtype="complex128"):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def y(array):
    return yaten.tensor(array.tolist(), dtype=getattr(yaten, str(array.dtype)))


def assert_np(t, expected, rtol=1e-6, atol=1e-6):
    got = t.numpy()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------------------------------- the dtypes


def test_complex_dtypes_and_their_attributes():
    assert yaten.cfloat is yaten.complex64 and yaten.cdouble is yaten.complex128
    assert repr(yaten.complex64) == "yaten.complex64"
    assert yaten.complex64.is_complex and yaten.complex128.is_complex and not yaten.float32.is_complex
    assert not yaten.complex64.is_floating_point
    assert yaten.complex64.itemsize == 8 and yaten.complex128.itemsize == 16
    t = yaten.zeros(3, dtype=yaten.complex64)
    assert t.is_complex() and not t.is_floating_point()
    assert t.tolist() == [0j, 0j, 0j]
    assert yaten.ones(2, dtype=yaten.complex128).tolist() == [1 + 0j, 1 + 0j]
    assert yaten.full((2,), 1 - 2j).dtype == yaten.complex64
    assert yaten.full((2,), 1 - 2j).tolist() == [1 - 2j, 1 - 2j]


def test_python_complex_numbers_make_the_default_complex_dtype():
    t = yaten.tensor([1 + 2j, 3, 0.5])
    assert t.dtype == yaten.complex64
    assert t.tolist() == [1 + 2j, 3 + 0j, 0.5 + 0j]
    assert yaten.tensor(2j).item() == 2j
    assert yaten.tensor([[1j]], dtype=yaten.complex128).dtype == yaten.complex128
    previous = yaten.get_default_dtype()
    yaten.set_default_dtype(yaten.float64)
    try:
        assert yaten.tensor([1j]).dtype == yaten.complex128
    finally:
        yaten.set_default_dtype(previous)
    with pytest.raises(TypeError, match="can't convert complex to float32"):
        yaten.tensor([1j, 2], dtype=yaten.float32)


def _name(torch_dtype) -> str:
    name = str(torch_dtype).split(".")[1]
    return "complex64" if name == "complex32" else name  # yaten has no complex32 (docs/torch-differences.md)


def test_promotion_with_complex_matches_torch(torch):
    names = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
    for a, b in itertools.product(names, repeat=2):
        ta, tb = torch.ones(2, dtype=getattr(torch, a)), torch.ones(2, dtype=getattr(torch, b))
        ya, yb = yaten.ones(2, dtype=getattr(yaten, a)), yaten.ones(2, dtype=getattr(yaten, b))
        expected = _name(torch.result_type(ta, tb))
        assert repr(yaten.result_type(ya, yb)) == f"yaten.{expected}", (a, b)
        # a 0-dim complex tensor beside a dimensioned one, and a Python complex number
        expected = _name(torch.result_type(ta, torch.tensor(1j, dtype=getattr(torch, "complex128"))))
        assert repr(yaten.result_type(ya, yaten.tensor(1j, dtype=yaten.complex128))) == f"yaten.{expected}", a
        expected = _name(torch.result_type(ta, 1j))
        assert repr(yaten.result_type(ya, 1j)) == f"yaten.{expected}", a


def test_numpy_interop_shares_memory_both_ways():
    for dtype in COMPLEX:
        a = crandn((3, 4), 1, dtype)
        t = yaten.from_numpy(a)
        assert t.dtype == getattr(yaten, dtype)
        assert t.tolist() == a.tolist()
        a[0, 0] = 5 - 5j
        assert t[0, 0].item() == 5 - 5j
        back = t.numpy()
        assert back.dtype == a.dtype
        np.testing.assert_array_equal(back, a)
        strided = yaten.from_numpy(a)[:, ::2]
        np.testing.assert_array_equal(strided.numpy(), a[:, ::2])
    assert yaten.tensor(np.array([1 + 1j], dtype=np.complex64)).dtype == yaten.complex64


def test_dlpack_carries_complex_tensors(torch):
    tt = torch.tensor([1 + 2j, -3j], dtype=torch.complex64)
    t = yaten.from_dlpack(tt)
    assert t.dtype == yaten.complex64 and t.tolist() == tt.tolist()
    back = torch.from_dlpack(yaten.tensor([2 - 1j, 4], dtype=yaten.complex128))
    assert back.dtype == torch.complex128 and back.tolist() == [2 - 1j, 4 + 0j]


def test_printing_matches_torch(torch):
    cases = [[1 + 2j, 3 - 0.5j], [1e-5 + 2j, 300], [[1j, 2], [3, 4 + 1j]], [0.25 - 0.125j], [[-1.5j, 2.0]]]
    for data in cases:
        for dtype in COMPLEX:
            expected = repr(torch.tensor(data, dtype=getattr(torch, dtype))).replace("torch.", "yaten.")
            assert repr(yaten.tensor(data, dtype=getattr(yaten, dtype))) == expected, data


def test_copies_between_complex_and_real_dtypes():
    z = yaten.tensor([1 + 2j, -3 - 4j])
    assert z.to(yaten.complex128).tolist() == [1 + 2j, -3 - 4j]
    assert yaten.tensor([1.5, -2.0]).to(yaten.complex64).tolist() == [1.5 + 0j, -2 + 0j]
    assert yaten.tensor([3, 4]).to(yaten.complex128).tolist() == [3 + 0j, 4 + 0j]
    with warn_always():  # the warning is given once per process otherwise, as torch's
        with pytest.warns(UserWarning, match="discards the imaginary part"):
            assert z.to(yaten.float32).tolist() == [1.0, -3.0]
        with pytest.warns(UserWarning, match="discards the imaginary part"):
            assert yaten.zeros(2, dtype=yaten.int64).copy_(z).tolist() == [1, -3]
    assert z.to(yaten.bool).tolist() == [True, True]
    assert yaten.tensor([0j, 1j]).to(yaten.bool).tolist() == [False, True]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert z.clone().tolist() == z.tolist()  # complex to complex: no warning
        assert z.t().contiguous().tolist() == z.tolist()


# ---------------------------------------------------------------------------------------------------- views


def test_view_as_real_and_view_as_complex_share_memory():
    for dtype in COMPLEX:
        a = crandn((3, 4), 2, dtype)
        z = y(a)
        r = yaten.view_as_real(z)
        assert tuple(r.shape) == (3, 4, 2) and r.dtype == yaten.float32 if dtype == "complex64" else yaten.float64
        np.testing.assert_array_equal(r.numpy(), np.stack([a.real, a.imag], -1))
        r[1, 2, 1] = 7.0
        assert z[1, 2].item().imag == 7.0
        back = yaten.view_as_complex(r)
        assert back.dtype == z.dtype and back.tolist() == z.tolist()
        z = y(a)
        # a transposed complex tensor keeps its layout
        np.testing.assert_array_equal(yaten.view_as_real(z.t()).numpy(), np.stack([a.T.real, a.T.imag], -1))
        # offsets: a slice's real view starts at twice the offset
        np.testing.assert_array_equal(yaten.view_as_real(z[1:, 1:]).numpy()[..., 0], a[1:, 1:].real)


def test_view_errors_match_torch(torch):
    with pytest.raises(RuntimeError, match="only supported for complex tensors"):
        yaten.view_as_real(yaten.ones(3))
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        yaten.view_as_complex(yaten.ones(3))
    with pytest.raises(RuntimeError, match="stride 1"):
        yaten.view_as_complex(yaten.ones(2, 3).t())
    with pytest.raises(RuntimeError, match="stride divisible by 2"):
        yaten.view_as_complex(yaten.ones(3, 3)[:, :2])
    with pytest.raises(RuntimeError, match="storage_offset divisible by 2"):
        yaten.view_as_complex(yaten.ones(7)[1:5].reshape(2, 2))
    with pytest.raises(RuntimeError, match="float32 and float64"):
        yaten.view_as_complex(yaten.ones(3, 2, dtype=yaten.int64))
    with pytest.raises(RuntimeError, match="non-complex"):
        yaten.imag(yaten.ones(3))


def test_real_and_imag_are_views():
    a = crandn((2, 3), 3)
    z = y(a)
    np.testing.assert_array_equal(yaten.real(z).numpy(), a.real)
    np.testing.assert_array_equal(yaten.imag(z).numpy(), a.imag)
    yaten.imag(z).fill_(0.5)
    assert all(v.imag == 0.5 for v in z.flatten().tolist())
    x = yaten.ones(3)
    assert yaten.real(x) is x or yaten.real(x).data_ptr() == x.data_ptr()


def test_real_and_imag_properties_read_and_assign_as_torch(torch):
    a = crandn((2, 3), 4)
    z, t = y(a), torch.from_numpy(a.copy())
    np.testing.assert_array_equal(z.real.numpy(), t.real.numpy())
    np.testing.assert_array_equal(z.imag.numpy(), t.imag.numpy())
    assert z.real.data_ptr() == z.data_ptr() and z.imag.data_ptr() == z.data_ptr() + z.element_size() // 2
    z.real, t.real = 2.0, 2.0
    z.imag = yaten.tensor([1.0, -1.0, 0.5])  # broadcast into the view, as torch's setter copies
    t.imag = torch.tensor([1.0, -1.0, 0.5])
    np.testing.assert_array_equal(z.numpy(), t.numpy())
    r = yaten.arange(3.0)
    assert r.real.data_ptr() == r.data_ptr()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        r.imag


# ---------------------------------------------------------------------------------------------------- ops


def test_arithmetic_matches_numpy():
    for dtype in COMPLEX:
        a, b = crandn((3, 4), 4, dtype), crandn((4,), 5, dtype)
        za, zb = y(a), y(b)
        tol = 1e-5 if dtype == "complex64" else 1e-12
        assert_np(za + zb, a + b, tol, tol)
        assert_np(za - zb, a - b, tol, tol)
        assert_np(za * zb, a * b, tol, tol)
        assert_np(za / zb, a / b, tol, tol)
        assert_np(-za, -a, tol, tol)
        assert_np(yaten.add(za, zb, alpha=2 - 1j), a + (2 - 1j) * b, tol, tol)
        assert_np(za * (1 + 2j), a * np.array(1 + 2j, dtype=dtype), tol, tol)
        assert_np(za + 3, a + 3, tol, tol)
        real = np.random.default_rng(6).standard_normal((3, 1)).astype("float32" if dtype == "complex64" else "float64")
        assert_np(za * yaten.tensor(real.tolist(), dtype=getattr(yaten, str(real.dtype))), a * real, tol, tol)
        assert (za == za).all().item() and not (za != za).any().item()
        np.testing.assert_array_equal((za == zb).numpy(), a == b)
        za2 = za.clone()
        za2 += zb
        assert_np(za2, a + b, tol, tol)
        assert_np(yaten.abs(za), np.abs(a), tol, tol)
        assert_np(za.abs(), np.abs(a), tol, tol)
        assert_np(yaten.angle(za), np.angle(a), tol, tol)
        assert_np(yaten.conj(za), np.conj(a), 0, 0)
        assert_np(yaten.conj_physical(za), np.conj(a), 0, 0)


def test_division_by_small_and_zero_complex_numbers_matches_numpy():
    a = np.array([1 + 1j, 1e300 + 1e300j, 1e-300 + 0j, 2 + 3j, 1 + 0j], dtype=np.complex128)
    b = np.array([1e-300 + 1e-300j, 1e300 - 1e300j, 1e-300 + 1e-300j, 0.5 + 0j, 0j], dtype=np.complex128)
    with np.errstate(all="ignore"):
        expected = a / b
    got = (y(a) / y(b)).numpy()
    np.testing.assert_allclose(got[:4], expected[:4], rtol=1e-12)
    assert np.isinf(got[4].real) or np.isnan(got[4].real)


def test_ops_on_real_tensors_keep_their_meaning(torch):
    x = yaten.tensor([-1.0, 0.0, 2.0, float("nan")])
    tx = torch.tensor([-1.0, 0.0, 2.0, float("nan")])
    torch.testing.assert_close(to_torch(torch, yaten.angle(x)), torch.angle(tx), equal_nan=True)
    torch.testing.assert_close(to_torch(torch, yaten.angle(yaten.tensor([-1, 2]))), torch.angle(torch.tensor([-1, 2])))
    assert yaten.conj(x) is x or yaten.conj(x).data_ptr() == x.data_ptr()
    assert not yaten.is_conj(x) and yaten.resolve_conj(x).data_ptr() == x.data_ptr()
    assert yaten.abs(yaten.tensor([-3, 4])).tolist() == [3, 4]


def test_complex_and_polar_match_torch(torch):
    for dtype in ["float32", "float64"]:
        re, im = torch.randn(3, 1, dtype=getattr(torch, dtype)), torch.randn(4, dtype=getattr(torch, dtype))
        torch.testing.assert_close(to_torch(torch, yaten.complex(from_torch(re), from_torch(im))),
                                   torch.complex(re, im))
        mag = torch.rand(3, 4, dtype=getattr(torch, dtype))
        torch.testing.assert_close(to_torch(torch, yaten.polar(from_torch(mag), from_torch(im))), torch.polar(mag, im))
    with pytest.raises(RuntimeError, match="float32 or float64"):
        yaten.complex(yaten.ones(2), yaten.ones(2, dtype=yaten.float64))
    with pytest.raises(RuntimeError, match="float32 or float64"):
        yaten.complex(yaten.ones(2, dtype=yaten.int64), yaten.ones(2, dtype=yaten.int64))


def test_elementary_functions_match_numpy():
    for dtype in COMPLEX:
        a = crandn((4, 5), 14, dtype)
        a[0, :3] = [0, -2 + 0j, complex(-2, -0.0)]  # zero, and both sides of the negative real axis
        tol = 2e-6 if dtype == "complex64" else 1e-14
        z = y(a)
        for name, fn in (("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("sin", np.sin), ("cos", np.cos),
                         ("reciprocal", lambda v: 1 / v)):
            with np.errstate(all="ignore"):
                expected = fn(a)
            got = getattr(yaten, name)(z).numpy()
            finite = np.isfinite(expected)
            np.testing.assert_allclose(got[finite], expected[finite], rtol=tol, atol=tol, err_msg=name)
        phase = np.array([0.5, 1.5], dtype="float32" if dtype == "complex64" else "float64")
        assert_np(yaten.exp(1j * y(phase)), np.exp(1j * phase).astype(dtype), tol, tol)


def test_gradients_of_elementary_functions_match_torch(torch):
    tz = torch.randn(3, 4, dtype=torch.complex128, generator=torch.Generator().manual_seed(15)).requires_grad_()
    yz = from_torch(tz.detach()).requires_grad_()
    for lib, z in ((torch, tz), (yaten, yz)):
        out = lib.exp(z) * lib.log(z) + lib.sqrt(z) / lib.sin(z) - lib.cos(z) * lib.reciprocal(z)
        lib.view_as_real(out).pow(2).sum().backward()
    torch.testing.assert_close(to_torch(torch, yz.grad), tz.grad)


def test_unsupported_ops_say_so():
    z = yaten.ones(3, dtype=yaten.complex64)
    with pytest.raises(NotImplementedError, match="complex64"):
        yaten.erf(z)  # torch has no complex erf either
    with pytest.raises(RuntimeError, match="in-place abs is not supported for complex tensors"):
        z.abs_()
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        yaten.add(yaten.ones(2), yaten.ones(2), alpha=1j)
    with pytest.raises(RuntimeError, match="without overflow"):
        yaten.ones(2).fill_(1j)


# ---------------------------------------------------------------------------------------------------- autograd


def test_gradients_through_complex_ops_match_torch(torch):
    g = torch.Generator().manual_seed(7)
    ta = torch.randn(3, 4, dtype=torch.complex128, generator=g).requires_grad_()
    tb = torch.randn(4, dtype=torch.complex128, generator=g).requires_grad_()
    tr = torch.randn(3, 1, dtype=torch.float64, generator=g).requires_grad_()
    ya, yb, yr = (from_torch(t.detach()).requires_grad_() for t in (ta, tb, tr))

    def loss(lib, a, b, r):
        z = (a * b + a / (b + 2) - r * a) * lib.conj(b) + lib.polar(r.abs() + 0.5, r)
        return lib.view_as_real(z).pow(2).sum() + z.abs().sum() + lib.angle(a).sum() + lib.real(a * 1j).sum()

    loss(torch, ta, tb, tr).backward()
    loss(yaten, ya, yb, yr).backward()
    for t, yt in ((ta, ya), (tb, yb), (tr, yr)):
        torch.testing.assert_close(to_torch(torch, yt.grad), t.grad)


def test_gradients_flow_between_real_and_complex_views(torch):
    tx = torch.randn(5, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(8)).requires_grad_()
    yx = from_torch(tx.detach()).requires_grad_()
    for lib, x in ((torch, tx), (yaten, yx)):
        z = lib.view_as_complex(x)
        loss = lib.view_as_real(z * z).sum() + lib.imag(z).pow(3).sum() + lib.complex(x[:, 0], x[:, 1]).abs().sum()
        loss.backward()
    torch.testing.assert_close(to_torch(torch, yx.grad), tx.grad)


def test_backward_of_a_complex_scalar_needs_a_gradient():
    z = yaten.ones(2, dtype=yaten.complex64).requires_grad_()
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        (z * 2)[0].backward()


def test_matrix_products_match_numpy_and_their_gradients_torch(torch):
    for dtype in COMPLEX:
        a, b = crandn((5, 7), 11, dtype), crandn((7, 3), 12, dtype)
        tol = 1e-5 if dtype == "complex64" else 1e-12
        assert_np(y(a) @ y(b), a @ b, tol, tol)
        assert_np(yaten.mm(y(a).t(), y(a)), a.T @ a, tol, tol)  # a transposed operand goes to the BLAS as it is
        batch = crandn((4, 5, 7), 13, dtype)
        assert_np(yaten.bmm(y(batch), y(b).unsqueeze(0).expand(4, 7, 3)), batch @ b, tol, tol)
        assert_np(yaten.matmul(y(batch), y(b)), batch @ b, tol, tol)
    ta = torch.randn(3, 4, dtype=torch.complex128, generator=torch.Generator().manual_seed(3)).requires_grad_()
    tb = torch.randn(2, 4, 5, dtype=torch.complex128, generator=torch.Generator().manual_seed(4)).requires_grad_()
    ya, yb = from_torch(ta.detach()).requires_grad_(), from_torch(tb.detach()).requires_grad_()
    for lib, a, b in ((torch, ta, tb), (yaten, ya, yb)):
        lib.view_as_real(a @ b).pow(2).sum().backward()
    torch.testing.assert_close(to_torch(torch, ya.grad), ta.grad)
    torch.testing.assert_close(to_torch(torch, yb.grad), tb.grad)


# Ops that took complex dtypes for OpInfo parity (issue 50): their gradients follow torch's convention (the gradient
# of a real loss, conjugate derivatives), compared with torch's in complex128.
COMPLEX_GRADIENT_CASES = {
    "addcmul": (lambda L, a, b, c: L.addcmul(a, b, c, value=0.5 + 0.25j), 3),
    "addcdiv": (lambda L, a, b, c: L.addcdiv(a, b, c, value=2 - 1j), 3),
    "lerp_tensor": (lambda L, a, b, w: L.lerp(a, b, w), 3),
    "lerp_scalar": (lambda L, a, b: L.lerp(a, b, 0.3), 2),
    "pow": (lambda L, a, b: L.pow(a, b), 2),
    "prod": (lambda L, a: L.prod(a), 1),
    "prod_dim": (lambda L, a: L.prod(a, 1), 1),
    "cumprod": (lambda L, a: L.cumprod(a, 1), 1),
    "cumsum": (lambda L, a: L.cumsum(a, 0), 1),
    "vecdot": (lambda L, a, b: L.linalg.vecdot(a, b), 2),
    "vector_norm": (lambda L, a: L.linalg.vector_norm(a), 1),
    "var": (lambda L, a: L.var(a, 1), 1),
    "var_mean": (lambda L, a: L.var_mean(a, 1)[0] + L.var_mean(a, 1)[1].abs(), 1),
    "std_mean": (lambda L, a: L.std_mean(a, 1, correction=0)[0] + L.std_mean(a, 1)[1].abs(), 1),
    "logsumexp": (lambda L, a: L.logsumexp(a, 1), 1),
    "rms_norm": (lambda L, a: L.nn.functional.rms_norm(a, [4]), 1),
    **{name: ((lambda n: lambda L, a: getattr(L, n)(a))(name), 1)
       for name in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan", "tanh", "log10", "log2",
                    "exp2", "rsqrt", "sigmoid", "log1p", "expm1")},
}


@pytest.mark.parametrize("name", sorted(COMPLEX_GRADIENT_CASES))
def test_complex_gradients_match_torch(torch, name):
    fn, count = COMPLEX_GRADIENT_CASES[name]
    gen = torch.Generator().manual_seed(len(name))
    theirs = [torch.randn(3, 4, generator=gen, dtype=torch.complex128).requires_grad_() for _ in range(count)]
    ours = [yaten.from_numpy(t.detach().numpy().copy()).requires_grad_() for t in theirs]
    out_t, out_y = fn(torch, *theirs), fn(yaten, *ours)
    weights = torch.randn(out_t.shape, generator=gen, dtype=torch.float64)
    (out_t.abs() if out_t.is_complex() else out_t).mul(weights).sum().backward()
    (out_y.abs() if out_y.dtype == yaten.complex128 else out_y).mul(yaten.from_numpy(weights.numpy())).sum().backward()
    for t, y in zip(theirs, ours):
        torch.testing.assert_close(torch.from_numpy(y.grad.numpy()), t.grad, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("transposed", [False, True])
def test_complex_convolution_matches_torch_values_and_gradients(torch, transposed):
    """F.conv2d / conv_transpose2d of complex tensors: torch's three real convolutions (Gauss's trick), so values
    and gradients (through the real ops) are torch's."""
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(2, 3, 5, 5, generator=gen, dtype=torch.complex128, requires_grad=True)
    w = torch.randn(3 if transposed else 4, 4 if transposed else 3, 3, 3, generator=gen, dtype=torch.complex128,
                    requires_grad=True)
    b = torch.randn(4, generator=gen, dtype=torch.complex128, requires_grad=True)
    ours = [yaten.from_numpy(t.detach().numpy().copy()).requires_grad_() for t in (x, w, b)]
    if transposed:
        expected = torch.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1)
        out = yaten.nn.functional.conv_transpose2d(*ours, stride=2, padding=1)
    else:
        expected = torch.nn.functional.conv2d(x, w, b, padding=1)
        out = yaten.nn.functional.conv2d(*ours, padding=1)
    torch.testing.assert_close(torch.from_numpy(out.detach().numpy()), expected.detach(), rtol=1e-12, atol=1e-12)
    weights = torch.randn(expected.shape, generator=gen, dtype=torch.float64)
    expected.abs().mul(weights).sum().backward()
    out.abs().mul(yaten.from_numpy(weights.numpy())).sum().backward()
    for t, y in zip((x, w, b), ours):
        torch.testing.assert_close(torch.from_numpy(y.grad.numpy()), t.grad, rtol=1e-10, atol=1e-10)
