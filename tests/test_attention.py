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
    t_out, t_grads = run(torch, arrays, t_kwargs)
    y_out, y_grads = run(yaten, arrays, y_kwargs)
    np.testing.assert_allclose(y_out, t_out, rtol=1e-10, atol=1e-12)
    for y, t in zip(y_grads, t_grads):
        assert np.isfinite(y).all()
        np.testing.assert_allclose(y, t, rtol=1e-10, atol=1e-12)


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
