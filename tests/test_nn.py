"""nn.functional ops of CPU kernels II against torch: layer_norm, one_hot, embedding, nll_loss, cross_entropy (class
indices with weight, ignore_index and label smoothing; probabilities), mse_loss, linear."""

from __future__ import annotations

import pytest

import yaten
from helpers import from_torch, random_torch
from test_ops import assert_matches

F = yaten.nn.functional


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_layer_norm_matches_torch(torch, dtype):
    gen = torch.Generator().manual_seed(71)
    x = random_torch(torch, dtype, (4, 5, 6), gen)
    w, b = random_torch(torch, dtype, (5, 6), gen), random_torch(torch, dtype, (5, 6), gen)
    tF = torch.nn.functional
    assert_matches(torch, F.layer_norm(from_torch(x), [6]), tF.layer_norm(x, [6]))
    assert_matches(torch, F.layer_norm(from_torch(x), [5, 6], from_torch(w), from_torch(b), eps=1e-3),
                   tF.layer_norm(x, [5, 6], w, b, eps=1e-3))
    assert_matches(torch, F.layer_norm(from_torch(x).transpose(0, 2), [4], bias=from_torch(b[0, :4])),
                   tF.layer_norm(x.transpose(0, 2), [4], bias=b[0, :4]))
    with pytest.raises(RuntimeError, match="layer_norm"):
        F.layer_norm(from_torch(x), [5])


def test_one_hot_and_embedding_match_torch(torch):
    idx = torch.tensor([[0, 3, 1], [2, 2, 0]])
    assert_matches(torch, F.one_hot(from_torch(idx)), torch.nn.functional.one_hot(idx))
    assert_matches(torch, F.one_hot(from_torch(idx), 6), torch.nn.functional.one_hot(idx, 6))
    with pytest.raises(RuntimeError, match="num_classes"):
        F.one_hot(from_torch(idx), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(yaten.tensor([-1, 0]))
    with pytest.raises(TypeError, match="one_hot"):
        F.one_hot(yaten.tensor([1.0]))
    weight = torch.randn(5, 3, generator=torch.Generator().manual_seed(72))
    assert_matches(torch, F.embedding(from_torch(idx), from_torch(weight)), torch.nn.functional.embedding(idx, weight))
    assert_matches(torch, F.embedding(from_torch(idx), from_torch(weight), padding_idx=0),
                   torch.nn.functional.embedding(idx, weight, padding_idx=0))
    with pytest.raises(IndexError):
        F.embedding(yaten.tensor([5]), from_torch(weight))


CASES = [((8, 5), (8,)), ((5,), ()), ((4, 3, 2, 2), (4, 2, 2))]


@pytest.mark.parametrize("shape,target_shape", CASES, ids=[str(c[0]) for c in CASES])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_and_cross_entropy_match_torch(torch, shape, target_shape, reduction):
    gen = torch.Generator().manual_seed(73)
    c = shape[1] if len(shape) > 1 else shape[0]
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    t = torch.randint(0, c, target_shape, generator=gen)
    w = torch.rand(c, generator=gen, dtype=torch.float64) + 0.5
    if t.numel() > 2:
        t.view(-1)[1] = -100
    tF = torch.nn.functional
    yx, yt, yw = from_torch(x), from_torch(t), from_torch(w)
    logp = torch.log_softmax(x, dim=1 if len(shape) > 1 else 0)
    for kwargs, ykwargs in [({}, {}), ({"weight": w}, {"weight": yw}), ({"ignore_index": 2}, {"ignore_index": 2})]:
        safe_t = t.clamp(min=0) if "ignore_index" in kwargs else t
        assert_matches(torch, F.nll_loss(from_torch(logp), from_torch(safe_t), reduction=reduction, **ykwargs),
                       tF.nll_loss(logp, safe_t, reduction=reduction, **kwargs))
        assert_matches(torch, F.cross_entropy(yx, from_torch(safe_t), reduction=reduction, **ykwargs),
                       tF.cross_entropy(x, safe_t, reduction=reduction, **kwargs))
        assert_matches(torch, F.cross_entropy(yx, from_torch(safe_t), reduction=reduction, label_smoothing=0.2,
                                              **ykwargs),
                       tF.cross_entropy(x, safe_t, reduction=reduction, label_smoothing=0.2, **kwargs))
    assert_matches(torch, F.cross_entropy(yx, yt, reduction=reduction), tF.cross_entropy(x, t, reduction=reduction))
    probs = torch.softmax(torch.randn(shape, generator=gen, dtype=torch.float64), dim=1 if len(shape) > 1 else 0)
    for kwargs, ykwargs in [({}, {}), ({"weight": w}, {"weight": yw}), ({"label_smoothing": 0.1},
                                                                          {"label_smoothing": 0.1})]:
        assert_matches(torch, F.cross_entropy(yx, from_torch(probs), reduction=reduction, **ykwargs),
                       tF.cross_entropy(x, probs, reduction=reduction, **kwargs))


def test_loss_errors_and_mse(torch):
    x = yaten.randn(4, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, yaten.tensor([0, 1, 3, 0]))
    with pytest.raises(ValueError, match="reduction"):
        F.nll_loss(x, yaten.tensor([0, 1, 2, 0]), reduction="avg")
    with pytest.raises(TypeError, match="int64"):
        F.nll_loss(x, yaten.tensor([0.0, 1.0, 2.0, 0.0]))
    a = torch.randn(3, 4, generator=torch.Generator().manual_seed(74))
    b = torch.randn(3, 4, generator=torch.Generator().manual_seed(75))
    for reduction in ("mean", "sum", "none"):
        assert_matches(torch, F.mse_loss(from_torch(a), from_torch(b), reduction=reduction),
                       torch.nn.functional.mse_loss(a, b, reduction=reduction))
