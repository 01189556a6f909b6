"""F.grid_sample and F.affine_grid against torch: bilinear, nearest and bicubic, zeros/border/reflection padding, both
align_corners, points far outside the image, gradients to the input and the grid; on CUDA, close to the CPU
(skipped without a GPU)."""

from __future__ import annotations

import pytest

import yaten
from helpers import assert_close_to, from_torch, seeded_randn

F = yaten.nn.functional


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_and_its_gradients_match_torch(torch, mode, padding_mode, align_corners):
    x = seeded_randn(torch, (2, 3, 5, 6), 1).requires_grad_()
    grid = (seeded_randn(torch, (2, 4, 7, 2), 2) * 1.4).requires_grad_()  # some points outside [-1, 1]
    xs, gs = from_torch(x.detach()).requires_grad_(), from_torch(grid.detach()).requires_grad_()
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    expected = torch.nn.functional.grid_sample(x, grid, **kw)
    out = F.grid_sample(xs, gs, **kw)
    assert_close_to(torch, out, expected)
    seed = seeded_randn(torch, tuple(expected.shape), 3)
    expected.backward(seed)
    out.backward(from_torch(seed))
    assert_close_to(torch, xs.grad, x.grad)
    if mode != "nearest":
        assert_close_to(torch, gs.grad, grid.grad)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_of_volumes_and_its_gradients_match_torch(torch, mode, padding_mode, align_corners):
    # 5-D input (N, C, D, H, W), grid (N, D_out, H_out, W_out, 3): grid_sampler_3d, trilinear or nearest
    x = seeded_randn(torch, (2, 3, 4, 5, 6), 5).requires_grad_()
    grid = (seeded_randn(torch, (2, 3, 4, 2, 3), 6) * 1.4).requires_grad_()
    xs, gs = from_torch(x.detach()).requires_grad_(), from_torch(grid.detach()).requires_grad_()
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    expected = torch.nn.functional.grid_sample(x, grid, **kw)
    out = F.grid_sample(xs, gs, **kw)
    assert_close_to(torch, out, expected)
    seed = seeded_randn(torch, tuple(expected.shape), 7)
    expected.backward(seed)
    out.backward(from_torch(seed))
    assert_close_to(torch, xs.grad, x.grad)
    if mode != "nearest":
        assert_close_to(torch, gs.grad, grid.grad)


def test_taps_outside_the_image_add_nothing_even_next_to_infinities(torch):
    # a tap outside the image reads no pixel: the clamped pixel beside it may be inf or NaN
    x = torch.tensor([[[[float("inf"), 1.0], [2.0, float("nan")]]]])
    grid = torch.tensor([[[[-3.0, -3.0], [3.0, 3.0], [0.0, 0.0]]]])
    for mode in ("bilinear", "nearest"):
        expected = torch.nn.functional.grid_sample(x, grid, mode=mode, align_corners=False)
        assert_close_to(torch, F.grid_sample(from_torch(x), from_torch(grid), mode=mode, align_corners=False),
                        expected)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(torch, align_corners):
    theta = seeded_randn(torch, (2, 2, 3), 4)
    expected = torch.nn.functional.affine_grid(theta, [2, 3, 5, 4], align_corners=align_corners)
    assert_close_to(torch, F.affine_grid(from_torch(theta), [2, 3, 5, 4], align_corners=align_corners), expected)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="expected mode"):
        F.grid_sample(yaten.ones(1, 1, 2, 2), yaten.zeros(1, 1, 1, 2), mode="cubic")
    with pytest.raises(RuntimeError, match="interpolation mode 3 is not one of"):
        yaten.grid_sampler_2d(yaten.ones(1, 1, 2, 2), yaten.zeros(1, 1, 1, 2), 3, 0, False)
    with pytest.raises(RuntimeError, match="expected 4-D input"):
        F.grid_sample(yaten.ones(1, 2, 2), yaten.zeros(1, 1, 1, 2))
    with pytest.raises(RuntimeError, match="expected 5-D input"):
        F.grid_sample(yaten.ones(1, 1, 2, 2, 2), yaten.zeros(1, 1, 1, 1, 2))
    with pytest.raises(ValueError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(yaten.ones(1, 1, 2, 2, 2), yaten.zeros(1, 1, 1, 1, 3), mode="bicubic")
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4-D"):
        yaten.grid_sampler_3d(yaten.ones(1, 1, 2, 2, 2), yaten.zeros(1, 1, 1, 1, 3), 2, 0, False)


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
def test_grid_sample_on_cuda_matches_the_cpu():
    g = yaten.Generator().manual_seed(5)
    x, grid = yaten.randn(2, 3, 5, 6, generator=g), yaten.randn(2, 4, 7, 2, generator=g)
    for mode in ("bilinear", "bicubic"):
        out = F.grid_sample(x.cuda(), grid.cuda(), mode=mode, padding_mode="reflection")
        expected = F.grid_sample(x, grid, mode=mode, padding_mode="reflection")
        assert out.is_cuda and yaten.allclose(out.cpu(), expected, atol=1e-5)
