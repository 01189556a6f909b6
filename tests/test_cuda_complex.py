"""Complex numbers and FFTs on CUDA, against the CPU (whose results tests/test_complex.py and tests/test_fft.py check
against NumPy and torch). Skipped without a GPU (CI has none)."""

from __future__ import annotations

import numpy as np
import pytest

import yaten

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
NORMS = [None, "forward", "ortho"]


def crandn(shape, seed, dtype="complex64"):
    rng = np.random.default_rng(seed)
    return yaten.from_numpy((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype))


def rrandn(shape, seed, dtype="float32"):
    return yaten.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def assert_same(gpu, cpu, tol):
    assert gpu.is_cuda and gpu.dtype == cpu.dtype and tuple(gpu.shape) == tuple(cpu.shape)
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tensors_cross_devices_and_compute_as_on_the_cpu(dtype):
    a, b = crandn((33, 70), 1, dtype), crandn((70,), 2, dtype)
    ga, gb = a.cuda(), b.cuda()
    assert ga.cpu().tolist() == a.tolist()
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for fn in (lambda x, y: x + y, lambda x, y: x - 2 * y, lambda x, y: x * y, lambda x, y: x / y,
               lambda x, y: -x * (1 - 2j), lambda x, y: yaten.conj_physical(x), lambda x, y: x.abs(),
               lambda x, y: yaten.angle(x), lambda x, y: (x == x).to(yaten.float32), lambda x, y: x.sum(0),
               lambda x, y: x.mean(), lambda x, y: yaten.view_as_real(x).sum(-1),
               lambda x, y: x.to(yaten.float64) if dtype == "complex128" else x.real.contiguous()):
        assert_same(fn(ga, gb), fn(a, b), tol)
    # a strided complex copy, real into complex and complex into real on the device
    assert_same(ga.t().contiguous(), a.t().contiguous(), 0)
    assert_same(ga.real.to(getattr(yaten, dtype)), a.real.to(getattr(yaten, dtype)), 0)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ffts_on_cuda_match_the_cpu(norm, dtype):
    cdtype = "complex64" if dtype == "float32" else "complex128"
    tol = 2e-4 if dtype == "float32" else 1e-10
    x = rrandn((6, 10, 12), 3, dtype)
    z = crandn((6, 10, 12), 4, cdtype)
    gx, gz = x.cuda(), z.cuda()
    cases = [
        lambda f, a, c: f.fft(c, norm=norm), lambda f, a, c: f.ifft(c, n=7, dim=0, norm=norm),
        lambda f, a, c: f.rfft(a, norm=norm), lambda f, a, c: f.rfft(a, n=15, dim=1, norm=norm),
        lambda f, a, c: f.irfft(c, norm=norm), lambda f, a, c: f.irfft(c, n=9, dim=0, norm=norm),
        lambda f, a, c: f.hfft(c, norm=norm), lambda f, a, c: f.ihfft(a, norm=norm),
        lambda f, a, c: f.fft2(c, norm=norm), lambda f, a, c: f.rfft2(a, dim=(0, 2), norm=norm),
        lambda f, a, c: f.fftn(c, norm=norm), lambda f, a, c: f.ifftn(c, s=(4, 5), norm=norm),
        lambda f, a, c: f.rfftn(a, norm=norm), lambda f, a, c: f.irfftn(c, norm=norm),
        lambda f, a, c: f.fftshift(c), lambda f, a, c: f.fftn(c.unsqueeze(0).expand(2, 6, 10, 12)),
    ]
    for case in cases:
        assert_same(case(yaten.fft, gx, gz), case(yaten.fft, x, z), tol)
    # four dims at once: cuFFT takes three, the rest is a second pass
    w = crandn((3, 4, 2, 5), 5, cdtype)
    assert_same(yaten.fft.fftn(w.cuda()), yaten.fft.fftn(w), tol)
    assert_same(yaten.fft.irfftn(w.cuda()), yaten.fft.irfftn(w), tol)
    assert_same(yaten.fft.rfftn(w.real.contiguous().cuda()), yaten.fft.rfftn(w.real.contiguous()), tol)
    assert_same(yaten.fft.fftfreq(9, device="cuda"), yaten.fft.fftfreq(9), 0)


def test_fft_gradients_on_cuda_match_the_cpu():
    x = rrandn((4, 16), 6, "float64")
    grads = []
    for device in ("cpu", "cuda"):
        a = x.to(device).detach().requires_grad_()  # a leaf on each device (x.to("cpu") is x itself)
        loss = (yaten.view_as_real(yaten.fft.rfft(a, norm="ortho")).pow(2).sum()
                + yaten.fft.irfft(yaten.fft.fft(a), n=10).sin().sum())
        loss.backward()
        grads.append(a.grad)
    assert_same(grads[1], grads[0], 1e-10)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_matrix_products_on_cublas_match_the_cpu(dtype):
    a, b = crandn((33, 70), 7, dtype), crandn((70, 45), 8, dtype)
    batch = crandn((3, 33, 70), 9, dtype)
    tol = 1e-4 if dtype == "complex64" else 1e-11
    assert_same(a.cuda() @ b.cuda(), a @ b, tol)
    assert_same(a.cuda().t().contiguous().t() @ b.cuda(), a @ b, tol)
    assert_same(yaten.bmm(batch.cuda(), b.cuda().unsqueeze(0).expand(3, 70, 45)),
                yaten.bmm(batch, b.unsqueeze(0).expand(3, 70, 45)), tol)


def test_embedding_bag_on_cuda_matches_the_cpu():
    weight = rrandn((10, 3), 10, "float64")
    idx = yaten.tensor([1, 2, 4, 5, 4, 3, 2, 0, 9, 9])
    offsets = yaten.tensor([0, 2, 2, 5])
    for mode in ("sum", "mean", "max"):
        grads = []
        outs = []
        for device in ("cpu", "cuda"):
            w = weight.to(device).detach().requires_grad_()
            out = yaten.nn.functional.embedding_bag(idx.to(device), w, offsets.to(device), mode=mode, padding_idx=4)
            out.sum().backward()
            outs.append(out)
            grads.append(w.grad)
        assert_same(outs[1], outs[0], 1e-12)
        assert_same(grads[1], grads[0], 1e-12)
