"""Sorting and search against torch: sort/argsort (stable, descending, NaN last as torch orders it), topk, kthvalue,
median, nanmedian, mode, unique, searchsorted, bucketize, histc; every dtype, dims, non-contiguous input, empty and
zero-dim tensors."""

from __future__ import annotations

import math

import pytest

import yaten
from helpers import DTYPE_NAMES, assert_same, from_torch, random_torch, to_torch

NAN = math.nan


def with_nans(torch, t):
    """A copy of the floating tensor t with NaNs, -0.0 and repeated values planted."""
    if not t.dtype.is_floating_point or t.numel() < 8:
        return t
    t = t.clone().reshape(-1)
    t[::7] = NAN
    t[3::11] = -0.0
    t[5::11] = 0.0
    t[6::13] = t[2]
    return t.reshape_as(t)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("shape,dim", [((4, 5, 6), -1), ((4, 5, 6), 0), ((3, 600), 1), ((700,), 0), ((2, 300, 3), 1)])
def test_sort_matches_torch_stable(torch, dtype, shape, dim):
    gen = torch.Generator().manual_seed(3)
    source = random_torch(torch, dtype, shape, gen, -20, 21)
    if source.dtype.is_floating_point:
        source = with_nans(torch, source.reshape(-1)).reshape(shape)
    y = from_torch(source)
    for descending in (False, True):
        expected = torch.sort(source, dim=dim, descending=descending, stable=True)
        values, indices = yaten.sort(y, dim, descending)
        assert_same(torch, values, expected.values)
        assert_same(torch, indices, expected.indices)
        got = y.sort(stable=True, dim=dim, descending=descending)
        assert_same(torch, got.indices, expected.indices)
        assert_same(torch, yaten.argsort(y, dim=dim, descending=descending), expected.indices)


def test_sort_large_float32_row_matches_torch(torch):
    source = torch.randn(200_003, generator=torch.Generator().manual_seed(1))
    source[::1000] = NAN
    source[5::997] = source[7]
    y = from_torch(source)
    values, indices = yaten.sort(y)
    expected = torch.sort(source, stable=True)
    assert_same(torch, values, expected.values)
    assert_same(torch, indices, expected.indices)
    values, indices = y.sort(descending=True)
    expected = torch.sort(source, descending=True, stable=True)
    assert_same(torch, indices, expected.indices)


def test_sort_non_contiguous_empty_and_zero_dim(torch):
    source = torch.randn(30, 40, generator=torch.Generator().manual_seed(2))
    y = from_torch(source)
    assert_same(torch, yaten.sort(y.T, 1).indices, torch.sort(source.T, dim=1, stable=True).indices)
    assert_same(torch, yaten.sort(y[:, ::3], 0).values, torch.sort(source[:, ::3], 0).values)
    empty = yaten.empty((0, 3))
    assert tuple(yaten.sort(empty, 0).values.shape) == (0, 3)
    assert tuple(yaten.sort(empty, 1).indices.shape) == (0, 3)
    scalar = yaten.tensor(2.5)
    values, indices = yaten.sort(scalar)
    assert values.shape == () and values.item() == 2.5 and indices.item() == 0
    assert yaten.msort(y).tolist() == from_torch(torch.msort(source)).tolist()
    with pytest.raises(IndexError, match="sort"):
        yaten.sort(y, 2)


@pytest.mark.parametrize("dtype", [d for d in DTYPE_NAMES if d != "bool"])
def test_topk_matches_torch(torch, dtype):
    gen = torch.Generator().manual_seed(5)
    source = random_torch(torch, dtype, (6, 50), gen, -100, 101)
    if source.dtype.is_floating_point:
        source = with_nans(torch, source.reshape(-1)).reshape(6, 50)
    y = from_torch(source)
    for k in (1, 3, 10, 50):
        for largest in (True, False):
            for dim in (1, 0):
                kk = min(k, source.shape[dim])
                expected = torch.topk(source, kk, dim=dim, largest=largest)
                values, indices = yaten.topk(y, kk, dim=dim, largest=largest)
                assert_same(torch, values, expected.values)
                # ties may be broken differently; the indices must point at the values
                assert_same(torch, yaten.gather(y, dim, indices), expected.values)


