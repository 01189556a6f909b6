"""Normalization against torch: batch_norm (training with running statistics, evaluation, momentum, 2-D to 5-D
inputs), instance_norm, group_norm, layer_norm and the native_* ops' extra outputs, gradients through all of them,
reduced precision, errors; on CUDA, close to the CPU (skipped without a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from helpers import assert_close_to, from_torch, seeded_randn

F = yaten.nn.functional
rand = seeded_randn
close = assert_close_to


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 7), (2, 3, 5, 6), (2, 3, 2, 3, 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training_and_running_statistics_match_torch(torch, shape, affine):
    x = rand(torch, shape, 1) * 3 + 1
    w, b = (rand(torch, (3,), 2), rand(torch, (3,), 3)) if affine else (None, None)
    rm, rv = rand(torch, (3,), 4), rand(torch, (3,), 5).abs() + 0.5
    ys = [from_torch(t) if t is not None else None for t in (x, w, b, rm, rv)]
    for _ in range(2):  # the running statistics carry over
        expected = torch.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-3)
        out = F.batch_norm(ys[0], ys[3], ys[4], ys[1], ys[2], training=True, momentum=0.2, eps=1e-3)
        close(torch, out, expected)
        close(torch, ys[3], rm)
        close(torch, ys[4], rv)
    close(torch, F.batch_norm(ys[0], ys[3], ys[4], ys[1], ys[2]), torch.nn.functional.batch_norm(x, rm, rv, w, b))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_running_statistics_update_in_place_as_torch(torch, dtype):
    """Running statistics in the input's reduced dtype and strided are updated where they are, as torch's are: no
    copy, no version bump (an autograd node that saved them stays valid), the same values within that dtype."""
    x = (rand(torch, (4, 3, 5), 6) * 2 + 1).to(getattr(torch, dtype))
    rm, rv = torch.zeros(6, dtype=x.dtype)[::2], torch.ones(6, dtype=x.dtype)[::2]
    ys = [from_torch(x), from_torch(rm.new_zeros(6))[::2], from_torch(rv.new_ones(6))[::2]]
    versions = [ys[1]._version, ys[2]._version]
    xr = ys[0].clone().requires_grad_()
    out = F.batch_norm(xr, ys[1], ys[2], training=True, momentum=0.3)
    torch.nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.3)
    assert [ys[1]._version, ys[2]._version] == versions
    tol = {"bfloat16": 2e-2, "float16": 2e-3}[dtype]
    for ours, theirs in [(ys[1], rm), (ys[2], rv)]:
        assert ours.stride() == (2,)
        assert yaten.allclose(ours.float(), from_torch(theirs.float()), rtol=tol, atol=tol)
    out.float().sum().backward()  # the node's saved statistics are still at their version
    assert xr.grad is not None


def test_native_batch_norm_outputs_match_torch(torch):
    x, w, b = rand(torch, (4, 3, 5), 6), rand(torch, (3,), 7), rand(torch, (3,), 8)
    out, mean, invstd = yaten.native_batch_norm(from_torch(x), from_torch(w), from_torch(b), None, None, True, 0.1,
                                                1e-5)
    eout, emean, einvstd = torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    for a, e in [(out, eout), (mean, emean), (invstd, einvstd)]:
        close(torch, a, e)


def test_batch_norm_gradients_match_torch(torch):
    made = [rand(torch, (4, 3, 5, 2), 9), rand(torch, (3,), 10), rand(torch, (3,), 11)]
    for t in made:
        t.requires_grad_()
    ours = [from_torch(t.detach()).requires_grad_() for t in made]
    expected = torch.nn.functional.batch_norm(made[0], None, None, made[1], made[2], training=True)
    out = F.batch_norm(ours[0], None, None, ours[1], ours[2], training=True)
    seed = rand(torch, tuple(expected.shape), 12)
    expected.backward(seed)
    out.backward(from_torch(seed))
    for t, y in zip(made, ours):
        close(torch, y.grad, t.grad)
    fresh = [y.detach().requires_grad_() for y in ours]
    assert yaten.autograd.gradgradcheck(
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [t[:2] if i == 0 else t
                                                                           for i, t in enumerate(fresh)])


def test_instance_norm_matches_torch(torch):
    x, w, b = rand(torch, (3, 4, 5, 6), 13), rand(torch, (4,), 14), rand(torch, (4,), 15)
    rm, rv = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    yrm, yrv = from_torch(rm), from_torch(rv)
    close(torch, F.instance_norm(from_torch(x), yrm, yrv, from_torch(w), from_torch(b), momentum=0.3),
          torch.nn.functional.instance_norm(x, rm, rv, w, b, momentum=0.3))
    close(torch, yrm, rm)
    close(torch, yrv, rv)
    close(torch, F.instance_norm(from_torch(x)), torch.nn.functional.instance_norm(x))


@pytest.mark.parametrize("shape,groups", [((2, 6, 5, 4), 3), ((3, 4, 7), 4), ((2, 6), 2), ((2, 8, 2, 3, 2), 1)])
def test_group_norm_and_its_gradient_match_torch(torch, shape, groups):
    c = shape[1]
    made = [rand(torch, shape, 16) * 2 + 3, rand(torch, (c,), 17), rand(torch, (c,), 18)]
    for t in made:
        t.requires_grad_()
    ours = [from_torch(t.detach()).requires_grad_() for t in made]
    expected = torch.nn.functional.group_norm(made[0], groups, made[1], made[2], eps=1e-4)
    out = F.group_norm(ours[0], groups, ours[1], ours[2], eps=1e-4)
    close(torch, out, expected)
    seed = rand(torch, tuple(expected.shape), 19)
    expected.backward(seed)
    out.backward(from_torch(seed))
    for t, y in zip(made, ours):
        close(torch, y.grad, t.grad)
    # without weight and bias (each group's scale and shift applied directly)
    x0, y0 = made[0].detach().requires_grad_(), ours[0].detach().requires_grad_()
    expected, out = torch.nn.functional.group_norm(x0, groups, eps=1e-4), F.group_norm(y0, groups, eps=1e-4)
    close(torch, out, expected)
    expected.backward(seed)
    out.backward(from_torch(seed))
    close(torch, y0.grad, x0.grad)
    _, mean, rstd = yaten.native_group_norm(ours[0].detach(), None, None, shape[0], c, out.numel() // (shape[0] * c),
                                            groups, 1e-4)
    _, emean, erstd = torch.native_group_norm(made[0].detach(), None, None, shape[0], c,
                                              out.numel() // (shape[0] * c), groups, 1e-4)
    close(torch, mean, emean)
    close(torch, rstd, erstd)


def test_native_layer_norm_outputs_match_torch(torch):
    x, w, b = rand(torch, (3, 4, 5), 20), rand(torch, (4, 5), 21), rand(torch, (4, 5), 22)
    for weight, bias in [(w, b), (w, None), (None, b), (None, None)]:
        got = yaten.native_layer_norm(from_torch(x), [4, 5], from_torch(weight) if weight is not None else None,
                                      from_torch(bias) if bias is not None else None, 1e-5)
        expected = torch.native_layer_norm(x, [4, 5], weight, bias, 1e-5)
        for a, e in zip(got, expected):
            close(torch, a, e)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_norms_in_reduced_precision(torch, dtype):
    x = rand(torch, (4, 6, 5, 5), 23, dtype)
    w = rand(torch, (6,), 24, dtype)
    tol = {"float32": 1e-5, "float16": 3e-3, "bfloat16": 2e-2}[dtype]
    out = F.batch_norm(from_torch(x), None, None, from_torch(w), training=True)
    assert repr(out.dtype) == f"yaten.{dtype}"
    close(torch, out, torch.nn.functional.batch_norm(x.double(), None, None, w.double(), training=True), tol)
    close(torch, F.group_norm(from_torch(x), 2, from_torch(w)),
          torch.nn.functional.group_norm(x.double(), 2, w.double()), tol)


def test_bad_arguments_raise_like_torch():
    x = yaten.ones(4, 3, 5)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(x, yaten.zeros(4), yaten.ones(4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(yaten.ones(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean and running_var must be given"):
        F.batch_norm(x, None, None)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(x, 2)
    with pytest.raises(NotImplementedError, match="native_batch_norm: no CPU kernel for dtype int64"):
        F.batch_norm(x.long(), None, None, training=True)
    with pytest.raises(RuntimeError, match="weight should contain 3 elements"):
        F.group_norm(x, 3, yaten.ones(2))


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
def test_norms_on_cuda_match_the_cpu():
    g = yaten.Generator().manual_seed(25)
    x, w, b = yaten.randn(4, 6, 5, 5, generator=g), yaten.randn(6, generator=g), yaten.randn(6, generator=g)
    rm, rv = yaten.zeros(6), yaten.ones(6)
    rmc, rvc = rm.cuda(), rv.cuda()
    for fn in [lambda t, w_, b_, m, v: F.batch_norm(t, m, v, w_, b_, training=True),
               lambda t, w_, b_, m, v: F.batch_norm(t, m, v, w_, b_),
               lambda t, w_, b_, m, v: F.group_norm(t, 3, w_, b_),
               lambda t, w_, b_, m, v: F.instance_norm(t, weight=w_, bias=b_)]:
        xs, xc = x.clone().requires_grad_(), x.cuda().requires_grad_()
        ws, wc = w.clone().requires_grad_(), w.cuda().requires_grad_()
        bs, bc = b.clone().requires_grad_(), b.cuda().requires_grad_()
        out, outc = fn(xs, ws, bs, rm, rv), fn(xc, wc, bc, rmc, rvc)
        assert outc.is_cuda and yaten.allclose(outc.cpu(), out, rtol=1e-4, atol=1e-5)
        out.square().sum().backward()
        outc.square().sum().backward()
        for ours, cpu in [(xc, xs), (wc, ws), (bc, bs)]:
            assert yaten.allclose(ours.grad.cpu(), cpu.grad, rtol=1e-3, atol=1e-4)
    assert yaten.allclose(rmc.cpu(), rm, rtol=1e-5, atol=1e-6) and yaten.allclose(rvc.cpu(), rv, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_batch_norm_on_cuda_in_other_dtypes_and_twice_differentiated(dtype):
    """native_batch_norm's CUDA kernel (Note [Batch norm in a few passes]) in reduced precision (statistics in
    float32, the CPU's) and in float64, and its gradient of a gradient (the composite backward) against the CPU."""
    g = yaten.Generator().manual_seed(26)
    x = yaten.randn(3, 4, 6, 5, generator=g).to(getattr(yaten, dtype))
    w, b = yaten.randn(4, generator=g).to(x.dtype), yaten.randn(4, generator=g).to(x.dtype)
    tol = 1e-2 if dtype != "float64" else 1e-9
    results = []
    for device in ("cpu", "cuda"):
        xd, wd, bd = (t.to(device).requires_grad_() for t in (x, w, b))
        rm, rv = yaten.zeros(4, device=device), yaten.ones(4, device=device)
        out = F.batch_norm(xd, rm, rv, wd, bd, training=True)
        gx, gw = yaten.autograd.grad(out.float().square().sum(), [xd, wd], create_graph=dtype == "float64")
        second = yaten.autograd.grad(gx.square().sum(), [xd])[0].cpu() if dtype == "float64" else None
        results.append((out.cpu().double(), gx.cpu().double(), gw.cpu().double(), rm.cpu(), rv.cpu(), second))
    for cpu, cuda in zip(*results):
        if cpu is not None:
            assert yaten.allclose(cuda.double(), cpu.double(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("with_weight", [True, False])
@pytest.mark.parametrize("mask", [(True, True, True), (True, False, False), (False, True, True)])
def test_fused_layer_norm_backward_equals_the_composite(dtype, with_weight, mask):
    """_layer_norm_backward_fused (layer_norm's first-order CPU gradient) against native_layer_norm_backward's
    composite, on the statistics _layer_norm_fused saves; rows split over more chunks than threads."""
    gen = np.random.default_rng(11)
    d = getattr(yaten, dtype)
    x = yaten.tensor(gen.standard_normal((37, 3, 48)), dtype=d)
    dy = yaten.tensor(gen.standard_normal((37, 3, 48)), dtype=d)
    w = yaten.tensor(gen.standard_normal((3, 48)), dtype=d) if with_weight else None
    _, mean, rstd = yaten._C._layer_norm_fused(x, [3, 48], w, None, 1e-5)
    fused = yaten._C._layer_norm_backward_fused(dy, x, [3, 48], mean, rstd, w, list(mask))
    composite = yaten._C.native_layer_norm_backward(dy, x, [3, 48], mean, rstd, w, yaten.zeros(3, 48, dtype=d),
                                                    list(mask))
    # both in float32 inside for float16/bfloat16, each rounded once at the end: within a few ulps of the values
    tol = {"float64": 1e-12, "float32": 2e-5, "float16": 1e-2, "bfloat16": 6e-2}[dtype]
    for i, (a, b) in enumerate(zip(fused, composite)):
        if not mask[i] or (i == 1 and not with_weight):
            assert a is None
            continue
        np.testing.assert_allclose(a.float().numpy(), b.float().numpy(), rtol=tol, atol=tol)


def test_a_nan_order_gives_nan_norms_even_over_a_dim_of_one():
    """torch returns |x| for `norm(nan, dim)` where the dim has one element (and NaN elsewhere); yaten's value is the
    formula's, NaN, everywhere (docs/torch-differences.md)."""
    x = yaten.tensor([[2.0, 1.0], [float("inf"), 3.0]])
    assert all(np.isnan(x.norm(float("nan"), 1).tolist()))
    assert all(np.isnan(x[:, :1].norm(float("nan"), 1).tolist()))
