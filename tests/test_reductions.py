"""Reductions against torch: every declared dtype, dim lists, keepdim, non-contiguous inputs, NaN, empty inputs,
the dtype= argument, and float32 accuracy over many elements."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from helpers import DTYPE_NAMES, from_torch, random_torch, to_torch, ydtype
from test_ops import assert_matches

DIMS = [None, 0, 1, -1, [0, 2], [2, 0, 1]]


def call(lib_fn, tensor, dim, keepdim):
    if dim is None:
        return lib_fn(tensor)
    return lib_fn(tensor, dim, keepdim=keepdim)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin"])
def test_reductions_match_torch(torch, name, dtype):
    gen = torch.Generator().manual_seed(11)
    source = random_torch(torch, dtype, (3, 4, 5), gen, -4, 5)
    y = from_torch(source)
    for dim in DIMS:
        for keepdim in (False, True):
            if dim is None and keepdim:
                continue
            if name in ("amax", "amin") and dim is None:
                dim_arg = []
            else:
                dim_arg = dim
            try:
                expected = call(getattr(torch, name), source, dim, keepdim)
            except RuntimeError:
                with pytest.raises(RuntimeError):  # NotImplementedError is a RuntimeError
                    call(getattr(yaten, name), y, dim_arg, keepdim)
                continue
            actual = call(getattr(yaten, name), y, dim_arg, keepdim) if dim_arg != [] else getattr(yaten, name)(y)
            assert_matches(torch, actual, expected)
            transposed = call(getattr(torch, name), source.transpose(0, 2), dim, keepdim)
            assert_matches(torch, call(getattr(yaten, name), y.transpose(0, 2), dim_arg, keepdim)
                           if dim_arg != [] else getattr(yaten, name)(y.transpose(0, 2)), transposed)


def test_prod_and_dtype_argument_match_torch(torch):
    source = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32)
    y = from_torch(source)
    assert_matches(torch, yaten.prod(y), torch.prod(source))
    assert_matches(torch, y.sum(dtype=yaten.int32), source.sum(dtype=torch.int32))
    assert_matches(torch, y.sum(1, dtype=yaten.float64), source.sum(1, dtype=torch.float64))
    assert_matches(torch, y.mean(dtype=yaten.float32), source.mean(dtype=torch.float32))
    f16 = torch.tensor([0.5, 1.5, 2.25], dtype=torch.float16)
    assert_matches(torch, from_torch(f16).prod(), f16.prod())
    assert_matches(torch, from_torch(f16).sum(), f16.sum())


def test_nan_and_empty_reductions_match_torch(torch):
    x = torch.tensor([[1.0, float("nan")], [2.0, 3.0]])
    y = from_torch(x)
    for name in ("sum", "mean"):
        assert_matches(torch, getattr(yaten, name)(y, 1), getattr(torch, name)(x, 1))
    assert_matches(torch, yaten.amax(y, 1), torch.amax(x, 1))
    assert_matches(torch, yaten.amin(y, [0]), torch.amin(x, [0]))
    empty = torch.zeros(0, 3)
    assert_matches(torch, from_torch(empty).sum(), empty.sum())
    assert_matches(torch, from_torch(empty).sum(0), empty.sum(0))
    assert_matches(torch, from_torch(empty).mean(0), empty.mean(0))
    assert_matches(torch, from_torch(empty).prod(), empty.prod())
    with pytest.raises(IndexError, match="Expected reduction dim to have non-zero size"):
        yaten.amax(from_torch(empty), 0)


def test_sums_of_bytes_and_masks_agree_with_numpy():
    # bytes are summed in int32 lanes within a block of 512 (exact there), a mask's count as its bytes (sum with
    # dtype=int64, count_nonzero): lengths on each side of the block, rows and columns, signed bytes at both ends
    rng = np.random.default_rng(0)
    for shape in [(0,), (1,), (511,), (512,), (513,), (1000, 3), (3, 100_001)]:
        mask = rng.random(shape) > 0.3
        signed = rng.integers(-128, 128, shape, dtype=np.int8)
        unsigned = rng.integers(0, 256, shape, dtype=np.uint8)
        m = yaten.from_numpy(mask)
        got = yaten.sum(m, dtype=yaten.int64)
        assert got.dtype == yaten.int64 and int(got) == int(mask.sum())
        assert int(yaten.count_nonzero(m)) == int(np.count_nonzero(mask))
        assert int(yaten.from_numpy(signed).sum()) == int(signed.astype(np.int64).sum())
        assert int(yaten.from_numpy(unsigned).sum()) == int(unsigned.astype(np.int64).sum())
        if len(shape) == 2:
            for d in (0, 1):
                assert yaten.count_nonzero(m, d).tolist() == np.count_nonzero(mask, d).tolist()
                assert yaten.sum(m, d, dtype=yaten.int64).tolist() == mask.sum(d).tolist()
                assert yaten.from_numpy(signed).sum(d).tolist() == signed.astype(np.int64).sum(d).tolist()


def test_float32_sum_of_ten_million_is_accurate():
    x = yaten.full((10_000_000,), 0.1, dtype=yaten.float32)
    exact = 10_000_000 * float(yaten.tensor(0.1, dtype=yaten.float32).item())
    assert abs(x.sum().item() - exact) / exact < 1e-6


def test_reduction_bad_dims():
    y = yaten.zeros(2, 3)
    with pytest.raises(IndexError, match="dimension out of range"):
        y.sum(2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        y.sum([0, 0])


# ---------------------------------------------------------------------------------------------------- CPU kernels I, part 2

def both(torch, t):
    return t, from_torch(t)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_over_a_dim_return_values_and_first_indices_like_torch(torch, name, dtype):
    gen = torch.Generator().manual_seed(21)
    source = random_torch(torch, dtype, (4, 6, 5), gen, -3, 4)  # small range: many ties
    for view in (source, source.transpose(0, 2), source[:, ::2]):
        t, y = view, from_torch(view)
        for dim in (0, 1, -1):
            for keepdim in (False, True):
                expected = getattr(torch, name)(t, dim, keepdim=keepdim)
                actual = getattr(yaten, name)(y, dim, keepdim=keepdim)
                assert type(actual).__name__ == name and tuple(actual) == (actual.values, actual.indices)
                assert_matches(torch, actual.values, expected.values)
                assert_matches(torch, actual.indices, expected.indices)
                assert_matches(torch, getattr(y, name)(dim=dim).indices, getattr(t, name)(dim=dim).indices)
        assert_matches(torch, getattr(yaten, name)(y), getattr(torch, name)(t))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_argmax_argmin_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(22)
    t, y = both(torch, random_torch(torch, dtype, (5, 7), gen, -3, 4))
    for name in ("argmax", "argmin"):
        assert_matches(torch, getattr(yaten, name)(y), getattr(torch, name)(t))
        assert_matches(torch, getattr(yaten, name)(y, keepdim=True), getattr(torch, name)(t, keepdim=True))
        for dim in (0, 1, -1):
            assert_matches(torch, getattr(y, name)(dim), getattr(t, name)(dim))
            assert_matches(torch, getattr(y.T, name)(dim, True), getattr(t.T, name)(dim, True))


def test_max_nan_and_empty_follow_torch(torch):
    t, y = both(torch, torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, 5.0, -1.0]]))
    for name in ("max", "min"):
        r, e = getattr(yaten, name)(y, 1), getattr(torch, name)(t, 1)
        assert_matches(torch, r.values, e.values)
        assert_matches(torch, r.indices, e.indices)
    assert_matches(torch, yaten.argmax(y), torch.argmax(t))
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified"):
        yaten.max(yaten.zeros(0))
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        yaten.max(yaten.zeros(0, 3), 0)
    assert_matches(torch, yaten.max(y, yaten.zeros(4)), torch.max(t, torch.zeros(4)))


@pytest.mark.parametrize("length", [15, 31, 32, 33, 47, 63, 64, 65, 100, 1000])
def test_first_extreme_in_long_rows_matches_torch(torch, length):
    # Rows of 32 floats and more take the one-pass lane search (float_block_extreme): ties, NaNs, infinities and
    # signed zeros in every lane position, the first one winning.
    gen = torch.Generator().manual_seed(length)
    ties = torch.randint(-2, 3, (12, length), generator=gen).float()
    nans = ties.clone()
    nans[torch.rand(12, length, generator=gen) < 0.03] = float("nan")
    specials = torch.tensor([float("inf"), float("-inf"), 0.0, -0.0, 1.0])[torch.randint(0, 5, (12, length), generator=gen)]
    equal = torch.full((3, length), 2.0)
    last = torch.zeros(2, length)
    last[:, -1] = torch.tensor([1.0, float("nan")])
    for source in (ties, nans, specials, equal, last, torch.randn(4, length, generator=gen)):
        t, y = both(torch, source)
        for name in ("max", "min"):
            r, e = getattr(y, name)(1), getattr(t, name)(1)
            assert_matches(torch, r.values, e.values)
            assert_matches(torch, r.indices, e.indices)
        for name in ("argmax", "argmin"):
            assert_matches(torch, getattr(y, name)(1), getattr(t, name)(1))
            assert_matches(torch, getattr(y, name)(), getattr(t, name)())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_var_std_and_their_means_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(23)
    t, y = both(torch, random_torch(torch, dtype, (4, 5, 6), gen))
    for dim in (None, 0, -1, [0, 2]):
        for correction in (None, 0, 1, 2):
            for keepdim in (False, True):
                kw = {"correction": correction, "keepdim": keepdim}
                assert_matches(torch, yaten.var(y, dim, **kw), torch.var(t, dim, **kw))
                assert_matches(torch, y.std(dim, **kw), t.std(dim, **kw))
                for ours, theirs in zip(yaten.var_mean(y, dim, **kw), torch.var_mean(t, dim, **kw)):
                    assert_matches(torch, ours, theirs)
                for ours, theirs in zip(yaten.std_mean(y, dim, **kw), torch.std_mean(t, dim, **kw)):
                    assert_matches(torch, ours, theirs)
    assert_matches(torch, y.var(), t.var())
    assert_matches(torch, y.var(False), t.var(False))
    assert_matches(torch, yaten.std(y, 1, False, True), torch.std(t, 1, False, True))
    assert_matches(torch, yaten.var(y, 1, unbiased=False), torch.var(t, 1, unbiased=False))
    one = torch.tensor([3.0])
    assert_matches(torch, from_torch(one).var(), one.var())  # N - 1 = 0: nan, as torch
    with pytest.raises(NotImplementedError, match="var_mean.correction: no CPU kernel for dtype int64"):
        yaten.var(yaten.arange(3))


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, 0, float("inf"), float("-inf")])
def test_norm_matches_torch(torch, p):
    gen = torch.Generator().manual_seed(24)
    t, y = both(torch, random_torch(torch, "float32", (3, 4, 5), gen))
    assert_matches(torch, yaten.norm(y, p), torch.norm(t, p))
    assert_matches(torch, y.norm(p, [0, 2], True), t.norm(p, [0, 2], True))
    assert_matches(torch, yaten.linalg.vector_norm(y, p, -1), torch.linalg.vector_norm(t, p, -1))
    assert_matches(torch, yaten.linalg.vector_norm(y, p, dtype=yaten.float64),
                   torch.linalg.vector_norm(t, p, dtype=torch.float64))


def test_logsumexp_is_stable_and_matches_torch(torch):
    t = torch.tensor([[1000.0, 1000.0, -float("inf")], [-5.0, 0.5, 2.0], [-float("inf")] * 3])
    y = from_torch(t)
    for dim in (0, 1, [0, 1]):
        for keepdim in (False, True):
            assert_matches(torch, yaten.logsumexp(y, dim, keepdim), torch.logsumexp(t, dim, keepdim))
    ints = torch.arange(6).reshape(2, 3)
    assert_matches(torch, yaten.logsumexp(from_torch(ints), 1), torch.logsumexp(ints, 1))


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_all_any_count_nonzero_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(25)
    t, y = both(torch, random_torch(torch, dtype, (3, 4, 5), gen, 0, 3))
    for name in ("all", "any"):
        assert_matches(torch, getattr(yaten, name)(y), getattr(torch, name)(t))
        for dim in (0, -1, [0, 2]):
            assert_matches(torch, getattr(y, name)(dim), getattr(t, name)(dim))
            assert_matches(torch, getattr(yaten, name)(y, dim, keepdim=True), getattr(torch, name)(t, dim, keepdim=True))
    assert_matches(torch, yaten.count_nonzero(y), torch.count_nonzero(t))
    assert_matches(torch, yaten.count_nonzero(y, 1), torch.count_nonzero(t, 1))
    assert_matches(torch, yaten.count_nonzero(y, [0, 2]), torch.count_nonzero(t, [0, 2]))
    empty = torch.zeros(0, 2, dtype=t.dtype)
    assert_matches(torch, yaten.all(from_torch(empty)), torch.all(empty))
    assert_matches(torch, yaten.any(from_torch(empty), 0), torch.any(empty, 0))


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_cumulative_ops_match_torch(torch, dtype):
    gen = torch.Generator().manual_seed(26)
    t, y = both(torch, random_torch(torch, dtype, (3, 4, 5), gen, -2, 3))
    for dim in (0, 1, -1):
        for name in ("cumsum", "cumprod"):
            assert_matches(torch, getattr(yaten, name)(y, dim), getattr(torch, name)(t, dim))
            assert_matches(torch, getattr(y.transpose(0, 2), name)(dim), getattr(t.transpose(0, 2), name)(dim))
        for name in ("cummax", "cummin"):
            ours, theirs = getattr(yaten, name)(y, dim), getattr(torch, name)(t, dim)
            assert_matches(torch, ours.values, theirs.values)
            assert_matches(torch, ours.indices, theirs.indices)
    assert_matches(torch, yaten.cumsum(y, 0, dtype=yaten.float64), torch.cumsum(t, 0, dtype=torch.float64))
    scalar = torch.tensor(2, dtype=t.dtype)
    assert_matches(torch, yaten.cumsum(from_torch(scalar), 0), torch.cumsum(scalar, 0))


def test_cummax_with_nan_and_cumsum_dim_errors(torch):
    t, y = both(torch, torch.tensor([1.0, float("nan"), 3.0, float("nan"), 0.0]))
    for name in ("cummax", "cummin"):
        ours, theirs = getattr(yaten, name)(y, 0), getattr(torch, name)(t, 0)
        assert_matches(torch, ours.values, theirs.values)
        assert_matches(torch, ours.indices, theirs.indices)
    with pytest.raises(IndexError, match="cumsum: dimension out of range"):
        yaten.cumsum(y, 1)


def test_nansum_nanmean_match_torch(torch):
    t, y = both(torch, torch.tensor([[1.0, float("nan"), 3.0], [float("nan")] * 3]))
    for name in ("nansum", "nanmean"):
        assert_matches(torch, getattr(yaten, name)(y), getattr(torch, name)(t))
        assert_matches(torch, getattr(y, name)(1), getattr(t, name)(1))
        assert_matches(torch, getattr(yaten, name)(y, 0, keepdim=True), getattr(torch, name)(t, 0, keepdim=True))
    ints = torch.arange(6).reshape(2, 3)
    assert_matches(torch, yaten.nansum(from_torch(ints), 1), torch.nansum(ints, 1))


def test_parallel_reductions_agree_with_one_thread(torch):
    gen = torch.Generator().manual_seed(27)
    t = torch.rand(300, 1000, generator=gen, dtype=torch.float64)
    y = from_torch(t)
    before = yaten.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3):
            yaten.set_num_threads(threads)
            results.append([y.sum().item(), y.sum(0).tolist(), y.amax(1).tolist(), y.max(1).indices.tolist(),
                            (y * 2 + 1).tolist()])
        assert results[0][1:] == results[1][1:] == results[2][1:]
        assert results[0][0] == pytest.approx(results[1][0], rel=1e-12) == pytest.approx(t.sum().item(), rel=1e-12)
    finally:
        yaten.set_num_threads(before)
    with pytest.raises(ValueError, match="set_num_threads: expected a positive number of threads, but got 0"):
        yaten.set_num_threads(0)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_prod_over_a_dim_matches_torch(torch, dtype):
    gen = torch.Generator().manual_seed(28)
    t = random_torch(torch, dtype, (3, 4, 2), gen, -2, 3)
    y = from_torch(t)
    for dim in (0, 1, -1):
        assert_matches(torch, yaten.prod(y, dim), torch.prod(t, dim))
        assert_matches(torch, y.transpose(0, 2).prod(dim, keepdim=True), t.transpose(0, 2).prod(dim, keepdim=True))
    assert_matches(torch, yaten.prod(y, 1, dtype=yaten.float64), torch.prod(t, 1, dtype=torch.float64))


@pytest.mark.parametrize("case", ["offset", "outlier first", "outlier last", "tiny spread", "constant", "short"])
def test_var_mean_of_float32_stays_accurate_where_one_pass_sums_cancel(case):
    # float32 rows are read once, as shifted sums per block of 256 merged by Chan's formula
    # (kernels/cpu/reduce/var_mean.h): compared here with float64 NumPy on data that makes naive one-pass moments lose
    # every digit
    rng = np.random.default_rng(0)
    n = 5 if case == "short" else 100_003
    a = rng.standard_normal(n)
    if case == "offset":
        a = 1e4 + a * 1e-2
    elif case == "outlier first":
        a[0] = 3e7
    elif case == "outlier last":
        a[-1] = -3e7
    elif case == "tiny spread":
        a = 1.0 + a * 1e-6
    elif case == "constant":
        a = np.full(n, 0.1)
    a32 = a.astype(np.float32)
    for correction in (0, 1):
        var, mean = yaten.var_mean(yaten.from_numpy(a32), correction=correction)
        exact = a32.astype(np.float64)
        ev, em = np.var(exact, ddof=correction), np.mean(exact)
        assert abs(float(mean) - em) <= 1e-6 * max(abs(em), 1e-30) + 1e-12
        assert abs(float(var) - ev) <= 1e-6 * ev + (0 if ev else 1e-30), (float(var), ev)


def test_var_mean_of_float32_with_infinities_and_nan_as_numpy():
    for values in ([1.0, np.inf, 2.0], [np.inf] + [1.0] * 700, [1.0] * 700 + [-np.inf], [np.inf, -np.inf],
                   [1.0] * 300 + [np.nan] + [2.0] * 300):
        a32 = np.array(values, dtype=np.float32)
        var, mean = yaten.var_mean(yaten.from_numpy(a32), correction=0)
        with np.errstate(invalid="ignore"):
            ev, em = np.var(a32.astype(np.float64)), np.mean(a32.astype(np.float64))
        assert np.array_equal(np.float64(float(mean)), em, equal_nan=True), (values[:3], float(mean), em)
        assert np.array_equal(np.float64(float(var)), ev, equal_nan=True), (values[:3], float(var), ev)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "std", "var", "nansum"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_dim_none_reduces_every_dim_as_torch(torch, name, keepdim):
    # None for an int list with a default is that default, as torch's parser takes it
    tx = torch.arange(24.0).reshape(2, 3, 4) - 5
    x = from_torch(tx)
    expected = getattr(tx, name)(dim=None, keepdim=keepdim)
    assert_matches(torch, getattr(x, name)(dim=None, keepdim=keepdim), expected)
    if name in ("sum", "mean"):
        assert_matches(torch, getattr(yaten, name)(x, None, keepdim), getattr(torch, name)(tx, None, keepdim))
        by_name = getattr(yaten.ops.yaten, name)
        overload = by_name.dim_IntList if name == "sum" else by_name.dim
        assert_matches(torch, overload(x, None, keepdim), expected)


def test_none_is_refused_for_an_int_list_without_a_default():
    with pytest.raises(TypeError, match="dim"):
        yaten.ones(2, 3).logsumexp(dim=None)
    with pytest.raises(TypeError, match="dims"):
        yaten.ones(2, 3).flip(None)
