"""CPU kernels II, the part that exists: softmax/log_softmax, *_like factories, cat/stack/hstack/vstack, flip,
tril/triu, against torch."""

from __future__ import annotations

import pytest

import yaten
from helpers import DTYPE_NAMES, from_torch, random_torch, to_torch
from test_ops import assert_matches


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_matches_torch(torch, name, dtype):
    gen = torch.Generator().manual_seed(41)
    t = random_torch(torch, dtype, (3, 5, 37), gen)
    y = from_torch(t)

    def reference(fn, x, dim):  # reduced precision: torch's float32 result, rounded once (as yaten computes)
        return fn(x.float(), dim).to(x.dtype) if dtype in ("float16", "bfloat16") else fn(x, dim)

    for dim in (0, 1, -1):
        assert_matches(torch, getattr(yaten, name)(y, dim), reference(getattr(torch, name), t, dim))
        assert_matches(torch, getattr(y.transpose(0, 2), name)(dim),
                       reference(getattr(torch, name), t.transpose(0, 2), dim))
        assert_matches(torch, getattr(yaten.nn.functional, name)(y, dim),
                       reference(getattr(torch.nn.functional, name), t, dim))
    assert_matches(torch, getattr(yaten, name)(y, 1, dtype=yaten.float64), getattr(torch, name)(t, 1, dtype=torch.float64))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_gradients_match_torch(torch, name, dtype):
    """The fused first-order gradient (_softmax_backward_fused, on the CPU) against torch's, along every dim, for a
    full gradient and for sum()'s expanded one, rows longer and shorter than a vector of lanes; and the recorded
    composite (a gradient of the gradient) against torch's second derivative."""
    gen = torch.Generator().manual_seed(43)
    t = random_torch(torch, dtype, (3, 5, 37), gen)
    g = random_torch(torch, dtype, (3, 5, 37), gen)
    for dim in (0, 1, -1):
        for grad in (g, None):
            x = t.detach().clone().requires_grad_()
            out = getattr(torch, name)(x, dim)  # torch's own float16/bfloat16 kernels: float32 inside, as yaten's
            (out.sum() if grad is None else (out * grad).sum()).backward()
            y = from_torch(t).requires_grad_()
            ours = getattr(yaten, name)(y, dim)
            (ours.sum() if grad is None else (ours * from_torch(grad)).sum()).backward()
            if dtype in ("float16", "bfloat16"):
                # both in float32 inside, rounded once; their sums' orders differ, and dy - sum cancels: a few ulps
                # of the terms (up to about 6 here), not of the result
                tol = 0.05 if dtype == "bfloat16" else 0.005
                torch.testing.assert_close(to_torch(torch, y.grad), x.grad, atol=tol, rtol=tol)
            else:
                assert_matches(torch, y.grad, x.grad)
    if dtype == "float64":  # the composite, recorded: torch's double backward
        x = t.detach().clone().requires_grad_()
        y = from_torch(t).requires_grad_()
        (gx,) = torch.autograd.grad((getattr(torch, name)(x, 1) * g).sum(), x, create_graph=True)
        (gy,) = yaten.autograd.grad((getattr(yaten, name)(y, 1) * from_torch(g)).sum(), y, create_graph=True)
        (ggx,) = torch.autograd.grad((gx * gx).sum(), x)
        (ggy,) = yaten.autograd.grad((gy * gy).sum(), y)
        assert_matches(torch, ggy, ggx)
    with pytest.raises(RuntimeError, match="one shape, dtype and device"):
        yaten._C._softmax_backward_fused(yaten.ones(2, 3), yaten.ones(3, 2), 1, False)


def test_softmax_special_values_match_torch(torch):
    t = torch.tensor([[1e4, 1e4, -1e4], [float("-inf"), 0.0, 1.0], [float("nan"), 1.0, 2.0], [-1e30, -1e30, -1e30]])
    for name in ("softmax", "log_softmax"):
        assert_matches(torch, getattr(yaten, name)(from_torch(t), 1), getattr(torch, name)(t, 1))
    scalar = torch.tensor(3.0)
    assert_matches(torch, yaten.softmax(from_torch(scalar), 0), torch.softmax(scalar, 0))
    with pytest.raises(NotImplementedError, match="softmax.int: no CPU kernel for dtype int64"):
        yaten.softmax(yaten.arange(3), 0)
    assert_matches(torch, yaten.softmax(yaten.arange(3), 0, dtype=yaten.float32),
                   torch.softmax(torch.arange(3), 0, dtype=torch.float32))