def test_topk_long_row_threads_and_errors(torch):
    source = torch.randn(1_000_000, generator=torch.Generator().manual_seed(9))
    source[123456] = NAN
    y = from_torch(source)
    for threads in (1, 2):
        old = yaten.get_num_threads()
        yaten.set_num_threads(threads)
        try:
            values, indices = yaten.topk(y, 10)
            small_values, _ = y.topk(7, largest=False)
        finally:
            yaten.set_num_threads(old)
        expected = torch.topk(source, 10)
        assert_same(torch, values, expected.values)
        assert_same(torch, indices, expected.indices)  # distinct values: the indices are determined
        assert_same(torch, small_values, torch.topk(source, 7, largest=False).values)
    with pytest.raises(IndexError, match="topk"):
        yaten.topk(yaten.ones(3), 4)
    assert tuple(yaten.topk(yaten.ones(3, 4), 0).values.shape) == (3, 0)
    with pytest.raises(NotImplementedError, match="topk"):  # as torch: no bool
        yaten.topk(yaten.ones(3, dtype=yaten.bool), 1)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "float16", "uint8"])
def test_kthvalue_median_nanmedian_mode_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(6)
    plain = random_torch(torch, dtype, (7, 9, 11), gen, -5, 6)
    source = plain
    if source.dtype.is_floating_point:
        source = with_nans(torch, source.reshape(-1)).reshape(7, 9, 11)
    y = from_torch(source)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            for k in (1, 4):
                expected = torch.kthvalue(source, k, dim, keepdim)
                got = yaten.kthvalue(y, k, dim, keepdim)
                assert_same(torch, got.values, expected.values)
                taken = yaten.gather(y, dim, got.indices if keepdim else got.indices.unsqueeze(dim))
                assert_same(torch, taken if keepdim else taken.squeeze(dim), expected.values)
            for name in ("median", "nanmedian", "mode"):
                # torch's mode of a row holding NaN depends on how its comparison sort treats NaN: no reference
                data = plain if name == "mode" else source
                expected = getattr(torch, name)(data, dim, keepdim)
                got = getattr(yaten, name)(from_torch(data), dim, keepdim)
                assert_same(torch, got.values, expected.values)
                if name == "mode":
                    assert_same(torch, got.indices, expected.indices)
    assert_same(torch, yaten.median(y), torch.median(source))
    assert_same(torch, y.nanmedian(), torch.nanmedian(source))


def test_median_nan_and_mode_indices(torch):
    source = torch.tensor([[1.0, NAN, 3.0, NAN, 0.5], [4.0, 1.0, 2.0, 3.0, 0.0]])
    y = from_torch(source)
    for name in ("median", "nanmedian"):
        expected = getattr(torch, name)(source, 1)
        got = getattr(yaten, name)(y, 1)
        assert_same(torch, got.values, expected.values)
        assert_same(torch, got.indices, expected.indices)
    ints = torch.tensor([[3, 1, 3, 1, 2, 2, 7], [2, 1, 2, 1, 2, 5, 5]])
    got = yaten.mode(from_torch(ints))
    assert_same(torch, got.values, torch.mode(ints).values)
    assert_same(torch, got.indices, torch.mode(ints).indices)
    with pytest.raises(IndexError, match="kthvalue"):
        yaten.kthvalue(y, 6, 1)
    # the median of no elements is NaN in the input's dtype, as torch gives (the lowest int32 for int32)
    for dtype in ("float32", "int32", "int16", "bool"):
        assert yaten.median(yaten.empty(0, dtype=getattr(yaten, dtype))).tolist() == \
            torch.median(torch.empty(0, dtype=getattr(torch, dtype))).tolist() or dtype == "float32"
    assert math.isnan(yaten.median(yaten.empty(0)).item()) and math.isnan(yaten.nanmedian(yaten.empty(0)).item())


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_unique_matches_torch(torch, dtype):
    gen = torch.Generator().manual_seed(8)
    source = random_torch(torch, dtype, (5, 40), gen, -6, 7)
    if source.dtype.is_floating_point:
        source = with_nans(torch, source.reshape(-1)).reshape(5, 40)
    y = from_torch(source)
    assert_same(torch, yaten.unique(y), torch.unique(source))
    values, inverse, counts = yaten.unique(y, return_inverse=True, return_counts=True)
    e_values, e_inverse, e_counts = torch.unique(source, return_inverse=True, return_counts=True)
    assert_same(torch, values, e_values)
    assert_same(torch, counts, e_counts)
    # each NaN is its own value; which of the NaN slots an element's inverse names is torch's sort's choice
    rebuilt = yaten.index_select(values, 0, inverse.reshape(-1)).reshape(5, 40)
    assert_same(torch, rebuilt, source)
    finite = ~source.isnan() if source.dtype.is_floating_point else torch.ones_like(source, dtype=torch.bool)
    assert to_torch(torch, inverse)[finite].tolist() == e_inverse[finite].tolist()
    values, counts = y.unique(return_counts=True)
    assert_same(torch, counts, e_counts)
    assert tuple(yaten.unique(yaten.empty(0)).shape) == (0,)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "int32"])
