"""torch's Tensor methods and top-level functions that yaten composes from its ops (yaten/_tensor_methods.py and the
later sections of yaten/_torch_functions.py), each compared with torch 2.13's CPU build: values, gradients where the
function has them, and torch's errors. Skipped without torch."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import yaten
from helpers import from_torch, to_torch

torch = pytest.importorskip("torch")


def _rand(*shape, dtype=torch.float64, seed=0):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _close(got, expected, **kw):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _close(g, e, **kw)
        return
    if isinstance(expected, torch.Tensor):
        got_t = to_torch(torch, got)
        assert got_t.dtype == expected.dtype, (got_t.dtype, expected.dtype)
        torch.testing.assert_close(got_t, expected, equal_nan=True, **kw)
    else:
        assert got == expected


def _both(fn_torch, fn_yaten, *tensors):
    """Runs both on the same values (yaten's copies made from torch's)."""
    expected = fn_torch(*[t.clone() for t in tensors])
    got = fn_yaten(*[from_torch(t.clone()) for t in tensors])
    return got, expected


def _raises_like(fn_torch, fn_yaten, *tensors, match=None):
    with pytest.raises(Exception) as theirs:
        fn_torch(*[t.clone() for t in tensors])
    with pytest.raises(type(theirs.value)) as ours:
        fn_yaten(*[from_torch(t.clone()) for t in tensors])
    if match:
        assert match in str(ours.value), str(ours.value)


# ------------------------------------------------------------------------------------------------ in-place forms
@pytest.mark.parametrize("name", ["eq_", "ne_", "ge_", "gt_", "le_", "lt_", "greater_", "greater_equal_", "less_",
                                  "less_equal_", "not_equal_", "logical_and_", "logical_or_", "logical_xor_"])
def test_in_place_comparisons_store_in_selfs_dtype(name):
    a = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    b = torch.tensor([2.0, 2.0, 0.0])
    got, expected = _both(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), a, b)
    _close(got, expected)
    # a broadcast that would grow self is refused, as torch does
    _raises_like(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), b, a)


def test_logical_not_and_cumulative_in_place():
    a = torch.tensor([0.0, 1.5, -2.0])
    _close(*_both(lambda x: x.logical_not_(), lambda x: x.logical_not_(), a))
    m = _rand(3, 4)
    _close(*_both(lambda x: x.cumsum_(1), lambda x: x.cumsum_(1), m))
    _close(*_both(lambda x: x.cumprod_(0), lambda x: x.cumprod_(0), m))


def test_in_place_refuses_a_result_dtype_self_cannot_hold():
    _raises_like(lambda x: x.tril_().mul_(1.5), lambda x: x.mul_(1.5), torch.ones(2, 2, dtype=torch.long))
    with pytest.raises(RuntimeError, match="can't be cast"):
        yaten.ones(3, 3, dtype=yaten.int64).addmm_(yaten.ones(3, 2), yaten.ones(2, 3))


@pytest.mark.parametrize("name", ["addmm_", "addbmm_", "baddbmm_", "addmv_", "addr_"])
def test_matrix_updates_in_place(name):
    shapes = {"addmm_": ((3, 4), (3, 5), (5, 4)), "addbmm_": ((3, 4), (2, 3, 5), (2, 5, 4)),
              "baddbmm_": ((2, 3, 4), (2, 3, 5), (2, 5, 4)), "addmv_": ((3,), (3, 5), (5,)),
              "addr_": ((3, 4), (3,), (4,))}[name]
    tensors = [_rand(*s, seed=i) for i, s in enumerate(shapes)]
    _close(*_both(lambda s, a, b: getattr(s, name)(a, b, beta=0.5, alpha=2.0),
                  lambda s, a, b: getattr(s, name)(a, b, beta=0.5, alpha=2.0), *tensors))


@pytest.mark.parametrize("name,args", [("tril_", (0,)), ("triu_", (1,)), ("square_", ()), ("mvlgamma_", (2,)),
                                       ("renorm_", (2, 0, 0.5)), ("clip_", (0.2, 0.6))])
def test_simple_in_place_forms(name, args):
    x = _rand(4, 4) + (1.0 if name == "mvlgamma_" else 0.0)
    _close(*_both(lambda t: getattr(t, name)(*args), lambda t: getattr(t, name)(*args), x))


def test_gcd_lcm_and_float_power_in_place():
    a, b = torch.tensor([12, 18, -7]), torch.tensor([8, 12, 21])
    _close(*_both(lambda x, y: x.gcd_(y), lambda x, y: x.gcd_(y), a, b))
    _close(*_both(lambda x, y: x.lcm_(y), lambda x, y: x.lcm_(y), a, b))
    _close(*_both(lambda x: x.float_power_(2), lambda x: x.float_power_(2), _rand(3)))
    _raises_like(lambda x: x.float_power_(2), lambda x: x.float_power_(2), torch.ones(3))


def test_in_place_forms_carry_gradients():
    base = _rand(3, 3)
    src = torch.rand(3, 3, dtype=torch.float64)
    expected_x = base.clone().requires_grad_()
    y = expected_x * 2
    y.tril_().addmm_(src, src, beta=0.5)
    y.sum().backward()
    got_x = from_torch(base).requires_grad_()
    z = got_x * 2
    z.tril_().addmm_(from_torch(src), from_torch(src), beta=0.5)
    z.sum().backward()
    _close(got_x.grad, expected_x.grad)


# ------------------------------------------------------------------------------------------------ view ops in place
@pytest.mark.parametrize("name,args", [("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (0, 1)),
                                       ("swapdims_", (1, 0)), ("unsqueeze_", (1,)), ("squeeze_", ()),
                                       ("as_strided_", ((2, 2), (1, 2), 1))])
def test_view_ops_in_place_change_self(name, args):
    x = _rand(3, 1) if name == "squeeze_" else _rand(2, 3)
    theirs = x.clone()
    ours = from_torch(x.clone())
    assert getattr(ours, name)(*args) is ours
    getattr(theirs, name)(*args)
    _close(ours, theirs)
    assert tuple(ours.stride()) == tuple(theirs.stride())


def test_view_ops_in_place_under_autograd():
    base = _rand(2, 3)
    leaf_t = base.clone().requires_grad_()
    y_t = leaf_t * 3
    y_t.t_()
    (y_t * torch.arange(6.0, dtype=torch.float64).view(3, 2)).sum().backward()
    leaf = from_torch(base).requires_grad_()
    y = leaf * 3
    y.t_()
    assert y.grad_fn is not None and tuple(y.shape) == (3, 2)
    (y * yaten.arange(6.0, dtype=yaten.float64).view(3, 2)).sum().backward()
    _close(leaf.grad, leaf_t.grad)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.unsqueeze_(0)


def test_resize_and_set():
    x = torch.arange(6.0)
    ours = from_torch(x.clone())
    ours.resize_(2, 2)
    _close(ours, x.clone().resize_(2, 2))
    ours.resize_(3, 3)  # grows: the first six elements are kept
    assert tuple(ours.shape) == (3, 3)
    _close(ours.reshape(-1)[:6], x)
    other = yaten.zeros(4, 5)
    ours.resize_as_(other)
    assert tuple(ours.shape) == (4, 5)
    with pytest.raises(RuntimeError, match="require grad"):
        yaten.ones(2, requires_grad=True).resize_(3)
    src = yaten.arange(12.0)
    t = yaten.empty(0)
    t.set_(src, 2, (2, 3), (3, 1))
    _close(t, torch.arange(12.0).as_strided((2, 3), (3, 1), 2))
    t.set_(src)
    assert t.is_set_to(src) and tuple(t.shape) == (12,)
    t.set_()
    assert tuple(t.shape) == (0,)


# ------------------------------------------------------------------------------------------------ random fills
def _moments(t):
    values = to_torch(torch, t).double()
    return float(values.mean()), float(values.var())


def test_random_fills_follow_their_distributions():
    g = yaten.Generator().manual_seed(1)
    n = 200_000
    mean, var = _moments(yaten.empty(n, dtype=yaten.float64).exponential_(2.0, generator=g))
    assert abs(mean - 0.5) < 0.01 and abs(var - 0.25) < 0.01
    geo = yaten.empty(n, dtype=yaten.int64).geometric_(0.25, generator=g)
    assert int(geo.min()) >= 1
    mean, var = _moments(geo)
    assert abs(mean - 4.0) < 0.05 and abs(var - 12.0) < 0.4
    ln = yaten.empty(n, dtype=yaten.float64).log_normal_(0.0, 0.5, generator=g)
    mean, _ = _moments(ln)
    assert abs(mean - math.exp(0.125)) < 0.01
    c = to_torch(torch, yaten.empty(n, dtype=yaten.float64).cauchy_(1.0, 2.0, generator=g))
    assert abs(float(c.median()) - 1.0) < 0.05
    assert abs(float((c - 1.0).abs().median()) - 2.0) < 0.05  # the half-width at half maximum is sigma
    for bad in (lambda t: t.exponential_(-1.0), lambda t: t.geometric_(1.5), lambda t: t.cauchy_(0.0, 0.0),
                lambda t: t.log_normal_(1.0, -1.0)):
        _raises_like(bad, bad, torch.empty(3))


def test_random_fills_repeat_for_a_seed():
    a = yaten.empty(100).exponential_(generator=yaten.Generator().manual_seed(7))
    b = yaten.empty(100).exponential_(generator=yaten.Generator().manual_seed(7))
    assert bool((a == b).all())


# ------------------------------------------------------------------------------------------------ queries
def test_queries_and_properties():
    x = _rand(2, 3)
    ours = from_torch(x)
    for name in ("is_cpu", "is_meta", "is_sparse", "is_quantized", "is_mkldnn", "is_nested", "is_xla", "is_mps"):
        assert getattr(ours, name) == getattr(x, name), name
    assert ours.ndimension() == 2 and not ours.is_inference() and not ours.is_neg()
    assert str(ours.layout) == "yaten.strided" and ours.layout is yaten.strided
    c = torch.complex(_rand(2, 3), _rand(2, 3, seed=1))
    _close(from_torch(c).mH, c.mH)
    _close(from_torch(c).H, c.H)
    _close(from_torch(c).adjoint(), c.adjoint())
    _close(ours.cdouble(), x.cdouble())
    assert ours.dim_order() == x.dim_order() and ours.t().dim_order() == x.t().dim_order()
    _close(ours.narrow_copy(1, 1, 2), x.narrow_copy(1, 1, 2))
    s = ours.new_empty_strided((2, 2), (1, 2))
    assert tuple(s.stride()) == (1, 2) and s.dtype == ours.dtype
    y = yaten.ones(3, requires_grad=True) * 2
    assert not y.retains_grad
    y.retain_grad()
    assert y.retains_grad and y.output_nr == 0
    assert yaten.ones(2).new(2, 3).shape == (2, 3) and yaten.ones(2).new([1, 2]).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("shape,size", [((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 4)), ((2, 3, 4), (2, 3, 4)),
                                        ((2, 3), (1,)), ((2, 3), ())])
def test_sum_to_size(shape, size):
    x = _rand(*shape)
    _close(from_torch(x).sum_to_size(size), x.sum_to_size(size))
    _raises_like(lambda t: t.sum_to_size((5,)), lambda t: t.sum_to_size((5,)), x)


@pytest.mark.parametrize("shape,dim,size,step", [((10,), 0, 3, 2), ((4, 7), 1, 2, 3), ((4, 7), 0, 4, 1),
                                                 ((3, 5, 2), -2, 5, 1)])
def test_unfold_is_torchs_view_with_gradients(shape, dim, size, step):
    x = _rand(*shape)
    _close(from_torch(x).unfold(dim, size, step), x.unfold(dim, size, step))
    xt = x.clone().requires_grad_()
    xt.unfold(dim, size, step).pow(2).sum().backward()
    xy = from_torch(x).requires_grad_()
    xy.unfold(dim, size, step).pow(2).sum().backward()
    _close(xy.grad, xt.grad)
    _raises_like(lambda t: t.unfold(dim, 99, 1), lambda t: t.unfold(dim, 99, 1), x)


def test_where_apply_and_map():
    x, y = _rand(5), _rand(5, seed=1)
    cond = x > 0.5
    _close(from_torch(x).where(from_torch(cond), from_torch(y)), x.where(cond, y))
    _close(from_torch(x).apply_(lambda v: v * 2 + 1), x.clone().apply_(lambda v: v * 2 + 1))
    _close(from_torch(x).map_(from_torch(y), lambda a, b: a - b), x.clone().map_(y, lambda a, b: a - b))


# ------------------------------------------------------------------------------------------------ indexed updates
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_add_copy_reduce(dim):
    x = _rand(4, 5)
    n = x.shape[dim]
    index = torch.tensor([0, n - 1, 0])
    src_shape = list(x.shape)
    src_shape[dim] = 3
    src = _rand(*src_shape, seed=2)
    _close(*_both(lambda a, s: torch.index_add(a, dim, index, s, alpha=2.0),
                  lambda a, s: yaten.index_add(a, dim, from_torch(index), s, alpha=2.0), x, src))
    _close(*_both(lambda a, s: a.index_add_(dim, index, s), lambda a, s: a.index_add_(dim, from_torch(index), s),
                  x, src))
    unique = torch.tensor([n - 1, 0, 1])
    _close(*_both(lambda a, s: torch.index_copy(a, dim, unique, s),
                  lambda a, s: yaten.index_copy(a, dim, from_torch(unique), s), x, src))
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            _close(*_both(lambda a, s: a.index_reduce(dim, index, s, reduce, include_self=include_self),
                          lambda a, s: a.index_reduce(dim, from_torch(index), s, reduce, include_self=include_self),
                          x, src))
    # gradients reach self and source
    xt, st = x.clone().requires_grad_(), src.clone().requires_grad_()
    torch.index_add(xt, dim, index, st, alpha=3.0).pow(2).sum().backward()
    xy, sy = from_torch(x).requires_grad_(), from_torch(src).requires_grad_()
    yaten.index_add(xy, dim, from_torch(index), sy, alpha=3.0).pow(2).sum().backward()
    _close(xy.grad, xt.grad)
    _close(sy.grad, st.grad)


def test_index_add_errors():
    x = torch.zeros(3, 4)
    _raises_like(lambda a: a.index_add_(0, torch.tensor([0]), torch.ones(1, 4, dtype=torch.float64)),
                 lambda a: a.index_add_(0, yaten.tensor([0]), yaten.ones(1, 4, dtype=yaten.float64)), x)
    with pytest.raises(RuntimeError, match="index_reduce"):
        yaten.zeros(3).index_reduce(0, yaten.tensor([0]), yaten.ones(1), "sum")


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_and_put(accumulate):
    x = _rand(4, 5)
    rows = torch.tensor([0, 2, 0])
    cols = torch.tensor([1, 1, 1])
    values = _rand(3, seed=3)
    if not accumulate:
        rows = torch.tensor([0, 2, 3])
    _close(*_both(lambda a, v: torch.index_put(a, (rows, cols), v, accumulate),
                  lambda a, v: yaten.index_put(a, (from_torch(rows), from_torch(cols)), v, accumulate), x, values))
    # yaten takes None for a whole dimension (torch's index_put_ does not: its spelling is an arange)
    row_values = _rand(3, 5, seed=4)
    every = torch.arange(5)
    _close(*_both(lambda a, v: a.index_put_((rows[:, None], every[None, :]), v, accumulate=accumulate),
                  lambda a, v: a.index_put_((from_torch(rows), None), v, accumulate=accumulate), x, row_values))
    mask = x > 0.5
    _close(*_both(lambda a: a.index_put_((mask,), torch.tensor(7.0, dtype=torch.float64), accumulate=accumulate),
                  lambda a: a.index_put_((from_torch(mask),), yaten.tensor(7.0, dtype=yaten.float64),
                                         accumulate=accumulate), x))
    flat_index = torch.tensor([0, -1, 7, 0])
    source = _rand(4, seed=5)
    if not accumulate:
        flat_index = torch.tensor([0, -1, 7, 3])
    _close(*_both(lambda a, s: a.put(flat_index, s, accumulate), lambda a, s: a.put(from_torch(flat_index), s,
                                                                                        accumulate), x, source))
    _close(*_both(lambda a, s: a.t().put_(flat_index, s, accumulate),
                  lambda a, s: a.t().put_(from_torch(flat_index), s, accumulate), x, source))
    _raises_like(lambda a, s: a.put_(torch.tensor([0, 0, 0, 99]), s), lambda a, s: a.put_(yaten.tensor(
        [0, 0, 0, 99]), s), x, source)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), False),
                                        ((3, 3, 3), False)])
def test_fill_diagonal(shape, wrap):
    _close(*_both(lambda a: a.fill_diagonal_(5.0, wrap), lambda a: a.fill_diagonal_(5.0, wrap), torch.zeros(*shape)))


def test_fill_diagonal_refuses_unequal_dims():
    _raises_like(lambda a: a.fill_diagonal_(1.0), lambda a: a.fill_diagonal_(1.0), torch.zeros(2, 3, 4))


# ------------------------------------------------------------------------------------------------ composites
def test_addbmm_addr_diagflat_scatters_rsub():
    m, b1, b2 = _rand(3, 4), _rand(5, 3, 2, seed=1), _rand(5, 2, 4, seed=2)
    _close(*_both(lambda a, x, y: torch.addbmm(a, x, y, beta=0.5, alpha=2), lambda a, x, y: yaten.addbmm(
        a, x, y, beta=0.5, alpha=2), m, b1, b2))
    v1, v2 = _rand(3, seed=3), _rand(4, seed=4)
    _close(*_both(lambda a, x, y: torch.addr(a, x, y, beta=2, alpha=3), lambda a, x, y: yaten.addr(
        a, x, y, beta=2, alpha=3), m, v1, v2))
    nan = torch.full((3, 4), float("nan"), dtype=torch.float64)
    _close(*_both(lambda a, x, y: torch.addr(a, x, y, beta=0), lambda a, x, y: yaten.addr(a, x, y, beta=0),
                  nan, v1, v2))
    bools = torch.tensor([True, False]), torch.tensor([True, True, False])
    _close(*_both(lambda a, x, y: torch.addr(a, x, y), lambda a, x, y: yaten.addr(a, x, y),
                  torch.zeros(2, 3, dtype=torch.bool), *bools))
    for offset in (-1, 0, 2):
        _close(*_both(lambda a: torch.diagflat(a, offset), lambda a: yaten.diagflat(a, offset), _rand(2, 2)))
    base, diag_src = _rand(3, 4), _rand(3, seed=6)
    _close(*_both(lambda a, s: torch.diagonal_scatter(a, s), lambda a, s: yaten.diagonal_scatter(a, s), base,
                  diag_src))
    _close(*_both(lambda a, s: torch.diagonal_scatter(a, s, 1), lambda a, s: yaten.diagonal_scatter(a, s, 1), base,
                  diag_src))
    src = _rand(2, 2, seed=7)
    _close(*_both(lambda a, s: torch.as_strided_scatter(a, s, (2, 2), (1, 2), 1),
                  lambda a, s: yaten.as_strided_scatter(a, s, (2, 2), (1, 2), 1), base, src))
    _close(*_both(lambda a: a.select_scatter(torch.zeros(4, dtype=torch.float64), 0, 1),
                  lambda a: a.select_scatter(yaten.zeros(4, dtype=yaten.float64), 0, 1), base))
    _close(*_both(lambda a: torch.rsub(a, 5), lambda a: yaten.rsub(a, 5), torch.tensor([1, 2])))
    _close(*_both(lambda a, b: torch.rsub(a, b, alpha=2), lambda a, b: yaten.rsub(a, b, alpha=2), base, base * 3))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (0, False), (1, True), (-1, False)])
def test_quantile_and_nanquantile(interpolation, dim, keepdim):
    x = _rand(4, 7)
    with_nan = x.clone()
    with_nan[1, 3] = float("nan")
    with_nan[2, :] = float("nan")
    for q in (0.3, torch.tensor([0.0, 0.25, 0.5, 1.0], dtype=torch.float64)):
        qy = from_torch(q) if isinstance(q, torch.Tensor) else q
        _close(from_torch(x).quantile(qy, dim, keepdim, interpolation=interpolation),
               x.quantile(q, dim, keepdim, interpolation=interpolation))
        _close(yaten.quantile(from_torch(with_nan), qy, dim, keepdim, interpolation=interpolation),
               torch.quantile(with_nan, q, dim, keepdim, interpolation=interpolation))
        _close(yaten.nanquantile(from_torch(with_nan), qy, dim, keepdim, interpolation=interpolation),
               torch.nanquantile(with_nan, q, dim, keepdim, interpolation=interpolation))


def test_quantile_gradient_and_errors():
    x = _rand(3, 6)
    xt = x.clone().requires_grad_()
    torch.quantile(xt, 0.4, dim=1).sum().backward()
    xy = from_torch(x).requires_grad_()
    yaten.quantile(xy, 0.4, dim=1).sum().backward()
    _close(xy.grad, xt.grad)
    _raises_like(lambda a: torch.quantile(a, 1.5), lambda a: yaten.quantile(a, 1.5), x)
    _raises_like(lambda a: torch.quantile(a.long(), 0.5), lambda a: yaten.quantile(a.long(), 0.5), x)
    _raises_like(lambda a: torch.quantile(a[:0], 0.5), lambda a: yaten.quantile(a[:0], 0.5), x)


@pytest.mark.parametrize("bins", [4, 7])
@pytest.mark.parametrize("weighted,density", [(False, False), (True, False), (False, True), (True, True)])
def test_histogram(bins, weighted, density):
    x = torch.randn(200, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    w = _rand(200, seed=1) if weighted else None
    for rng in (None, (-1.0, 1.5)):
        expected = torch.histogram(x, bins, range=rng, weight=w, density=density)
        got = yaten.histogram(from_torch(x), bins, range=rng, weight=None if w is None else from_torch(w),
                              density=density)
        _close(got.hist, expected.hist)
        _close(got.bin_edges, expected.bin_edges)
    edges = torch.tensor([-2.0, -0.5, 0.0, 0.1, 3.0], dtype=torch.float64)
    expected = torch.histogram(x, edges, weight=w, density=density)
    got = from_torch(x).histogram(from_torch(edges), weight=None if w is None else from_torch(w), density=density)
    _close(got[0], expected[0])


def test_histogram_edge_cases_and_histogramdd():
    _close(yaten.histogram(yaten.full((5,), 2.0, dtype=yaten.float64), 3).hist,
           torch.histogram(torch.full((5,), 2.0, dtype=torch.float64), 3).hist)
    _close(yaten.histogram(yaten.tensor([0.0, 1.0, 1.0]), 2).hist, torch.histogram(torch.tensor([0.0, 1.0, 1.0]),
                                                                                        2).hist)
    points = torch.randn(100, 3, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    w = _rand(100, seed=2)
    for bins in (3, [2, 3, 4]):
        expected = torch.histogramdd(points, bins, weight=w, density=True)
        got = yaten.histogramdd(from_torch(points), bins, weight=from_torch(w), density=True)
        _close(got.hist, expected.hist)
        for g, e in zip(got.bin_edges, expected.bin_edges):
            _close(g, e)
    _raises_like(lambda a: torch.histogram(a.long(), 3), lambda a: yaten.histogram(a.long(), 3), points[:, 0])


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(edge_order):
    f = _rand(5, 6)
    _close(yaten.gradient(from_torch(f), edge_order=edge_order), torch.gradient(f, edge_order=edge_order))
    _close(yaten.gradient(from_torch(f), spacing=0.5, dim=1, edge_order=edge_order),
           torch.gradient(f, spacing=0.5, dim=1, edge_order=edge_order))
    coords = [torch.tensor([0.0, 0.3, 1.0, 1.1, 2.5], dtype=torch.float64),
              torch.tensor([0.0, 1.0, 1.5, 3.0, 3.2, 4.0], dtype=torch.float64)]
    _close(yaten.gradient(from_torch(f), spacing=[from_torch(c) for c in coords], edge_order=edge_order),
           torch.gradient(f, spacing=coords, edge_order=edge_order))
    _close(yaten.gradient(yaten.tensor([1, 4, 9, 16, 25])), torch.gradient(torch.tensor([1, 4, 9, 16, 25])))
    _raises_like(lambda a: torch.gradient(a[:2], edge_order=2), lambda a: yaten.gradient(a[:2], edge_order=2), f)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
def test_logcumsumexp(dtype):
    x = (torch.randn(4, 9, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 30).to(dtype)
    x[1, 2] = -float("inf")
    x[2, 0] = float("inf")
    x[3, 3] = float("nan")
    x[0, :] = -float("inf")
    for dim in (0, 1, -1):
        _close(yaten.logcumsumexp(from_torch(x), dim), torch.logcumsumexp(x, dim))
    big = torch.tensor([1000.0, 1000.0, -1000.0, 1001.0], dtype=torch.float64)  # exp overflows, the sum does not
    _close(from_torch(big).logcumsumexp(0), big.logcumsumexp(0))
    _close(yaten.logcumsumexp(yaten.tensor(3.0), 0), torch.logcumsumexp(torch.tensor(3.0), 0))
    _raises_like(lambda a: torch.logcumsumexp(a.long(), 0), lambda a: yaten.logcumsumexp(a.long(), 0), x)


# ------------------------------------------------------------------------------------------------ small functions
def test_small_functions():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(yaten.range(0, 1, 0.25), torch.range(0, 1, 0.25))
        _close(yaten.range(1, 4, dtype=yaten.int64), torch.range(1, 4, dtype=torch.int64))
    r = yaten.randint_like(yaten.zeros(2, 3, dtype=yaten.int32), 5)
    assert r.shape == (2, 3) and r.dtype == yaten.int32 and 0 <= int(r.min()) and int(r.max()) < 5
    _close(yaten.fill(yaten.zeros(2), 3.0), torch.fill(torch.zeros(2), 3.0))
    e = yaten.empty_permuted((2, 3, 4), (0, 2, 1))
    assert tuple(e.stride()) == torch.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    for size, fill in ((5, -1), (1, 7), (0, -1)):
        t = torch.tensor([[0, 1], [1, 1]])
        _close(yaten.nonzero_static(from_torch(t), size=size, fill_value=fill),
               torch.nonzero_static(t, size=size, fill_value=fill))
    x = _rand(7)
    _close(yaten.unsafe_split(from_torch(x), 3), torch.unsafe_split(x, 3))
    _close(yaten.unsafe_chunk(from_torch(x), 2), torch.unsafe_chunk(x, 2))
    assert yaten.typename(yaten.ones(2)) == "yaten.FloatTensor" and yaten.typename(1) == "int"
    assert yaten.is_storage(yaten.ones(2).untyped_storage()) and not yaten.is_storage(1)
    y = yaten.from_dlpack(yaten.to_dlpack(yaten.arange(3)))
    assert y.tolist() == [0, 1, 2]


def test_asarray_and_frombuffer():
    t = yaten.arange(4)
    assert yaten.asarray(t) is t or yaten.asarray(t).data_ptr() == t.data_ptr()
    assert yaten.asarray(t, copy=True).data_ptr() != t.data_ptr()
    with pytest.raises(ValueError):
        yaten.asarray(t, dtype=yaten.float32, copy=False)
    a = np.arange(5.0)
    shared = yaten.asarray(a)
    a[0] = 9.0
    assert float(shared[0]) == 9.0
    assert yaten.asarray([[1, 2], [3, 4]], dtype=yaten.float64).dtype == yaten.float64
    buf = bytearray(np.arange(6, dtype=np.float32).tobytes())
    f = yaten.frombuffer(buf, dtype=yaten.float32, count=4, offset=8)
    _close(f, torch.frombuffer(bytearray(buf), dtype=torch.float32, count=4, offset=8))
    f[0] = 100.0  # writes through
    assert np.frombuffer(buf, dtype=np.float32)[2] == 100.0
    with pytest.raises(ValueError):
        yaten.frombuffer(bytearray(7), dtype=yaten.float32)
    halves = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
    raw = bytearray(halves.view(torch.int16).numpy().tobytes())
    _close(yaten.frombuffer(raw, dtype=yaten.bfloat16), halves)


def test_norm_spellings_and_lu():
    x = _rand(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(yaten.frobenius_norm(from_torch(x), [0, 1]), torch.frobenius_norm(x, [0, 1]))
        _close(yaten.frobenius_norm(from_torch(x), [1], True), torch.frobenius_norm(x, [1], True))
        _close(yaten.nuclear_norm(from_torch(x)), torch.nuclear_norm(x))
    for dim in (0, 1, -1):
        _close(yaten.norm_except_dim(from_torch(x), 3, dim), torch.norm_except_dim(x, 3, dim))
    a = _rand(4, 4)
    _close(yaten.lu(from_torch(a)), torch.lu(a))
    _close(from_torch(a).lu(get_infos=True), a.lu(get_infos=True))


@pytest.mark.parametrize("name", ["solve", "eig", "lstsq", "symeig", "matrix_rank"])
def test_removed_functions_raise_as_torchs_do(name):
    args = 2 if name in ("solve", "lstsq") else 1
    with pytest.raises(RuntimeError):
        getattr(torch, name)(*[torch.eye(2)] * args)
    with pytest.raises(RuntimeError, match="linalg"):
        getattr(yaten, name)(*[yaten.eye(2)] * args)


def test_control_flow_and_modes():
    x = yaten.ones(2)
    _close(yaten.cond(yaten.tensor(False), lambda a: a + 1, lambda a: a - 1, (x,)), torch.zeros(2))
    assert int(yaten.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (yaten.tensor(0),
                                                                                   yaten.tensor(0)))[1]) == 6
    assert not yaten.is_inference_mode_enabled()
    with yaten.inference_mode():
        assert yaten.is_inference_mode_enabled()
        with yaten.inference_mode(False):
            assert not yaten.is_inference_mode_enabled()
    assert yaten.get_device_module("cpu") is yaten.cpu
    assert yaten.get_autocast_cpu_dtype() == yaten.bfloat16


def test_set_printoptions():
    try:
        yaten.set_printoptions(precision=2)
        torch.set_printoptions(precision=2)
        assert repr(yaten.tensor([1.23456])) == repr(torch.tensor([1.23])).replace("torch", "yaten")
        yaten.set_printoptions(sci_mode=True)
        torch.set_printoptions(sci_mode=True)
        assert repr(yaten.tensor([1.5, 2.0])) == repr(torch.tensor([1.5, 2.0]))
    finally:
        yaten.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


# ------------------------------------------------------------------------------------------------ nn spellings
def test_top_level_nn_spellings_take_atens_arguments():
    w = _rand(10, 4)
    idx = torch.tensor([[1, 2], [0, 9]])
    _close(yaten.embedding(from_torch(w), from_torch(idx)), torch.embedding(w, idx))
    p, q = torch.log_softmax(_rand(3, 5), 1), torch.softmax(_rand(3, 5, seed=1), 1)
    for reduction in (0, 1, 2):
        _close(yaten.kl_div(from_torch(p), from_torch(q), reduction), torch.kl_div(p, q, reduction))
        x, t = _rand(4, 3), _rand(4, 3, seed=2)
        pw = _rand(3, seed=3)
        _close(yaten.binary_cross_entropy_with_logits(from_torch(x), from_torch(t), None, from_torch(pw), reduction),
               torch.binary_cross_entropy_with_logits(x, t, None, pw, reduction))
        a, b = _rand(4, 3), _rand(4, 3, seed=5)
        y = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
        _close(yaten.cosine_embedding_loss(from_torch(a), from_torch(b), from_torch(y), 0.1, reduction),
               torch.cosine_embedding_loss(a, b, y, 0.1, reduction))
        _close(yaten.margin_ranking_loss(from_torch(a[:, 0]), from_torch(b[:, 0]), from_torch(y), 0.1, reduction),
               torch.margin_ranking_loss(a[:, 0], b[:, 0], y, 0.1, reduction))
        _close(yaten.hinge_embedding_loss(from_torch(a[:, 0]), from_torch(y), 0.5, reduction),
               torch.hinge_embedding_loss(a[:, 0], y, 0.5, reduction))
        n = _rand(4, 3, seed=6)
        _close(yaten.triplet_margin_loss(from_torch(a), from_torch(b), from_torch(n), 1.0, 2.0, 1e-6, True,
                                         reduction),
               torch.triplet_margin_loss(a, b, n, 1.0, 2.0, 1e-6, True, reduction))
        _close(yaten.poisson_nll_loss(from_torch(a), from_torch(b), True, True, 1e-8, reduction),
               torch.poisson_nll_loss(a, b, True, True, 1e-8, reduction))
    img, grid = _rand(1, 2, 4, 5), _rand(1, 3, 3, 2) * 2 - 1
    for mode in (0, 1, 2):
        for padding in (0, 1, 2):
            _close(yaten.grid_sampler(from_torch(img), from_torch(grid), mode, padding, False),
                   torch.grid_sampler(img, grid, mode, padding, False))
    theta = _rand(2, 2, 3)
    _close(yaten.affine_grid_generator(from_torch(theta), [2, 1, 3, 4], True),
           torch.affine_grid_generator(theta, [2, 1, 3, 4], True))
    seq, weight, bias = _rand(6, 2, 3), _rand(3, 3, 4, seed=1), _rand(4, seed=2)
    _close(yaten.conv_tbc(from_torch(seq), from_torch(weight), from_torch(bias), 1),
           torch.conv_tbc(seq, weight, bias, 1))
    table = _rand(6, 3) * 4
    rows = torch.tensor([0, 2, 2])
    _close(yaten.embedding_renorm_(from_torch(table), from_torch(rows), 1.0, 2.0),
           torch.embedding_renorm_(table.clone(), rows, 1.0, 2.0))


# ------------------------------------------------------------------------------------------------ stft / istft
_STFT_CASES = [
    dict(n_fft=16), dict(n_fft=16, hop_length=5, win_length=12, window="hann12"),
    dict(n_fft=16, center=False, window="hann16"), dict(n_fft=16, normalized=True, onesided=False),
    dict(n_fft=15, pad_mode="constant"), dict(n_fft=16, win_length=12, window="hann12", center=False,
                                              align_to_window=True),
]


def _stft_args(case, lib):
    out = dict(case)
    if isinstance(out.get("window"), str):
        n = int(out["window"][4:])
        out["window"] = torch.hann_window(n, dtype=torch.float64) if lib is torch else \
            from_torch(torch.hann_window(n, dtype=torch.float64))
    return out


@pytest.mark.parametrize("case", _STFT_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_stft_and_istft_match_torch(case):
    x = torch.randn(2, 100, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    theirs, ours = _stft_args(case, torch), _stft_args(case, yaten)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.stft(x, return_complex=True, **theirs)
        got = yaten.stft(from_torch(x), return_complex=True, **ours)
        _close(got, expected)
        _close(from_torch(x[0]).stft(return_complex=True, **ours), x[0].stft(return_complex=True, **theirs))
        _close(yaten.stft(from_torch(x), return_complex=False, **ours),
               torch.stft(x, return_complex=False, **theirs))
        if "pad_mode" in case or "align_to_window" in case:
            return
        for length in (None, 90, 110):
            try:
                want = torch.istft(expected, length=length, **theirs)
            except RuntimeError:
                with pytest.raises(RuntimeError, match="overlap add"):
                    yaten.istft(got, length=length, **ours)
                continue
            _close(yaten.istft(got, length=length, **ours), want)


def test_stft_gradients_and_errors():
    x = torch.randn(50, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    w = torch.hann_window(8, dtype=torch.float64)
    xt = x.clone().requires_grad_()
    torch.stft(xt, 8, 2, window=w, return_complex=True).abs().sum().backward()
    xy = from_torch(x).requires_grad_()
    yaten.stft(xy, 8, 2, window=from_torch(w), return_complex=True).abs().sum().backward()
    _close(xy.grad, xt.grad)
    with pytest.raises(RuntimeError, match="return_complex"):
        yaten.stft(from_torch(x), 8)
    with pytest.raises(RuntimeError, match="align_to_window"):
        yaten.stft(from_torch(x), 8, return_complex=True, align_to_window=True)
    with pytest.raises(RuntimeError, match="complex"):
        yaten.istft(from_torch(x).view(10, 5), 8)


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr(left, transpose):
    a, tau = torch.geqrf(torch.randn(2, 5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)))
    other = _rand(2, 5, 4) if left else _rand(2, 4, 5)
    _close(yaten.ormqr(from_torch(a), from_torch(tau), from_torch(other), left, transpose),
           torch.ormqr(a, tau, other, left, transpose))
    _close(from_torch(a).ormqr(from_torch(tau), from_torch(other), left, transpose),
           a.ormqr(tau, other, left, transpose))


def test_as_subclass_and_module_load():
    class Tagged(yaten.Tensor):
        pass

    x = yaten.ones(2, requires_grad=True) * 2
    tagged = x.as_subclass(Tagged)
    assert type(tagged) is Tagged and tagged.grad_fn is not None
    (tagged * 3).sum().backward()
    assert isinstance(tagged, yaten.Tensor)
    p = yaten.zeros(3)
    saved = yaten.arange(3.0)
    loaded = p.module_load(saved)
    assert loaded is not p and loaded is not saved and p.tolist() == [0.0, 1.0, 2.0]
    assert p.module_load(saved, assign=True).data_ptr() == saved.data_ptr()


# ------------------------------------------------------------------------------------------------ poisson, binomial
def _pmf_agrees(samples, pmf, support):
    counts = np.bincount(samples.astype(int), minlength=len(support))[:len(support)]
    empirical = counts / len(samples)
    bound = 5 * np.sqrt(pmf * (1 - pmf) / len(samples)) + 1e-4  # five standard errors
    assert np.all(np.abs(empirical - pmf) <= bound), np.max(np.abs(empirical - pmf) / bound)


@pytest.mark.parametrize("rate", [0.5, 3.0, 9.9, 10.0, 37.0, 800.0])
def test_poisson_samples_follow_the_distribution(rate):
    stats = pytest.importorskip("scipy.stats")
    n = 100_000
    x = yaten.poisson(yaten.full((n,), rate, dtype=yaten.float64), generator=yaten.Generator().manual_seed(3))
    assert x.dtype == yaten.float64 and tuple(x.shape) == (n,)
    values = x.numpy()
    assert np.all(values == np.floor(values)) and values.min() >= 0
    support = np.arange(int(rate + 8 * np.sqrt(rate) + 8))
    _pmf_agrees(values, stats.poisson.pmf(support, rate), support)


@pytest.mark.parametrize("count,prob", [(5, 0.3), (20, 0.5), (120, 0.3), (1000, 0.93), (60, 0.05), (7, 1.0),
                                        (0, 0.4)])
def test_binomial_samples_follow_the_distribution(count, prob):
    stats = pytest.importorskip("scipy.stats")
    n = 100_000
    x = yaten.binomial(yaten.full((n,), float(count)), yaten.tensor(prob), generator=yaten.Generator().manual_seed(4))
    assert x.dtype == yaten.float32 and tuple(x.shape) == (n,)
    values = x.numpy()
    assert values.min() >= 0 and values.max() <= count
    support = np.arange(count + 1)
    _pmf_agrees(values, stats.binom.pmf(support, count, prob), support)


def test_poisson_and_binomial_errors_and_seeds():
    rates = yaten.tensor([0.0, 1.5, 40.0])
    a = yaten.poisson(rates, yaten.Generator().manual_seed(9))
    b = yaten.poisson(rates, yaten.Generator().manual_seed(9))
    assert a.tolist() == b.tolist() and a.tolist()[0] == 0.0
    _raises_like(lambda r: torch.poisson(r), lambda r: yaten.poisson(r), torch.tensor([1.0, -1.0]))
    _raises_like(lambda r: torch.poisson(r), lambda r: yaten.poisson(r), torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="prob"):
        yaten.binomial(yaten.tensor([3.0]), yaten.tensor([1.5]))


@pytest.mark.parametrize("shape,rank", [((30, 12), 4), ((12, 30), 5), ((3, 20, 15), 3)])
def test_svd_lowrank_recovers_a_low_rank_matrix(shape, rank):
    g = torch.Generator().manual_seed(15)
    left = torch.randn(*shape[:-1], rank, generator=g, dtype=torch.float64)
    right = torch.randn(*shape[:-2], rank, shape[-1], generator=g, dtype=torch.float64)
    A = left @ right
    U, S, V = yaten.svd_lowrank(from_torch(A), q=rank + 2)
    exact = torch.linalg.svdvals(A)[..., :rank]
    _close(S[..., :rank], exact)
    rebuilt = to_torch(torch, U) @ torch.diag_embed(to_torch(torch, S)) @ to_torch(torch, V).mH
    torch.testing.assert_close(rebuilt, A)
    eye = torch.eye(rank + 2, dtype=torch.float64)
    torch.testing.assert_close(to_torch(torch, U).mH @ to_torch(torch, U), eye.expand_as(
        to_torch(torch, U).mH @ to_torch(torch, U)))


def test_pca_lowrank_centers_and_errors():
    g = torch.Generator().manual_seed(16)
    A = torch.randn(50, 3, generator=g, dtype=torch.float64) @ torch.randn(3, 8, generator=g, dtype=torch.float64) + 5
    U, S, V = yaten.pca_lowrank(from_torch(A), q=3)
    centered = A - A.mean(0, keepdim=True)
    _close(S, torch.linalg.svdvals(centered)[:3])
    theirs = torch.pca_lowrank(A, q=3)[1]
    _close(S, theirs)
    with pytest.raises(ValueError):
        yaten.svd_lowrank(from_torch(A), q=20)


# ------------------------------------------------------------------------------------------------ memory formats
_LAYOUTS = {"contiguous": lambda t: t, "transposed": lambda t: t.transpose(1, 3),
            "channels_last": lambda t: t.contiguous(memory_format=_fmt(t, "channels_last")),
            "sliced": lambda t: t[:, :, ::2]}


def _fmt(t, name):
    return getattr(torch if isinstance(t, torch.Tensor) else yaten, name)


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
@pytest.mark.parametrize("fmt", ["contiguous_format", "preserve_format", "channels_last"])
def test_memory_formats_give_torchs_strides(layout, fmt):
    base = _rand(2, 3, 4, 5)
    theirs = _LAYOUTS[layout](base.clone())
    ours = _LAYOUTS[layout](from_torch(base))
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like", "clone"):
        expected = getattr(torch, name)(theirs, memory_format=_fmt(theirs, fmt))
        got = getattr(yaten, name)(ours, memory_format=_fmt(ours, fmt))
        assert tuple(got.stride()) == tuple(expected.stride()), (name, layout, fmt)
        if name in ("zeros_like", "ones_like", "clone"):
            _close(got, expected)
    got = yaten.full_like(ours, 2.5, memory_format=_fmt(ours, fmt))
    assert tuple(got.stride()) == tuple(torch.full_like(theirs, 2.5, memory_format=_fmt(theirs, fmt)).stride())
    if fmt != "preserve_format":
        expected = theirs.contiguous(memory_format=_fmt(theirs, fmt))
        got = ours.contiguous(memory_format=_fmt(ours, fmt))
        assert tuple(got.stride()) == tuple(expected.stride())
        _close(got, expected)
        assert ours.is_contiguous(memory_format=_fmt(ours, fmt)) == theirs.is_contiguous(
            memory_format=_fmt(theirs, fmt))
        assert tuple(ours.to(memory_format=_fmt(ours, fmt)).stride()) == tuple(
            theirs.to(memory_format=_fmt(theirs, fmt)).stride())


def test_memory_format_errors_and_modules():
    with pytest.raises(RuntimeError, match="rank 4"):
        yaten.empty(2, 3, memory_format=yaten.channels_last)
    with pytest.raises(RuntimeError, match="preserve"):
        yaten.ones(2, 3).t().contiguous(memory_format=yaten.preserve_format)
    assert yaten.ones(2, 3).contiguous(memory_format=yaten.preserve_format).is_contiguous()  # as torch: no copy
    assert tuple(yaten.empty(2, 3, 4, 5, 6, memory_format=yaten.channels_last_3d).stride()) == \
        torch.empty(2, 3, 4, 5, 6, memory_format=torch.channels_last_3d).stride()
    conv = yaten.nn.Conv2d(3, 4, 3).to(memory_format=yaten.channels_last)
    assert tuple(conv.weight.stride()) == torch.nn.Conv2d(3, 4, 3).to(memory_format=torch.channels_last).weight.stride()
    assert tuple(conv.bias.stride()) == (1,)
    x = yaten.randn(2, 3, 8, 8).contiguous(memory_format=yaten.channels_last)
    _close(conv(x), to_torch(torch, conv(x.contiguous())))
    assert repr(yaten.channels_last) == "yaten.channels_last"
    import pickle
    assert pickle.loads(pickle.dumps(yaten.channels_last)) is yaten.channels_last


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_top_level_embedding_bag_takes_atens_arguments(mode, padding_idx):
    w = _rand(10, 3)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4])
    expected = torch.embedding_bag(w, indices, offsets, False, mode, False, None, False, padding_idx)
    got = yaten.embedding_bag(from_torch(w), from_torch(indices), from_torch(offsets), False, mode, False, None,
                              False, padding_idx)
    _close(got[0], expected[0])
    if mode > 0:  # (torch's forward-only sum leaves bag_size at 0; max_indices only mean something for max)
        _close(got[2], expected[2])
    if mode == 2:
        _close(got[3], expected[3])


def test_deterministic_algorithms_switches():
    try:
        assert not yaten.are_deterministic_algorithms_enabled() and yaten.get_deterministic_debug_mode() == 0
        yaten.use_deterministic_algorithms(True, warn_only=True)
        assert yaten.are_deterministic_algorithms_enabled() and yaten.is_deterministic_algorithms_warn_only_enabled()
        assert yaten.get_deterministic_debug_mode() == 1
        with pytest.warns(UserWarning, match="does not have a deterministic implementation"):
            yaten._C._alert_not_deterministic("scatter_add_ on CUDA")
        yaten.set_deterministic_debug_mode("error")
        assert yaten.get_deterministic_debug_mode() == 2 and not yaten.is_deterministic_algorithms_warn_only_enabled()
        with pytest.raises(RuntimeError, match="scatter_add_ on CUDA does not have a deterministic"):
            yaten._C._alert_not_deterministic("scatter_add_ on CUDA")
        # every CPU kernel is deterministic: the atomics-free CPU scatter_add runs
        out = yaten.zeros(3).scatter_add(0, yaten.tensor([0, 0, 2]), yaten.ones(3))
        assert out.tolist() == [2.0, 0.0, 1.0]
        with pytest.raises(RuntimeError):
            yaten.set_deterministic_debug_mode("sometimes")
    finally:
        yaten.use_deterministic_algorithms(False)
    assert not yaten.are_deterministic_algorithms_enabled()


def test_default_device_reaches_python_factories_only():
    assert yaten.get_default_device() == yaten.device("cpu")
    try:
        yaten.set_default_device("cpu")
        assert yaten.zeros(2).device == yaten.device("cpu")
        if not yaten.cuda.is_available():
            yaten.set_default_device("cuda")
            assert yaten.get_default_device().type == "cuda"
            for make in (lambda: yaten.zeros(2), lambda: yaten.tensor([1.0]), lambda: yaten.randn(3)):
                with pytest.raises((RuntimeError, NotImplementedError)):
                    make()  # they went to CUDA, which this build or machine lacks
            cpu = yaten.ones(2, device="cpu")  # an explicit device= wins
            assert yaten.zeros_like(cpu).device.type == "cpu" and (cpu + 1).device.type == "cpu"
        else:
            yaten.set_default_device("cuda")
            assert yaten.zeros(2).is_cuda and yaten.tensor([1.0]).is_cuda and yaten.arange(3).is_cuda
            assert not yaten.zeros_like(yaten.ones(2, device="cpu")).is_cuda
    finally:
        yaten.set_default_device(None)
    assert yaten.zeros(2).device.type == "cpu"
    with yaten.device("cpu") as d:
        assert d == yaten.get_default_device() and yaten.ones(1).device.type == "cpu"
    assert yaten.get_default_device() == yaten.device("cpu")


def test_from_file_maps_a_file(tmp_path):
    path = tmp_path / "data.bin"
    values = np.arange(6, dtype=np.float32)
    path.write_bytes(values.tobytes())
    private = yaten.from_file(str(path), shared=False, size=6, dtype=yaten.float32)
    _close(private, torch.from_file(str(path), shared=False, size=6, dtype=torch.float32))
    private[0] = 100.0  # copy-on-write: the file keeps its bytes
    assert np.frombuffer(path.read_bytes(), dtype=np.float32)[0] == 0.0
    shared = yaten.from_file(str(path), shared=True, size=6, dtype=yaten.float32)
    shared[1] = 7.0
    del shared
    assert np.frombuffer(path.read_bytes(), dtype=np.float32)[1] == 7.0
    grown = yaten.from_file(str(tmp_path / "new.bin"), shared=True, size=4, dtype=yaten.int64)
    assert tuple(grown.shape) == (4,) and (tmp_path / "new.bin").stat().st_size == 32
    with pytest.raises(RuntimeError, match="fewer"):
        yaten.from_file(str(path), shared=False, size=100, dtype=yaten.float32)
    assert yaten.thread_safe_generator() is None


def test_grad_dtype_casts_what_a_leaf_accumulates_as_torch():
    results = []
    for lib in (yaten, torch):
        x = lib.ones(2, requires_grad=True)
        got = [str(x.grad_dtype).split(".")[-1]]
        x.grad_dtype = lib.float64
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        got.append((x.grad.tolist(), str(x.grad.dtype).split(".")[-1]))
        x.grad_dtype = None
        got.append(x.grad_dtype)
        y = lib.ones(2, requires_grad=True)
        y.grad_dtype = lib.float16
        (y.double() * 3).sum().backward()
        got.append((y.grad.tolist(), str(y.grad.dtype).split(".")[-1]))
        w = x * 2
        for attempt in (lambda: w.grad_dtype, lambda: setattr(w, "grad_dtype", lib.float64),
                        lambda: setattr(x, "grad_dtype", "float64")):
            with pytest.raises(RuntimeError, match="grad_dtype (can only be|must be)"):
                attempt()
        results.append(got)
    assert results[0] == results[1]


def test_untyped_storage_is_torchs():
    # yaten.UntypedStorage: made from a size or a sequence, or taken from a tensor (the whole storage, from its first
    # byte, shared with every view); bytes read, written and sliced as torch's
    torch = pytest.importorskip("torch")
    ours, theirs = yaten.UntypedStorage([1, 2, 250]), torch.UntypedStorage([1, 2, 250])
    assert ours.tolist() == theirs.tolist() and len(ours) == len(theirs) and ours[2] == theirs[2]
    assert ours.nbytes() == theirs.nbytes() == 3 and ours.element_size() == 1 and ours.device.type == "cpu"
    assert yaten.UntypedStorage(5).nbytes() == 5 and yaten.UntypedStorage().nbytes() == 0
    base = yaten.arange(6.0, dtype=yaten.float64)
    view = base[2:4]
    storage = view.untyped_storage()
    expected = torch.arange(6.0, dtype=torch.float64)[2:4].untyped_storage()
    assert storage.nbytes() == expected.nbytes() == 48 and storage.tolist() == expected.tolist()
    assert storage.data_ptr() == base.data_ptr() == view.data_ptr() - 16
    storage[8:16] = yaten.UntypedStorage(list(np.float64(7.5).tobytes()))  # the second element, through the bytes
    assert base[1].item() == 7.5
    sliced = storage[8:16]
    sliced.fill_(0)
    assert base[1].item() == 0.0 and sliced.data_ptr() == base.data_ptr() + 8
    copy = storage.clone()
    copy[0] = 9
    assert storage[0] == 0 and copy[0] == 9
    assert yaten.UntypedStorage.from_buffer(b"\x01\x02").tolist() == [1, 2]
    assert repr(yaten.UntypedStorage([4])).endswith("UntypedStorage(device=cpu) of size 1]")
    with pytest.raises(RuntimeError, match="differ in size"):
        copy.copy_(yaten.UntypedStorage(2))


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_finds_torchs_eigenpairs(largest):
    # yaten.lobpcg (python/yaten/_lobpcg.py): the k extreme eigenpairs of a symmetric (generalized) problem, as
    # torch.lobpcg and NumPy's eigh give them; batches; from given starting vectors; torch's error for m < 3n
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    m = 60
    Q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    A = Q @ np.diag(np.linspace(1.0, 30.0, m) ** 1.5) @ Q.T
    exact = np.linalg.eigvalsh(A)
    want = exact[::-1][:3] if largest else exact[:3]
    E, X = yaten.lobpcg(yaten.from_numpy(A), k=3, largest=largest)
    theirs, _ = torch.lobpcg(torch.from_numpy(A), k=3, largest=largest)
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-9)
    np.testing.assert_allclose(E.numpy(), theirs.numpy(), rtol=1e-9)
    x = X.numpy()
    np.testing.assert_allclose(A @ x, x * E.numpy(), atol=1e-5 * np.abs(want).max())
    np.testing.assert_allclose(x.T @ x, np.eye(3), atol=1e-8)
    # generalized, B diagonal positive: against the reduced standard problem
    b = rng.uniform(1.0, 2.0, m)
    reduced = np.linalg.eigvalsh(A / np.sqrt(np.outer(b, b)))
    E, _ = yaten.lobpcg(yaten.from_numpy(A), k=2, B=yaten.from_numpy(np.diag(b)), largest=largest,
                        X=yaten.from_numpy(rng.standard_normal((m, 2))))
    np.testing.assert_allclose(E.numpy(), reduced[::-1][:2] if largest else reduced[:2], rtol=1e-9)
    # a batch of two (float32), from random starting vectors (seeded: the global generator's state otherwise depends
    # on which tests ran before in this worker). The residual tolerance, sqrt(eps) of float32 times ||2A|| = 330, bounds
    # the smallest eigenvalues (2 and 3.6) only to about 1e-3 of themselves: 1.4e-3 the worst over 30 seeds
    yaten.manual_seed(5)
    batch = np.stack([A, 2 * A]).astype(np.float32)
    E, X = yaten.lobpcg(yaten.from_numpy(batch), k=2, largest=largest)
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, m, 2)
    np.testing.assert_allclose(E.numpy()[1], 2 * (exact[::-1][:2] if largest else exact[:2]),
                               rtol=1e-4 if largest else 3e-3)
    with pytest.raises(ValueError, match="smaller than 3 x the number of requested eigenpairs"):
        yaten.lobpcg(yaten.from_numpy(A[:6, :6]), k=3)
