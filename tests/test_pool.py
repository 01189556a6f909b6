"""Pooling against torch: max_pool1d/2d/3d (indices, dilation, ceil_mode, NaN), avg_pool1d/2d/3d (count_include_pad,
divisor_override, ceil_mode), adaptive_avg_pool1d/2d/3d, their gradients, dtypes, errors; and on CUDA, equal to
the CPU (skipped without a GPU)."""

from __future__ import annotations

import pytest

import yaten
from helpers import assert_close_to, from_torch, seeded_randn

F = yaten.nn.functional
rand = seeded_randn
close = assert_close_to


MAX_CASES = [
    (1, (2, 3, 11), dict(kernel_size=3)),
    (1, (3, 12), dict(kernel_size=4, stride=3, padding=2, dilation=2, ceil_mode=True)),
    (2, (2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1)),
    (2, (2, 2, 10, 7), dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 0), dilation=(2, 1), ceil_mode=True)),
    (2, (3, 5, 5), dict(kernel_size=2)),
    (3, (2, 2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0))),
    (3, (1, 4, 5, 4), dict(kernel_size=3, stride=2, padding=1, dilation=(1, 1, 2), ceil_mode=True)),
]


@pytest.mark.parametrize("dims,shape,kw", MAX_CASES)
def test_max_pool_values_and_indices_match_torch(torch, dims, shape, kw):
    x = rand(torch, shape, 1)
    out, idx = getattr(F, f"max_pool{dims}d")(from_torch(x), return_indices=True, **kw)
    expected, expected_idx = getattr(torch.nn.functional, f"max_pool{dims}d")(x, return_indices=True, **kw)
    close(torch, out, expected)
    close(torch, idx, expected_idx)


def test_max_pool_nan_and_ties_follow_torch(torch):
    x = torch.tensor([[[[1.0, 1.0, 2.0, 2.0], [float("nan"), 0.0, 5.0, float("nan")], [3.0, 3.0, -1.0, 4.0],
                        [3.0, float("-inf"), float("nan"), 4.0]]]])
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1), dict(kernel_size=2, stride=1)]:
        out, idx = F.max_pool2d(from_torch(x), return_indices=True, **kw)
        expected, expected_idx = torch.nn.functional.max_pool2d(x, return_indices=True, **kw)
        close(torch, out, expected)
        close(torch, idx, expected_idx)
    inf = torch.full((1, 1, 3, 3), float("-inf"))
    out, idx = F.max_pool2d(from_torch(inf), 2, 1, return_indices=True)
    expected, expected_idx = torch.nn.functional.max_pool2d(inf, 2, 1, return_indices=True)
    close(torch, out, expected)
    close(torch, idx, expected_idx)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=(2, 4), stride=3, padding=(0, 2), ceil_mode=True),
                                dict(kernel_size=3, stride=(1, 2), dilation=(1, 3), padding=1)])
def test_max_pool_of_wide_rows_with_nan_and_ties_follows_torch(torch, dtype, kw):
    # Rows of 300 outputs take the CPU's row-at-a-time path (Note [max_pool's rows]) across several blocks, beside
    # the edge columns; small integers make ties (the first tap in window order wins), NaN and -inf sprinkled in.
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-3, 4, (2, 3, 7, 601), generator=g).to(getattr(torch, dtype))
    x[torch.rand(x.shape, generator=g) < 0.02] = float("nan")
    x[torch.rand(x.shape, generator=g) < 0.02] = float("-inf")
    x[0, 0, 2] = float("-inf")  # a whole row of -inf: the index of each window's first tap
    out, idx = F.max_pool2d(from_torch(x), return_indices=True, **kw)
    expected, expected_idx = torch.nn.functional.max_pool2d(x, return_indices=True, **kw)
    close(torch, out, expected)
    close(torch, idx, expected_idx)