def test_like_factories_match_torch(torch):
    t = torch.zeros(2, 3, dtype=torch.int16)
    y = from_torch(t)
    assert_matches(torch, yaten.zeros_like(y), torch.zeros_like(t))
    assert_matches(torch, yaten.ones_like(y, dtype=yaten.float16), torch.ones_like(t, dtype=torch.float16))
    assert_matches(torch, yaten.full_like(y, 7), torch.full_like(t, 7))
    e = yaten.empty_like(y)
    assert e.shape == (2, 3) and e.dtype == yaten.int16


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_cat_stack_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(42)
    a, b = random_torch(torch, dtype, (2, 3), gen), random_torch(torch, dtype, (4, 3), gen)
    ya, yb = from_torch(a), from_torch(b)
    assert_matches(torch, yaten.cat([ya, yb]), torch.cat([a, b]))
    assert_matches(torch, yaten.cat((ya.T, yb.T), 1), torch.cat((a.T, b.T), 1))
    assert_matches(torch, yaten.cat([ya, yaten.empty(0)], -2), torch.cat([a, torch.empty(0)], -2))
    for dim in (0, 1, 2, -1):
        assert_matches(torch, yaten.stack([ya, ya], dim), torch.stack([a, a], dim))
    assert_matches(torch, yaten.hstack([ya, ya]), torch.hstack([a, a]))
    assert_matches(torch, yaten.vstack([ya, yb, ya[0]]), torch.vstack([a, b, a[0]]))


def test_cat_promotes_and_reports_bad_shapes(torch):
    a, b = torch.ones(2, dtype=torch.int32), torch.ones(3, dtype=torch.float16)
    assert_matches(torch, yaten.cat([from_torch(a), from_torch(b)]), torch.cat([a, b]))
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0. Expected size 3 but "
                                           "got size 2 for tensor number 1 in the list."):
        yaten.cat([yaten.zeros(2, 3), yaten.zeros(2, 2)])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        yaten.stack([yaten.zeros(2), yaten.zeros(3)])
    with pytest.raises(RuntimeError, match="cat: no tensor argument"):
        yaten.cat([])


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
def test_flip_tril_triu_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(43)
    t = random_torch(torch, dtype, (2, 4, 5), gen)
    y = from_torch(t)
    for dims in ([0], [2, 0], [-1], []):
        assert_matches(torch, yaten.flip(y, dims), torch.flip(t, dims))
    for diagonal in (0, 1, -2, 7):
        assert_matches(torch, yaten.tril(y, diagonal), torch.tril(t, diagonal))
        assert_matches(torch, y.triu(diagonal), t.triu(diagonal))
        assert_matches(torch, yaten.tril(y.transpose(1, 2), diagonal), torch.tril(t.transpose(1, 2), diagonal))
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        yaten.tril(yaten.zeros(3))


# ---------------------------------------------------------------------------------------------------- more shape ops

