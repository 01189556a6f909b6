"""Every derivative formula on CUDA: for each op whose ops.yaml entry declares `derivatives:` (each has a recipe in
tests/test_autograd.py, which checks the CPU's gradients against torch and finite differences), the forward and the
gradients computed from CUDA tensors equal the CPU's. Skipped without a GPU (CI has none)."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from test_autograd import RECIPES, make_inputs

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")


def forward_and_backward(call, inputs):
    """The recipe's output and the gradients of its float64 inputs for one fixed incoming gradient."""
    yaten.manual_seed(0)  # recipes with random ops draw the same numbers on both devices (one Philox stream)
    out = call(yaten, *inputs)
    seed = yaten.randn(tuple(out.shape), generator=yaten.Generator().manual_seed(1), dtype=yaten.float64)
    out.backward(seed.to(out.device))
    return out, [x.grad for x in inputs if x.requires_grad]


def assert_close(gpu, cpu, what, on_cuda=True):
    assert gpu is not None, f"{what}: no gradient on CUDA"
    assert gpu.is_cuda or not on_cuda, f"{what}: on {gpu.device}, not CUDA"
    assert gpu.dtype == cpu.dtype and tuple(gpu.shape) == tuple(cpu.shape), what
    np.testing.assert_allclose(gpu.detach().cpu().numpy(), cpu.detach().numpy(), rtol=1e-7, atol=1e-9,
                               equal_nan=True, err_msg=what)


# Ops whose recipe has no CUDA kernel to run (ops.yaml declares none): expected to raise NotImplementedError there,
# strictly, so the mark goes when a kernel comes. _flash_attention is the CPU's fused attention (CUDA attention runs
# cuDNN's or the math path); linalg.eig has no cuSOLVER kernel yet (kernels/cuda/solver.cuh).
NO_CUDA_KERNEL = {"_flash_attention", "_linalg_eig"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(raises=NotImplementedError, strict=True,
                                                                           reason="no CUDA kernel"))
                                  if n in NO_CUDA_KERNEL else n for n in sorted(RECIPES)])
def test_gradients_on_cuda_match_the_cpu(torch, name):
    makers, call = RECIPES[name]
    _, cpu_inputs = make_inputs(torch, makers, len(name))
    cuda_inputs = [x.detach().cuda().requires_grad_(x.requires_grad) for x in cpu_inputs]
    assert any(x.requires_grad for x in cpu_inputs), name
    out_cpu, grads_cpu = forward_and_backward(call, cpu_inputs)
    out_gpu, grads_gpu = forward_and_backward(call, cuda_inputs)
    assert_close(out_gpu, out_cpu, f"{name}: forward", on_cuda=False)  # copy_'s recipe copies into a CPU tensor
    for k, (gpu, cpu) in enumerate(zip(grads_gpu, grads_cpu)):
        assert cpu is not None, f"{name}: no gradient on the CPU"
        assert_close(gpu, cpu, f"{name}: gradient of input {k}")
