"""Random numbers: the Philox generator against its published known-answer vectors, reproducibility (same seed, same
numbers, whatever the thread count), generator state, and the distributions checked statistically (mean, variance,
Kolmogorov-Smirnov, frequencies) rather than against torch's values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yaten

N = 200_000


def ks_statistic(sample: np.ndarray, cdf) -> float:
    """The Kolmogorov-Smirnov distance between the sample's empirical CDF and `cdf`."""
    x = np.sort(sample.astype(np.float64))
    n = len(x)
    f = cdf(x)
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(0, n) / n)))


KS_CRITICAL = 1.95  # sqrt(n) * D above this has probability < 0.001 under the null hypothesis
normal_cdf = np.vectorize(lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2))))


def test_philox_known_answer_vectors():
    # Random123's kat_vectors for philox4x32_10 (counter words low first, key words low first)
    assert yaten._C._philox(0, 0, 0) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert yaten._C._philox(2**64 - 1, 2**64 - 1, 2**64 - 1) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert yaten._C._philox(0x299F31D0A4093822, 0x85A308D3243F6A88, 0x0370734413198A2E) == (
        0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)


def test_same_seed_same_numbers_and_thread_count_does_not_matter():
    old = yaten.get_num_threads()
    try:
        yaten.set_num_threads(1)
        yaten.manual_seed(1234)
        one = [yaten.rand(N).numpy(), yaten.randn(N, dtype=yaten.float64).numpy(), yaten.randint(0, 50, (N,)).numpy()]
        yaten.set_num_threads(2)
        yaten.manual_seed(1234)
        two = [yaten.rand(N).numpy(), yaten.randn(N, dtype=yaten.float64).numpy(), yaten.randint(0, 50, (N,)).numpy()]
    finally:
        yaten.set_num_threads(old)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)
    yaten.manual_seed(1235)
    assert not np.array_equal(yaten.rand(N).numpy(), one[0])


def test_generator_objects_and_state():
    g = yaten.Generator()
    assert g.manual_seed(7) is g and g.initial_seed() == 7 and g.device == yaten.device("cpu")
    a = yaten.rand(5, generator=g)
    state = g.get_state()
    b = yaten.rand(5, generator=g)
    assert not np.array_equal(a.numpy(), b.numpy())
    g.set_state(state)
    assert np.array_equal(yaten.rand(5, generator=g).numpy(), b.numpy())
    other = yaten.Generator().manual_seed(7)
    assert np.array_equal(yaten.rand(5, generator=other).numpy(), a.numpy())  # a generator's own stream
    assert yaten.manual_seed(3) == yaten.default_generator and yaten.initial_seed() == 3
    saved = yaten.get_rng_state()
    x = yaten.randn(4)
    yaten.set_rng_state(saved)
    assert np.array_equal(yaten.randn(4).numpy(), x.numpy())
    assert isinstance(yaten.seed(), int)
    yaten.manual_seed(-1)  # wraps like torch
    assert yaten.initial_seed() == 2**64 - 1
    with pytest.raises(ValueError, match="manual_seed"):
        yaten.manual_seed(2**64)
    with pytest.raises(TypeError, match="generator"):
        yaten.rand(3, generator=5)
    with pytest.raises(ValueError, match="cpu"):
        yaten.Generator("cuda")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rand_is_uniform(dtype):
    g = yaten.Generator().manual_seed(11)
    x = yaten.rand(N, generator=g, dtype=getattr(yaten, dtype)).to(yaten.float64).numpy()
    assert x.min() >= 0 and x.max() <= 1
    if dtype in ("float32", "float64"):
        assert x.max() < 1
    assert abs(x.mean() - 0.5) < 5 * math.sqrt(1 / 12 / N)
    assert abs(x.var() - 1 / 12) < 0.002
    if dtype in ("float32", "float64"):  # 16-bit floats are too coarse for a continuous KS test
        assert math.sqrt(N) * ks_statistic(x, lambda v: np.clip(v, 0, 1)) < KS_CRITICAL
    y = yaten.empty(N, dtype=getattr(yaten, dtype)).uniform_(-3, 5, generator=g).to(yaten.float64).numpy()
    assert y.min() >= -3 and y.max() <= 5 and abs(y.mean() - 1) < 5 * 8 * math.sqrt(1 / 12 / N)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_randn_and_normal_are_normal(dtype):
    g = yaten.Generator().manual_seed(12)
    x = yaten.randn(N, generator=g, dtype=getattr(yaten, dtype)).numpy()
    assert abs(x.mean()) < 5 / math.sqrt(N) and abs(x.var() - 1) < 5 * math.sqrt(2 / N)
    assert math.sqrt(50_000) * ks_statistic(x[:50_000], normal_cdf) < KS_CRITICAL
    y = yaten.empty(N, dtype=getattr(yaten, dtype)).normal_(3, 2, generator=g).numpy()
    assert abs(y.mean() - 3) < 5 * 2 / math.sqrt(N) and abs(y.std() - 2) < 0.05
    z = yaten.normal(yaten.full((N,), -1.0), yaten.full((N,), 0.5), generator=g).numpy()
    assert abs(z.mean() + 1) < 0.01 and abs(z.std() - 0.5) < 0.01
    w = yaten.normal(2.0, 0.1, (N,), generator=g).numpy()
    assert abs(w.mean() - 2) < 0.002
    assert tuple(yaten.normal(yaten.zeros(3, 1), 1.0).shape) == (3, 1)
    assert tuple(yaten.normal(0.0, yaten.ones(2, 2)).shape) == (2, 2)
    assert tuple(yaten.normal(yaten.zeros(3, 1), yaten.ones(4)).shape) == (3, 4)
    with pytest.raises(RuntimeError, match="std"):
        yaten.normal(yaten.zeros(2), yaten.tensor([1.0, -1.0]))
    with pytest.raises(RuntimeError, match="std"):
        yaten.empty(3).normal_(0, -1)


