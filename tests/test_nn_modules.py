"""yaten.nn's modules against torch.nn's: the same state_dict keys, and after copying torch's state_dict in, the same
outputs and gradients (float64, tight tolerances; float32 too), plus Module's own semantics (registration, shared
parameters, state_dict errors, conversion in place, hooks, repr) and default initialisation's distributions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yaten
import yaten.nn as ynn

torch = pytest.importorskip("torch")
tnn = torch.nn


def to_torch(t: yaten.Tensor) -> "torch.Tensor":
    if t.dtype == yaten.bfloat16:
        return torch.from_numpy(t.float().numpy().copy()).to(torch.bfloat16)
    return torch.from_numpy(np.array(t.detach().numpy(), copy=True))


def to_yaten(t: "torch.Tensor") -> yaten.Tensor:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return yaten.tensor(t.float().numpy()).to(yaten.bfloat16)
    return yaten.tensor(t.numpy().copy())


# (name, constructor args, constructor kwargs, input shapes or a callable making inputs)
CASES = [
    ("Linear", (5, 3), {}, [(4, 5)]),
    ("Linear", (5, 3), {"bias": False}, [(2, 4, 5)]),
    ("Bilinear", (4, 3, 2), {}, [(5, 4), (5, 3)]),
    ("Identity", (), {}, [(3, 2)]),
    ("LayerNorm", (6,), {}, [(2, 3, 6)]),
    ("LayerNorm", ((3, 6),), {"elementwise_affine": False}, [(2, 3, 6)]),
    ("RMSNorm", (6,), {}, [(2, 3, 6)]),
    ("RMSNorm", (6,), {"eps": 1e-3}, [(4, 6)]),
    ("GroupNorm", (2, 4), {}, [(3, 4, 5)]),
    ("BatchNorm1d", (4,), {}, [(6, 4)]),
    ("BatchNorm1d", (4,), {"affine": False}, [(6, 4, 3)]),
    ("BatchNorm2d", (3,), {}, [(2, 3, 4, 5)]),
    ("BatchNorm3d", (2,), {"momentum": None}, [(2, 2, 3, 3, 3)]),
    ("InstanceNorm1d", (3,), {}, [(2, 3, 7)]),
    ("InstanceNorm2d", (3,), {"affine": True}, [(2, 3, 4, 5)]),
    ("InstanceNorm3d", (2,), {"track_running_stats": True}, [(2, 2, 3, 3, 3)]),
    ("Conv1d", (3, 4, 3), {"padding": 1}, [(2, 3, 8)]),
    ("Conv1d", (4, 4, 3), {"padding": "same", "padding_mode": "circular", "groups": 2}, [(2, 4, 8)]),
    ("Conv2d", (3, 5, 3), {"stride": 2, "padding": 1}, [(2, 3, 9, 9)]),
    ("Conv2d", (2, 4, (3, 2)), {"padding": "same", "dilation": 2, "padding_mode": "reflect"}, [(1, 2, 7, 6)]),
    ("Conv2d", (2, 3, 1), {"bias": False, "padding_mode": "replicate", "padding": 1}, [(1, 2, 4, 4)]),
    ("Conv3d", (2, 3, 2), {}, [(1, 2, 4, 4, 4)]),
    ("ConvTranspose1d", (3, 2, 3), {"stride": 2}, [(2, 3, 5)]),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, [(1, 4, 4, 4)]),
    ("ConvTranspose3d", (2, 2, 2), {"stride": 2}, [(1, 2, 2, 3, 2)]),
    ("MaxPool1d", (2,), {}, [(2, 3, 8)]),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [(2, 3, 7, 7)]),
    ("MaxPool3d", (2,), {}, [(1, 2, 4, 4, 4)]),
    ("AvgPool1d", (3,), {"stride": 2}, [(2, 3, 9)]),
    ("AvgPool2d", (2,), {"ceil_mode": True}, [(2, 3, 5, 5)]),
    ("AvgPool3d", (2,), {}, [(1, 2, 4, 4, 4)]),
    ("AdaptiveAvgPool1d", (3,), {}, [(2, 3, 8)]),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, [(2, 3, 7, 8)]),
    ("AdaptiveAvgPool3d", (1,), {}, [(1, 2, 3, 4, 5)]),
    ("Upsample", (), {"scale_factor": 2, "mode": "bilinear"}, [(1, 2, 3, 4)]),
    ("Upsample", (), {"size": (5, 7), "mode": "nearest"}, [(1, 2, 3, 4)]),
    ("Flatten", (), {}, [(2, 3, 4)]),
    ("Unflatten", (1, (2, 3)), {}, [(4, 6)]),
    ("ZeroPad2d", ((1, 2, 0, 1),), {}, [(1, 2, 3, 3)]),
    ("ReflectionPad1d", (2,), {}, [(1, 2, 5)]),
    ("ReplicationPad2d", (1,), {}, [(1, 2, 3, 3)]),
    ("ConstantPad1d", (2, 3.5), {}, [(1, 2, 4)]),
    ("ReLU", (), {}, [(3, 4)]),
    ("ReLU6", (), {}, [(3, 4)]),
    ("LeakyReLU", (0.2,), {}, [(3, 4)]),
    ("ELU", (), {"alpha": 0.5}, [(3, 4)]),
    ("SELU", (), {}, [(3, 4)]),
    ("GELU", (), {}, [(3, 4)]),
    ("GELU", (), {"approximate": "tanh"}, [(3, 4)]),
    ("SiLU", (), {}, [(3, 4)]),
    ("Mish", (), {}, [(3, 4)]),
    ("Softplus", (), {"beta": 2.0}, [(3, 4)]),
    ("Hardtanh", (-0.5, 0.5), {}, [(3, 4)]),
    ("Hardsigmoid", (), {}, [(3, 4)]),
    ("Hardswish", (), {}, [(3, 4)]),
    ("Sigmoid", (), {}, [(3, 4)]),
    ("Tanh", (), {}, [(3, 4)]),
    ("Softmax", (), {"dim": 1}, [(3, 4)]),
    ("LogSoftmax", (), {"dim": -1}, [(3, 4)]),
    ("Softmin", (), {"dim": 0}, [(3, 4)]),
    ("Dropout", (0.0,), {}, [(3, 4)]),
]

LONG_INPUT_CASES = [
    ("Embedding", (10, 4), {}, (3, 5)),
    ("Embedding", (10, 4), {"padding_idx": 2}, (6,)),
]


def make_pair(name: str, args: tuple, kwargs: dict, dtype: "torch.dtype" = torch.float64):
    torch.manual_seed(0)
    reference = getattr(tnn, name)(*args, **kwargs).to(dtype)
    ours = getattr(ynn, name)(*args, **kwargs)
    ours.to(getattr(yaten, str(dtype).split(".")[1]))
    state = reference.state_dict()
    assert list(ours.state_dict().keys()) == list(state.keys())
    ours.load_state_dict({k: to_yaten(v) for k, v in state.items()})
    return reference, ours


def compare(reference, ours, t_inputs, y_inputs, rtol=1e-10, atol=1e-10):
    t_out = reference(*t_inputs)
    y_out = ours(*y_inputs)
    np.testing.assert_allclose(y_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=atol)
    if not t_out.requires_grad:
        return
    weights = torch.linspace(-1, 1, t_out.numel(), dtype=t_out.dtype).reshape(t_out.shape)
    (t_out * weights).sum().backward()
    (y_out * to_yaten(weights)).sum().backward()
    for (name, tp), (yname, yp) in zip(reference.named_parameters(), ours.named_parameters()):
        assert name == yname
        np.testing.assert_allclose(yp.grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=atol, err_msg=name)
    for ti, yi in zip(t_inputs, y_inputs):
        if isinstance(ti, torch.Tensor) and ti.grad is not None:
            np.testing.assert_allclose(yi.grad.numpy(), ti.grad.numpy(), rtol=rtol, atol=atol)
    for (name, tb), (_, yb) in zip(reference.named_buffers(), ours.named_buffers()):
        np.testing.assert_allclose(yb.numpy(), tb.numpy(), rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("name,args,kwargs,shapes", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_module_matches_torch_float64(name, args, kwargs, shapes):
    reference, ours = make_pair(name, args, kwargs)
    gen = np.random.default_rng(1)
    arrays = [gen.standard_normal(s) for s in shapes]
    t_inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y_inputs = [yaten.tensor(a, requires_grad=True) for a in arrays]
    # torch's hardsigmoid backward multiplies by 1/6 rounded to float32, also in float64
    tolerance = 1e-7 if name == "Hardsigmoid" else 1e-10
    compare(reference, ours, t_inputs, y_inputs, rtol=tolerance, atol=tolerance)
    assert repr(ours) == repr(reference)
    if reference.training and any(True for _ in reference.buffers()):  # a second step, then in eval mode
        compare(reference, ours, [a.detach().requires_grad_() for a in t_inputs],
                [a.detach().requires_grad_() for a in y_inputs])
        reference.eval()
        ours.eval()
        compare(reference, ours, [a.detach() for a in t_inputs], [a.detach() for a in y_inputs])


@pytest.mark.parametrize("name,args,kwargs,shape", LONG_INPUT_CASES)
def test_index_module_matches_torch(name, args, kwargs, shape):
    reference, ours = make_pair(name, args, kwargs)
    idx = np.random.default_rng(2).integers(0, args[0], size=shape)
    compare(reference, ours, [torch.tensor(idx)], [yaten.tensor(idx)])
    assert repr(ours) == repr(reference)


def test_embedding_bag_matches_torch():
    reference, ours = make_pair("EmbeddingBag", (10, 3), {"mode": "sum"})
    idx = [1, 2, 4, 5, 4, 3, 2, 9]
    offsets = [0, 4]
    compare(reference, ours, [torch.tensor(idx), torch.tensor(offsets)], [yaten.tensor(idx), yaten.tensor(offsets)])


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"kdim": 3, "vdim": 5}, {"bias": False}])
def test_multihead_attention_matches_torch(kwargs):
    reference, ours = make_pair("MultiheadAttention", (8, 2), kwargs)
    gen = np.random.default_rng(3)
    kdim, vdim = kwargs.get("kdim", 8), kwargs.get("vdim", 8)
    lead = (2, 5) if kwargs.get("batch_first") else (5, 2)
    key_lead = (2, 4) if kwargs.get("batch_first") else (4, 2)
    q, k, v = gen.standard_normal(lead + (8,)), gen.standard_normal(key_lead + (kdim,)), \
        gen.standard_normal(key_lead + (vdim,))
    mask = np.triu(np.ones((5, 4), dtype=bool), 1)
    padding = np.array([[False, False, False, True], [False, False, False, False]])
    for extra_t, extra_y in [({}, {}),
                             ({"attn_mask": torch.tensor(mask), "key_padding_mask": torch.tensor(padding)},
                              {"attn_mask": yaten.tensor(mask), "key_padding_mask": yaten.tensor(padding)}),
                             ({"average_attn_weights": False}, {"average_attn_weights": False})]:
        t_out, t_w = reference(*(torch.tensor(a) for a in (q, k, v)), **extra_t)
        y_out, y_w = ours(*(yaten.tensor(a) for a in (q, k, v)), **extra_y)
        np.testing.assert_allclose(y_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(y_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_matches_torch(norm_first):
    kwargs = {"dim_feedforward": 16, "dropout": 0.0, "batch_first": True, "norm_first": norm_first}
    reference, ours = make_pair("TransformerEncoderLayer", (8, 2), kwargs)
    reference.train()  # torch's inference fast path would take other (fused) arithmetic
    x = np.random.default_rng(4).standard_normal((2, 5, 8))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    compare(reference, ours, [torch.tensor(x, requires_grad=True), causal],
            [yaten.tensor(x, requires_grad=True), to_yaten(causal)], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(norm_first):
    kwargs = {"num_encoder_layers": 2, "num_decoder_layers": 2, "dim_feedforward": 16, "dropout": 0.0,
              "batch_first": True, "norm_first": norm_first}
    reference, ours = make_pair("Transformer", (8, 2), kwargs)
    gen = np.random.default_rng(9)
    src, tgt = gen.standard_normal((2, 5, 8)), gen.standard_normal((2, 4, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    assert np.array_equal(ynn.Transformer.generate_square_subsequent_mask(4, dtype=yaten.float64).numpy(),
                          mask.numpy())
    padding = np.array([[False] * 5, [False, False, False, True, True]])
    compare(reference, ours, [torch.tensor(src, requires_grad=True), torch.tensor(tgt, requires_grad=True), None, mask,
                              None, torch.tensor(padding)],
            [yaten.tensor(src, requires_grad=True), yaten.tensor(tgt, requires_grad=True), None, to_yaten(mask), None,
             yaten.tensor(padding)], rtol=1e-9, atol=1e-9)


LOSS_CASES = [
    ("L1Loss", {}, "float"), ("MSELoss", {"reduction": "sum"}, "float"), ("SmoothL1Loss", {"beta": 0.5}, "float"),
    ("HuberLoss", {"delta": 0.7}, "float"), ("BCELoss", {}, "prob"), ("BCEWithLogitsLoss", {}, "prob"),
    ("KLDivLoss", {"reduction": "batchmean"}, "logprob"), ("KLDivLoss", {"log_target": True}, "logprob"),
    ("CrossEntropyLoss", {}, "class"), ("CrossEntropyLoss", {"label_smoothing": 0.1, "ignore_index": 1}, "class"),
    ("CrossEntropyLoss", {}, "probs"), ("NLLLoss", {"reduction": "none"}, "class"),
    ("L1Loss", {"reduction": "none"}, "float"),
]


@pytest.mark.parametrize("name,kwargs,kind", LOSS_CASES)
def test_loss_module_matches_torch(name, kwargs, kind):
    gen = np.random.default_rng(5)
    x = gen.standard_normal((6, 4))
    if kind == "float":
        target = gen.standard_normal((6, 4))
    elif kind == "prob":
        target = gen.random((6, 4))
        if name == "BCELoss":
            x = 1 / (1 + np.exp(-x))
    elif kind == "logprob":
        target = np.log(gen.dirichlet(np.ones(4), size=6))
        if not kwargs.get("log_target"):
            target = np.exp(target)
        x = np.log(gen.dirichlet(np.ones(4), size=6))
    elif kind == "probs":
        target = gen.dirichlet(np.ones(4), size=6)
    else:
        target = gen.integers(0, 4, size=6)
    if name == "NLLLoss":
        x = np.log(gen.dirichlet(np.ones(4), size=6))
    weighted = name in ("CrossEntropyLoss", "BCEWithLogitsLoss") and kind != "probs"
    t_kwargs, y_kwargs = dict(kwargs), dict(kwargs)
    if weighted:
        w = gen.random(4) + 0.5
        t_kwargs["weight"], y_kwargs["weight"] = torch.tensor(w), yaten.tensor(w)
    if name == "BCEWithLogitsLoss":
        pw = gen.random(4) + 0.5
        t_kwargs["pos_weight"], y_kwargs["pos_weight"] = torch.tensor(pw), yaten.tensor(pw)
    reference, ours = getattr(tnn, name)(**t_kwargs), getattr(ynn, name)(**y_kwargs)
    tx, yx = torch.tensor(x, requires_grad=True), yaten.tensor(x, requires_grad=True)
    t_loss, y_loss = reference(tx, torch.tensor(target)), ours(yx, yaten.tensor(target))
    np.testing.assert_allclose(y_loss.detach().numpy(), t_loss.detach().numpy(), rtol=1e-10, atol=1e-12)
    t_loss.sum().backward()
    y_loss.sum().backward()
    np.testing.assert_allclose(yx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert list(ours.state_dict()) == list(reference.state_dict())


@pytest.mark.parametrize("name,args,kwargs,shapes", [
    ("Linear", (8, 4), {}, [(3, 8)]), ("Conv2d", (2, 3, 3), {"padding": 1}, [(2, 2, 5, 5)]),
    ("LayerNorm", (8,), {}, [(3, 8)]), ("BatchNorm2d", (3,), {}, [(2, 3, 4, 4)]), ("RMSNorm", (8,), {}, [(3, 8)]),
])
def test_module_matches_torch_float32(name, args, kwargs, shapes):
    reference, ours = make_pair(name, args, kwargs, torch.float32)
    arrays = [np.random.default_rng(6).standard_normal(s).astype(np.float32) for s in shapes]
    compare(reference, ours, [torch.tensor(a, requires_grad=True) for a in arrays],
            [yaten.tensor(a, requires_grad=True) for a in arrays], rtol=2e-5, atol=2e-5)


def test_linear_bfloat16_matches_torch():
    reference, ours = make_pair("Linear", (16, 8), {}, torch.bfloat16)
    x = np.random.default_rng(7).standard_normal((4, 16)).astype(np.float32)
    t_out = reference(torch.tensor(x).to(torch.bfloat16)).float().detach().numpy()
    y_out = ours(yaten.tensor(x).to(yaten.bfloat16)).float().numpy()
    np.testing.assert_allclose(y_out, t_out, rtol=2e-2, atol=2e-2)


# ------------------------------------------------------------------------------------------------ Module semantics

class Tied(ynn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = ynn.Embedding(10, 4)
        self.head = ynn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("steps", yaten.zeros(1))
        self.register_buffer("scratch", yaten.zeros(2), persistent=False)


def test_shared_parameter_listed_once_and_kept_shared_by_to():
    m = Tied()
    assert [n for n, _ in m.named_parameters()] == ["embed.weight"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == ["embed.weight", "head.weight"]
    assert list(m.state_dict()) == ["steps", "embed.weight", "head.weight"]
    before = m.embed.weight
    m.double()
    assert m.head.weight is m.embed.weight is before
    assert m.embed.weight.dtype == yaten.float64 and m.steps.dtype == yaten.float64


def test_registration_by_attribute_and_errors():
    m = ynn.Module()
    m.w = ynn.Parameter(yaten.ones(2))
    m.child = ynn.Linear(2, 2)
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["child"] and m.plain == 3
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'w'"):
        m.w = yaten.ones(2)
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", yaten.ones(1))
    del m.w
    assert "w" not in m._parameters
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nothing'"):
        m.nothing


def test_load_state_dict_reports_missing_and_unexpected_keys_as_torch():
    ours, reference = ynn.Linear(2, 3), tnn.Linear(2, 3)
    state = {"weight": yaten.ones(3, 2), "extra": yaten.ones(1)}
    with pytest.raises(RuntimeError) as ours_error:
        ours.load_state_dict(state)
    with pytest.raises(RuntimeError) as torch_error:
        reference.load_state_dict({"weight": torch.ones(3, 2), "extra": torch.ones(1)})
    assert str(ours_error.value) == str(torch_error.value)
    result = ours.load_state_dict(state, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    assert ours.weight.tolist() == [[1.0, 1.0]] * 3
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        ours.load_state_dict({"weight": yaten.ones(2, 2), "bias": yaten.ones(3)})


def test_load_state_dict_assign_takes_the_tensors():
    m = ynn.Linear(2, 3)
    w = yaten.full([3, 2], 2.0)
    m.load_state_dict({"weight": w, "bias": yaten.zeros(3)}, assign=True)
    assert isinstance(m.weight, ynn.Parameter) and m.weight.data_ptr() == w.data_ptr()


def test_train_eval_zero_grad_apply_requires_grad():
    m = ynn.Sequential(ynn.Linear(2, 2), ynn.Dropout(0.5), ynn.Sequential(ynn.BatchNorm1d(2)))
    m.eval()
    assert not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    m(yaten.randn(4, 2)).sum().backward()
    assert m[0].weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m[0].weight.grad.abs().sum().item() == 0
    m.zero_grad()
    assert m[0].weight.grad is None
    seen = []
    m.apply(lambda x: seen.append(type(x).__name__))
    assert seen == ["Linear", "Dropout", "BatchNorm1d", "Sequential", "Sequential"]
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_forward_hooks_and_pre_hooks():
    m = ynn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out + 1)
    out = m(yaten.ones(1, 2))
    assert calls == [(1, 2)]
    np.testing.assert_allclose(out.detach().numpy(), (m.bias + 1).detach().numpy()[None])
    h1.remove()
    h2.remove()
    m(yaten.ones(1, 2))
    assert len(calls) == 1


def test_containers():
    layers = ynn.ModuleList([ynn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(ynn.ReLU())
    assert isinstance(layers[-1], ynn.ReLU) and len(layers[1:]) == 3
    d = ynn.ModuleDict({"a": ynn.Linear(1, 1), "b": ynn.ReLU()})
    assert list(d.keys()) == ["a", "b"] and "a" in d
    pl = ynn.ParameterList([yaten.ones(2), ynn.Parameter(yaten.zeros(3))])
    assert all(isinstance(p, ynn.Parameter) for p in pl) and [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pd = ynn.ParameterDict({"x": yaten.ones(1)})
    assert list(pd.state_dict()) == ["x"]
    seq = ynn.Sequential(ynn.Linear(2, 3), ynn.ReLU(), ynn.Linear(3, 1))
    assert repr(seq[0:2]) == repr(tnn.Sequential(tnn.Linear(2, 3), tnn.ReLU()))
    assert repr(ynn.Module()) == "Module()"


def test_parameters_to_vector_round_trip():
    m = ynn.Linear(3, 2)
    vec = ynn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == (8,)
    ynn.utils.vector_to_parameters(vec * 2, m.parameters())
    np.testing.assert_allclose(ynn.utils.parameters_to_vector(m.parameters()).detach().numpy(),
                               (vec * 2).detach().numpy())


# ------------------------------------------------------------------------------------------------ initialisation

def test_default_initialisation_follows_torchs_distributions():
    yaten.manual_seed(0)
    fan_in = 400
    w = ynn.Linear(fan_in, 300).weight.detach().numpy().ravel()
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert np.abs(w).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert abs(w.mean()) < 0.01 * bound
    e = ynn.Embedding(300, 400).weight.detach().numpy().ravel()
    assert abs(e.std() - 1) < 0.01 and abs(e.mean()) < 0.01
    conv = ynn.Conv2d(8, 16, 3).weight.detach().numpy().ravel()
    assert np.abs(conv).max() <= 1 / math.sqrt(8 * 9)
    k = yaten.empty(500, 400)
    ynn.init.kaiming_normal_(k, mode="fan_out", nonlinearity="relu")
    assert abs(k.numpy().std() - math.sqrt(2 / 500)) < 0.01 * math.sqrt(2 / 500)
    t = yaten.empty(200000)
    ynn.init.trunc_normal_(t, std=1.0, a=-1.0, b=1.0)
    # the standard normal truncated to [-1, 1] has standard deviation 0.5376
    assert t.numpy().min() >= -1 and t.numpy().max() <= 1 and abs(t.numpy().std() - 0.5376) < 0.005
    assert ynn.init.calculate_gain("leaky_relu", 0.2) == tnn.init.calculate_gain("leaky_relu", 0.2)


def test_seed_reproduces_a_model():
    yaten.manual_seed(3)
    a = ynn.Linear(4, 4).weight.detach().numpy()
    yaten.manual_seed(3)
    b = ynn.Linear(4, 4).weight.detach().numpy()
    assert np.array_equal(a, b)


# ------------------------------------------------------------------------------------------------ torch habits

def test_size_prints_as_torch_and_compares_as_tuple():
    x = yaten.ones(2, 9)
    assert repr(x.shape) == "yaten.Size([2, 9])" and x.shape == (2, 9) and x.size() == (2, 9)
    assert isinstance(x.shape[1:], yaten.Size) and x.shape.numel() == 18


def test_integer_tensor_is_an_index():
    values = np.arange(10)
    i, j = yaten.tensor(2), yaten.randint(5, 9, [1])
    assert values[i] == 2 and list(range(10))[i:j].__len__() == int(j) - 2
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][yaten.tensor(1.0)]
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][yaten.tensor([0, 1])]
    assert f"{yaten.tensor(2.5):.2f}" == "2.50"


def test_factories_take_requires_grad_and_pin_memory():
    assert yaten.scalar_tensor(1.0, requires_grad=True).requires_grad
    assert yaten.zeros(2, pin_memory=False).shape == (2,)
    if not yaten.cuda.is_available():
        with pytest.raises(RuntimeError, match="pin"):
            yaten.ones(2, pin_memory=True)


def test_parameter_is_a_tensor_leaf_sharing_memory():
    data = yaten.ones(3)
    p = ynn.Parameter(data)
    assert isinstance(p, yaten.Tensor) and p.requires_grad and p.is_leaf and p.data_ptr() == data.data_ptr()
    assert type(p * 2) is yaten.Tensor
    assert repr(p).startswith("Parameter containing:\ntensor([1., 1., 1.], requires_grad=True)")
    import copy

    q = copy.deepcopy(p)
    assert isinstance(q, ynn.Parameter) and q.data_ptr() != p.data_ptr()


# ------------------------------------------------------------------------------------------------ CUDA

CUDA_CASES = [c for c in CASES if c[0] in ("Linear", "Conv2d", "BatchNorm2d", "LayerNorm", "RMSNorm", "GroupNorm",
                                           "MaxPool2d", "ConvTranspose2d", "GELU", "Softmax", "Bilinear")]


@pytest.mark.cuda
@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("name,args,kwargs,shapes", CUDA_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CUDA_CASES)])
def test_module_on_cuda_matches_torch_float64(name, args, kwargs, shapes):
    reference, ours = make_pair(name, args, kwargs)
    ours.cuda()
    assert all(p.is_cuda for p in ours.parameters()) and all(b.is_cuda for b in ours.buffers())
    arrays = [np.random.default_rng(8).standard_normal(s) for s in shapes]
    t_inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y_inputs = [yaten.tensor(a, device="cuda", requires_grad=True) for a in arrays]
    t_out, y_out = reference(*t_inputs), ours(*y_inputs)
    np.testing.assert_allclose(y_out.detach().cpu().numpy(), t_out.detach().numpy(), rtol=1e-9, atol=1e-9)
    t_out.sum().backward()
    y_out.sum().backward()
    for (pname, tp), (_, yp) in zip(reference.named_parameters(), ours.named_parameters()):
        np.testing.assert_allclose(yp.grad.cpu().numpy(), tp.grad.numpy(), rtol=1e-9, atol=1e-9, err_msg=pname)


@pytest.mark.cuda
@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
def test_cuda_state_dict_saves_and_loads_to_the_cpu(tmp_path):
    model = ynn.Linear(3, 2).cuda()
    yaten.save(model.state_dict(), tmp_path / "m.pt")
    loaded = torch.load(tmp_path / "m.pt", map_location="cpu")
    np.testing.assert_allclose(loaded["weight"].numpy(), model.weight.detach().cpu().numpy())
    back = yaten.load(tmp_path / "m.pt")
    assert back["weight"].is_cuda


def test_tensor_type_names_and_converts_as_torch():
    x = yaten.tensor([1.5, 2.5])
    assert x.type() == "yaten.FloatTensor" and torch.tensor([1.5]).type() == "torch.FloatTensor"
    assert x.type(yaten.int64).dtype == yaten.int64
    assert x.type("torch.DoubleTensor").dtype == yaten.float64
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.NoSuchTensor")
