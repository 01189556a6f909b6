"""F.scaled_dot_product_attention against torch's: values and gradients (float64) with every mask kind, causal,
a custom scale, grouped query attention and rows with nothing to attend to; and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
import yaten.nn.functional as F

torch = pytest.importorskip("torch")


def run(lib, arrays, kwargs):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = lib.nn.functional.scaled_dot_product_attention(*tensors, **kwargs)
    weights = lib.tensor(np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in tensors]


def compare_with_torch(arrays, t_kwargs, y_kwargs, grad_rtol=1e-10, grad_atol=1e-12):
    """Values (1e-10) and gradients of yaten's call against torch's, on the same float64 arrays."""
    t_out, t_grads = run(torch, arrays, t_kwargs)
    y_out, y_grads = run(yaten, arrays, y_kwargs)
    np.testing.assert_allclose(y_out, t_out, rtol=1e-10, atol=1e-12)
    for y, t in zip(y_grads, t_grads):
        assert np.isfinite(y).all()
        np.testing.assert_allclose(y, t, rtol=grad_rtol, atol=grad_atol)


CASES = [
    ("plain", (2, 3, 5, 8), (2, 3, 7, 8), {}),
    ("causal", (2, 3, 6, 4), (2, 3, 6, 4), {"is_causal": True}),
    ("scale", (1, 2, 4, 4), (1, 2, 5, 4), {"scale": 0.3}),
    ("bool mask", (2, 2, 4, 8), (2, 2, 5, 8), {"attn_mask": "bool"}),
    ("float mask", (2, 2, 4, 8), (2, 2, 5, 8), {"attn_mask": "float"}),
    ("gqa", (1, 4, 3, 8), (1, 2, 5, 8), {"enable_gqa": True}),
    ("3-D", (3, 4, 8), (3, 6, 8), {}),
]


@pytest.mark.parametrize("name,qshape,kshape,kwargs", CASES, ids=[c[0] for c in CASES])
def test_sdpa_matches_torch_values_and_gradients(name, qshape, kshape, kwargs):
    gen = np.random.default_rng(0)
    arrays = [gen.standard_normal(qshape), gen.standard_normal(kshape), gen.standard_normal(kshape)]
    t_kwargs, y_kwargs = dict(kwargs), dict(kwargs)
    mask_shape = qshape[:-1] + (kshape[-2],)
    if kwargs.get("attn_mask") == "bool":
        mask = gen.random(mask_shape) > 0.4
        mask[..., 0, :] = False  # a row with nothing to attend to: zeros in torch and yaten
        t_kwargs["attn_mask"], y_kwargs["attn_mask"] = torch.tensor(mask), yaten.tensor(mask)
    elif kwargs.get("attn_mask") == "float":
        mask = gen.standard_normal(mask_shape)
        t_kwargs["attn_mask"], y_kwargs["attn_mask"] = torch.tensor(mask), yaten.tensor(mask)
    compare_with_torch(arrays, t_kwargs, y_kwargs)


def test_sdpa_float32_and_dropout():
    gen = np.random.default_rng(1)
    q, k, v = (gen.standard_normal((2, 2, 8, 16)).astype(np.float32) for _ in range(3))
    ours = F.scaled_dot_product_attention(yaten.tensor(q), yaten.tensor(k), yaten.tensor(v), is_causal=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v),
                                                              is_causal=True)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    yaten.manual_seed(0)
    ones = yaten.ones(1, 1, 64, 4)
    dropped = F.scaled_dot_product_attention(ones, ones, ones, dropout_p=0.5)
    # dropout on the weights: each output is the mean of ~half the values, scaled by 2 (1 on average)
    assert 0.8 < dropped.mean().item() < 1.2 and dropped.std().item() > 0.05


def test_sdpa_errors_as_torch():
    x = yaten.randn(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match="attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(x, x, x, attn_mask=yaten.ones(3, 3, dtype=yaten.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(x, x.double(), x)


# ------------------------------------------------------------------------------------------------ the fused CPU path
# Note [Flash attention on the CPU]: shapes across the kernel's 64-row and 64-column blocks, causal with L != S,
# broadcast masks, grouped heads with a mask, rows with nothing to attend to.

FLASH_CASES = [
    ("blocks", (1, 2, 130, 16), (1, 2, 150, 16), {}),
    ("causal L<S", (1, 2, 70, 8), (1, 2, 135, 8), {"is_causal": True}),
    ("causal L>S", (2, 1, 140, 8), (2, 1, 66, 8), {"is_causal": True}),
    ("mask (L, S)", (2, 3, 65, 8), (2, 3, 70, 8), {"attn_mask": ("float", (65, 70))}),
    ("mask (B, 1, 1, S)", (2, 3, 9, 8), (2, 3, 70, 8), {"attn_mask": ("bool", (2, 1, 1, 70))}),
    ("gqa causal", (2, 6, 80, 8), (2, 2, 80, 8), {"enable_gqa": True, "is_causal": True}),
    ("gqa mask", (1, 4, 20, 8), (1, 1, 90, 8), {"enable_gqa": True, "attn_mask": ("bool", (20, 90))}),
    ("3-D mask", (3, 70, 8), (3, 10, 8), {"attn_mask": ("float", (3, 70, 10))}),
    ("value width", (1, 2, 5, 8), (1, 2, 7, 8), {"value_width": 3}),
]


def flash_case(seed, qshape, kshape, kwargs, mask_dtype=np.float64):
    """A FLASH_CASES entry's float64 arrays and its keyword arguments for torch and for yaten (a float mask in
    `mask_dtype` for yaten)."""
    gen = np.random.default_rng(seed)
    kwargs = dict(kwargs)
    vshape = kshape[:-1] + (kwargs.pop("value_width", kshape[-1]),)
    arrays = [gen.standard_normal(qshape), gen.standard_normal(kshape), gen.standard_normal(vshape)]
    t_kwargs, y_kwargs = dict(kwargs), dict(kwargs)
    if "attn_mask" in kwargs:
        kind, shape = kwargs["attn_mask"]
        if kind == "bool":
            mask = gen.random(shape) > 0.5
            mask[..., 0, :] = False  # nothing to attend to
        else:
            mask = gen.standard_normal(shape)
        t_kwargs["attn_mask"] = torch.tensor(mask)
        y_kwargs["attn_mask"] = yaten.tensor(mask if kind == "bool" else mask.astype(mask_dtype))
    return arrays, t_kwargs, y_kwargs


@pytest.mark.parametrize("name,qshape,kshape,kwargs", FLASH_CASES, ids=[c[0] for c in FLASH_CASES])
def test_fused_cpu_attention_matches_torch(name, qshape, kshape, kwargs):
    arrays, t_kwargs, y_kwargs = flash_case(3, qshape, kshape, kwargs)
    compare_with_torch(arrays, t_kwargs, y_kwargs, grad_rtol=1e-9, grad_atol=1e-11)


FLOAT32_CASES = FLASH_CASES + [("head width 40, causal", (2, 2, 70, 40), (2, 2, 70, 40), {"is_causal": True}),
                               ("head width 80", (1, 3, 33, 80), (1, 3, 97, 80), {"value_width": 72})]


@pytest.mark.parametrize("name,qshape,kshape,kwargs", FLOAT32_CASES, ids=[c[0] for c in FLOAT32_CASES])
def test_fused_cpu_attention_float32(name, qshape, kshape, kwargs):
    """float32 runs the register-tiled block products (not the BLAS, as float64 does): every case above, and head
    widths that are not multiples of the vector width, against torch's float64 result."""
    arrays, t_kwargs, y_kwargs = flash_case(5, qshape, kshape, kwargs, mask_dtype=np.float32)
    t_out, t_grads = run(torch, arrays, t_kwargs)
    y = [yaten.tensor(a.astype(np.float32), requires_grad=True) for a in arrays]
    out = F.scaled_dot_product_attention(*y, **y_kwargs)
    weights = yaten.tensor(np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape)).astype(np.float32))
    (out * weights).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), t_out, rtol=2e-5, atol=2e-5)
    for a, want in zip(y, t_grads):
        np.testing.assert_allclose(a.grad.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_fused_cpu_attention_lower_precision(dtype):
    gen = np.random.default_rng(4)
    arrays = [gen.standard_normal((2, 2, 100, 32)) for _ in range(3)]
    t = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True) for a in arrays]
    y = [yaten.from_dlpack(x.detach().clone()).requires_grad_() for x in t]
    t_out = torch.nn.functional.scaled_dot_product_attention(*t, is_causal=True)
    y_out = F.scaled_dot_product_attention(*y, is_causal=True)
    assert y_out.dtype == getattr(yaten, dtype)
    tol = {"float32": 1e-5, "bfloat16": 2e-2, "float16": 2e-3}[dtype]
    torch.testing.assert_close(torch.from_dlpack(y_out.detach()), t_out.detach(), rtol=tol, atol=tol)
    t_out.float().sum().backward()
    y_out.float().sum().backward()
    for a, b in zip(y, t):
        torch.testing.assert_close(torch.from_dlpack(a.grad), b.grad, rtol=tol * 4, atol=tol * 4)


