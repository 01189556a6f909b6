"""yaten.autocast against torch.autocast: every op of torch's CPU autocast lists that yaten has, and ops on no list,
run in the dtype torch's run in (float32 inputs, bfloat16 inputs, and mixed ones for the promoting ops); the region's
rules (nesting, enabled=False inside, the parameters' cast cache, decorators); gradients through the casts; the
Autocast key in the dispatch trace. CUDA regions are checked where a GPU is present."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import yaten
import yaten.nn.functional as YF

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def pair(shape, seed, dtype="float32", positive=False):
    gen = np.random.default_rng(seed)
    a = gen.standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.1
    t = torch.tensor(a, dtype=getattr(torch, dtype))
    y = yaten.from_dlpack(t.clone()) if dtype == "bfloat16" else yaten.tensor(t.numpy())
    return y, t


def probs(shape, seed):
    y, t = pair(shape, seed, positive=True)
    return y / y.sum(-1, keepdim=True), t / t.sum(-1, keepdim=True)


# name -> (yaten call, torch call, argument builders); each builder gives a (yaten, torch) pair
CASES = {
    # CPU lower_precision_fp
    "mm": (yaten.mm, torch.mm, [lambda d: pair((4, 3), 0, d), lambda d: pair((3, 5), 1, d)]),
    "bmm": (yaten.bmm, torch.bmm, [lambda d: pair((2, 4, 3), 0, d), lambda d: pair((2, 3, 5), 1, d)]),
    "addmm": (yaten.addmm, torch.addmm, [lambda d: pair((4, 5), 2, d), lambda d: pair((4, 3), 0, d),
                                          lambda d: pair((3, 5), 1, d)]),
    "baddbmm": (yaten.baddbmm, torch.baddbmm, [lambda d: pair((2, 4, 5), 2, d), lambda d: pair((2, 4, 3), 0, d),
                                                lambda d: pair((2, 3, 5), 1, d)]),
    "matmul": (yaten.matmul, torch.matmul, [lambda d: pair((4, 3), 0, d), lambda d: pair((3,), 1, d)]),
    "linear": (YF.linear, TF.linear, [lambda d: pair((4, 3), 0, d), lambda d: pair((5, 3), 1, d),
                                      lambda d: pair((5,), 2, d)]),
    "linalg_vecdot": (yaten.linalg.vecdot, torch.linalg.vecdot, [lambda d: pair((4, 3), 0, d),
                                                                 lambda d: pair((4, 3), 1, d)]),
    "conv2d": (YF.conv2d, TF.conv2d, [lambda d: pair((1, 2, 5, 5), 0, d), lambda d: pair((3, 2, 3, 3), 1, d)]),
    "conv1d": (YF.conv1d, TF.conv1d, [lambda d: pair((1, 2, 7), 0, d), lambda d: pair((3, 2, 3), 1, d)]),
    "scaled_dot_product_attention": (YF.scaled_dot_product_attention, TF.scaled_dot_product_attention,
                                     [lambda d: pair((1, 2, 4, 8), 0, d), lambda d: pair((1, 2, 4, 8), 1, d),
                                      lambda d: pair((1, 2, 4, 8), 2, d)]),
    # CPU fp32
    "prod": (yaten.prod, torch.prod, [lambda d: pair((3, 4), 0, d)]),
    "trace": (yaten.trace, torch.trace, [lambda d: pair((3, 3), 0, d)]),
    "mse_loss": (YF.mse_loss, TF.mse_loss, [lambda d: pair((3, 4), 0, d), lambda d: pair((3, 4), 1, d)]),
    "l1_loss": (YF.l1_loss, TF.l1_loss, [lambda d: pair((3, 4), 0, d), lambda d: pair((3, 4), 1, d)]),
    "smooth_l1_loss": (YF.smooth_l1_loss, TF.smooth_l1_loss, [lambda d: pair((3, 4), 0, d),
                                                              lambda d: pair((3, 4), 1, d)]),
    "huber_loss": (YF.huber_loss, TF.huber_loss, [lambda d: pair((3, 4), 0, d), lambda d: pair((3, 4), 1, d)]),
    "kl_div": (YF.kl_div, TF.kl_div, [lambda d: pair((3, 4), 0, d), lambda d: probs((3, 4), 1)]),
    "binary_cross_entropy": (YF.binary_cross_entropy, TF.binary_cross_entropy,
                             [lambda d: probs((3, 4), 0), lambda d: probs((3, 4), 1)]),
    "binary_cross_entropy_with_logits": (YF.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits,
                                         [lambda d: pair((3, 4), 0, d), lambda d: probs((3, 4), 1)]),
    "fft_rfft": (yaten.fft.rfft, torch.fft.rfft, [lambda d: pair((8,), 0, d)]),
    "avg_pool3d": (YF.avg_pool3d, TF.avg_pool3d, [lambda d: pair((1, 1, 4, 4, 4), 0, d), lambda d: (2, 2)]),
    "reflection_pad": (lambda x: YF.pad(x, (1, 1), mode="reflect"), lambda x: TF.pad(x, (1, 1), mode="reflect"),
                       [lambda d: pair((1, 2, 5), 0, d)]),
    "replication_pad": (lambda x: YF.pad(x, (1, 1), mode="replicate"), lambda x: TF.pad(x, (1, 1), mode="replicate"),
                        [lambda d: pair((1, 2, 5), 0, d)]),
    # CPU promote
    "cat": (lambda a, b: yaten.cat([a, b]), lambda a, b: torch.cat([a, b]),
            [lambda d: pair((2, 3), 0, d), lambda d: pair((2, 3), 1, "float32")]),
    "stack": (lambda a, b: yaten.stack([a, b]), lambda a, b: torch.stack([a, b]),
              [lambda d: pair((2, 3), 0, d), lambda d: pair((2, 3), 1, "float32")]),
    # on no CPU list: they run in the dtypes they are given
    "add": (yaten.add, torch.add, [lambda d: pair((3,), 0, d), lambda d: pair((3,), 1, d)]),
    "exp": (yaten.exp, torch.exp, [lambda d: pair((3,), 0, d)]),
    "softmax": (lambda x: yaten.softmax(x, -1), lambda x: torch.softmax(x, -1), [lambda d: pair((3, 4), 0, d)]),
    "sum": (yaten.sum, torch.sum, [lambda d: pair((3, 4), 0, d)]),
    "layer_norm": (lambda x: YF.layer_norm(x, [4]), lambda x: TF.layer_norm(x, [4]), [lambda d: pair((3, 4), 0, d)]),
    "einsum": (lambda a, b: yaten.einsum("ij,jk->ik", a, b), lambda a, b: torch.einsum("ij,jk->ik", a, b),
               [lambda d: pair((4, 3), 0, d), lambda d: pair((3, 5), 1, d)]),
    "mv": (yaten.mv, torch.mv, [lambda d: pair((4, 3), 0, d), lambda d: pair((3,), 1, d)]),
    "dot": (yaten.dot, torch.dot, [lambda d: pair((3,), 0, d), lambda d: pair((3,), 1, d)]),
    "addcmul": (yaten.addcmul, torch.addcmul, [lambda d: pair((3,), 0, d), lambda d: pair((3,), 1, d),
                                                lambda d: pair((3,), 2, "float32")]),
    "relu": (YF.relu, TF.relu, [lambda d: pair((3,), 0, d)]),
}


def build(case, dtype):
    y_args, t_args = [], []
    for make in CASES[case][2]:
        made = make(dtype)
        if isinstance(made[0], (yaten.Tensor, torch.Tensor)):
            y_args.append(made[0])
            t_args.append(made[1])
        else:  # plain arguments, the same for both
            y_args.append(made[0])
            t_args.append(made[1])
    return y_args, t_args


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("inputs", ["float32", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_cpu_autocast_runs_each_op_in_torchs_dtype(case, inputs):
    y_fn, t_fn, _ = CASES[case]
    if inputs == "bfloat16" and case in ("binary_cross_entropy", "kl_div", "binary_cross_entropy_with_logits"):
        inputs = "float32"  # their probabilities are built in float32
    y_args, t_args = build(case, inputs)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        expected = t_fn(*t_args)
    with yaten.autocast("cpu", dtype=yaten.bfloat16):
        got = y_fn(*y_args)
    assert dtype_name(got) == dtype_name(expected), (case, inputs)
    tol = 3e-2 if "bfloat16" in (dtype_name(got), inputs) else 1e-5
    actual = torch.from_dlpack(got) if got.dtype == yaten.bfloat16 else torch.tensor(np.asarray(got.numpy()))
    if actual.is_complex():
        torch.testing.assert_close(actual, expected, rtol=tol, atol=tol)
    else:
        torch.testing.assert_close(actual.float(), expected.float(), rtol=tol, atol=tol * 4)


def test_regions_nest_and_restore():
    a, b = yaten.randn(4, 3), yaten.randn(3, 2)
    assert not yaten.is_autocast_enabled("cpu")
    with yaten.autocast("cpu"):
        assert yaten.is_autocast_enabled("cpu") and yaten.get_autocast_dtype("cpu") == yaten.bfloat16
        assert yaten.mm(a, b).dtype == yaten.bfloat16
        with yaten.autocast("cpu", enabled=False):
            assert yaten.mm(a, b).dtype == yaten.float32
            with yaten.autocast("cpu", dtype=yaten.float16):
                assert yaten.mm(a, b).dtype == yaten.float16
            assert not yaten.is_autocast_enabled("cpu")
        assert yaten.mm(a, b).dtype == yaten.bfloat16
    assert not yaten.is_autocast_enabled("cpu") and yaten.mm(a, b).dtype == yaten.float32
    assert yaten.get_autocast_dtype("cpu") == yaten.bfloat16
    # a CUDA region leaves CPU tensors alone
    with yaten.autocast("cuda"):
        assert yaten.mm(a, b).dtype == yaten.float32

    @yaten.autocast("cpu")
    def product(x, y):
        return x @ y

    assert product(a, b).dtype == yaten.bfloat16 and not yaten.is_autocast_enabled("cpu")
    with yaten.cpu.amp.autocast():
        assert yaten.mm(a, b).dtype == yaten.bfloat16
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        yaten.autocast("tpu")
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        with yaten.autocast("cpu", dtype=yaten.float64):
            assert yaten.mm(a, b).dtype == yaten.float32


def test_gradients_flow_through_the_casts_and_parameters_are_cast_once():
    model = yaten.nn.Linear(3, 2)
    x = yaten.randn(5, 3)
    with yaten.autocast("cpu"):
        with yaten.profiler.profile(activities=[yaten.profiler.ProfilerActivity.CPU]) as prof:
            out1 = model(x)
            out2 = model(x)
        loss = (out1.float() + out2.float()).sum()
    casts = [e for e in prof.events() if e.kind == "op" and e.name == "yaten::_to_copy"]
    # x is cast twice (not a parameter), weight and bias once each: the cache
    assert len(casts) == 4, [e.name for e in casts]
    loss.backward()
    assert model.weight.grad.dtype == yaten.float32 and model.bias.grad.dtype == yaten.float32
    tw = torch.tensor(model.weight.detach().numpy(), requires_grad=True)
    tb = torch.tensor(model.bias.detach().numpy(), requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        tloss = (TF.linear(torch.tensor(x.numpy()), tw, tb).float() * 2).sum()
    tloss.backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), tw.grad.numpy(), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(model.bias.grad.numpy(), tb.grad.numpy(), rtol=2e-2, atol=2e-2)
    # the cache ends with the outermost region: a new region casts again
    with yaten.autocast("cpu"):
        with yaten.profiler.profile(activities=[yaten.profiler.ProfilerActivity.CPU]) as prof:
            model(x)
    assert len([e for e in prof.events() if e.kind == "op" and e.name == "yaten::_to_copy"]) == 3


def test_dispatch_table_and_trace_show_the_autocast_key(tmp_path):
    dump = yaten._C._dispatch_dump("mm")
    assert "Autocast: ops.yaml:" in dump and "CPU lower, CUDA lower" in dump
    code = ("import yaten; a = yaten.ones(2, 2, requires_grad=True)\n"
            "with yaten.autocast('cpu'):\n    yaten.mm(a, a)")
    env = dict(os.environ, YATEN_SHOW_DISPATCH_TRACE="1")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "yaten::mm" in line]
    assert lines[0] == "[call] yaten::mm DispatchKeySet(CPU, Autograd, Autocast) -> Autocast"
    assert lines[1] == "  [call] yaten::mm DispatchKeySet(CPU, Autograd) -> Autograd"


# torch's CUDA autocast lists (torch/csrc/autograd/autocast_mode.cpp): what each op runs in for float32 inputs
CUDA_EXPECTED = {"mm": "lower", "matmul": "lower", "linear": "lower", "mv": "lower", "einsum": "lower",
                 "exp": "float32", "softmax": "float32", "sum": "float32", "layer_norm": "float32",
                 "mse_loss": "float32", "add": "float32", "relu": "float32"}


@pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
@pytest.mark.parametrize("lower", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CUDA_EXPECTED))
def test_cuda_autocast_runs_each_op_in_torchs_dtype(case, lower):
    y_fn, _, _ = CASES[case]
    y_args, _ = build(case, "float32")
    y_args = [a.cuda() if isinstance(a, yaten.Tensor) else a for a in y_args]
    with yaten.autocast("cuda", dtype=getattr(yaten, lower)):
        got = y_fn(*y_args)
        lowered = y_fn(*[a.to(getattr(yaten, lower)) if isinstance(a, yaten.Tensor) else a for a in y_args])
    expected = lower if CUDA_EXPECTED[case] == "lower" else "float32"
    assert dtype_name(got) == expected
    # float32 ops lift lower-precision inputs; untouched ones keep them
    if case in ("exp", "softmax", "sum", "layer_norm", "mse_loss"):
        assert dtype_name(lowered) == "float32"
    assert got.device.type == "cuda"