@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_roll_repeat_tile_repeat_interleave_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(51)
    t = random_torch(torch, dtype, (3, 4, 5), gen)
    y = from_torch(t)
    assert_matches(torch, yaten.roll(y, 2), torch.roll(t, 2))
    assert_matches(torch, yaten.roll(y, [1, -3], [0, 2]), torch.roll(t, [1, -3], [0, 2]))
    assert_matches(torch, y.roll(7, 1), t.roll(7, 1))
    assert_matches(torch, y.repeat(2, 1, 1, 3), t.repeat(2, 1, 1, 3))
    assert_matches(torch, y.permute(2, 1, 0).repeat(1, 2, 1), t.permute(2, 1, 0).repeat(1, 2, 1))
    assert_matches(torch, yaten.tile(y, (2,)), torch.tile(t, (2,)))
    assert_matches(torch, y.tile((2, 1, 1, 1)), t.tile((2, 1, 1, 1)))
    assert_matches(torch, yaten.repeat_interleave(y, 2), torch.repeat_interleave(t, 2))
    assert_matches(torch, y.repeat_interleave(3, dim=1), t.repeat_interleave(3, dim=1))
    reps = torch.tensor([1, 0, 2])
    assert_matches(torch, yaten.repeat_interleave(y, from_torch(reps), dim=0), torch.repeat_interleave(t, reps, dim=0))
    assert_matches(torch, yaten.repeat_interleave(from_torch(reps)), torch.repeat_interleave(reps))


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "float64", "complex128"])
def test_one_pass_flip_roll_tril_agree_with_their_composites(torch, dtype):
    # Note [Rearranging a contiguous tensor in one pass]: a contiguous CPU tensor that autograd does not follow takes
    # the one-pass path; a transposed one, or one that requires grad, the composites. Both against torch.
    gen = torch.Generator().manual_seed(52)
    t = random_torch(torch, dtype, (3, 4, 6), gen) if dtype != "complex128" else \
        torch.complex(torch.randn(3, 4, 6, generator=gen, dtype=torch.float64),
                      torch.randn(3, 4, 6, generator=gen, dtype=torch.float64))
    y = from_torch(t)
    grad = dtype in ("float32", "float64", "complex128")
    tracked = y.clone().requires_grad_() if grad else None
    for shifts, dims in ((2, 1), (-7, 2), ([1, 1], [2, 2]), ([5, -2, 13], [0, 1, 2]), (3, -1), (0, 0), (25, None)):
        expected = torch.roll(t, shifts, dims) if dims is not None else torch.roll(t, shifts)
        args = (shifts, dims) if dims is not None else (shifts,)
        assert_matches(torch, yaten.roll(y, *args), expected)
        if grad:
            assert_matches(torch, yaten.roll(tracked, *args).detach(), expected)
        moved = y.transpose(0, 2).contiguous().transpose(0, 2)  # same values, not contiguous
        assert_matches(torch, yaten.roll(moved, *args), expected)
    for dims in ([0], [1], [2], [0, 2], [1, 2], [0, 1, 2]):
        assert_matches(torch, yaten.flip(y, dims), torch.flip(t, dims))
        if grad:
            assert_matches(torch, yaten.flip(tracked, dims).detach(), torch.flip(t, dims))
    for diagonal in (-9, -1, 0, 2, 9):
        for name in ("tril", "triu"):
            expected = getattr(torch, name)(t, diagonal)
            assert_matches(torch, getattr(yaten, name)(y, diagonal), expected)
            if grad:
                assert_matches(torch, getattr(yaten, name)(tracked, diagonal).detach(), expected)


def test_shape_op_errors():
    y = yaten.ones(2, 3)
    with pytest.raises(RuntimeError, match="repeat"):
        y.repeat(2)
    with pytest.raises(RuntimeError, match="roll"):
        yaten.roll(y, [1, 2], [0])
    with pytest.raises(RuntimeError, match="repeat_interleave"):
        yaten.repeat_interleave(y, yaten.tensor([1, 2, 3]), dim=0)
    with pytest.raises(NotImplementedError, match="mode 'reflect'"):  # the op pads with a constant; F.pad reflects
        yaten._C._nn_functional.pad(y, (1, 1), "reflect")
    with pytest.raises(RuntimeError, match="pad"):
        yaten.nn.functional.pad(y, (1,))
    with pytest.raises(RuntimeError, match="diag"):
        yaten.diag(yaten.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="trace"):
        yaten.trace(yaten.ones(3))
    with pytest.raises(RuntimeError, match="indexing"):
        yaten.meshgrid(yaten.ones(2), indexing="ji")


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool", "float16"])
def test_pad_where_meshgrid_broadcast_diag_trace_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(52)
    t = random_torch(torch, dtype, (3, 4, 5), gen)
    y = from_torch(t)
    F, tF = yaten.nn.functional, torch.nn.functional
    for pad in [(1, 2), (0, 1, 2, 0), (1, 1, 1, 1, 1, 1), (-1, 2), (2, -3, -1, 0)]:
        value = None if dtype == "bool" else 3
        assert_matches(torch, F.pad(y, pad, value=value), tF.pad(t, pad, value=value))
    mask = t > t.reshape(-1)[7] if dtype != "bool" else t
    for got, expected in zip(yaten.where(from_torch(mask)), torch.where(mask)):
        assert_matches(torch, got, expected)
    a, b, c = (random_torch(torch, dtype, (n,), gen) for n in (2, 3, 4))
    for indexing in ("ij", "xy"):
        for got, expected in zip(yaten.meshgrid(from_torch(a), from_torch(b), from_torch(c), indexing=indexing),
                                 torch.meshgrid(a, b, c, indexing=indexing)):
            assert_matches(torch, got, expected)
    assert_matches(torch, yaten.broadcast_to(from_torch(a).reshape(2, 1), (3, 2, 5)),
                   torch.broadcast_to(a.reshape(2, 1), (3, 2, 5)))
    got = yaten.broadcast_tensors(from_torch(a).reshape(2, 1), from_torch(b))
    for g, e in zip(got, torch.broadcast_tensors(a.reshape(2, 1), b)):
        assert_matches(torch, g, e)
    m = t[0]
    for k in (-2, 0, 1, 4):
        assert_matches(torch, yaten.diag(from_torch(m), k), torch.diag(m, k))
        assert_matches(torch, from_torch(b).diag(k), b.diag(k))
    if dtype != "bool" and dtype != "float16":
        assert_matches(torch, yaten.trace(from_torch(m)), torch.trace(m))