AVG_CASES = [
    (1, (2, 3, 11), dict(kernel_size=3)),
    (1, (3, 12), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)),
    (2, (2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1)),
    (2, (2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    (2, (2, 2, 10, 7), dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True)),
    (2, (2, 2, 10, 7), dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True,
                            count_include_pad=False)),
    (2, (3, 6, 6), dict(kernel_size=2, divisor_override=3)),
    (3, (2, 2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0))),
    (3, (1, 4, 5, 4), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    # Rows long enough for the interior columns' blocks of 64 (cpu/pool/avg_pool.h avg_interior), at strides 1, 2 and 3.
    (2, (2, 2, 5, 300), dict(kernel_size=(2, 3), stride=1, padding=1)),
    (2, (1, 3, 4, 261), dict(kernel_size=2)),
    (2, (1, 2, 6, 400), dict(kernel_size=(3, 4), stride=(2, 3), padding=(1, 2), ceil_mode=True,
                             count_include_pad=False)),
    (2, (2, 2, 500), dict(kernel_size=(1, 5), stride=(1, 3), padding=(0, 2), divisor_override=4)),
]


@pytest.mark.parametrize("dims,shape,kw", AVG_CASES)
def test_avg_pool_and_its_gradient_match_torch(torch, dims, shape, kw):
    x = rand(torch, shape, 2).requires_grad_()
    xs = from_torch(x.detach()).requires_grad_()
    out = getattr(F, f"avg_pool{dims}d")(xs, **kw)
    expected = getattr(torch.nn.functional, f"avg_pool{dims}d")(x, **kw)
    close(torch, out, expected)
    seed = rand(torch, tuple(expected.shape), 3)
    expected.backward(seed)
    out.backward(from_torch(seed))
    close(torch, xs.grad, x.grad)


@pytest.mark.parametrize("dims,shape,kw", MAX_CASES)
def test_max_pool_gradient_matches_torch(torch, dims, shape, kw):
    x = rand(torch, shape, 4).requires_grad_()
    xs = from_torch(x.detach()).requires_grad_()
    out = getattr(F, f"max_pool{dims}d")(xs, **kw)
    expected = getattr(torch.nn.functional, f"max_pool{dims}d")(x, **kw)
    seed = rand(torch, tuple(expected.shape), 5)
    expected.backward(seed)
    out.backward(from_torch(seed))
    close(torch, xs.grad, x.grad)


ADAPTIVE_CASES = [
    (1, (2, 3, 11), 4),
    (2, (2, 3, 9, 8), (4, 3)),
    (2, (3, 7, 5), (7, 2)),
    (2, (2, 3, 5, 6), (None, 1)),
    (2, (1, 2, 4, 4), (6, 9)),  # larger than the input: windows overlap
    (2, (2, 3, 6, 6), 1),
    (3, (2, 2, 5, 6, 7), (2, 3, 4)),
]


@pytest.mark.parametrize("dims,shape,size", ADAPTIVE_CASES)
def test_adaptive_avg_pool_and_its_gradient_match_torch(torch, dims, shape, size):
    x = rand(torch, shape, 6).requires_grad_()
    xs = from_torch(x.detach()).requires_grad_()
    out = getattr(F, f"adaptive_avg_pool{dims}d")(xs, size)
    expected = getattr(torch.nn.functional, f"adaptive_avg_pool{dims}d")(x, size)
    close(torch, out, expected)
    seed = rand(torch, tuple(expected.shape), 7)
    expected.backward(seed)
    out.backward(from_torch(seed))
    close(torch, xs.grad, x.grad)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_pools_in_float32_and_reduced_precision(torch, dtype):
    x = rand(torch, (2, 3, 9, 9), 8, dtype)
    tF = torch.nn.functional
    close(torch, F.max_pool2d(from_torch(x), 3, 2, 1), tF.max_pool2d(x, 3, 2, 1))  # a max is exact
    tol = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}[dtype]
    close(torch, F.avg_pool2d(from_torch(x), 3, 2, 1), tF.avg_pool2d(x.double(), 3, 2, 1), tol)
    close(torch, F.adaptive_avg_pool2d(from_torch(x), 4), tF.adaptive_avg_pool2d(x.double(), 4), tol)


def test_non_contiguous_input(torch):
    base = rand(torch, (2, 9, 8, 3), 9)
    view = lambda t: t.permute(0, 3, 1, 2)[:, :, ::2]  # noqa: E731
    close(torch, F.max_pool2d(view(from_torch(base)), 2), torch.nn.functional.max_pool2d(view(base), 2))
    close(torch, F.avg_pool2d(view(from_torch(base)), 2), torch.nn.functional.avg_pool2d(view(base), 2))


