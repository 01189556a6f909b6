"""Indexing on CUDA against the CPU: gather, scatter_ (src and value), scatter_add_, index_select, index_copy_, and
advanced indexing reads and writes (x[idx], x[i, j], x[mask-free index tensors] = v), over dtypes, non-contiguous
operands, negative indices, and with bad indices raising the CPU's IndexError. Skipped without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import yaten

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def values(shape, dtype, seed):
    g = yaten.Generator().manual_seed(seed)
    if dtype == "bool":
        return yaten.randint(0, 2, shape, generator=g).to(yaten.bool)
    return yaten.randint(-50, 50, shape, generator=g).to(getattr(yaten, dtype)) if dtype != "uint8" else \
        yaten.randint(0, 100, shape, generator=g).to(yaten.uint8)


def same(cpu, cuda):
    assert cuda.is_cuda and cuda.dtype == cpu.dtype and cuda.shape == cpu.shape
    a, b = cpu, cuda.cpu()
    if cpu.dtype == yaten.bfloat16:
        a, b = a.to(yaten.float32), b.to(yaten.float32)
    assert np.array_equal(a.numpy(), b.numpy(), equal_nan=cpu.dtype.is_floating_point)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_scatter_and_index_select_match_cpu(dtype):
    x = values((6, 7), dtype, 1)
    xt = values((7, 6), dtype, 2).t()  # not contiguous
    g = yaten.Generator().manual_seed(3)
    index = yaten.randint(0, 6, (4, 7), generator=g)
    for self in (x, xt):
        same(yaten.gather(self, 0, index), yaten.gather(self.cuda(), 0, index.cuda()))
        same(yaten.gather(self, 1, index[:, :5] % 7), yaten.gather(self.cuda(), 1, (index[:, :5] % 7).cuda()))
        same(yaten.gather(self, 1, index.t()[:6]), yaten.gather(self.cuda(), 1, index.t()[:6].cuda()))
        picks = yaten.tensor([5, -1, 0, 2, 2])
        same(yaten.index_select(self, 0, picks), yaten.index_select(self.cuda(), 0, picks.cuda()))
        same(yaten.index_select(self, 1, picks.to(yaten.int32)),
             yaten.index_select(self.cuda(), 1, picks.to(yaten.int32).cuda()))
        # scatter_ with distinct positions per column (repeats would make the winner unspecified, as in torch)
        perm = yaten.stack([yaten.randperm(6, generator=g)[:4] for _ in range(7)], 1)
        src = values((4, 7), dtype, 4)
        same(self.clone().scatter_(0, perm, src), self.clone().cuda().scatter_(0, perm.cuda(), src.cuda()))
        same(self.clone().scatter_(0, perm, 1), self.clone().cuda().scatter_(0, perm.cuda(), 1))
        dest = self.clone().cuda()
        dest[:, :].index_copy_(0, yaten.tensor([3, 1]).cuda(), values((2, 7), dtype, 5).cuda())
        same(self.clone().index_copy_(0, yaten.tensor([3, 1]), values((2, 7), dtype, 5)), dest)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_scatter_add_accumulates_repeated_indices(dtype):
    base = values((5, 3), dtype, 10) if dtype in ("int32", "int64") else yaten.zeros(5, 3, dtype=getattr(yaten, dtype))
    index = yaten.tensor([[0, 1, 4], [0, 1, 4], [2, 1, 0], [0, 0, 0]])
    src = yaten.ones(4, 3, dtype=getattr(yaten, dtype))  # small integers: exact in every dtype, in any order
    same(base.clone().scatter_add_(0, index, src), base.clone().cuda().scatter_add_(0, index.cuda(), src.cuda()))
    counts = yaten.zeros(10, dtype=yaten.float32, device="cuda")
    counts.scatter_add_(0, yaten.tensor([3] * 1000 + [7] * 24).cuda(), yaten.ones(1024, device="cuda"))
    assert counts.cpu().tolist() == [0, 0, 0, 1000, 0, 0, 0, 24, 0, 0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_reduce_matches_cpu(dtype):
    # prod, amax and amin run _scatter_reduce_'s CUDA kernel (compare-and-swap steps for every dtype, the same
    # element math as the CPU); sum and mean go through scatter_add_. Values in {-1, 0, 1} keep products exact.
    g = yaten.Generator().manual_seed(5)
    index = yaten.randint(0, 6, (9, 7), generator=g)  # many repeats per position
    src = values((9, 7), dtype, 6)
    if dtype not in ("bool", "uint8"):
        src = src.remainder(3) - 1
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        if dtype == "bool" and reduce in ("sum", "mean"):
            continue
        for include_self in (True, False):
            for self in (values((6, 7), dtype, 7), values((7, 6), dtype, 8).t()):
                cpu = self.scatter_reduce(0, index, src, reduce, include_self=include_self)
                cuda = self.cuda().scatter_reduce(0, index.cuda(), src.cuda(), reduce, include_self=include_self)
                same(cpu, cuda)
    x = yaten.tensor([1.0, 2.0, 3.0]).cuda()
    nan = x.scatter_reduce(0, yaten.tensor([0, 0]).cuda(), yaten.tensor([float("nan"), 5.0]).cuda(), "amax")
    assert nan.cpu().isnan().tolist() == [True, False, False]


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
def test_advanced_indexing_reads_and_writes_match_cpu(dtype):
    x = values((4, 5, 6), dtype, 20)
    i = yaten.tensor([[0, 3], [-1, 1]])
    j = yaten.tensor([4, 0])
    for key in ((i,), (i, j), (slice(None), j), (i, slice(1, 3), j), (Ellipsis, j)):
        cuda_key = tuple(k.cuda() if isinstance(k, yaten.Tensor) else k for k in key)
        same(x[key], x.cuda()[cuda_key])
    y, yc = x.clone(), x.clone().cuda()
    v = values(tuple(y[i, j].shape), dtype, 21)
    y[i, j] = v
    yc[i.cuda(), j.cuda()] = v.cuda()
    same(y, yc)
    y[:, j] = 1
    yc[:, j.cuda()] = 1
    same(y, yc)


def test_bad_indices_raise_index_error_and_the_device_stays_usable():
    x = yaten.arange(12.0, device="cuda").view(3, 4)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        yaten.index_select(x, 0, yaten.tensor([0, 3]).cuda())
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        x[:, yaten.tensor([-5]).cuda()]
    with pytest.raises(IndexError, match="out of bounds"):
        yaten.gather(x, 1, yaten.tensor([[4]]).cuda())
    with pytest.raises(IndexError, match="out of bounds"):
        x.clone().scatter_add_(0, yaten.tensor([[-1]]).cuda(), yaten.ones(1, 1, device="cuda"))
    with pytest.raises(RuntimeError, match="index"):
        yaten.gather(x, 1, yaten.tensor([[0]]))  # index on the CPU
    assert (x + 1).sum().item() == 78.0  # nothing was corrupted


def test_gradients_of_indexing_on_cuda_match_cpu():
    w = yaten.rand(10, 4, dtype=yaten.float64)
    idx = yaten.tensor([[1, 2, 2], [9, 0, 1]])
    grads = []
    for device in ("cpu", "cuda"):
        p = w.to(device).detach().requires_grad_()  # a leaf on each device
        i = idx.to(device)
        out = p[i].sum() + yaten.gather(p, 1, i[:, :2] % 4).pow(2).sum() + yaten.index_select(p, 0, i[0]).sum()
        out.backward()
        assert p.grad.device == p.device
        grads.append(p.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)


def test_composite_ops_run_on_cuda_and_match_cpu():
    # ops with no kernel of their own: they run on CUDA because the ops they are made of do
    F = yaten.nn.functional
    x = (yaten.rand(6, 8, dtype=yaten.float64, generator=yaten.Generator().manual_seed(9)) - 0.5) * 4
    w = yaten.rand(8, dtype=yaten.float64, generator=yaten.Generator().manual_seed(10))
    labels = yaten.tensor([0, 7, 3, 3, 1, 5])
    calls = {
        "norm": lambda t: t.norm(),
        "vector_norm": lambda t: yaten.linalg.vector_norm(t, 3, [1]),
        "logsumexp": lambda t: t.logsumexp([1]),
        "std": lambda t: t.std(0),
        "var": lambda t: t.var(1, correction=0),
        "nansum": lambda t: yaten.where(t > 1, float("nan"), t).nansum(1),
        "nanmean": lambda t: yaten.where(t > 1, float("nan"), t).nanmean(0),
        "count_nonzero": lambda t: (t > 0).count_nonzero(1),
        "layer_norm": lambda t: F.layer_norm(t, [8], w.to(t.device), None),
        "mse_loss": lambda t: F.mse_loss(t, t.flip(0)),
        "cross_entropy": lambda t: F.cross_entropy(t, labels.to(t.device)),
        "nll_loss": lambda t: F.nll_loss(t.log_softmax(1), labels.to(t.device), reduction="sum"),
        "one_hot": lambda t: F.one_hot(labels.to(t.device), 8),
        "embedding": lambda t: F.embedding(labels.to(t.device), t.t()),  # 8 rows: labels < 8
        "embedding_max_norm": lambda t: F.embedding(labels.to(t.device), t.t().clone(), max_norm=1.0),
        "unique_dim": lambda t: yaten.unique((t > 0).to(yaten.int64), dim=1),
        "unique_dim_inverse": lambda t: yaten.unique((t > 0).to(yaten.int64), dim=0, return_inverse=True)[1],
        "scatter_reduce_mean": lambda t: t.scatter_reduce(1, labels.to(t.device).reshape(6, 1) % 8, t[:, :1], "mean"),
        "scatter_multiply": lambda t: t.scatter(0, labels.to(t.device).reshape(1, 6) % 6, 2.0, reduce="multiply"),
    }
    for name, fn in calls.items():
        want, got = fn(x), fn(x.cuda())
        assert got.is_cuda, name
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


# ---------------------------------------------------------------------------------------------------- sorting

SORT_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def with_specials(x):
    """Ties, and for floats NaN, infinities and both zeros, at known places."""
    if x.dtype.is_floating_point:
        flat = x.reshape(-1)
        specials = ((0, float("nan")), (3, float("inf")), (5, -float("inf")), (6, 0.0), (7, -0.0), (11, float("nan")))
        for at, v in specials:
            if at < flat.numel():
                flat[at] = v
    return x


@pytest.mark.parametrize("dtype", SORT_DTYPES)
def test_sort_topk_and_selection_match_the_cpu_indices_included(dtype):
    for shape, dim in (((5, 40), 1), ((5, 40), 0), ((3, 700), -1), ((2000,), 0), ((4, 3, 9), 1)):
        x = with_specials(values(shape, dtype, 30))
        g = x.cuda()
        for descending in (False, True):
            for w, c in zip(yaten.sort(x, dim, descending), yaten.sort(g, dim, descending)):
                same(w, c)
        same(yaten.argsort(x, dim, descending=True), yaten.argsort(g, dim, descending=True))
        k = min(5, x.shape[dim])
        if dtype == "bool":  # as torch: topk has no bool kernel, on either device
            for t in (x, g):
                with pytest.raises(NotImplementedError, match="topk"):
                    yaten.topk(t, k, dim)
            continue
        for largest in (True, False):
            for w, c in zip(yaten.topk(x, k, dim, largest), yaten.topk(g, k, dim, largest)):
                same(w, c)
        for keep in (False, True):
            for w, c in zip(yaten.kthvalue(x, 2, dim, keep), yaten.kthvalue(g, 2, dim, keep)):
                same(w, c)
            for w, c in zip(yaten.median(x, dim, keep), yaten.median(g, dim, keep)):
                same(w, c)
            if x.dtype.is_floating_point:
                for w, c in zip(yaten.nanmedian(x, dim, keep), yaten.nanmedian(g, dim, keep)):
                    same(w, c)


def test_sort_errors_and_empty_rows_on_cuda():
    with pytest.raises(IndexError, match="topk"):
        yaten.topk(yaten.ones(3, device="cuda"), 4)
    with pytest.raises(IndexError, match="kthvalue"):
        yaten.kthvalue(yaten.ones(3, device="cuda"), 0)
    v, i = yaten.sort(yaten.empty(0, 5, device="cuda"), 1)
    assert v.shape == (0, 5) and i.dtype == yaten.int64
    v, i = yaten.sort(yaten.tensor(2.5, device="cuda"))
    assert v.item() == 2.5 and i.item() == 0


@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "float32"])
def test_nonzero_and_boolean_masks_on_cuda_match_cpu(dtype):
    x = values((7, 9, 5), dtype, 40)
    same(yaten.nonzero(x), yaten.nonzero(x.cuda()))
    same(yaten.nonzero(x[0, 0, 0]), yaten.nonzero(x.cuda()[0, 0, 0]))  # 0-d
    same(yaten.nonzero(yaten.zeros(0, 3, dtype=x.dtype)), yaten.nonzero(yaten.zeros(0, 3, dtype=x.dtype).cuda()))
    big = yaten.zeros(300_001, dtype=x.dtype)
    big[::7] = 1
    same(yaten.nonzero(big), yaten.nonzero(big.cuda()))
    if dtype != "bool":
        mask = x > 0
        same(x[mask], x.cuda()[mask.cuda()])
        y, yc = x.clone(), x.clone().cuda()
        y[mask] = 0
        yc[mask.cuda()] = 0
        same(y, yc)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_searchsorted_bucketize_and_histc_on_cuda_match_cpu(dtype):
    seq = yaten.sort(values((4, 50), dtype, 50), 1)[0]
    x = values((4, 30), dtype, 51)
    for right in (False, True):
        same(yaten.searchsorted(seq, x, right=right), yaten.searchsorted(seq.cuda(), x.cuda(), right=right))
        same(yaten.searchsorted(seq[0], x, right=right, out_int32=True),
             yaten.searchsorted(seq[0].cuda(), x.cuda(), right=right, out_int32=True))
        same(yaten.bucketize(x, seq[1], right=right), yaten.bucketize(x.cuda(), seq[1].cuda(), right=right))
    if dtype != "int64":
        h = values((1000,), dtype, 52)
        same(yaten.histc(h, 17), yaten.histc(h.cuda(), 17))
        same(yaten.histc(h, 10, -20, 20), yaten.histc(h.cuda(), 10, -20, 20))
        for at in (0, 1):  # min == max takes the data's range, NaN with a NaN in it: both refuse it, as torch
            h[at] = float("nan")
            for t in (h, h.cuda()):
                with pytest.raises(RuntimeError, match=r"histc\(\): range of \[nan, nan\] is not finite"):
                    yaten.histc(t, 5, 0, 0)
            same(yaten.histc(h, 5, -20, 20), yaten.histc(h.cuda(), 5, -20, 20))  # a given range leaves NaN out


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float16", "float32"])
def test_mode_and_unique_on_cuda_match_cpu(dtype):
    x = values((6, 40), dtype, 60)
    x = with_specials(x if dtype == "bool" else x // 9)  # few distinct values: long runs
    for dim in (0, 1):
        for keep in (False, True):
            for w, c in zip(yaten.mode(x, dim, keep), yaten.mode(x.cuda(), dim, keep)):
                same(w, c)
    for inverse in (False, True):
        for counts in (False, True):
            want = yaten.unique(x, return_inverse=inverse, return_counts=counts)
            got = yaten.unique(x.cuda(), return_inverse=inverse, return_counts=counts)
            for w, c in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                same(w, c)
    assert yaten.unique(yaten.empty(0, device="cuda")).shape == (0,)


def test_deterministic_mode_refuses_floating_atomic_adds_on_cuda():
    """use_deterministic_algorithms(True): the floating scatter_add (and index_add over it) raises on CUDA, warns with
    warn_only, and integer sums (exact in any order) still run."""
    index = yaten.tensor([0, 0, 1]).cuda()
    try:
        yaten.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match="deterministic"):
            yaten.zeros(2, device="cuda").scatter_add_(0, index, yaten.ones(3, device="cuda"))
        with pytest.raises(RuntimeError, match="deterministic"):
            yaten.zeros(2, device="cuda").index_add_(0, index, yaten.ones(3, device="cuda"))
        ints = yaten.zeros(2, dtype=yaten.int64, device="cuda").scatter_add_(0, index, yaten.ones(3, dtype=yaten.int64,
                                                                                                  device="cuda"))
        assert ints.cpu().tolist() == [2, 1]
        yaten.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="deterministic"):
            out = yaten.zeros(2, device="cuda").scatter_add_(0, index, yaten.ones(3, device="cuda"))
        assert out.cpu().tolist() == [2.0, 1.0]
    finally:
        yaten.use_deterministic_algorithms(False)
