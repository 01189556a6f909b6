"""The rest of torch.nn.functional's names (the compositions at the end of yaten/nn/functional.py): values and
gradients against torch's CPU build, torch's errors for bad arguments, and the random ones (rrelu, dropout1d-3d,
gumbel_softmax) by what their distributions must satisfy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yaten
import yaten.nn.functional as F
from helpers import from_torch, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(*shape, seed=0, low=-2.0, high=2.0):
    t = torch.rand(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * (high - low) + low
    return t, from_torch(t)


def _check(ours_fn, theirs_fn, *tensors, grad=True, frozen=(), **kwargs):
    """Same values, and the same gradients for every float input (but the `frozen` positions)."""
    wants = [grad and t.is_floating_point() and i not in frozen for i, t in enumerate(tensors)]
    made = [t.detach().clone().requires_grad_(w) for t, w in zip(tensors, wants)]
    mine = [from_torch(t.detach()).requires_grad_(w) for t, w in zip(tensors, wants)]
    expected = theirs_fn(*made, **kwargs)
    got = ours_fn(*mine, **kwargs)
    torch.testing.assert_close(to_torch(torch, got), expected.detach(), equal_nan=True)
    if grad and expected.requires_grad:
        seed = torch.randn(expected.shape, generator=torch.Generator().manual_seed(1), dtype=expected.dtype)
        expected.backward(seed)
        got.backward(from_torch(seed))
        for t, y in zip(made, mine):
            if t.grad is None:  # an input the result does not depend on (a loss's target)
                assert y.grad is None or not bool(y.grad.ne(0).any())
            elif t.requires_grad:
                torch.testing.assert_close(to_torch(torch, y.grad), t.grad, equal_nan=True)


UNARY = [("softsign", {}), ("tanhshrink", {}), ("logsigmoid", {}), ("hardshrink", {}), ("hardshrink", {"lambd": 1.2}),
         ("softshrink", {}), ("softshrink", {"lambd": 0.7}), ("celu", {}), ("celu", {"alpha": 0.4}),
         ("threshold", {"threshold": 0.3, "value": -5.0}), ("softmin", {"dim": 1}), ("glu", {}), ("glu", {"dim": 0}),
         ("normalize", {}), ("normalize", {"p": 1.0, "dim": 0}), ("rrelu", {}),
         ("relu_", {}), ("elu_", {}), ("selu_", {}), ("leaky_relu_", {}), ("hardtanh_", {}), ("celu_", {}),
         ("threshold_", {"threshold": 0.1, "value": 2.0}), ("rrelu_", {})]


@pytest.mark.parametrize(("name", "kwargs"), UNARY, ids=[f"{n}{sorted(k.items())}" for n, k in UNARY])
def test_elementwise_functions_match_torch(name, kwargs):
    t, _ = _pair(4, 6, seed=len(name))
    inplace = name.endswith("_")
    _check(lambda x, **k: getattr(F, name)(x.clone() if inplace else x, **k),
           lambda x, **k: getattr(TF, name)(x.clone() if inplace else x, **k), t, **kwargs)


def test_in_place_forms_write_their_input():
    x = yaten.tensor([-1.0, 2.0])
    assert F.relu_(x) is x and x.tolist() == [0.0, 2.0]
    y = yaten.tensor([-1.0, 0.5])
    assert F.threshold(y, 0.6, 9.0, inplace=True) is y and y.tolist() == [9.0, 9.0]


def test_prelu_pairwise_and_cosine_match_torch():
    x, _ = _pair(3, 4, 5, seed=1)
    w = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    _check(F.prelu, TF.prelu, x, w)
    _check(F.prelu, TF.prelu, x, torch.tensor([0.25], dtype=torch.float64))
    a, _ = _pair(6, 7, seed=2)
    b, _ = _pair(6, 7, seed=3)
    for p in (1.0, 2.0, 3.0):
        _check(lambda u, v: F.pairwise_distance(u, v, p=p), lambda u, v: TF.pairwise_distance(u, v, p=p), a, b)
    _check(F.pairwise_distance, TF.pairwise_distance, a, b, keepdim=True)
    _check(F.cosine_similarity, TF.cosine_similarity, a, b)
    _check(lambda u, v: F.cosine_similarity(u, v, dim=0), lambda u, v: TF.cosine_similarity(u, v, dim=0), a, b)
    _check(F.cosine_similarity, TF.cosine_similarity, a, b[:1])  # broadcast


def test_shuffles_match_torch():
    x = torch.arange(2 * 18 * 4 * 6, dtype=torch.float64).reshape(2, 18, 4, 6)
    for r in (1, 3):
        _check(lambda t: F.pixel_shuffle(t, r), lambda t: TF.pixel_shuffle(t, r), x)
    _check(lambda t: F.pixel_unshuffle(t, 2), lambda t: TF.pixel_unshuffle(t, 2), x)
    _check(lambda t: F.channel_shuffle(t, 3), lambda t: TF.channel_shuffle(t, 3), x, grad=False)
    _check(lambda t: F.pixel_shuffle(t, 3), lambda t: TF.pixel_shuffle(t, 3), x[0])  # no batch dim
    with pytest.raises(RuntimeError, match="divisible"):
        F.pixel_shuffle(from_torch(x), 4)
    with pytest.raises(RuntimeError, match="even"):
        F.glu(yaten.ones(3, 5))


REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_losses_match_torch(reduction):
    x1, _ = _pair(5, 4, seed=4)
    x2, _ = _pair(5, 4, seed=5)
    x3, _ = _pair(5, 4, seed=6)
    sign = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0], dtype=torch.float64)
    signs = torch.where(torch.rand(5, 4, generator=torch.Generator().manual_seed(7)) > 0.5, 1.0, -1.0).double()
    labels = (torch.rand(5, 4, generator=torch.Generator().manual_seed(8)) > 0.5).double()
    r = {"reduction": reduction}
    _check(F.margin_ranking_loss, TF.margin_ranking_loss, x1[:, 0], x2[:, 0], sign, margin=0.3, **r)
    _check(F.hinge_embedding_loss, TF.hinge_embedding_loss, x1, signs, margin=0.5, **r)
    _check(F.soft_margin_loss, TF.soft_margin_loss, x1, signs, frozen=(1,), **r)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(from_torch(x1), from_torch(signs).requires_grad_())
    _check(F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss, x1, labels, **r)
    weight = torch.tensor([0.5, 1.0, 2.0, 0.1], dtype=torch.float64)
    _check(lambda a, b: F.multilabel_soft_margin_loss(a, b, weight=from_torch(weight), **r),
           lambda a, b: TF.multilabel_soft_margin_loss(a, b, weight=weight, **r), x1, labels)
    _check(F.cosine_embedding_loss, TF.cosine_embedding_loss, x1, x2, sign, margin=0.1, **r)
    for swap in (False, True):
        _check(F.triplet_margin_loss, TF.triplet_margin_loss, x1, x2, x3, swap=swap, **r)
        _check(F.triplet_margin_with_distance_loss, TF.triplet_margin_with_distance_loss, x1, x2, x3, swap=swap, **r)
    counts = torch.tensor([[0.0, 1.0, 2.0, 5.0]] * 5, dtype=torch.float64)
    for log_input in (True, False):
        for full in (False, True):
            inputs = x1 if log_input else x1.abs() + 0.1
            _check(F.poisson_nll_loss, TF.poisson_nll_loss, inputs, counts, log_input=log_input, full=full, **r)
    var = x3.abs() + 0.05
    for full in (False, True):
        _check(F.gaussian_nll_loss, TF.gaussian_nll_loss, x1, x2, var, full=full, **r)
        _check(F.gaussian_nll_loss, TF.gaussian_nll_loss, x1, x2, var[:, :1], full=full, **r)  # homoscedastic


def test_loss_arguments_are_checked_as_torch_does():
    x = yaten.ones(3, 2)
    with pytest.raises(ValueError, match="reduction"):
        F.soft_margin_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(x, x, -x)
    with pytest.raises(ValueError, match="margin"):
        F.triplet_margin_with_distance_loss(x, x, x, margin=0.0)


def test_pooling_and_local_response_norm_match_torch():
    x, _ = _pair(2, 3, 8, 8, seed=9, low=0.1, high=2.0)
    for norm_type in (1.0, 2.0, 3.5):
        _check(lambda t: F.lp_pool2d(t, norm_type, 2), lambda t: TF.lp_pool2d(t, norm_type, 2), x)
        _check(lambda t: F.lp_pool1d(t, norm_type, 3, 2), lambda t: TF.lp_pool1d(t, norm_type, 3, 2), x[:, :, 0])
    _check(lambda t: F.lp_pool3d(t, 2.0, 2), lambda t: TF.lp_pool3d(t, 2.0, 2), x.unsqueeze(2).expand(2, 3, 2, 8, 8))
    out, idx = F.max_pool2d_with_indices(from_torch(x), 2)
    t_out, t_idx = TF.max_pool2d_with_indices(x, 2)
    torch.testing.assert_close(to_torch(torch, out), t_out)
    assert idx.tolist() == t_idx.tolist()
    for size in (2, 3):
        _check(lambda t: F.local_response_norm(t, size), lambda t: TF.local_response_norm(t, size), x)
        _check(lambda t: F.local_response_norm(t, size), lambda t: TF.local_response_norm(t, size), x[:, :, 0])
    _check(lambda t: F.upsample(t, scale_factor=2), lambda t: TF.interpolate(t, scale_factor=2), x, grad=False)
    _check(lambda t: F.upsample_bilinear(t, scale_factor=2),
           lambda t: TF.interpolate(t, scale_factor=2, mode="bilinear", align_corners=True), x)


def test_random_functions_follow_their_distributions():
    yaten.manual_seed(0)
    x = yaten.ones(200, 50, 3, 3)
    y = F.dropout2d(x, 0.3)
    channels = y[:, :, 0, 0]
    kept = (channels != 0).float().mean().item()
    assert abs(kept - 0.7) < 0.02
    assert yaten.equal(y[:, :, 1:, :], y[:, :, :1, :].expand(200, 50, 2, 3))  # whole channels
    assert abs(channels[channels != 0].mean().item() - 1 / 0.7) < 1e-6
    assert F.dropout1d(yaten.ones(4, 5, 6), 0.5, training=False).tolist() == yaten.ones(4, 5, 6).tolist()
    assert F.dropout3d(yaten.ones(2, 3, 2, 2, 2), 1.0).abs().sum().item() == 0
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout2d(x, 1.5)
    z = yaten.full((20000,), -1.0)
    slopes = -F.rrelu(z, 0.1, 0.3, training=True)
    assert 0.1 <= slopes.min().item() and slopes.max().item() <= 0.3 and abs(slopes.mean().item() - 0.2) < 0.005
    logits = yaten.tensor([[1.0, 2.0, 0.5]]).expand(20000, 3).contiguous()
    sample = F.gumbel_softmax(logits, tau=0.5, hard=True)
    assert yaten.equal(sample.sum(1), yaten.ones(20000))
    expected = yaten.softmax(logits[0], 0)  # the Gumbel-max trick: argmax frequencies are softmax(logits)
    assert (sample.mean(0) - expected).abs().max().item() < 0.02
    soft = F.gumbel_softmax(logits.requires_grad_(), tau=2.0)
    assert yaten.allclose(soft.sum(1), yaten.ones(20000)) and soft.requires_grad


def test_unpooling_margin_losses_conv_tbc_and_linear_cross_entropy_match_torch():
    x, _ = _pair(2, 3, 8, 8, seed=11)
    pooled, idx = TF.max_pool2d(x, 2, return_indices=True)
    _check(lambda v: F.max_unpool2d(v, from_torch(idx), 2), lambda v: TF.max_unpool2d(v, idx, 2), pooled)
    _check(lambda v: F.max_unpool2d(v, from_torch(idx), 2, output_size=(9, 9)),
           lambda v: TF.max_unpool2d(v, idx, 2, output_size=(9, 9)), pooled)
    p1, i1 = TF.max_pool1d(x[:, :, 0], 3, 2, return_indices=True)
    _check(lambda v: F.max_unpool1d(v, from_torch(i1), 3, 2), lambda v: TF.max_unpool1d(v, i1, 3, 2), p1)
    x3 = x.unsqueeze(2).repeat(1, 1, 4, 1, 1)
    p3, i3 = TF.max_pool3d(x3, 2, return_indices=True)
    _check(lambda v: F.max_unpool3d(v, from_torch(i3), 2), lambda v: TF.max_unpool3d(v, i3, 2), p3)
    scores, _ = _pair(6, 5, seed=12)
    target = torch.tensor([0, 4, 2, 2, 1, 3])
    w = torch.tensor([1.0, 0.5, 2.0, 1.5, 0.3], dtype=torch.float64)
    for reduction in REDUCTIONS:
        for p in (1, 2):
            _check(lambda a, b: F.multi_margin_loss(a, b, p=p, margin=0.7, reduction=reduction),
                   lambda a, b: TF.multi_margin_loss(a, b, p=p, margin=0.7, reduction=reduction), scores, target)
        _check(lambda a, b: F.multi_margin_loss(a, b, weight=from_torch(w), reduction=reduction),
               lambda a, b: TF.multi_margin_loss(a, b, weight=w, reduction=reduction), scores, target)
        labels = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4], [4, -1, 0, 0, 0],
                               [2, 2, -1, 0, 0], [0, 1, -1, 3, 3]])
        _check(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
               lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), scores, labels)
    _check(F.multi_margin_loss, TF.multi_margin_loss, scores[0], target[1:2])
    with pytest.raises(ValueError, match="p == 1 and p == 2"):
        F.multi_margin_loss(from_torch(scores), from_torch(target), p=3)
    seq, _ = _pair(7, 2, 3, seed=13)
    kernel, _ = _pair(3, 3, 4, seed=14)
    bias, _ = _pair(4, seed=15)
    _check(lambda a, b, c: F.conv_tbc(a, b, c, 1), lambda a, b, c: torch.conv_tbc(a, b, c, 1), seq, kernel, bias)
    feats, _ = _pair(6, 3, seed=16)
    lw, _ = _pair(5, 3, seed=17)
    _check(lambda a, b: F.linear_cross_entropy(a, b, from_torch(target), label_smoothing=0.1),
           lambda a, b: TF.linear_cross_entropy(a, b, target, label_smoothing=0.1), feats, lw)


def test_alpha_dropouts_keep_mean_and_variance():
    yaten.manual_seed(1)
    x = yaten.randn(400000)
    for fn, shape in [(F.alpha_dropout, (400000,)), (F.feature_alpha_dropout, (4000, 100, 1))]:
        y = fn(x.reshape(shape), 0.2, training=True).reshape(-1)
        assert abs(y.mean().item()) < 0.01 and abs(y.std().item() - 1) < 0.01
        assert fn(x, 0.2).data_ptr() == x.data_ptr()  # not training: the input itself
    z = F.feature_alpha_dropout(yaten.ones(1000, 8, 2), 0.5, training=True)
    assert yaten.equal(z[:, :, 0], z[:, :, 1])  # whole channels


# (constructor arguments, input shapes) for each new module: forward against torch's module, parameters copied over
MODULES = {
    "CELU": ((0.7,), [(3, 5)]), "Threshold": ((0.2, -1.0), [(3, 5)]), "RReLU": ((), [(3, 5)]),
    "Hardshrink": ((0.3,), [(3, 5)]), "Softshrink": ((), [(3, 5)]), "LogSigmoid": ((), [(3, 5)]),
    "Softsign": ((), [(3, 5)]), "Tanhshrink": ((), [(3, 5)]), "GLU": ((0,), [(4, 5)]), "PReLU": ((3,), [(2, 3, 4)]),
    "Softmax2d": ((), [(2, 3, 4, 4)]), "PairwiseDistance": ((), [(4, 6), (4, 6)]),
    "CosineSimilarity": ((), [(4, 6), (4, 6)]), "PixelShuffle": ((2,), [(1, 8, 3, 3)]),
    "PixelUnshuffle": ((2,), [(1, 2, 4, 6)]), "ChannelShuffle": ((2,), [(1, 4, 3, 3)]),
    "LPPool2d": ((2, 2), [(1, 2, 4, 4)]), "LPPool1d": ((2, 2), [(1, 2, 6)]), "LocalResponseNorm": ((3,), [(2, 5, 4)]),
    "Fold": (((4, 5), (2, 2)), [(1, 12, 12)]), "Unfold": (((2, 3),), [(2, 3, 5, 6)]),
    "AlphaDropout": ((0.3,), [(3, 5)]), "FeatureAlphaDropout": ((0.3,), [(3, 5, 2)]),
    "MarginRankingLoss": ((), [(6,), (6,), (6,)]), "SoftMarginLoss": ((), [(3, 4), (3, 4)]),
    "CosineEmbeddingLoss": ((), [(3, 4), (3, 4), (3,)]), "HingeEmbeddingLoss": ((), [(3, 4), (3, 4)]),
    "TripletMarginLoss": ((), [(3, 4), (3, 4), (3, 4)]), "TripletMarginWithDistanceLoss": ((), [(3, 4)] * 3),
    "MultiLabelSoftMarginLoss": ((), [(3, 4), (3, 4)]), "PoissonNLLLoss": ((), [(3, 4), (3, 4)]),
    "GaussianNLLLoss": ((), [(3, 4), (3, 4), (3, 4)]),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_match_torchs(name):
    args, shapes = MODULES[name]
    theirs = getattr(torch.nn, name)(*args).eval()
    ours = getattr(yaten.nn, name)(*args).eval()
    for (key, value), (key2, mine) in zip(theirs.named_parameters(), ours.named_parameters()):
        assert key == key2
        mine.data.copy_(from_torch(value.detach()))
    dtype = torch.float32 if list(theirs.parameters()) else torch.float64  # parameters are float32, as torch's
    inputs = [torch.rand(s, generator=torch.Generator().manual_seed(i), dtype=dtype) + 0.1
              for i, s in enumerate(shapes)]
    if name in ("MarginRankingLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "SoftMarginLoss"):
        inputs[-1] = torch.where(inputs[-1] > 0.6, 1.0, -1.0).double()
    if name == "MultiLabelSoftMarginLoss":
        inputs[-1] = (inputs[-1] > 0.6).double()
    torch.testing.assert_close(to_torch(torch, ours(*[from_torch(t) for t in inputs])), theirs(*inputs))
    assert repr(ours) == repr(theirs)


def test_unpool_and_margin_loss_modules_match_torchs():
    x = torch.rand(1, 2, 6, 6, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    pooled, idx = torch.nn.MaxPool2d(2, return_indices=True)(x)
    theirs = torch.nn.MaxUnpool2d(2)(pooled, idx)
    ours = yaten.nn.MaxUnpool2d(2)(from_torch(pooled), from_torch(idx))
    torch.testing.assert_close(to_torch(torch, ours), theirs)
    scores = torch.rand(4, 5, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    target = torch.tensor([1, 0, 4, 2])
    for module in ("MultiMarginLoss", "NLLLoss2d"):
        args = (scores.log_softmax(1),) if module == "NLLLoss2d" else (scores,)
        theirs = getattr(torch.nn, module)()(*args, target)
        torch.testing.assert_close(to_torch(torch, getattr(yaten.nn, module)()(*[from_torch(a) for a in args],
                                                                               from_torch(target))), theirs)
    labels = torch.tensor([[1, 3, -1, 0, 0]] * 4)
    torch.testing.assert_close(to_torch(torch, yaten.nn.MultiLabelMarginLoss()(from_torch(scores), from_torch(labels))),
                               torch.nn.MultiLabelMarginLoss()(scores, labels))


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_recurrent_cells_match_torchs(name, batched):
    kwargs = {"nonlinearity": "relu"} if name == "RNNCell" and batched else {}
    theirs = getattr(torch.nn, name)(5, 4, **kwargs).double()
    ours = getattr(yaten.nn, name)(5, 4, dtype=yaten.float64, **kwargs)
    ours.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict()) and repr(ours) == repr(theirs)
    shape = (3, 5) if batched else (5,)
    x = torch.rand(shape, generator=torch.Generator().manual_seed(5), dtype=torch.float64, requires_grad=True)
    h = torch.rand(shape[:-1] + (4,), generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    state = (h, h * 0.5) if name == "LSTMCell" else h
    y = from_torch(x.detach()).requires_grad_()
    my_state = (from_torch(h), from_torch(h * 0.5)) if name == "LSTMCell" else from_torch(h)
    for hx, my_hx in [(state, my_state), (None, None)]:
        out, mine = theirs(x, hx), ours(y, my_hx)
        outs, mines = (out, mine) if name == "LSTMCell" else ((out,), (mine,))
        for a, b in zip(outs, mines):
            torch.testing.assert_close(to_torch(torch, b), a)
        sum(o.sum() for o in outs).backward()
        sum(m.sum() for m in mines).backward()
        torch.testing.assert_close(to_torch(torch, y.grad), x.grad)
        torch.testing.assert_close(to_torch(torch, ours.weight_hh.grad), theirs.weight_hh.grad)
        x.grad = y.grad = None
        theirs.zero_grad()
        ours.zero_grad()


LAYERS = [("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("LSTM", {}),
          ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}), ("LSTM", {"proj_size": 3}),
          ("GRU", {"bidirectional": True}), ("GRU", {"num_layers": 3, "bias": False})]


@pytest.mark.parametrize(("name", "kwargs"), LAYERS, ids=[f"{n}{sorted(k.items())}" for n, k in LAYERS])
@pytest.mark.parametrize("batched", [True, False])
def test_recurrent_layers_match_torchs(name, kwargs, batched):
    theirs = getattr(torch.nn, name)(5, 4, **kwargs).double()
    ours = getattr(yaten.nn, name)(5, 4, dtype=yaten.float64, **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) and repr(ours) == repr(theirs)
    ours.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    shape = ((2, 6, 5) if kwargs.get("batch_first") else (6, 2, 5)) if batched else (6, 5)
    x = torch.rand(shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64, requires_grad=True)
    y = from_torch(x.detach()).requires_grad_()
    out, state = theirs(x)
    mine, my_state = ours(y)
    torch.testing.assert_close(to_torch(torch, mine), out)
    states = state if name == "LSTM" else (state,)
    my_states = my_state if name == "LSTM" else (my_state,)
    for a, b in zip(states, my_states):
        torch.testing.assert_close(to_torch(torch, b), a)
    (out.sum() + sum(s.sum() for s in states)).backward()
    (mine.sum() + sum(s.sum() for s in my_states)).backward()
    torch.testing.assert_close(to_torch(torch, y.grad), x.grad)
    for (key, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        torch.testing.assert_close(to_torch(torch, q.grad), p.grad, msg=key)
    # a given initial state, passed through
    out2, _ = theirs(x.detach(), state)
    mine2, _ = ours(y.detach(), my_state)
    torch.testing.assert_close(to_torch(torch, mine2), out2.detach())


@pytest.mark.parametrize(("name", "kwargs"), LAYERS, ids=[f"{n}{sorted(k.items())}" for n, k in LAYERS])
def test_functional_recurrent_layers_take_atens_flat_parameters(name, kwargs):
    module = getattr(torch.nn, name)(5, 4, **kwargs).double()
    params = [p.detach() for p in module._flat_weights]
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    hidden = kwargs.get("proj_size") or 4
    x = torch.rand(6, 2, 5, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    if kwargs.get("batch_first"):
        x = x.transpose(0, 1).contiguous()
    h = torch.rand(layers, 2, hidden, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    c = torch.rand(layers, 2, 4, generator=torch.Generator().manual_seed(10), dtype=torch.float64)
    fn = {"RNN": "rnn_relu" if kwargs.get("nonlinearity") == "relu" else "rnn_tanh", "LSTM": "lstm",
          "GRU": "gru"}[name]
    args = (kwargs.get("bias", True), kwargs.get("num_layers", 1), 0.0, False, kwargs.get("bidirectional", False),
            kwargs.get("batch_first", False))
    hx, my_hx = ((h, c), (from_torch(h), from_torch(c))) if name == "LSTM" else (h, from_torch(h))
    expected = getattr(torch, fn)(x, hx, params, *args)
    got = getattr(yaten, fn)(from_torch(x), my_hx, [from_torch(p) for p in params], *args)
    assert len(got) == len(expected)
    for a, b in zip(expected, got):
        torch.testing.assert_close(to_torch(torch, b), a)


@pytest.mark.parametrize("name", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_functional_cells_match_torchs(name):
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    g = torch.Generator().manual_seed(11)
    x, h, c = (torch.rand(3, n, generator=g, dtype=torch.float64) for n in (5, 4, 4))
    w_ih, w_hh = torch.rand(gates * 4, 5, generator=g, dtype=torch.float64), torch.rand(gates * 4, 4, generator=g,
                                                                                      dtype=torch.float64)
    b_ih, b_hh = torch.rand(gates * 4, generator=g, dtype=torch.float64), torch.rand(gates * 4, generator=g,
                                                                                   dtype=torch.float64)
    hx, my_hx = ((h, c), (from_torch(h), from_torch(c))) if name == "lstm_cell" else (h, from_torch(h))
    expected = getattr(torch, name)(x, hx, w_ih, w_hh, b_ih, b_hh)
    got = getattr(yaten, name)(from_torch(x), my_hx, *(from_torch(t) for t in (w_ih, w_hh, b_ih, b_hh)))
    for a, b in zip(expected if name == "lstm_cell" else (expected,), got if name == "lstm_cell" else (got,)):
        torch.testing.assert_close(to_torch(torch, b), a)


LAZY = [("LazyLinear", (3,), (2, 5)), ("LazyConv1d", (4, 3), (2, 3, 9)), ("LazyConv2d", (4, 3), (1, 2, 6, 6)),
        ("LazyConv3d", (2, 2), (1, 2, 4, 4, 4)), ("LazyConvTranspose1d", (6, 3, 2, 0, 0, 2), (2, 4, 7)),
        ("LazyConvTranspose2d", (3, 2), (1, 2, 5, 5)), ("LazyConvTranspose3d", (2, 2), (1, 2, 3, 3, 3)),
        ("LazyBatchNorm1d", (), (4, 3)), ("LazyBatchNorm2d", (), (4, 3, 2, 2)), ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2)),
        ("LazyInstanceNorm1d", (), (2, 3, 5)), ("LazyInstanceNorm2d", (1e-5, 0.1, True), (2, 3, 4, 4)),
        ("LazyInstanceNorm3d", (), (2, 3, 2, 2, 2))]


@pytest.mark.parametrize("name,args,shape", LAZY, ids=[case[0] for case in LAZY])
def test_lazy_modules_become_torchs_modules(name, args, shape):
    theirs = getattr(torch.nn, name)(*args).double()
    ours = getattr(yaten.nn, name)(*args, dtype=yaten.float64)
    assert repr(ours) == repr(theirs)
    x = torch.rand(*shape, generator=torch.Generator().manual_seed(12), dtype=torch.float64)
    expected = theirs(x)
    got = ours(from_torch(x))  # sized by the input, initialized; then given torch's values
    ours.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    if "BatchNorm" not in name:  # (the first call updated the running statistics)
        got = ours(from_torch(x))
    assert type(ours).__name__ == type(theirs).__name__ == name[4:]
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    torch.testing.assert_close(to_torch(torch, got), expected)
    assert not any(isinstance(t, yaten.nn.UninitializedParameter) for t in ours.parameters())
    # a checkpoint loads into a still-lazy module at the saved shapes
    fresh = getattr(yaten.nn, name)(*args, dtype=yaten.float64)
    fresh.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    assert [tuple(v.shape) for v in fresh.state_dict().values()] == [tuple(v.shape) for v in
                                                                     theirs.state_dict().values()]
    if "BatchNorm" not in name:
        torch.testing.assert_close(to_torch(torch, fresh(from_torch(x))), expected)
        assert repr(fresh) == repr(theirs)


def test_lazy_module_sizes_itself_and_refuses_early_shape():
    m = yaten.nn.LazyLinear(3)
    with pytest.raises(RuntimeError, match="uninitialized"):
        m.weight.shape
    y = m(yaten.rand(2, 7))
    assert type(m) is yaten.nn.Linear and tuple(m.weight.shape) == (3, 7) and tuple(y.shape) == (2, 3)
    bound = 1 / math.sqrt(7)
    assert float(m.weight.abs().max()) <= bound  # initialized as Linear(7, 3) would be
    bn = yaten.nn.LazyBatchNorm1d()
    bn(yaten.rand(4, 5))
    assert type(bn.running_mean) is yaten.Tensor and tuple(bn.running_var.shape) == (5,)
    assert int(bn.num_batches_tracked) == 1


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_values_and_gradients_match_torchs(reduction, zero_infinity, concatenated):
    g = torch.Generator().manual_seed(13)
    steps, batch, classes, longest = 12, 5, 6, 5
    log_probs = torch.randn(steps, batch, classes, dtype=torch.float64, generator=g).log_softmax(2)
    targets = torch.randint(1, classes, (batch, longest), generator=g)
    targets[4, :4] = 2  # repeated labels: a blank must separate them
    input_lengths = torch.tensor([12, 10, 12, 7, 5])  # the last cannot fit its 4 repeated labels: infinite loss
    target_lengths = torch.tensor([5, 3, 0, 4, 4])
    if concatenated:
        targets = torch.cat([targets[i, :target_lengths[i]] for i in range(batch)])
    theirs = log_probs.clone().requires_grad_()
    expected = torch.nn.functional.ctc_loss(theirs, targets, input_lengths, target_lengths, reduction=reduction,
                                            zero_infinity=zero_infinity)
    ours = from_torch(log_probs).requires_grad_()
    got = F.ctc_loss(ours, from_torch(targets), from_torch(input_lengths), from_torch(target_lengths),
                     reduction=reduction, zero_infinity=zero_infinity)
    torch.testing.assert_close(to_torch(torch, got), expected)
    if zero_infinity or reduction == "none":
        weights = torch.rand(expected.shape, generator=g, dtype=torch.float64)
        (expected * weights).nan_to_num(posinf=0.0).sum().backward() if not zero_infinity else \
            (expected * weights).sum().backward()
        (got * from_torch(weights)).nan_to_num(posinf=0.0).sum().backward() if not zero_infinity else \
            (got * from_torch(weights)).sum().backward()
        if zero_infinity:
            torch.testing.assert_close(to_torch(torch, ours.grad), theirs.grad)
        else:  # the finite samples' gradients (torch's infinite one is NaN/inf)
            torch.testing.assert_close(to_torch(torch, ours.grad)[:, :4], theirs.grad[:, :4])


def test_ctc_loss_module_unbatched_and_top_level():
    g = torch.Generator().manual_seed(14)
    log_probs = torch.randn(8, 4, dtype=torch.float64, generator=g).log_softmax(1)
    target = torch.tensor([1, 2, 2])
    expected = torch.nn.CTCLoss(blank=3)(log_probs, target, torch.tensor(8), torch.tensor(3))
    got = yaten.nn.CTCLoss(blank=3)(from_torch(log_probs), from_torch(target), yaten.tensor(8), yaten.tensor(3))
    torch.testing.assert_close(to_torch(torch, got), expected)
    batch = log_probs.unsqueeze(1)
    expected = torch.ctc_loss(batch, target.unsqueeze(0), [8], [3], 3, 2)
    torch.testing.assert_close(to_torch(torch, yaten.ctc_loss(from_torch(batch), from_torch(target).unsqueeze(0),
                                                              [8], [3], 3, 2)), expected)
    with pytest.raises(RuntimeError, match="blank"):
        F.ctc_loss(from_torch(batch), from_torch(target).unsqueeze(0), [8], [3], blank=9)


MHA_CASES = [dict(), dict(add_bias_kv=True), dict(add_zero_attn=True), dict(add_bias_kv=True, add_zero_attn=True),
             dict(kdim=3, vdim=5), dict(bias=False), dict(batch_first=True, add_zero_attn=True)]


@pytest.mark.parametrize("kwargs", MHA_CASES, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "plain")
@pytest.mark.parametrize("masks", [False, True])
def test_multihead_attention_options_match_torchs(kwargs, masks):
    g = torch.Generator().manual_seed(17)
    theirs = torch.nn.MultiheadAttention(8, 2, **kwargs).double()
    ours = yaten.nn.MultiheadAttention(8, 2, dtype=yaten.float64, **kwargs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    first = kwargs.get("batch_first", False)
    shape = lambda length, dim: (2, length, dim) if first else (length, 2, dim)  # noqa: E731
    q = torch.rand(*shape(4, 8), generator=g, dtype=torch.float64, requires_grad=True)
    k = torch.rand(*shape(5, kwargs.get("kdim", 8)), generator=g, dtype=torch.float64)
    v = torch.rand(*shape(5, kwargs.get("vdim", 8)), generator=g, dtype=torch.float64)
    extra = {}
    if masks:
        extra = dict(attn_mask=torch.rand(4, 5, generator=g) > 0.7,
                     key_padding_mask=torch.tensor([[False] * 4 + [True], [False] * 5]))
    out, weights = theirs(q, k, v, average_attn_weights=False, **extra)
    qy = from_torch(q.detach()).requires_grad_()
    got, got_weights = ours(qy, from_torch(k), from_torch(v), average_attn_weights=False,
                            **{name: from_torch(t) for name, t in extra.items()})
    torch.testing.assert_close(to_torch(torch, got), out)
    torch.testing.assert_close(to_torch(torch, got_weights), weights)
    out.sum().backward()
    got.sum().backward()
    torch.testing.assert_close(to_torch(torch, qy.grad), q.grad)


def test_functional_multi_head_attention_static_keys_and_unbatched():
    g = torch.Generator().manual_seed(18)
    e, h = 6, 3
    w_in = torch.rand(3 * e, e, generator=g, dtype=torch.float64)
    b_in = torch.rand(3 * e, generator=g, dtype=torch.float64)
    w_out = torch.rand(e, e, generator=g, dtype=torch.float64)
    q = torch.rand(4, e, generator=g, dtype=torch.float64)  # unbatched
    static_k = torch.rand(h, 7, e // h, generator=g, dtype=torch.float64)
    static_v = torch.rand(h, 7, e // h, generator=g, dtype=torch.float64)
    args = lambda lib, conv: (conv(q), conv(q), conv(q), e, h, conv(w_in), conv(b_in), None, None, False, 0.0,  # noqa
                              conv(w_out), None)
    expected = torch.nn.functional.multi_head_attention_forward(*args(torch, lambda t: t), static_k=static_k,
                                                                static_v=static_v, need_weights=True)
    got = F.multi_head_attention_forward(*args(yaten, from_torch), static_k=from_torch(static_k),
                                         static_v=from_torch(static_v), need_weights=True)
    for a, b in zip(expected, got):
        torch.testing.assert_close(to_torch(torch, b), a)
    with pytest.raises(RuntimeError, match="is_causal"):
        F.multi_head_attention_forward(*args(yaten, from_torch), is_causal=True)


@pytest.mark.parametrize("head_bias", [False, True])
@pytest.mark.parametrize("batched", [True, False])
def test_adaptive_log_softmax_with_loss_matches_torchs(head_bias, batched):
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.0, head_bias=head_bias).double()
    ours = yaten.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.0, head_bias=head_bias,
                                               dtype=yaten.float64)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    g = torch.Generator().manual_seed(20)
    x = torch.rand(6, 16, generator=g, dtype=torch.float64, requires_grad=True)
    target = torch.tensor([0, 7, 19, 12, 4, 16])
    if not batched:
        x, target = x[2].detach().requires_grad_(), target[2]
    out = theirs(x, target)
    xy = from_torch(x.detach()).requires_grad_()
    got = ours(xy, from_torch(target))
    torch.testing.assert_close(to_torch(torch, got.output), out.output)
    torch.testing.assert_close(to_torch(torch, got.loss), out.loss)
    out.loss.backward()
    got.loss.backward()
    torch.testing.assert_close(to_torch(torch, xy.grad), x.grad)
    for (name, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
        if p.grad is None:  # a cluster no target reached
            assert q.grad is None or float(q.grad.abs().max()) == 0.0, name
        else:
            torch.testing.assert_close(to_torch(torch, q.grad), p.grad, msg=name)
    if batched:  # (torch's log_prob and predict take batches only)
        torch.testing.assert_close(to_torch(torch, ours.log_prob(from_torch(x.detach()))),
                                   theirs.log_prob(x.detach()))
        torch.testing.assert_close(to_torch(torch, ours.predict(from_torch(x.detach()))), theirs.predict(x.detach()))
    with pytest.raises(RuntimeError, match="Target values"):
        ours(from_torch(torch.rand(2, 16, dtype=torch.float64)), yaten.tensor([0, 20]))
    with pytest.raises(ValueError):
        yaten.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [10, 5])


@pytest.mark.parametrize("kwargs", [dict(), dict(bias=True, weight=True), dict(out_features=(2,), bias=True),
                                    dict(label_smoothing=0.1, reduction="sum")])
def test_linear_cross_entropy_loss_module_matches_torchs(kwargs):
    weight = kwargs.pop("weight", None)
    class_weight = torch.rand(3, dtype=torch.float64) if weight else None
    theirs = torch.nn.LinearCrossEntropyLoss(4, 3, weight=class_weight, **kwargs).double()
    ours = yaten.nn.LinearCrossEntropyLoss(4, 3, weight=None if class_weight is None else from_torch(class_weight),
                                           dtype=yaten.float64, **kwargs)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: from_torch(v.detach()) for k, v in theirs.state_dict().items()})
    g = torch.Generator().manual_seed(21)
    x = torch.rand(5, 4, generator=g, dtype=torch.float64)
    target = torch.randint(0, 3, (5,) + tuple(kwargs.get("out_features", ())), generator=g)
    torch.testing.assert_close(to_torch(torch, ours(from_torch(x), from_torch(target))), theirs(x, target))
    assert repr(yaten.nn.LinearCrossEntropyOptions()) == repr(torch.nn.LinearCrossEntropyOptions()).replace(
        "torch.", "yaten.")


@pytest.mark.parametrize("size", [2, 3, 4, 5, 12])
@pytest.mark.parametrize("channels", [1, 3, 10])
def test_cross_map_lrn2d_is_torchs_forward_and_backward(size, channels):
    # torch's legacy module: its running window keeps channel 0 once it has entered, and its backward assumes the
    # symmetric window; yaten's output and gradient are torch's (size 1's backward raises inside torch)
    rng = np.random.default_rng(size * 100 + channels)
    x = rng.standard_normal((2, channels, 3, 4))
    g = rng.standard_normal(x.shape)
    theirs_x = torch.tensor(x, requires_grad=True)
    theirs = torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.75, k=2.0)(theirs_x)
    theirs.backward(torch.tensor(g))
    ours_x = yaten.tensor(x, requires_grad=True)
    module = yaten.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.75, k=2.0)
    ours = module(ours_x)
    ours.backward(yaten.tensor(g))
    torch.testing.assert_close(to_torch(torch, ours.detach()), theirs.detach())
    torch.testing.assert_close(to_torch(torch, ours_x.grad), theirs_x.grad)
    assert repr(module) == repr(torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.75, k=2.0))
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D"):
        module(yaten.ones(2, 3, 4))


def test_grouped_mm_is_torchs():
    # the four layouts (2D x 3D, 3D x 2D, 2D x 2D with offsets, 3D x 3D without), values and gradients against torch's
    # CPU grouped_mm where torch defines them (rows or columns past offs[-1]: torch leaves them uninitialized, yaten 0)
    offs = torch.tensor([8, 16, 24], dtype=torch.int32)
    gen = torch.Generator().manual_seed(11)
    cases = [((32, 8), (3, 8, 16), offs), ((3, 16, 8), (8, 32), offs), ((16, 32), (32, 8), offs),
             ((3, 16, 8), (3, 8, 16), None)]
    for shape_a, shape_b, o in cases:
        a = torch.randn(shape_a, generator=gen, requires_grad=True)
        b = torch.randn(shape_b, generator=gen, requires_grad=True)
        theirs = TF.grouped_mm(a, b, offs=o)
        ya, yb = from_torch(a.detach()).requires_grad_(), from_torch(b.detach()).requires_grad_()
        ours = F.grouped_mm(ya, yb, offs=None if o is None else from_torch(o))
        assert tuple(ours.shape) == tuple(theirs.shape)
        defined = (slice(0, 24),) if len(shape_a) == 2 and len(shape_b) == 3 else \
            (slice(None), slice(0, 24)) if len(shape_a) == 3 and len(shape_b) == 2 else (slice(None),)
        torch.testing.assert_close(to_torch(torch, ours)[defined], theirs[defined].detach())
        g = torch.randn(theirs.shape, generator=gen)
        theirs[defined].backward(g[defined])
        ours[defined].backward(from_torch(g[defined].contiguous()))
        # torch's gradient of what no group reads (past offs[-1]) is uninitialized too
        used_a = {(2, 3): (slice(0, 24),), (2, 2): (slice(None), slice(0, 24))}.get((len(shape_a), len(shape_b)),
                                                                                  (slice(None),))
        used_b = {(3, 2): (slice(None), slice(0, 24)), (2, 2): (slice(0, 24),)}.get((len(shape_a), len(shape_b)),
                                                                                  (slice(None),))
        torch.testing.assert_close(to_torch(torch, ya.grad)[used_a], a.grad[used_a])
        torch.testing.assert_close(to_torch(torch, yb.grad)[used_b], b.grad[used_b])
    a, b = yaten.ones(32, 8), yaten.ones(3, 8, 16)
    for kwargs, message in (({}, "Have to provide offsets"), ({"offs": yaten.tensor([8, 16, 24])}, "int32"),
                            ({"offs": from_torch(offs), "bias": yaten.ones(16)}, "Bias not supported"),
                            ({"offs": from_torch(offs), "out_dtype": yaten.float64}, "output dtype must match")):
        with pytest.raises(RuntimeError, match=message):
            F.grouped_mm(a, b, **kwargs)
    with pytest.raises(RuntimeError, match="batched dimension has to match"):
        F.grouped_mm(yaten.ones(2, 4, 8), b)
