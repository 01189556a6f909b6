"""Reductions against torch: every declared dtype, dim lists, keepdim, non-contiguous inputs, NaN, empty inputs,
the dtype= argument, and float32 accuracy over many elements."""

from __future__ import annotations

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
