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
    if not yaten.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA GPU|built without CUDA"):
            yaten.Generator("cuda")
        assert yaten.cuda.default_generators == ()
        yaten.cuda.manual_seed(1)  # nothing to seed, as in torch
    with pytest.raises(RuntimeError, match="device"):
        yaten.Generator("tpu")


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


def philox_words(seed: int, blocks: int) -> np.ndarray:
    """The 32-bit words of Philox blocks 0 .. blocks-1 under key `seed`, from the known-answer-tested _philox."""
    return np.array([yaten._C._philox(seed, b) for b in range(blocks)], dtype=np.uint64)


def test_uniform_and_normal_are_box_muller_and_affine_maps_of_the_philox_bits():
    # The element math is yaten's own (kernels/random_math.h: no libm, so that CUDA draws the same bits); here it is
    # checked against NumPy's libm on the same Philox words: uniforms exactly, normals within a few ulp.
    n = 4000
    w = philox_words(77, n // 2)
    u53 = ((w[:, 1] << np.uint64(32) | w[:, 0]) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    v53 = ((w[:, 3] << np.uint64(32) | w[:, 2]) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    radius = np.sqrt(-2 * np.log(1 - u53))
    expected = np.stack([radius * np.cos(2 * np.pi * v53), radius * np.sin(2 * np.pi * v53)], axis=1).ravel()
    got = yaten.empty(n, dtype=yaten.float64).normal_(generator=yaten.Generator().manual_seed(77)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15)
    got = yaten.empty(n, dtype=yaten.float64).normal_(3.0, 0.5, generator=yaten.Generator().manual_seed(77)).numpy()
    np.testing.assert_allclose(got, 3.0 + 0.5 * expected, rtol=1e-14, atol=1e-14)
    # float32: four normals per block from 24-bit uniforms, computed in float64 and rounded once
    w = philox_words(78, n // 4)
    u24 = (w >> np.uint64(8)).astype(np.float64) * 2.0**-24
    radius = np.sqrt(-2 * np.log(1 - u24[:, 0::2]))
    angle = 2 * np.pi * u24[:, 1::2]
    expected32 = np.stack([radius[:, 0] * np.cos(angle[:, 0]), radius[:, 0] * np.sin(angle[:, 0]),
                           radius[:, 1] * np.cos(angle[:, 1]), radius[:, 1] * np.sin(angle[:, 1])], axis=1).ravel()
    got32 = yaten.empty(n).normal_(generator=yaten.Generator().manual_seed(78)).numpy()
    np.testing.assert_allclose(got32, expected32.astype(np.float32), rtol=2e-7, atol=1e-7)
    got32 = yaten.empty(n).uniform_(-2.0, 5.0, generator=yaten.Generator().manual_seed(78)).numpy()
    assert np.array_equal(got32, (-2.0 + 7.0 * u24.ravel()).astype(np.float32))
    got64 = yaten.rand(n // 2 * 2, dtype=yaten.float64, generator=yaten.Generator().manual_seed(77)).numpy()
    assert np.array_equal(got64, np.stack([u53, v53], axis=1).ravel())


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_simd_lanes_draw_the_bits_single_blocks_draw(dtype):
    # Note [Random numbers in SIMD lanes]: 60 elements are 15 blocks, drawn one block at a time; 320 are drawn 8 or
    # 16 blocks at once in the CPU's lanes. The first 60 of those must be the same bits (as CUDA's are).
    d = getattr(yaten, dtype)
    draws = [lambda n, g: yaten.randn(n, generator=g, dtype=d), lambda n, g: yaten.rand(n, generator=g, dtype=d),
             lambda n, g: yaten.empty(n, dtype=d).uniform_(-3.0, 5.0, generator=g),
             lambda n, g: yaten.empty(n, dtype=d).normal_(1e-3, 7.5, generator=g)]
    draws += [lambda n, g, p=p: yaten.empty(n, dtype=d).bernoulli_(p, generator=g)
              for p in (0.0, 0.3, 1 / 3, 0.5, 0.9999999, 1.0, 2.0**-25)]
    for k, draw in enumerate(draws):
        for seed in range(4):
            many = draw(320, yaten.Generator().manual_seed(seed)).to(yaten.float32).numpy()
            few = draw(60, yaten.Generator().manual_seed(seed)).to(yaten.float32).numpy()
            assert np.array_equal(many[:60].view(np.int32), few.view(np.int32)), (k, seed)


def test_randperm_is_the_positions_stably_sorted_by_random_keys():
    # The definition CUDA's kernel shares (a stable sort of the same 64-bit keys), checked with NumPy's stable sort.
    for n in (1, 7, 5000):
        w = philox_words(11, (n + 1) // 2)
        keys = np.stack([w[:, 1] << np.uint64(32) | w[:, 0], w[:, 3] << np.uint64(32) | w[:, 2]], axis=1).ravel()[:n]
        expected = np.argsort(keys, kind="stable")
        assert np.array_equal(yaten.randperm(n, generator=yaten.Generator().manual_seed(11)).numpy(), expected)


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
    with pytest.raises(NotImplementedError, match="rand"):
        yaten.rand(3, dtype=yaten.int64)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_rand_and_randn_draw_each_part_as_torch(dtype):
    """torch's rand of a complex dtype draws each part uniform on [0, 1); randn each part normal of variance 1/2, so
    that E|z|^2 = 1. The moments of 200,000 draws against those torch's draws show (a 6-sigma band)."""
    torch = pytest.importorskip("torch")
    n = 200_000
    g = yaten.Generator().manual_seed(3)
    for lib, make in ((yaten, lambda: (yaten.rand(n, dtype=getattr(yaten, dtype), generator=g),
                                       yaten.randn(n, dtype=getattr(yaten, dtype), generator=g))),
                      (torch, lambda: (torch.rand(n, dtype=getattr(torch, dtype)),
                                       torch.randn(n, dtype=getattr(torch, dtype))))):
        u, z = make()
        assert str(u.dtype).endswith(dtype) and str(z.dtype).endswith(dtype)
        u, z = np.asarray(u.numpy()), np.asarray(z.numpy())
        for part in (u.real, u.imag):
            assert part.min() >= 0 and part.max() < 1, lib.__name__
            assert abs(part.mean() - 0.5) < 6 * (1 / 12) ** 0.5 / n ** 0.5, lib.__name__
        for part in (z.real, z.imag):
            assert abs(part.mean()) < 6 * 0.5 ** 0.5 / n ** 0.5, lib.__name__
            assert abs(part.var() - 0.5) < 6 * 0.5 * 2 ** 0.5 / n ** 0.5, lib.__name__
        assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 6 / n ** 0.5, lib.__name__
    like = yaten.randn_like(yaten.zeros(3, 4, dtype=getattr(yaten, dtype)))
    assert like.dtype == getattr(yaten, dtype) and tuple(like.shape) == (3, 4) and bool((like != 0).all())
    assert yaten.rand_like(yaten.zeros(2, dtype=getattr(yaten, dtype))).dtype == getattr(yaten, dtype)
    with pytest.raises(NotImplementedError, match=r"rand\(\): not implemented for int64"):
        yaten.rand(3, dtype=yaten.int64)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_normal_and_uniform_in_place_as_torch(dtype):
    """normal_(mean, std) of a complex tensor: each part normal with that mean and std / sqrt(2); uniform_(a, b) each
    part on [a, b): the moments of 200,000 draws beside torch's (a 6-sigma band), and torch's error for std < 0."""
    torch = pytest.importorskip("torch")
    n, mean, std = 200_000, 1.0, 2.0
    g = yaten.Generator().manual_seed(4)
    ours = (yaten.empty(n, dtype=getattr(yaten, dtype)).normal_(mean, std, generator=g),
            yaten.empty(n, dtype=getattr(yaten, dtype)).uniform_(2.0, 3.0, generator=g))
    theirs = (torch.empty(n, dtype=getattr(torch, dtype)).normal_(mean, std),
              torch.empty(n, dtype=getattr(torch, dtype)).uniform_(2.0, 3.0))
    part_std = std / 2 ** 0.5
    for z, u in (ours, theirs):
        z, u = np.asarray(z.numpy()), np.asarray(u.numpy())
        for part in (z.real, z.imag):
            assert abs(part.mean() - mean) < 6 * part_std / n ** 0.5
            assert abs(part.std() - part_std) < 6 * part_std / (2 * n) ** 0.5
        for part in (u.real, u.imag):
            assert part.min() >= 2.0 and part.max() < 3.0
            assert abs(part.mean() - 2.5) < 6 * (1 / 12) ** 0.5 / n ** 0.5
    with pytest.raises(RuntimeError, match="normal_: expects std >= 0.0"):
        yaten.empty(3, dtype=getattr(yaten, dtype)).normal_(0.0, -1.0)
