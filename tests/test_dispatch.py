"""The dispatcher as users see it: the operator table, key sets, tracing, and the errors of the binding layer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import yaten
from codegen import parse

ROOT = Path(__file__).resolve().parent.parent
OPS = parse.load(ROOT / "ops.yaml").ops


def test_every_ops_yaml_entry_has_a_dispatcher_entry():
    yaten_ops = {name for name in yaten.ops.list() if name.startswith("yaten::")}
    assert yaten_ops == {f"yaten::{op.schema.full_name}" for op in OPS}


def test_dispatch_dump_names_each_kernel_and_its_ops_yaml_line():
    line = next(op.location.line for op in OPS if op.schema.full_name == "add.Tensor")
    dump = yaten._C._dispatch_dump("yaten::add.Tensor")
    assert "schema: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in dump
    assert f"CPU: ops.yaml:{line} (add_Tensor_cpu -> native::cpu::add_kernel<scalar_t> in " \
           "csrc/kernels/cpu/binary/add.h)" in dump
    assert f"Autograd: ops.yaml:{line} (Autograd: add_Tensor_autograd)" in dump
    composite = yaten._C._dispatch_dump("add.Scalar")
    assert "CPU: ops.yaml:" in composite and "(CompositeImplicit: add_Scalar_composite -> generated: " in composite
    softmax = yaten._C._dispatch_dump("nll_loss")  # a hand-written composite
    assert "(CompositeImplicit: nll_loss_composite -> native::nll_loss_impl in csrc/kernels/composite/" in softmax
    with pytest.raises(ValueError, match="no operator named 'nope'"):
        yaten._C._dispatch_dump("nope")
    with pytest.raises(ValueError, match=r"no operator named 'addd' \(did you mean 'add'\?\)"):
        yaten._C._dispatch_dump("addd")
    with pytest.raises(ValueError, match=r"no operator named 'add.Tensr' \(did you mean 'add.Tensor'\?\)"):
        yaten._C._dispatch_dump("add.Tensr")


def test_key_set_of_a_cpu_tensor():
    assert yaten._C._dispatch_keys(yaten.zeros(2)) == "DispatchKeySet(CPU)"


def test_trace_prints_each_call_nested(tmp_path):
    code = "import yaten; t = yaten.ones(2); t.add(1)"
    env = dict(os.environ, YATEN_SHOW_DISPATCH_TRACE="1")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "[call]" in line]
    assert "[call] yaten::ones DispatchKeySet(CPU) -> CPU" in lines
    assert "  [call] yaten::full DispatchKeySet(CPU) -> CPU" in lines  # ones is composite: full runs inside it
    assert "[call] yaten::add.Scalar DispatchKeySet(CPU) -> CPU" in lines
    assert "  [call] yaten::add.Tensor DispatchKeySet(CPU) -> CPU" in lines
    # a backward's ops nest under their node, as the profiler nests them
    backward = ("import yaten; x = yaten.ones(2, requires_grad=True); y = (x * x).sum(); print('backward'); "
                "y.backward()")
    result = subprocess.run([sys.executable, "-c", backward], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    after = result.stderr.splitlines()
    after = after[next(i for i, line in enumerate(after) if "[backward] SumBackward0" in line):]
    assert after[0] == "[backward] SumBackward0"
    mul_node = after.index("[backward] MulBackward0")
    assert all(line.startswith("  ") for line in after[1:mul_node] if line)
    assert any(line.startswith("  [call] yaten::mul.Tensor") for line in after[mul_node + 1:])
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                           env={k: v for k, v in os.environ.items() if k != "YATEN_SHOW_DISPATCH_TRACE"})
    assert "[call]" not in quiet.stderr


def test_no_match_lists_every_overload_and_why():
    with pytest.raises(TypeError) as info:
        yaten.add(yaten.zeros(2), "x")
    message = str(info.value)
    assert message.startswith("add(): arguments did not match any overload:")
    assert "add(Tensor input, Tensor other, *, Number alpha=1): argument 'other' (position 2) must be Tensor, not str" \
        in message
    assert "add(Tensor input, Number other, *, Number alpha=1): argument 'other' (position 2) must be Number, not str" \
        in message


def test_binding_errors_name_the_problem():
    t = yaten.zeros(2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        yaten.add(t, t, beta=2)
    with pytest.raises(TypeError, match="missing required argument 'input'"):
        yaten.neg()
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        yaten.neg(t, t)
    with pytest.raises(TypeError, match="argument 'dtype' must be yaten.dtype, not str"):
        yaten.zeros(2, dtype="float32")
    with pytest.raises(TypeError, match="got multiple values for argument 'input'"):
        yaten.neg(t, input=t)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        yaten.zeros(-1)
    with pytest.raises(RuntimeError, match="device: expected 'cpu', 'cuda' or 'cuda:N', got 'gpu'"):
        yaten.zeros(2, device="gpu")


def test_operators_with_unsupported_operands_raise_type_error():
    t = yaten.zeros(2)
    with pytest.raises(TypeError):
        t + "a"
    with pytest.raises(TypeError):
        [1] * t


def test_variants_decide_function_and_method():
    for op in OPS:
        name = op.schema.name
        if "function" in op.variants:
            module = yaten._C if name.startswith("_") else yaten  # private ops stay in yaten._C
            if op.python_module:
                module = {"nn.functional": yaten.nn.functional, "linalg": yaten.linalg, "fft": yaten.fft,
                          "special": yaten.special}[op.python_module]
                name = name.removeprefix(op.python_module + "_")
            assert callable(getattr(module, name)), name
        if "method" in op.variants:
            assert callable(getattr(yaten.Tensor, name)), name
    assert not hasattr(yaten, "add_") and hasattr(yaten.Tensor, "add_")
    assert not hasattr(yaten.Tensor, "zeros")


def test_docstrings_come_from_ops_yaml():
    doc = next(op.doc for op in OPS if op.schema.full_name == "add.Tensor")
    assert yaten.add.__doc__ == doc


def test_cuda_without_gpu_is_reported_clearly():
    if yaten.cuda.is_available():
        pytest.skip("a GPU is present")
    assert yaten.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="(built without CUDA|no CUDA GPU is available)"):
        yaten.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match="(built without CUDA|no CUDA GPU is available)"):
        yaten.zeros(2).cuda()


def test_tour_runs():
    result = subprocess.run([sys.executable, "-m", "yaten"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # the ops registered when yaten loads (tests may have defined more in this process since)
    builtin = [name for name in yaten.ops.list() if name.split("::")[0] == "yaten"]
    assert f"operators      {len(builtin)} overloads" in result.stdout
    assert "tensor([[1., 4.]," in result.stdout
    # the CUDA line names the code built: machine code for an sm, or PTX alone where the build saw no GPU
    assert re.search(r"CUDA +(not built|built \((sm_\d+|compute_\d+ PTX)\), \d+ device)", result.stdout), result.stdout
