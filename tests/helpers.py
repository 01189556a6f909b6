"""Conversions between yaten, NumPy and torch for tests: exact, and independent of the code under test where
possible (values travel as Python lists)."""

from __future__ import annotations

import contextlib

import yaten

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def ydtype(name: str):
    return getattr(yaten, name)


def tdtype(torch, name: str):
    return getattr(torch, name)


def to_torch(torch, t):
    """A torch tensor with the same values and dtype as the yaten tensor `t`."""
    name = repr(t.dtype).split(".")[1]
    return torch.tensor(t.tolist(), dtype=tdtype(torch, name)).reshape(tuple(t.shape))


def from_torch(tt):
    name = str(tt.dtype).split(".")[1]
    if tt.numel() == 0:  # nested lists cannot carry the shape of an empty tensor
        return yaten.empty(tuple(tt.shape), dtype=ydtype(name))
    return yaten.tensor(tt.tolist(), dtype=ydtype(name))


def random_torch(torch, name: str, shape, generator, low=-8, high=9):
    dtype = tdtype(torch, name)
    if name == "bool":
        return torch.randint(0, 2, shape, generator=generator).bool()
    if name == "uint8":
        return torch.randint(0, high, shape, generator=generator, dtype=dtype)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low).to(dtype)
    return torch.randint(low, high, shape, generator=generator, dtype=dtype)


def assert_same(torch, actual, expected):
    """actual (yaten) equals expected (torch) in dtype, shape and values; NaNs match NaNs."""
    assert repr(actual.dtype).split(".")[1] == str(expected.dtype).split(".")[1], (actual.dtype, expected.dtype)
    assert tuple(actual.shape) == tuple(expected.shape)
    torch.testing.assert_close(to_torch(torch, actual), expected, equal_nan=True, rtol=0, atol=0)


def seeded_randn(torch, shape, seed, dtype="float64"):
    """Standard normal values from a seeded torch generator, drawn in float64 and rounded to `dtype`."""
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(
        tdtype(torch, dtype))


def assert_close_to(torch, actual, expected, tol=None):
    """actual (yaten) has expected's (torch) shape and is close to it: torch's default tolerances for the dtype, or
    rtol = atol = tol compared in float64; NaNs match NaNs."""
    assert tuple(actual.shape) == tuple(expected.shape), (tuple(actual.shape), tuple(expected.shape))
    got = to_torch(torch, actual)
    if tol is None:
        torch.testing.assert_close(got, expected, equal_nan=True)
    else:
        torch.testing.assert_close(got.double(), expected.double(), rtol=tol, atol=tol, equal_nan=True)


@contextlib.contextmanager
def warn_always():
    """yaten.set_warn_always(True) for the block: warnings given once per process (as torch's) are given each time,
    so a test can expect one whichever test met it first."""
    yaten.set_warn_always(True)
    try:
        yield
    finally:
        yaten.set_warn_always(False)

