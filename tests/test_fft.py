"""yaten.fft against NumPy's and torch's FFTs: every function, with n/s, dim and norm, float32 and float64
inputs (and integers, promoted), strided inputs, torch's errors, and the gradients of the three transforms."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from helpers import from_torch, to_torch

NORMS = [None, "backward", "forward", "ortho"]


def y(array):
    return yaten.tensor(array.tolist(), dtype=getattr(yaten, str(array.dtype)))


def real(shape, seed, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def cplx(shape, seed, dtype="complex128"):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def check(got, expected, single):
    got = got.numpy()
    assert got.shape == expected.shape, (got.shape, expected.shape)
    tol = 2e-4 if single else 1e-10
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max(initial=0))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm", NORMS)
def test_one_dimensional_transforms_match_numpy(dtype, norm):
    single = dtype == "float32"
    cdtype = "complex64" if single else "complex128"
    for n in (None, 5, 8, 13):
        x = real((3, 10), 1, dtype)
        z = cplx((3, 10), 2, cdtype)
        for dim in (-1, 0):
            check(yaten.fft.fft(y(z), n=n, dim=dim, norm=norm), np.fft.fft(z, n=n, axis=dim, norm=norm), single)
            check(yaten.fft.ifft(y(z), n=n, dim=dim, norm=norm), np.fft.ifft(z, n=n, axis=dim, norm=norm), single)
            check(yaten.fft.fft(y(x), n=n, dim=dim, norm=norm), np.fft.fft(x, n=n, axis=dim, norm=norm), single)
            check(yaten.fft.rfft(y(x), n=n, dim=dim, norm=norm), np.fft.rfft(x, n=n, axis=dim, norm=norm), single)
            check(yaten.fft.irfft(y(z), n=n, dim=dim, norm=norm), np.fft.irfft(z, n=n, axis=dim, norm=norm), single)
            check(yaten.fft.hfft(y(z), n=n, dim=dim, norm=norm), np.fft.hfft(z, n=n, axis=dim, norm=norm), single)
            check(yaten.fft.ihfft(y(x), n=n, dim=dim, norm=norm), np.fft.ihfft(x, n=n, axis=dim, norm=norm), single)


@pytest.mark.parametrize("norm", NORMS)
def test_multi_dimensional_transforms_match_numpy(norm):
    x = real((4, 6, 5), 3)
    z = cplx((4, 6, 5), 4)
    for s, dim in ((None, None), ((3, 8), None), (None, (0, 2)), ((5, 4), (2, 0)), ((4, -1, 6), (0, 1, 2))):
        axes = dim if dim is not None or s is None else tuple(range(3 - len(s), 3))
        np_s = None if s is None else [x.shape[a] if v == -1 else v for v, a in zip(s, axes)]
        check(yaten.fft.fftn(y(z), s=s, dim=dim, norm=norm), np.fft.fftn(z, s=np_s, axes=axes, norm=norm), False)
        check(yaten.fft.ifftn(y(z), s=s, dim=dim, norm=norm), np.fft.ifftn(z, s=np_s, axes=axes, norm=norm), False)
        check(yaten.fft.rfftn(y(x), s=s, dim=dim, norm=norm), np.fft.rfftn(x, s=np_s, axes=axes, norm=norm), False)
        check(yaten.fft.irfftn(y(z), s=s, dim=dim, norm=norm), np.fft.irfftn(z, s=np_s, axes=axes, norm=norm), False)
    check(yaten.fft.fft2(y(z), norm=norm), np.fft.fft2(z, norm=norm), False)
    check(yaten.fft.ifft2(y(z), s=(3, 7), norm=norm), np.fft.ifft2(z, s=(3, 7), axes=(-2, -1), norm=norm), False)
    check(yaten.fft.rfft2(y(x), dim=(0, 1), norm=norm), np.fft.rfft2(x, axes=(0, 1), norm=norm), False)
    check(yaten.fft.irfft2(y(z), s=(6, 8), norm=norm), np.fft.irfft2(z, s=(6, 8), axes=(-2, -1), norm=norm), False)


def test_four_and_more_dims_in_one_transform():
    x = real((3, 4, 2, 5, 3), 5)
    z = cplx((3, 4, 2, 5, 3), 6)
    check(yaten.fft.fftn(y(z)), np.fft.fftn(z), False)
    check(yaten.fft.rfftn(y(x)), np.fft.rfftn(x), False)
    check(yaten.fft.irfftn(y(z)), np.fft.irfftn(z), False)


def test_strided_and_offset_inputs():
    x = real((8, 12), 7)
    z = cplx((8, 12), 8)
    check(yaten.fft.fft(y(z).t(), dim=0), np.fft.fft(z.T, axis=0), False)
    check(yaten.fft.rfft(y(x)[1::2, ::3]), np.fft.rfft(x[1::2, ::3]), False)
    check(yaten.fft.irfft(y(z)[2:, 1::2]), np.fft.irfft(z[2:, 1::2]), False)
    check(yaten.fft.fftn(y(z).t()), np.fft.fftn(z.T), False)
    expanded = yaten.tensor(x[0].tolist()).expand(4, 12)
    check(yaten.fft.rfft(expanded), np.fft.rfft(np.broadcast_to(x[0].astype("float32"), (4, 12))), True)


def test_batches_split_over_threads_give_the_same_transforms():
    previous = yaten.get_num_threads()
    yaten.set_num_threads(2)
    try:
        x = real((64, 2048), 12)
        z = cplx((2048, 64), 13)
        check(yaten.fft.rfft(y(x)), np.fft.rfft(x), False)  # split along dim 0
        check(yaten.fft.fft(y(z), dim=0), np.fft.fft(z, axis=0), False)  # along dim 1
        check(yaten.fft.irfft(y(z).t()), np.fft.irfft(z.T), False)  # a transposed input, split along dim 0
        check(yaten.fft.rfft2(y(x).reshape(64, 32, 64)), np.fft.rfft2(x.reshape(64, 32, 64)), False)
    finally:
        yaten.set_num_threads(previous)


def test_dtypes_follow_torch(torch):
    for dtype in ("int64", "int32", "bool", "float32", "float64"):
        t = torch.ones(6, dtype=getattr(torch, dtype))
        yt = yaten.ones(6, dtype=getattr(yaten, dtype))
        for name in ("fft", "rfft", "ihfft"):
            expected = getattr(torch.fft, name)(t).dtype
            assert repr(getattr(yaten.fft, name)(yt).dtype) == repr(expected).replace("torch", "yaten"), (name, dtype)
    for name in ("complex64", "complex128"):
        t, yt = torch.ones(6, dtype=getattr(torch, name)), yaten.ones(6, dtype=getattr(yaten, name))
        for fn in ("fft", "ifft", "irfft", "hfft"):
            assert repr(getattr(yaten.fft, fn)(yt).dtype) == repr(getattr(torch.fft, fn)(t).dtype).replace("torch",
                                                                                                              "yaten")


def test_frequencies_and_shifts_match_torch(torch):
    for n in (1, 4, 5, 10):
        for d in (1.0, 0.3):
            torch.testing.assert_close(to_torch(torch, yaten.fft.fftfreq(n, d)), torch.fft.fftfreq(n, d))
            torch.testing.assert_close(to_torch(torch, yaten.fft.rfftfreq(n, d)), torch.fft.rfftfreq(n, d))
    torch.testing.assert_close(to_torch(torch, yaten.fft.fftfreq(6, dtype=yaten.float64)),
                               torch.fft.fftfreq(6, dtype=torch.float64))
    assert tuple(yaten.fft.fftfreq(0).shape) == (0,)
    x = torch.arange(30.0).reshape(5, 6)
    for dim in (None, 0, 1, (0, 1), (-1,)):
        torch.testing.assert_close(to_torch(torch, yaten.fft.fftshift(from_torch(x), dim)), torch.fft.fftshift(x, dim))
        torch.testing.assert_close(to_torch(torch, yaten.fft.ifftshift(from_torch(x), dim)),
                                   torch.fft.ifftshift(x, dim))
    z = torch.randn(4, 5, dtype=torch.complex64)
    torch.testing.assert_close(to_torch(torch, yaten.fft.fftshift(from_torch(z))), torch.fft.fftshift(z))


def test_errors_match_torch():
    x = yaten.ones(8)
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "xyz"'):
        yaten.fft.fft(x, norm="xyz")
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor"):
        yaten.fft.rfft(yaten.ones(8, dtype=yaten.complex64))
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        yaten.fft.fft(x, n=0)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        yaten.fft.irfft(yaten.ones(1, dtype=yaten.complex64))
    with pytest.raises(IndexError, match="out of range"):
        yaten.fft.fft(yaten.ones(2, 3), dim=5)
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        yaten.fft.fftn(yaten.ones(2, 3), dim=(0, 0))
    with pytest.raises(RuntimeError, match="must transform at least one axis"):
        yaten.fft.rfftn(yaten.ones(2, 3), dim=())
    with pytest.raises(RuntimeError, match="same length"):
        yaten.fft.fftn(yaten.ones(2, 3), s=(2,), dim=(0, 1))
    with pytest.raises(NotImplementedError, match="float16"):
        yaten.fft.rfft(yaten.ones(4, dtype=yaten.float16))
    with pytest.raises(RuntimeError, match="normalization must be"):
        yaten.ops.yaten._fft_c2c(yaten.ones(4, dtype=yaten.complex64), [0], 7, True)


def test_empty_batches_and_unit_sizes():
    assert tuple(yaten.fft.fft(yaten.empty(0, 4, dtype=yaten.complex128)).shape) == (0, 4)
    assert tuple(yaten.fft.rfft(yaten.empty(3, 0, 5)).shape) == (3, 0, 3)
    check(yaten.fft.fft(yaten.tensor([2.5], dtype=yaten.float64)), np.fft.fft(np.array([2.5])), False)
    check(yaten.fft.irfft(y(cplx((3,), 10)), n=1), np.fft.irfft(cplx((3,), 10), n=1), False)


# ---------------------------------------------------------------------------------------------------- gradients


def _grads(torch, lib, fn, inputs):
    made = [lib.tensor(t.detach().tolist(), dtype=getattr(lib, str(t.dtype).split(".")[1])).requires_grad_()
            if lib is yaten else t.detach().clone().requires_grad_() for t in inputs]
    out = fn(lib, *made)
    out.backward()
    return [m.grad for m in made]


@pytest.mark.parametrize("norm", NORMS)
def test_gradients_of_the_transforms_match_torch(torch, norm):
    g = torch.Generator().manual_seed(11)
    x = torch.randn(4, 6, dtype=torch.float64, generator=g)
    z = torch.randn(4, 6, dtype=torch.complex128, generator=g)
    w = torch.randn(4, 4, dtype=torch.complex128, generator=g)
    cases = [
        (lambda lib, a: lib.view_as_real(lib.fft.rfft(a, norm=norm)).pow(2).sum()
         + lib.fft.rfft(a, norm=norm).abs().sum(), [x]),
        (lambda lib, a: lib.view_as_real(lib.fft.rfft(a, n=9, dim=0, norm=norm)).sin().sum(), [x]),
        (lambda lib, a: lib.view_as_real(lib.fft.fft(a, norm=norm) * 2j).pow(2).sum(), [z]),
        (lambda lib, a: lib.view_as_real(lib.fft.ifft2(a, norm=norm)).sin().sum(), [z]),
        (lambda lib, a: lib.fft.irfft(a, norm=norm).pow(2).sum() + lib.fft.irfft(a, n=7, norm=norm).sum(), [w]),
        (lambda lib, a: lib.fft.hfft(a, norm=norm).sin().sum(), [w]),
        (lambda lib, a: lib.view_as_real(lib.resolve_conj(lib.fft.ihfft(a, norm=norm))).pow(3).sum(), [x]),
        (lambda lib, a: lib.view_as_real(lib.fft.rfftn(a, norm=norm)).sin().sum() + lib.fft.fft(a).abs().sum(), [x]),
        (lambda lib, a: lib.fft.irfftn(a, s=(5, 6), norm=norm).pow(2).sum(), [w]),
    ]
    for fn, inputs in cases:
        expected = _grads(torch, torch, fn, inputs)
        got = _grads(torch, yaten, fn, inputs)
        for e, gt in zip(expected, got):
            torch.testing.assert_close(to_torch(torch, gt), e)