def test_range_factories_match_torch(torch):
    for start, end, steps in [(0, 1, 5), (-3.5, 7.25, 11), (2, 2, 1), (0, 10, 0), (10, -10, 7)]:
        assert_matches(torch, yaten.linspace(start, end, steps), torch.linspace(start, end, steps))
        assert_matches(torch, yaten.linspace(start, end, steps, dtype=yaten.float64),
                       torch.linspace(start, end, steps, dtype=torch.float64))
        assert_matches(torch, yaten.logspace(start, end, steps, base=2.0, dtype=yaten.float64),
                       torch.logspace(start, end, steps, base=2.0, dtype=torch.float64))
    assert_matches(torch, yaten.linspace(0, 10, 4, dtype=yaten.int64), torch.linspace(0, 10, 4, dtype=torch.int64))
    assert_matches(torch, yaten.logspace(0, 3, 4), torch.logspace(0, 3, 4))
    assert_matches(torch, yaten.eye(3), torch.eye(3))
    assert_matches(torch, yaten.eye(2, 4, dtype=yaten.int32), torch.eye(2, 4, dtype=torch.int32))
    assert_matches(torch, yaten.eye(0), torch.eye(0))
    with pytest.raises(RuntimeError, match="linspace"):
        yaten.linspace(0, 1, -1)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_contiguous_fast_path_matches_torch_across_threads(torch, dim):
    gen = torch.Generator().manual_seed(53)
    shapes = [[8, 3, 700], [8, 3, 700], [8, 3, 700]]
    for i, s in enumerate(shapes):
        s[dim] = [5, 0, 9][i]
    parts = [torch.randn(s, generator=gen) for s in shapes]
    old = yaten.get_num_threads()
    try:
        for threads in (1, 2):
            yaten.set_num_threads(threads)
            assert_matches(torch, yaten.cat([from_torch(p) for p in parts], dim), torch.cat(parts, dim))
    finally:
        yaten.set_num_threads(old)