def test_fused_cpu_attention_keeps_the_scores_out_of_memory(tmp_path):
    """A 4096 x 4096 attention: the scores would take 64 MiB in float32; the fused forward and backward together
    allocate under a tenth of that beyond their inputs and outputs (in a fresh process, for a clean peak)."""
    import subprocess
    import sys

    code = (
        "import yaten, yaten.nn.functional as F\n"
        "q, k, v = (yaten.randn(1, 1, 4096, 32, requires_grad=True) for _ in range(3))\n"
        "before = yaten.memory_stats()['peak_bytes_in_use']\n"
        "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
        "out.sum().backward()\n"
        "print(yaten.memory_stats()['peak_bytes_in_use'] - before)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip().splitlines()[-1]) < 64 * 2**20 // 10


needs_cuda = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")


@needs_cuda
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("name,qshape,kshape,kwargs", CASES, ids=[c[0] for c in CASES])
def test_sdpa_on_cuda_matches_the_cpu(name, qshape, kshape, kwargs, dtype):
    """Values and gradients of attention on CUDA tensors against the same call on the CPU in float64 (torch's
    tolerances for bfloat16); the results stay on the device."""
    gen = np.random.default_rng(1)
    arrays = [gen.standard_normal(qshape), gen.standard_normal(kshape), gen.standard_normal(kshape)]
    mask_shape = qshape[:-1] + (kshape[-2],)
    kw_cpu, kw_cuda = dict(kwargs), dict(kwargs)
    if kwargs.get("attn_mask") == "bool":
        mask = gen.random(mask_shape) > 0.4
        mask[..., 0, :] = False
        kw_cpu["attn_mask"], kw_cuda["attn_mask"] = yaten.tensor(mask), yaten.tensor(mask, device="cuda")
    elif kwargs.get("attn_mask") == "float":
        mask = gen.standard_normal(mask_shape)
        kw_cpu["attn_mask"] = yaten.tensor(mask)
        kw_cuda["attn_mask"] = yaten.tensor(mask, device="cuda").to(getattr(yaten, dtype))
    tol = {"float64": 1e-10, "float32": 2e-5, "bfloat16": 3e-2}[dtype]
    expected_out, expected_grads = run(yaten, arrays, kw_cpu)
    tensors = [yaten.tensor(a, device="cuda").to(getattr(yaten, dtype)).requires_grad_() for a in arrays]
    out = F.scaled_dot_product_attention(*tensors, **kw_cuda)
    assert out.device.type == "cuda" and out.dtype == getattr(yaten, dtype)
    weights = yaten.tensor(np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape)), device="cuda")
    (out.double() * weights).sum().backward()
    scale = max(1.0, float(np.abs(expected_out).max()))
    np.testing.assert_allclose(out.double().cpu().numpy(), expected_out, rtol=tol, atol=tol * scale)
    for t, expected in zip(tensors, expected_grads):
        assert t.grad.device.type == "cuda"
        got = t.grad.double().cpu().numpy()
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max())))
