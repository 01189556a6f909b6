"""Matmul on cuBLAS and random numbers on CUDA, against the CPU. Skipped without a GPU (CI has none).

Matmul: every product op (mm, bmm, matmul in each broadcasting case, addmm, baddbmm, mv, dot, outer, linear,
einsum, tensordot) and its gradients on CUDA equal the CPU's within a tolerance that scales with the inner size,
for operands laid out as they come (contiguous, transposed, sliced rows, a broadcast batch).
Random: with one seed, every random op on CUDA gives the CPU's numbers bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import yaten

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
FLOATS = ["float16", "bfloat16", "float32", "float64"]
# Relative error per sqrt(inner size) allowed against the CPU (which accumulates float16/bfloat16 in float too).
RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-6, "float64": 1e-13}


def values(shape, dtype, seed):
    g = yaten.Generator().manual_seed(seed)
    return (yaten.rand(shape, generator=g, dtype=yaten.float64) * 2 - 1).to(getattr(yaten, dtype))


def assert_product_close(actual, expected, dtype, inner):
    assert actual.is_cuda and actual.dtype == expected.dtype and actual.shape == expected.shape
    a = actual.cpu().to(yaten.float64).numpy()
    e = expected.to(yaten.float64).numpy()
    tol = RTOL[dtype] * max(1.0, np.sqrt(inner))
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mm_in_every_layout_matches_cpu(dtype):
    a = values((33, 70), dtype, 1)
    b = values((70, 45), dtype, 2)
    wide = values((33, 140), dtype, 3)
    cases = {
        "contiguous": (a, b),
        "transposed": (values((70, 33), dtype, 4).t(), values((45, 70), dtype, 5).t()),
        "sliced columns": (wide[:, ::2], b),          # no stride of 1: a contiguous copy
        "sliced rows": (wide[:, :70], b),             # row stride 140 > 70
        "column and row vectors": (values((33, 1), dtype, 6), values((1, 45), dtype, 7)),
    }
    for name, (x, y) in cases.items():
        expected = yaten.mm(x, y)
        assert_product_close(yaten.mm(x.cuda(), y.cuda()), expected, dtype, x.shape[1]), name


@pytest.mark.parametrize("dtype", FLOATS)
def test_bmm_matmul_and_friends_match_cpu(dtype):
    x, y = values((5, 17, 24), dtype, 10), values((5, 24, 9), dtype, 11)
    checks = [
        (lambda p, q: yaten.bmm(p, q), (x, y), 24),
        (lambda p, q: yaten.bmm(p, q.transpose(1, 2)), (x, values((5, 9, 24), dtype, 12)), 24),
        (lambda p, q: yaten.bmm(p, q.expand(5, 24, 9)), (x, values((1, 24, 9), dtype, 13)), 24),
        (lambda p, q: p @ q, (values((3, 1, 8, 6), dtype, 14), values((4, 6, 5), dtype, 15)), 6),
        (lambda p, q: p @ q, (values((6,), dtype, 16), values((2, 6, 5), dtype, 17)), 6),
        (lambda p, q: p @ q, (values((2, 7, 6), dtype, 18), values((6,), dtype, 19)), 6),
        (lambda p, q: yaten.mv(p, q), (values((7, 6), dtype, 20), values((6,), dtype, 21)), 6),
        (lambda p, q: yaten.dot(p, q), (values((50,), dtype, 22), values((50,), dtype, 23)), 50),
        (lambda p, q: yaten.outer(p, q), (values((5,), dtype, 24), values((4,), dtype, 25)), 1),
        (lambda p, q: yaten.einsum("bij,bjk->bik", p, q), (x, y), 24),
        (lambda p, q: yaten.tensordot(p, q, dims=([2], [1])), (x, y), 24),
    ]
    for fn, (p, q), inner in checks:
        assert_product_close(fn(p.cuda(), q.cuda()), fn(p, q), dtype, inner)
    bias, m1, m2 = values((9,), dtype, 26), values((4, 12), dtype, 27), values((12, 9), dtype, 28)
    assert_product_close(yaten.addmm(bias.cuda(), m1.cuda(), m2.cuda(), beta=0.5, alpha=2.0),
                         yaten.addmm(bias, m1, m2, beta=0.5, alpha=2.0), dtype, 12)
    w = values((9, 12), dtype, 29)
    F = yaten.nn.functional
    assert_product_close(F.linear(m1.cuda(), w.cuda(), bias.cuda()), F.linear(m1, w, bias), dtype, 12)


def test_empty_and_zero_inner_products_on_cuda():
    assert yaten.mm(yaten.ones(0, 3, device="cuda"), yaten.ones(3, 4, device="cuda")).shape == (0, 4)
    z = yaten.mm(yaten.ones(2, 0, device="cuda"), yaten.ones(0, 3, device="cuda"))
    assert z.is_cuda and z.cpu().tolist() == [[0.0] * 3] * 2
    assert yaten.bmm(yaten.ones(0, 2, 3, device="cuda"), yaten.ones(0, 3, 4, device="cuda")).shape == (0, 2, 4)


def test_matmul_errors_on_cuda_are_clear():
    with pytest.raises(RuntimeError, match="same device"):
        yaten.mm(yaten.ones(2, 2, device="cuda"), yaten.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"cannot be multiplied \(2x3 and 2x3\)"):
        yaten.mm(yaten.ones(2, 3, device="cuda"), yaten.ones(2, 3, device="cuda"))
    with pytest.raises((TypeError, RuntimeError, NotImplementedError), match="int64"):
        yaten.mm(yaten.ones(2, 2, dtype=yaten.int64, device="cuda"), yaten.ones(2, 2, dtype=yaten.int64,
                                                                                device="cuda"))


def test_tf32_switch_changes_float32_matmul_only_when_asked():
    a, b = values((256, 256), "float32", 40), values((256, 256), "float32", 41)
    exact = (a.to(yaten.float64) @ b.to(yaten.float64)).numpy()
    assert yaten.get_float32_matmul_precision() == "highest" and not yaten.backends.cuda.matmul.allow_tf32
    full = (a.cuda() @ b.cuda()).cpu().numpy()
    assert np.abs(full - exact).max() < 1e-4  # float32 products: ~1e-6 relative
    try:
        yaten.backends.cuda.matmul.allow_tf32 = True
        assert yaten.get_float32_matmul_precision() == "high"
        tf32 = (a.cuda() @ b.cuda()).cpu().numpy()
        assert np.abs(tf32 - exact).max() < 5e-2  # TF32 keeps 10 mantissa bits
    finally:
        yaten.set_float32_matmul_precision("highest")
    assert not yaten.backends.cuda.matmul.allow_tf32


def test_matmul_gradients_on_cuda_match_cpu():
    a, b = values((6, 5), "float64", 50), values((5, 4), "float64", 51)
    grads = {}
    for device in ("cpu", "cuda"):
        x = a.to(device).detach().requires_grad_()  # a leaf on each device (a.to("cpu") is a itself)
        y = b.to(device).detach().requires_grad_()
        ((x @ y).sin().sum()).backward()
        grads[device] = (x.grad.cpu().numpy(), y.grad.cpu().numpy())
        assert x.grad.device == x.device
    for cpu, cuda in zip(grads["cpu"], grads["cuda"]):
        np.testing.assert_allclose(cuda, cpu, rtol=1e-12, atol=1e-12)


def test_cublas_is_opened_from_a_known_place():
    import os

    path = yaten.cuda._cublas_path()
    assert "cublas" in os.path.basename(path)


# ---------------------------------------------------------------------------------------------------- random


def same_bits(cpu, cuda):
    assert cuda.is_cuda and cuda.dtype == cpu.dtype and cuda.shape == cpu.shape
    c = cuda.cpu()
    if cpu.dtype in (yaten.float16, yaten.bfloat16):  # NumPy has no bfloat16; widening to float32 is exact
        cpu, c = cpu.float(), c.float()
    a, b = cpu.numpy(), c.numpy()
    if a.dtype.kind == "f":  # the bits, so that NaN, -0.0 and every payload count
        a, b = a.view(np.dtype(f"i{a.itemsize}")), b.view(np.dtype(f"i{b.itemsize}"))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_random_floats_on_cuda_equal_the_cpu_bit_for_bit(dtype):
    d = getattr(yaten, dtype)
    draws = [
        lambda device, g: yaten.rand(1001, dtype=d, device=device, generator=g),
        lambda device, g: yaten.randn(1001, dtype=d, device=device, generator=g),
        lambda device, g: yaten.empty(3, 333, dtype=d, device=device).uniform_(-2.5, 7.0, generator=g),
        lambda device, g: yaten.empty(3, 333, dtype=d, device=device).normal_(1.5, 0.25, generator=g),
        lambda device, g: yaten.empty(999, dtype=d, device=device).random_(-5, 100, generator=g),
        lambda device, g: yaten.empty(999, dtype=d, device=device).bernoulli_(0.3, generator=g),
        lambda device, g: yaten.empty(4, 250, dtype=d, device=device).bernoulli_(
            yaten.linspace(0, 1, 250, dtype=d, device=device), generator=g),
        lambda device, g: yaten.empty(40, 30, dtype=d, device=device).t().normal_(generator=g),  # not contiguous
    ]
    for draw in draws:
        g_cpu = yaten.Generator().manual_seed(2024)
        g_cuda = yaten.Generator("cuda").manual_seed(2024)
        same_bits(draw("cpu", g_cpu), draw("cuda", g_cuda))
        assert g_cuda.offset == g_cpu.offset > 0  # the same counters were used up


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_random_integers_and_bernoulli_on_cuda_equal_the_cpu(dtype):
    d = getattr(yaten, dtype)
    lo, hi = (0, 2) if dtype == "bool" else (0, 100)
    for seed in (0, 7):
        cpu = yaten.empty(777, dtype=d).random_(lo, hi, generator=yaten.Generator().manual_seed(seed))
        cuda = yaten.empty(777, dtype=d, device="cuda").random_(lo, hi,
                                                                generator=yaten.Generator("cuda").manual_seed(seed))
        same_bits(cpu, cuda)
        cpu = yaten.empty(777, dtype=d).bernoulli_(0.5, generator=yaten.Generator().manual_seed(seed))
        cuda = yaten.empty(777, dtype=d, device="cuda").bernoulli_(0.5,
                                                                   generator=yaten.Generator("cuda").manual_seed(seed))
        same_bits(cpu, cuda)


def test_randperm_and_multinomial_on_cuda_equal_the_cpu():
    for n, dtype in ((1, yaten.int64), (10, yaten.int64), (100_000, yaten.int64), (500, yaten.float32),
                     (300, yaten.int16)):
        cpu = yaten.randperm(n, dtype=dtype, generator=yaten.Generator().manual_seed(n))
        cuda = yaten.randperm(n, dtype=dtype, device="cuda", generator=yaten.Generator("cuda").manual_seed(n))
        same_bits(cpu, cuda)
    w = yaten.rand(6, 50, dtype=yaten.float64, generator=yaten.Generator().manual_seed(1))
    w[:, 7] = 0  # a category that is never drawn
    for weights in (w, w.float(), w[0]):
        for replacement, k in ((True, 200), (False, 20)):
            cpu = yaten.multinomial(weights, k, replacement, generator=yaten.Generator().manual_seed(5))
            cuda = yaten.multinomial(weights.cuda(), k, replacement, generator=yaten.Generator("cuda").manual_seed(5))
            same_bits(cpu, cuda)
    with pytest.raises(RuntimeError, match="multinomial"):
        yaten.multinomial(yaten.tensor([1.0, -1.0], device="cuda"), 1)
    with pytest.raises(RuntimeError, match="multinomial"):
        yaten.multinomial(yaten.tensor([1.0, 0.0], device="cuda"), 2, False)


def test_default_generators_follow_manual_seed_and_advance_like_the_cpu():
    yaten.manual_seed(99)
    a, b = yaten.rand(1000), yaten.randn(17, dtype=yaten.float64)
    used = yaten.default_generator.offset
    yaten.manual_seed(99)
    c, d = yaten.rand(1000, device="cuda"), yaten.randn(17, dtype=yaten.float64, device="cuda")
    same_bits(a, c)
    same_bits(b, d)
    assert yaten.cuda.default_generators[0].offset == used > 0
    yaten.cuda.manual_seed(5)
    assert yaten.cuda.initial_seed() == 5 and yaten.initial_seed() == 99
    state = yaten.cuda.get_rng_state()
    x = yaten.rand(8, device="cuda")
    yaten.cuda.set_rng_state(state)
    same_bits(x.cpu(), yaten.rand(8, device="cuda"))
    g = yaten.Generator("cuda")
    assert g.device == yaten.device("cuda:0") and "cuda:0" in repr(g)


def test_dropout_on_cuda_uses_the_same_mask_as_the_cpu():
    x = yaten.ones(64, 64)
    yaten.manual_seed(3)
    cpu = yaten.nn.functional.dropout(x, 0.25)
    yaten.manual_seed(3)
    cuda = yaten.nn.functional.dropout(x.cuda(), 0.25)
    same_bits(cpu, cuda)


def test_a_generator_for_another_device_is_refused():
    with pytest.raises(RuntimeError, match="expected a generator for cuda:0"):
        yaten.empty(3, device="cuda").uniform_(generator=yaten.Generator())
    with pytest.raises(RuntimeError, match="expected a generator for cpu"):
        yaten.empty(3).uniform_(generator=yaten.Generator("cuda"))
    with pytest.raises(RuntimeError, match=r"p must be in \[0, 1\]"):
        yaten.empty(3, device="cuda").bernoulli_(yaten.tensor([0.5, 2.0, 0.1], device="cuda"))


def test_mlp_example_trains_on_cuda_like_on_the_cpu():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "mlp.py"
    spec = importlib.util.spec_from_file_location("mlp_example", path)
    mlp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mlp)
    cpu, cuda = [], []
    acc_cpu = mlp.train(steps=60, verbose=False, device="cpu", losses=cpu)
    acc_cuda = mlp.train(steps=60, verbose=False, device="cuda", losses=cuda)
    # the same data and initial weights (CUDA draws the CPU's numbers); the products round differently
    assert cuda[0] == pytest.approx(cpu[0], rel=1e-6)
    np.testing.assert_allclose(cuda, cpu, rtol=1e-3)
    assert abs(acc_cuda - acc_cpu) <= 2 / 512
