"""Element functions written once over `auto` with `math::` functions and run by elementwise_kernel in SIMD lanes
(iter/vec_math.h, Note [Element functions in lanes]), as README's add-an-op example writes celu: the test operators
yaten_test::lanes_celu and lanes_logaddexp (tests/cpp/test_library.cpp) are written that way. Their values are held
to torch's, and, bit for bit, to yaten's own vector kernels: a scalar path through the C library would round some
elements differently."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
import yaten._test_library  # noqa: F401  (the tests' operators, namespace yaten_test)
from helpers import from_torch, to_torch


def lanes_celu(x, alpha):
    return yaten.ops.yaten_test.lanes_celu(x, alpha)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_generic_element_function_runs_in_the_library_lanes(dtype):
    """celu's negative side is alpha * expm1(x / alpha) from vec.h's expm1 (vec_double.h's for float64), bit for bit
    as yaten.expm1 computes it, over a contiguous row, a tail and a strided view."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(100_003) * 4).astype(dtype)
    alpha = 0.7
    scaled = (x / np.array(alpha, dtype)).astype(dtype)
    lanes_expm1 = yaten.expm1(yaten.from_numpy(scaled)).numpy()
    expected = np.where(x > 0, x, np.array(alpha, dtype) * lanes_expm1)
    got = lanes_celu(yaten.from_numpy(x), alpha).numpy()
    np.testing.assert_array_equal(got, expected)
    # the same data through the C library rounds differently somewhere: the equality above is the lanes' doing
    through_libm = np.array([np.expm1(v) for v in scaled.astype(np.float64)]).astype(dtype)
    assert (through_libm != lanes_expm1).any()
    strided = yaten.from_numpy(x)[::3]
    np.testing.assert_array_equal(lanes_celu(strided, alpha).numpy(), expected[::3])


def test_a_generic_element_function_matches_torch(torch):
    rng = np.random.default_rng(4)
    specials = [0.0, -0.0, 1.0, -1.0, 30.0, -30.0, 100.0, -100.0, float("inf"), float("-inf"), float("nan"), 1e-30]
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        t = torch.cat([torch.tensor(specials), torch.from_numpy(rng.standard_normal(1001) * 5)]).to(dtype)
        for alpha in (1.0, 0.3, 2.5):
            torch.testing.assert_close(to_torch(torch, lanes_celu(from_torch(t), alpha)), torch.celu(t, alpha),
                                       equal_nan=True)


def test_two_input_element_function_broadcasts_and_matches_torch(torch):
    rng = np.random.default_rng(5)
    for dtype in (torch.float32, torch.float64):
        a = torch.from_numpy(rng.standard_normal((37, 1)) * 30).to(dtype)
        b = torch.from_numpy(rng.standard_normal((1, 19)) * 30).to(dtype)
        got = yaten.ops.yaten_test.lanes_logaddexp(from_torch(a), from_torch(b))
        assert tuple(got.shape) == (37, 19)
        torch.testing.assert_close(to_torch(torch, got), torch.logaddexp(a, b))


def test_an_element_function_refuses_dtypes_it_was_not_given():
    with pytest.raises(TypeError, match="lanes_logaddexp: float32 or float64, not float16"):
        yaten.ops.yaten_test.lanes_logaddexp(yaten.ones(3, dtype=yaten.float16), yaten.ones(3, dtype=yaten.float16))