def test_torch_overloads_of_nonzero_squeeze_and_var_mean(torch):
    # torch's keywords and overloads: nonzero(as_tuple=) and where(condition) in Python (yaten/__init__.py), the
    # squeeze.dims and var_mean/std_mean unbiased overloads in ops.yaml
    import numpy as np

    t = torch.tensor([[0, 3, 0], [4, 0, 5]])
    y = from_torch(t)
    for got, want in zip(y.nonzero(as_tuple=True), t.nonzero(as_tuple=True)):
        assert got.tolist() == want.tolist()
    assert yaten.nonzero(y, as_tuple=False).tolist() == t.nonzero().tolist()
    assert y[y.nonzero(as_tuple=True)].tolist() == [3, 4, 5]
    for got, want in zip(yaten.where(y > 2), torch.where(t > 2)):
        assert got.tolist() == want.tolist()
    assert [w.tolist() for w in yaten.where(yaten.tensor(7))] == [w.tolist() for w in torch.where(torch.tensor(7))]
    assert yaten.where(y > 2, y, 0).tolist() == torch.where(t > 2, t, 0).tolist()
    for value in (5, 0):  # a 0-dim input: one index tensor, holding 0 when the value is nonzero
        (got,) = yaten.tensor(value).nonzero(as_tuple=True)
        assert got.tolist() == torch.tensor(value).nonzero(as_tuple=True)[0].tolist() and got.dtype == yaten.int64
    b, tb = yaten.ones(1, 3, 1, 2), torch.ones(1, 3, 1, 2)
    for dims in ((0, 2), (0, 1), (-1, -2, 0), [2], 0, ()):
        squeezed = b.squeeze(dims)
        assert tuple(squeezed.shape) == tuple(tb.squeeze(dims).shape), dims
        assert tuple(yaten.squeeze(b, dims).shape) == tuple(squeezed.shape)
        assert squeezed.data_ptr() == b.data_ptr()  # a view
    assert yaten.tensor(2.0).squeeze((0,)).shape == ()
    with pytest.raises(IndexError, match="squeeze"):
        b.squeeze((0, 4))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        b.squeeze((0, -4))
    x = torch.rand(3, 4, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    for name in ("var_mean", "std_mean"):
        ours, theirs = getattr(yaten, name), getattr(torch, name)
        for args, kwargs in (((True,), {}), ((False,), {}), ((1, False), {}), ((1, True, True), {}),
                             (((0, 1), False), {}), ((), {"dim": 0, "unbiased": False}), ((), {})):
            for got, want in zip(ours(from_torch(x), *args, **kwargs), theirs(x, *args, **kwargs)):
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, err_msg=f"{name}{args}{kwargs}")
                assert tuple(got.shape) == tuple(want.shape)
        with pytest.raises(TypeError):  # torch refuses the pair too
            theirs(x, unbiased=True, correction=0)
        with pytest.raises(TypeError, match="did not match any overload"):
            ours(from_torch(x), unbiased=True, correction=0)


@pytest.mark.parametrize("shape", [(200_003,), (517, 301), (3, 130, 257), (2, 3, 70, 181)])
def test_nonzero_and_masks_agree_with_numpy_over_many_chunks(shape):
    # nonzero works on chunks of 65,536 elements (rows cross their edges) without a branch per element, except in
    # sparse chunks of 3+ dims; x[mask] and x[idx] of a vector check and gather in one pass
    import numpy as np

    rng = np.random.default_rng(7)
    old = yaten.get_num_threads()
    try:
        for threads in (1, 2):
            yaten.set_num_threads(threads)
            for density in (0.0, 0.01, 0.5, 0.97, 1.0):
                values = np.where(rng.random(shape) < density, rng.standard_normal(shape), 0.0).astype(np.float32)
                values.reshape(-1)[:3] = [np.nan, -0.0, np.inf]  # NaN and inf count as nonzero, -0.0 does not
                got = yaten.from_numpy(values).nonzero()
                assert got.dtype == yaten.int64 and got.tolist() == np.argwhere(values).tolist(), (density, threads)
                mask = values != 0
                flat = values.reshape(-1)
                picked = yaten.from_numpy(flat)[yaten.from_numpy(mask.reshape(-1))].numpy()
                np.testing.assert_array_equal(picked, flat[mask.reshape(-1)])
        index = rng.integers(-flat.size, flat.size, 5000)
        np.testing.assert_array_equal(yaten.from_numpy(flat)[yaten.from_numpy(index)].numpy(), flat[index])
        with pytest.raises(IndexError, match=f"index {flat.size} is out of bounds for dimension 0"):
            yaten.from_numpy(flat)[yaten.tensor([0, flat.size])]
        with pytest.raises(IndexError, match="out of bounds"):
            yaten.from_numpy(flat)[yaten.tensor([-flat.size - 1])]
    finally:
        yaten.set_num_threads(old)


