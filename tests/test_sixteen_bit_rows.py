"""float16 and bfloat16 rows converted a vector at a time (Note [16-bit rows as float lanes], iter/vec.h): the copy
kernel's float <-> float16/bfloat16 rows and the element functions' 16-bit rows, bit for bit as NumPy (float16) and
torch (bfloat16) convert, special values and subnormals included, over contiguous rows, their tails and strided
views (which convert one element at a time)."""

from __future__ import annotations

import numpy as np
import pytest

import yaten


def float32_values(n=50_003, seed=0):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)  # every binade, NaNs with payloads, infinities, subnormals
    # halfway cases of float16 and bfloat16, and values around float16's largest and smallest
    ties = (rng.integers(0, 2**16, 2000, dtype=np.uint32) << 16 | 0x8000).view(np.float32)
    f16 = np.array([65504, 65519.99, 65520, 1e-8, 2.9802322e-08, 5.96e-8, 6.1e-5], np.float32)
    return np.concatenate([x, ties, f16, -f16, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)


def test_float16_conversions_are_numpys_bit_for_bit():
    x = float32_values()
    with np.errstate(all="ignore"):
        expected = x.astype(np.float16)
    for view in (slice(None), slice(None, None, 3), slice(5, 1005)):
        got = yaten.from_numpy(x[view]).half().numpy()
        finite = ~np.isnan(expected[view])
        np.testing.assert_array_equal(got.view(np.uint16)[finite], expected[view].view(np.uint16)[finite])
        assert np.isnan(got[~finite]).all()
    h = expected[np.isfinite(expected) | np.isinf(expected)]
    back = yaten.from_numpy(h).float().numpy()
    np.testing.assert_array_equal(back.view(np.uint32), h.astype(np.float32).view(np.uint32))


def test_bfloat16_conversions_are_torchs_bit_for_bit():
    torch = pytest.importorskip("torch")
    x = float32_values(seed=1)
    expected = torch.from_numpy(x).bfloat16().view(torch.int16).numpy()
    nan = np.isnan(x)  # torch's NaN bits depend on its path (0x7fc0 one at a time, 0xffff in its vector code)
    for view in (slice(None), slice(None, None, 3), slice(5, 1005)):
        got = yaten.from_numpy(x[view]).bfloat16()
        bits = got.view(yaten.int16).numpy()
        np.testing.assert_array_equal(bits[~nan[view]], expected[view][~nan[view]])
        back = got.float().numpy()
        assert np.isnan(back[nan[view]]).all()
        np.testing.assert_array_equal(back.view(np.uint32), (bits.astype(np.uint32) & 0xFFFF) << 16)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_element_functions_on_sixteen_bit_rows_round_once_from_float(dtype):
    """exp, tanh and atan2 of float16/bfloat16 rows: the float32 function of the widened values, rounded once; the
    contiguous rows (vector conversions) and a strided view (one element at a time) agree."""
    rng = np.random.default_rng(2)
    x = yaten.from_numpy(rng.uniform(-4, 4, 10_007).astype(np.float32)).to(getattr(yaten, dtype))
    y = yaten.from_numpy(rng.uniform(-4, 4, 10_007).astype(np.float32)).to(getattr(yaten, dtype))
    for got, expected in ((x.exp(), x.float().exp()), (x.tanh(), x.float().tanh()),
                          (yaten.atan2(x, y), yaten.atan2(x.float(), y.float()))):
        np.testing.assert_array_equal(got.float().numpy(), expected.to(getattr(yaten, dtype)).float().numpy())
    np.testing.assert_array_equal(x[::3].exp().float().numpy(), x.exp()[::3].float().numpy())