def test_searchsorted_and_bucketize_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(10)
    seq = torch.sort(random_torch(torch, dtype, (40,), gen, -10, 11)).values
    values = random_torch(torch, dtype, (6, 7), gen, -12, 13)
    ys, yv = from_torch(seq), from_torch(values)
    for right in (False, True):
        assert_same(torch, yaten.searchsorted(ys, yv, right=right), torch.searchsorted(seq, values, right=right))
        assert_same(torch, yaten.bucketize(yv, ys, right=right), torch.bucketize(values, seq, right=right))
    assert_same(torch, yaten.searchsorted(ys, yv, side="right", out_int32=True),
                torch.searchsorted(seq, values, side="right", out_int32=True))
    seq2 = torch.sort(random_torch(torch, dtype, (6, 9), gen, -10, 11), dim=1).values
    assert_same(torch, yaten.searchsorted(from_torch(seq2), yv), torch.searchsorted(seq2, values))
    unsorted = random_torch(torch, dtype, (15,), gen, -10, 11)
    sorter = torch.argsort(unsorted, stable=True)
    assert_same(torch, yaten.searchsorted(from_torch(unsorted), yv, sorter=from_torch(sorter)),
                torch.searchsorted(unsorted, values, sorter=sorter))
    assert_same(torch, yaten.searchsorted(ys, 3), torch.searchsorted(seq, 3))
    with pytest.raises(RuntimeError, match="side"):
        yaten.searchsorted(ys, yv, side="middle")
    with pytest.raises(RuntimeError, match="searchsorted"):
        yaten.searchsorted(from_torch(seq2), yaten.ones(5, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_matches_torch(torch, dtype):
    gen = torch.Generator().manual_seed(12)
    source = random_torch(torch, dtype, (1000,), gen, -5, 5)
    y = from_torch(source)
    assert_same(torch, yaten.histc(y), torch.histc(source))
    assert_same(torch, y.histc(bins=7, min=-2, max=3), torch.histc(source, bins=7, min=-2, max=3))
    ints = torch.tensor([1.0, 2.0, 1.0, 4.0], dtype=source.dtype)
    assert_same(torch, yaten.histc(from_torch(ints), bins=4), torch.histc(ints, bins=4))
    with pytest.raises(RuntimeError, match="histc"):
        yaten.histc(y, bins=0)
    with pytest.raises(RuntimeError, match="histc"):
        yaten.histc(y, min=3, max=1)


def test_searchsorted_agrees_with_numpy_at_every_length_with_ties_and_nan():
    # the binary search halves [lo, lo + n] without a branch on the comparison: every length, both sides, ties,
    # NaN (last, as NumPy and torch sort it) and infinities, one row and batched rows
    import numpy as np

    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 3, 4, 5, 7, 8, 9, 1023, 1024, 1025):
        seq = np.sort(rng.integers(-5, 5, n).astype(np.float32))
        if n > 3:
            seq[-2:] = np.nan
        values = rng.integers(-6, 6, 300).astype(np.float32)
        values[:3] = [np.nan, -np.inf, np.inf]
        for side in ("left", "right"):
            got = yaten.searchsorted(yaten.from_numpy(seq), yaten.from_numpy(values), right=side == "right")
            np.testing.assert_array_equal(got.numpy(), np.searchsorted(seq, values, side=side), err_msg=f"{n} {side}")
    seq = np.sort(rng.standard_normal((4, 33)), 1)
    values = rng.standard_normal((4, 50))
    got = yaten.searchsorted(yaten.from_numpy(seq), yaten.from_numpy(values), out_int32=True)
    assert got.dtype == yaten.int32
    np.testing.assert_array_equal(got.numpy(), np.stack([np.searchsorted(s, v) for s, v in zip(seq, values)]))