def test_vector_gathers_agree_with_numpy_where_blocks_of_indices_need_no_wrap_and_where_they_do():
    # index_detail::gather_vector: x[idx], index_select and take of a vector gather a block of 1,024 indices without a
    # check per element when all lie in [0, size), and wrap and check one by one otherwise; blocks of each kind side
    # by side, strided sources, 1 and 2 threads, and an index out of range in the last block of an in-range run
    import numpy as np

    rng = np.random.default_rng(8)
    flat = rng.standard_normal(50_000).astype(np.float32)
    index = rng.integers(0, flat.size, 40_000)
    index[3_000:3_010] -= flat.size  # counted from the end, inside the third block
    index[20_500] = -1
    old = yaten.get_num_threads()
    try:
        for threads in (1, 2):
            yaten.set_num_threads(threads)
            for source in (flat, flat[::2]):
                idx = index % source.size - (index < 0) * source.size  # the negative ones stay negative
                x, i = yaten.from_numpy(np.ascontiguousarray(source)), yaten.from_numpy(idx)
                if source is not flat:
                    x = yaten.from_numpy(flat)[::2]
                np.testing.assert_array_equal(x[i].numpy(), source[idx])
                np.testing.assert_array_equal(yaten.index_select(x, 0, i.int()).numpy(), source[idx])
                np.testing.assert_array_equal(x.take(i.reshape(200, 200)).numpy(), source[idx].reshape(200, 200))
            bad = np.arange(5_000)
            bad[-1] = flat.size
            for call in (lambda x, i: x[i], lambda x, i: yaten.index_select(x, 0, i)):
                with pytest.raises(IndexError, match=f"index {flat.size} is out of bounds for dimension 0"):
                    call(yaten.from_numpy(flat), yaten.from_numpy(bad))
    finally:
        yaten.set_num_threads(old)


def test_integer_scatter_add_into_short_vectors_agrees_with_numpy_add_at():
    # index_detail::scatter_add_counts: scatter_add_ of integers into a vector much shorter than the index (bincount's
    # counting) sums into interleaved partial counts; every integer dtype, sums that wrap, a strided and a broadcast
    # src, int32 indices, around the 4,096-element and length / 8 thresholds; an index out of range leaves self as
    # it was (every index is checked before self is written)
    import numpy as np

    rng = np.random.default_rng(9)
    for dtype in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        info = np.iinfo(dtype)
        for n, bins in ((4_095, 7), (4_096, 7), (10_000, 1_250), (10_000, 1_251), (60_001, 300)):
            index = rng.integers(0, bins, n)
            src = rng.integers(info.min, info.max, 2 * n, dtype=dtype, endpoint=True)[::2]  # strided; sums wrap
            base = rng.integers(info.min, info.max, bins, dtype=dtype, endpoint=True)
            expected = base.copy()
            np.add.at(expected, index, src)
            got = yaten.from_numpy(base.copy()).scatter_add_(0, yaten.from_numpy(index.astype(np.int32)),
                                                              yaten.from_numpy(src[::1]) if n % 2 else
                                                              yaten.from_numpy(np.ascontiguousarray(src)))
            np.testing.assert_array_equal(got.numpy(), expected, err_msg=f"{dtype} {n} {bins}")
        ones = yaten.ones([1], dtype=getattr(yaten, dtype)).expand([50_000])
        index = rng.integers(0, 20, 50_000)
        got = yaten.zeros([20], dtype=getattr(yaten, dtype)).scatter_add_(0, yaten.from_numpy(index), ones)
        np.testing.assert_array_equal(got.numpy(), np.bincount(index, minlength=20).astype(dtype))
    self = yaten.arange(10)
    bad = yaten.from_numpy(np.r_[np.zeros(9_999, dtype=np.int64), 10])
    with pytest.raises(IndexError, match="index 10 is out of bounds for dimension 0 with size 10"):
        self.scatter_add_(0, bad, yaten.ones([10_000], dtype=yaten.int64))
    assert self.tolist() == list(range(10))


def test_copies_are_exact_at_every_distance_between_source_and_destination():
    # Note [memcpy at a short distance] (core/copy_bytes.h): copies whose destination lies 1 to 63 bytes after the
    # source modulo 4096 take vector loads and stores; every distance and a length on each side of the block sizes
    import numpy as np

    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 300_000, dtype=np.uint8)
    src = yaten.from_numpy(data)
    dst = yaten.zeros(300_000 + 8192, dtype=yaten.uint8)
    for k in range(4096 + 70):  # every page offset of the destination against the source
        n = 2111 if k % 2 else 2048 + (k % 64)
        dst[k:k + n].copy_(src[:n])
        got = dst[k:k + n].numpy()
        assert (got == data[:n]).all(), k
    for k in (0, 1, 7, 15, 16, 63, 64, 4097):
        for n in (2047, 65_536 + 17, 300_000):
            dst.zero_()
            dst[k:k + n].copy_(src[:n])
            whole = dst.numpy()
            assert (whole[k:k + n] == data[:n]).all() and not whole[:k].any() and not whole[k + n:].any(), (k, n)
            assert (yaten.cat([src[:k], src[:n]]).numpy() == np.concatenate([data[:k], data[:n]])).all(), (k, n)