def test_empty_batch(torch):
    x = rand(torch, (0, 3, 6, 6), 10)
    close(torch, F.max_pool2d(from_torch(x), 2), torch.nn.functional.max_pool2d(x, 2))
    close(torch, F.avg_pool2d(from_torch(x), 2), torch.nn.functional.avg_pool2d(x, 2))
    close(torch, F.adaptive_avg_pool2d(from_torch(x), 2), torch.nn.functional.adaptive_avg_pool2d(x, 2))


def test_bad_arguments_raise_like_torch():
    x = yaten.ones(1, 2, 5, 5)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="output size is too small"):
        F.max_pool2d(x, 6)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        F.avg_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.max_pool2d(yaten.ones(5, 5), 2)
    with pytest.raises(RuntimeError, match="non-zero size is expected"):
        F.avg_pool2d(yaten.ones(1, 0, 5, 5), 2)
    with pytest.raises(NotImplementedError, match="max_pool2d_with_indices"):
        F.max_pool2d(yaten.ones(1, 2, 5, 5, dtype=yaten.bool), 2)  # integers pool, as in torch; bool does not
    with pytest.raises(RuntimeError, match="greater than or equal to 0"):
        F.adaptive_avg_pool2d(x, (-1, 2))
    with pytest.raises(RuntimeError, match="expected grad_output of size"):
        yaten.avg_pool2d_backward(yaten.ones(1, 2, 3, 3), x, [2], [2], [0], False, True, None)


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_pools_on_cuda_equal_the_cpu(dtype):
    """Every output comes from the CPU's element math in the CPU's order: equal bit for bit (max_pool's backward
    adds with atomics, so only it is compared with a tolerance)."""
    g = yaten.Generator().manual_seed(11)
    x = yaten.randn(2, 3, 9, 8, generator=g).to(getattr(yaten, dtype))
    x3 = yaten.randn(2, 2, 5, 6, 7, generator=g).to(getattr(yaten, dtype))

    def same(a, b):
        assert b.is_cuda and a.dtype == b.dtype and a.shape == b.shape
        assert yaten.equal(a.float(), b.cpu().float())

    for fn in [lambda t: F.max_pool2d(t, 3, 2, 1, dilation=(1, 2), return_indices=True),
               lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
               lambda t: F.adaptive_avg_pool2d(t, (4, 3))]:
        a, b = fn(x), fn(x.cuda())
        for u, v in (zip(a, b) if isinstance(a, tuple) else [(a, b)]):
            same(u, v)
    same(F.max_pool3d(x3, 2, return_indices=True)[1], F.max_pool3d(x3.cuda(), 2, return_indices=True)[1])
    same(F.avg_pool3d(x3, 3, 2, 1), F.avg_pool3d(x3.cuda(), 3, 2, 1))
    same(F.adaptive_avg_pool3d(x3, (2, 3, 4)), F.adaptive_avg_pool3d(x3.cuda(), (2, 3, 4)))
    for fn in [lambda t: F.avg_pool2d(t, 3, 2, 1), lambda t: F.adaptive_avg_pool2d(t, (4, 3)),
               lambda t: F.max_pool2d(t, 3, 2, 1)]:
        xs, xc = x.clone().requires_grad_(), x.cuda().requires_grad_()
        fn(xs).float().square().sum().backward()
        fn(xc).float().square().sum().backward()
        assert yaten.allclose(xc.grad.cpu().float(), xs.grad.float(), rtol=1e-2, atol=1e-2)


ADAPTIVE_MAX_CASES = [(1, (2, 3, 10), 3), (1, (3, 10), 7), (1, (2, 3, 10), 10), (2, (2, 3, 9, 7), (3, 2)),
                      (2, (3, 9, 7), (4, None)), (2, (2, 3, 9, 7), 1), (2, (1, 2, 5, 7), (9, 7)),
                      (3, (2, 2, 5, 6, 7), (2, 3, 4)), (3, (2, 5, 6, 7), (5, None, 3))]


