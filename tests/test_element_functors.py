"""The shared element functors that only CUDA's kernels compute (the CPU runs vector forms of the same functions,
iter/vec*.h), applied on the CPU one element at a time through the test operator yaten_test::element_functor, and
held to mpmath: without a GPU, this is what tests the CUDA kernels' element math."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
import yaten._test_library  # noqa: F401  (the tests' operators, namespace yaten_test)


def functor(name, x):
    return yaten.ops.yaten_test.element_functor(yaten.from_numpy(x), name).numpy()


def test_float64_erfinv_functor_is_within_an_ulp_into_the_tail():
    """math::erfinv (its guess and one Newton step) within 1.5 ulp of mpmath (1.0 measured over 16,000 samples) over
    (-1, 1), both signs, up to 1 - 2^-53: its Newton step on erfc's residual once lost the residual's sign, 1e6 ulp
    off near 1 - 6e-5, and took erf's rounded value up to |x| = 2, 8 ulp off near 0.9945."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(5)
    y = np.concatenate([rng.uniform(-1, 1, 600), 1 - np.exp(rng.uniform(-36.7, -1, 600)), [-0.99993999969999847]])
    y = np.concatenate([y, -y])
    got = functor("erfinv", y)
    exact = np.array([float(mpmath.erfinv(v)) for v in y])
    err = np.abs(got - exact) / np.spacing(np.abs(exact))
    worst = int(np.argmax(err))
    assert err[worst] <= 1.5, f"erfinv({y[worst]!r}) = {got[worst]!r}, exactly {exact[worst]!r}: {err[worst]:.1f} ulp"
    # and agrees with the CPU's vector form (iter/vec_double_erf.h) to the last bit or so
    vector = yaten.erfinv(yaten.from_numpy(y)).numpy()
    assert np.max(np.abs(got - vector) / np.spacing(np.abs(exact))) <= 1.5


@pytest.mark.parametrize("name, reference, low, high", [
    ("erf", "erf", -6.0, 6.0), ("erfc", "erfc", -3.0, 26.0), ("lgamma", "loggamma", 0.01, 50.0),
    ("digamma", "digamma", 0.01, 50.0)])
def test_float64_functors_match_mpmath(name, reference, low, high):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    x = np.random.default_rng(6).uniform(low, high, 500)
    got = functor(name, x)
    fn = getattr(mpmath, reference)
    exact = np.array([float(mpmath.re(fn(v))) for v in x])
    err = np.abs(got - exact) / np.maximum(np.abs(exact), np.finfo(np.float64).tiny)
    assert err.max() <= 1e-13, (name, x[np.argmax(err)], err.max())


def test_float32_erfinv_functor_rounds_the_double_result():
    x = np.random.default_rng(7).uniform(-1, 1, 1000).astype(np.float32)
    got = functor("erfinv", x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, functor("erfinv", x.astype(np.float64)).astype(np.float32))


def test_element_functor_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match="no functor named 'nope'"):
        functor("nope", np.zeros(3))
    with pytest.raises(TypeError, match="float32 or float64"):
        yaten.ops.yaten_test.element_functor(yaten.zeros(3, dtype=yaten.int64), "erf")
