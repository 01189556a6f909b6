"""F.interpolate against torch: nearest, nearest-exact, linear, bilinear, bicubic, trilinear (align_corners, scale
factors with and without recompute_scale_factor), area; gradients; errors; on CUDA, equal to the CPU (skipped
without a GPU)."""

from __future__ import annotations

import pytest

import yaten
from helpers import assert_close_to as close, from_torch, to_torch

F = yaten.nn.functional

CASES = [
    ((2, 3, 7), dict(size=12, mode="nearest")),
    ((2, 3, 7), dict(scale_factor=1.7, mode="nearest")),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="nearest")),
    ((2, 3, 5, 6), dict(scale_factor=(2, 0.5), mode="nearest")),
    ((1, 2, 3, 4, 5), dict(size=(4, 7, 3), mode="nearest")),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="nearest-exact")),
    ((2, 3, 7), dict(size=12, mode="nearest-exact")),
    ((2, 3, 7), dict(size=12, mode="linear")),
    ((2, 3, 7), dict(size=4, mode="linear", align_corners=True)),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="bilinear")),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 6), dict(scale_factor=2.5, mode="bilinear")),
    ((2, 3, 5, 6), dict(scale_factor=2.5, mode="bilinear", recompute_scale_factor=True)),
    ((1, 2, 3, 4, 5), dict(size=(4, 7, 3), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(size=(4, 7, 3), mode="trilinear", align_corners=True)),
    ((2, 3, 8, 6), dict(size=(3, 4), mode="area")),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="bicubic")),
    ((2, 3, 5, 6), dict(size=(12, 15), mode="bicubic", align_corners=True)),
    ((2, 3, 5, 6), dict(scale_factor=(1.5, 0.4), mode="bicubic")),
    ((1, 1, 2, 3), dict(size=(7, 1), mode="bicubic")),
    # antialias (Note [Antialiased resampling]): shrinking stretches the filter, growing does not
    ((2, 3, 37, 41), dict(size=(9, 13), mode="bilinear", antialias=True)),
    ((2, 3, 10, 12), dict(size=(23, 7), mode="bicubic", antialias=True)),
    ((1, 2, 20, 30), dict(scale_factor=0.3, mode="bicubic", antialias=True, align_corners=True)),
    ((1, 2, 20, 30), dict(size=(5, 8), mode="bilinear", antialias=True, align_corners=True)),
    ((1, 2, 9, 9), dict(size=(9, 9), mode="bilinear", antialias=True)),
]


@pytest.mark.parametrize("shape,kw", CASES)
def test_interpolate_and_its_gradient_match_torch(torch, shape, kw):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64).requires_grad_()
    xs = from_torch(x.detach()).requires_grad_()
    expected = torch.nn.functional.interpolate(x, **kw)
    out = F.interpolate(xs, **kw)
    torch.testing.assert_close(to_torch(torch, out), expected)
    seed = torch.randn(expected.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    expected.backward(seed)
    out.backward(from_torch(seed))
    torch.testing.assert_close(to_torch(torch, xs.grad), x.grad)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_interpolate_in_float32(torch, mode):
    x = torch.randn(2, 3, 5, 6, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(to_torch(torch, F.interpolate(from_torch(x), scale_factor=3, mode=mode)),
                               torch.nn.functional.interpolate(x, scale_factor=3, mode=mode))
    if mode != "nearest":
        y = torch.randn(2, 3, 31, 26, generator=torch.Generator().manual_seed(4))
        torch.testing.assert_close(
            to_torch(torch, F.interpolate(from_torch(y), size=(7, 11), mode=mode, antialias=True)),
            torch.nn.functional.interpolate(y, size=(7, 11), mode=mode, antialias=True))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kw", [dict(mode="nearest"), dict(mode="nearest-exact"), dict(mode="bilinear"),
                                dict(mode="bilinear", align_corners=True)])
def test_2d_resampling_of_many_rows_in_each_dtype_matches_torch(torch, dtype, kw):
    # The CPU's one-pass kernels over enough rows for several threads' chunks (rows that repeat a source row among
    # them), a non-contiguous input, and a gradient that goes back to the rows and columns the taps name.
    x = torch.randn(3, 5, 40, 23, generator=torch.Generator().manual_seed(5)).to(getattr(torch, dtype))
    x = x.transpose(2, 3)
    for size in [(61, 17), (46, 80)]:
        out = F.interpolate(from_torch(x), size=size, **kw)
        expected = torch.nn.functional.interpolate(x, size=size, **kw)
        close(torch, out, expected, tol=None if dtype == "float32" else 2e-2)
        xt = x.float().clone().requires_grad_()
        xs = from_torch(xt.detach()).requires_grad_()
        seed = torch.randn(expected.shape, generator=torch.Generator().manual_seed(6))
        F.interpolate(xs, size=size, **kw).backward(from_torch(seed))
        torch.nn.functional.interpolate(xt, size=size, **kw).backward(seed)
        close(torch, xs.grad, xt.grad, tol=1e-4)


def test_bad_arguments_raise_like_torch():
    x = yaten.ones(1, 2, 4, 4)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, size=3, align_corners=True)
    with pytest.raises(NotImplementedError, match="linear mode needs 3D input"):
        F.interpolate(x, size=(3, 3), mode="linear")
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(x)
    with pytest.raises(NotImplementedError, match="bicubic mode needs 4D input"):
        F.interpolate(yaten.ones(1, 2, 4), size=3, mode="bicubic")
    with pytest.raises(RuntimeError, match="greater than 0"):
        F.interpolate(x, size=(0, 3))
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear and bicubic"):
        F.interpolate(x, size=(3, 3), mode="nearest", antialias=True)
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear and bicubic"):
        F.interpolate(yaten.ones(1, 2, 4), size=3, mode="linear", antialias=True)


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "nearest-exact", "bicubic"])
def test_interpolate_on_cuda_equals_the_cpu(mode):
    x = yaten.randn(2, 3, 5, 6, generator=yaten.Generator().manual_seed(4))
    out = F.interpolate(x.cuda(), size=(9, 4), mode=mode)
    assert out.is_cuda and yaten.allclose(out.cpu(), F.interpolate(x, size=(9, 4), mode=mode), rtol=1e-6, atol=1e-6)