@pytest.mark.parametrize("dims,shape,size", ADAPTIVE_MAX_CASES)
def test_adaptive_max_pool_matches_torch(torch, dims, shape, size):
    x = rand(torch, shape, 3).double()
    x[..., 0] = x[..., 1]  # ties: the first in row-major order wins
    name = f"adaptive_max_pool{dims}d"
    values, indices = getattr(torch.nn.functional, name)(x, size, return_indices=True)
    got_values, got_indices = getattr(F, name)(from_torch(x), size, return_indices=True)
    close(torch, got_values, values)
    close(torch, got_indices, indices)
    xt = x.clone().requires_grad_()
    getattr(torch.nn.functional, name)(xt, size).pow(2).sum().backward()
    xy = from_torch(x).requires_grad_()
    getattr(F, name)(xy, size).pow(2).sum().backward()
    close(torch, xy.grad, xt.grad)
    module = getattr(yaten.nn, f"AdaptiveMaxPool{dims}d")(size, return_indices=True)
    close(torch, module(from_torch(x))[1], indices)


def test_adaptive_max_pool_nan_and_errors(torch):
    x = torch.tensor([[[1.0, float("nan"), 3.0, float("nan"), 2.0]]])
    expected = torch.nn.functional.adaptive_max_pool1d(x, 2, return_indices=True)
    got = F.adaptive_max_pool1d(from_torch(x), 2, return_indices=True)
    close(torch, got[1], expected[1])  # the last NaN of a window, as torch's scan takes
    got = yaten.adaptive_max_pool1d(from_torch(x), 2)
    close(torch, got[1], torch.adaptive_max_pool1d(x, 2)[1])
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        F.adaptive_max_pool1d(yaten.ones(2, 2, 2, 2), 2)


FRACTIONAL_CASES = [(2, (2, 3, 11, 9), dict(kernel_size=3, output_size=(5, 4))),
                    (2, (3, 10, 10), dict(kernel_size=(2, 3), output_ratio=(0.5, 0.5))),
                    (2, (1, 2, 7, 7), dict(kernel_size=2, output_size=1)),
                    (3, (2, 2, 7, 8, 9), dict(kernel_size=2, output_size=(3, 4, 5))),
                    (3, (2, 7, 8, 9), dict(kernel_size=(1, 2, 3), output_size=(5, 4, 5)))]


@pytest.mark.parametrize("dims,shape,kw", FRACTIONAL_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fractional_max_pool_matches_torch_for_given_samples(torch, dims, shape, kw, dtype):
    g = torch.Generator().manual_seed(19)
    tdtype = getattr(torch, dtype)
    x = torch.randn(*shape, generator=g, dtype=tdtype)
    planes = 1 if len(shape) == dims + 1 else shape[0]
    samples = torch.rand(planes, shape[-dims - 1], dims, generator=g, dtype=tdtype)
    name = f"fractional_max_pool{dims}d"
    expected = getattr(torch.nn.functional, name)(x, return_indices=True, _random_samples=samples, **kw)
    got = getattr(F, name)(from_torch(x), return_indices=True, _random_samples=from_torch(samples), **kw)
    close(torch, got[0], expected[0])
    close(torch, got[1], expected[1])
    xt = x.clone().requires_grad_()
    getattr(torch.nn.functional, name)(xt, _random_samples=samples, **kw).sum().backward()
    xy = from_torch(x).requires_grad_()
    getattr(F, name)(xy, _random_samples=from_torch(samples), **kw).sum().backward()
    close(torch, xy.grad, xt.grad)


def test_fractional_max_pool_module_draws_its_samples_and_checks_arguments(torch):
    pool = yaten.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5), return_indices=True)
    values, indices = pool(yaten.randn(2, 3, 12, 10))
    assert tuple(values.shape) == (2, 3, 6, 5) and tuple(indices.shape) == (2, 3, 6, 5)
    with pytest.raises(ValueError):
        yaten.nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError):
        yaten.nn.FractionalMaxPool3d(2, output_ratio=1.5)
    with pytest.raises(RuntimeError, match="too large"):
        F.fractional_max_pool2d(yaten.randn(1, 1, 5, 5), 3, output_size=4)