def test_randint_random_and_randperm():
    g = yaten.Generator().manual_seed(13)
    x = yaten.randint(3, 10, (N,), generator=g).numpy()
    assert x.dtype == np.int64 and x.min() == 3 and x.max() == 9
    counts = np.bincount(x - 3)
    expected = N / 7
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 24.1  # 6 degrees of freedom, p = 0.0005
    assert yaten.randint(5, (2, 3), dtype=yaten.int16).dtype == yaten.int16
    t = yaten.empty(1000, dtype=yaten.int32).random_(-4, 4, generator=g).numpy()
    assert t.min() == -4 and t.max() == 3
    assert set(yaten.empty(100, dtype=yaten.uint8).random_(2).numpy().tolist()) == {0, 1}
    for n in (0, 1, 10, 10_000):
        p = yaten.randperm(n, generator=g).numpy()
        assert sorted(p.tolist()) == list(range(n))
    assert yaten.randperm(5, dtype=yaten.float32).dtype == yaten.float32
    # every position of a permutation of 4 is equally likely to hold 0
    firsts = np.bincount([yaten.randperm(4, generator=g).numpy().tolist().index(0) for _ in range(4000)])
    assert (np.abs(firsts - 1000) < 150).all()
    with pytest.raises(RuntimeError, match="randint"):
        yaten.randint(5, 5, (3,))
    with pytest.raises(RuntimeError, match="randperm"):
        yaten.randperm(3000, dtype=yaten.float16)


def test_bernoulli_and_dropout():
    g = yaten.Generator().manual_seed(14)
    b = yaten.bernoulli(yaten.full((N,), 0.3), generator=g).numpy()
    assert set(np.unique(b).tolist()) == {0.0, 1.0} and abs(b.mean() - 0.3) < 5 * math.sqrt(0.21 / N)
    p = yaten.tensor([0.0, 1.0] * 500)
    assert yaten.bernoulli(p).numpy().tolist() == p.numpy().tolist()
    assert abs(yaten.zeros(N).bernoulli_(0.8).numpy().mean() - 0.8) < 0.01
    assert abs(yaten.bernoulli(yaten.zeros(N, dtype=yaten.float64), 0.25).numpy().mean() - 0.25) < 0.01
    with pytest.raises(RuntimeError, match="bernoulli"):
        yaten.bernoulli(yaten.tensor([0.5, 1.5]))
    x = yaten.ones(N)
    d = yaten.nn.functional.dropout(x, 0.25).numpy()
    assert set(np.unique(d).tolist()) == {0.0, np.float32(1 / 0.75)}
    assert abs((d == 0).mean() - 0.25) < 0.01
    assert yaten.nn.functional.dropout(x, 0.25, training=False) is x
    assert (yaten.dropout(x, 1.0, True).numpy() == 0).all()
    y = yaten.ones(1000)
    assert yaten.nn.functional.dropout(y, 0.5, inplace=True) is y and (y.numpy() == 0).any()
    with pytest.raises(ValueError, match="dropout"):
        yaten.dropout(x, 1.5, True)


def test_multinomial():
    g = yaten.Generator().manual_seed(15)
    probs = yaten.tensor([0.1, 0.0, 0.6, 0.3])
    s = yaten.multinomial(probs, N, replacement=True, generator=g).numpy()
    freq = np.bincount(s, minlength=4) / N
    assert freq[1] == 0 and np.allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.005)
    rows = yaten.tensor([[1.0, 2.0, 3.0, 4.0, 0.0], [5.0, 0.0, 0.0, 1.0, 1.0]])
    draws = yaten.multinomial(rows, 3, generator=g).numpy()
    assert draws.shape == (2, 3)
    for row, weights in zip(draws, rows.numpy()):
        assert len(set(row.tolist())) == 3 and all(weights[c] > 0 for c in row)
    firsts = np.array([int(yaten.multinomial(probs, 2, generator=g)[0].item()) for _ in range(3000)])
    assert np.allclose(np.bincount(firsts, minlength=4) / 3000, [0.1, 0.0, 0.6, 0.3], atol=0.04)
    with pytest.raises(RuntimeError, match="without replacement"):
        yaten.multinomial(probs, 5)
    with pytest.raises(RuntimeError, match="not enough"):
        yaten.multinomial(probs, 4)
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        yaten.multinomial(yaten.zeros(3), 1)
    with pytest.raises(RuntimeError, match="inf"):
        yaten.multinomial(yaten.tensor([1.0, -1.0]), 1)


def test_random_in_place_on_views():
    base = yaten.zeros(6, 8)
    view = base[:, ::2]
    view.uniform_(1, 2)
    assert (base[:, 1::2].numpy() == 0).all()
    assert ((view.numpy() >= 1) & (view.numpy() < 2)).all()
    assert yaten.rand_like(base).shape == base.shape and yaten.randn_like(base, dtype=yaten.float64).dtype == yaten.float64
    with pytest.raises(RuntimeError, match="uniform_"):
        base.uniform_(2, 1)
    with pytest.raises(TypeError, match="rand"):
        yaten.rand(3, dtype=yaten.int64)
