"""cuDNN for convolutions on CUDA (Note [cuDNN convolutions], csrc/cuda/cudnn.cpp): the switches of
yaten.backends.cudnn, the error when no libcudnn opens, and on a GPU each of convolution's three passes through cuDNN
against the CPU, with the profiler showing which path ran (yaten's own kernels leave im2col/col2im events, cuDNN
none). The CUDA tests run with allow_tf32 off (tests/conftest.py), as they compare float32 with the CPU; the TF32
default has its own test."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import yaten
import yaten.nn.functional as F
from yaten.profiler import ProfilerActivity, profile

cudnn = yaten.backends.cudnn
needs_gpu = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
needs_cudnn = pytest.mark.skipif(not (yaten.cuda.is_available() and cudnn.is_available()),
                                 reason="no CUDA GPU or no libcudnn (pip install nvidia-cudnn-cu13)")


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_switches_have_torchs_defaults():
    # in a fresh process: this one's conftest switched TF32 off for the CUDA comparisons
    out = run_python("import yaten.backends.cudnn as c; print(c.enabled, c.allow_tf32, c.deterministic, c.benchmark)")
    assert out == "True True False False"


def test_switches_set_and_flags_restore():
    before = (cudnn.enabled, cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark)
    try:
        cudnn.deterministic = True
        assert cudnn.deterministic is True
        with cudnn.flags(enabled=False, allow_tf32=True, benchmark=True):
            assert (cudnn.enabled, cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark) == (False, True, True, True)
        assert (cudnn.enabled, cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark) == (*before[:2], True, before[3])
        with pytest.raises(ValueError), cudnn.flags(enabled=False):
            assert cudnn.enabled is False
            raise ValueError  # an exception in the block restores them too
        assert cudnn.enabled == before[0]
    finally:
        cudnn.enabled, cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark = before
    # a misspelt switch is an error, not a new attribute that does nothing
    with pytest.raises(AttributeError, match="no switch 'benchmarks'"):
        cudnn.benchmarks = True
    with pytest.raises(AttributeError, match="no attribute 'fastest'"):
        cudnn.fastest


def test_without_libcudnn_it_is_unavailable_and_says_what_to_install():
    code = """
import yaten
from yaten import _C
_C._cudnn_set_candidates(["/nonexistent/libcudnn.so.9"])
if _C._cudnn_is_available():
    print("SKIP")  # the system loader finds one by its bare name
else:
    assert yaten.backends.cudnn.is_available() is False and yaten.backends.cudnn.version() is None
    try:
        _C._cudnn_path()
    except RuntimeError as e:
        print(e)
"""
    out = run_python(code)
    if out == "SKIP":
        pytest.skip("a libcudnn.so.9 is on the system loader's path")
    if not yaten.backends.cuda.is_built():
        assert "built without CUDA" in out
        return
    assert "cuDNN is not available" in out and "pip install nvidia-cudnn-cu13" in out
    assert "/nonexistent/libcudnn.so.9" in out


def column_ops(prof):
    return sorted({e.name for e in prof.events() if e.kind == "op" and e.name in ("yaten::im2col", "yaten::col2im")})


# (conv function, input size, weight size, keyword arguments): 1-3 spatial dims, stride, padding, dilation, groups,
# a depthwise convolution, and transposed ones with output_padding below the stride (cuDNN) and at it (below the
# dilation, so the input is padded to a larger grid: yaten's kernels, since cuDNN's sizes would not agree).
CASES = {
    "conv1d": (F.conv1d, (2, 4, 11), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
    "conv2d": (F.conv2d, (3, 4, 9, 8), (6, 4, 3, 3), dict(stride=(2, 1), padding=1, dilation=(1, 2))),
    "depthwise": (F.conv2d, (2, 8, 7, 7), (8, 1, 3, 3), dict(padding=1, groups=8)),
    "conv3d": (F.conv3d, (2, 2, 5, 6, 4), (4, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    "transposed": (F.conv_transpose2d, (2, 4, 5, 6), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1,
                                                                        groups=2)),
    "transposed_big_output_padding": (F.conv_transpose2d, (2, 2, 4, 5), (2, 3, 2, 2),
                                      dict(stride=1, output_padding=1, dilation=2)),
}
TOL = {"float32": 1e-4, "float64": 1e-10, "float16": 1e-2, "bfloat16": 5e-2}


def as_list(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


@pytest.mark.skipif(not cudnn.is_available(), reason="no libcudnn (pip install nvidia-cudnn-cu13)")
@pytest.mark.parametrize("case", sorted(CASES))
def test_cudnn_descriptors_give_the_convolutions_sizes(case):
    """The descriptors yaten makes (1-D as 2-D, the geometry's order) lead cuDNN to the output size yaten computes on
    the CPU; for a transposed convolution, the convolution cuDNN runs backwards goes from its output to its input.
    Needs a libcudnn, not a GPU (the CUDA kernels make the same check on a shape's first call)."""
    fn, xs, ws, kw = CASES[case]
    dims = len(xs) - 2
    out = fn(yaten.zeros(*xs), yaten.zeros(*ws), **kw)
    stride, padding, dilation = (as_list(kw.get(k, d), dims) for k, d in (("stride", 1), ("padding", 0),
                                                                          ("dilation", 1)))
    groups = kw.get("groups", 1)
    if fn is F.conv_transpose2d:  # cuDNN's forward convolution runs from the output to the input
        x, y = list(out.shape), list(xs)
    else:
        x, y = list(xs), list(out.shape)
    described = yaten._C._cudnn_output_size(x, list(ws), padding, stride, dilation, groups)
    if case == "transposed_big_output_padding":
        assert described != y  # why this one takes yaten's kernels
    else:
        assert described == y


@needs_cudnn
@pytest.mark.parametrize("dtype", sorted(TOL))
@pytest.mark.parametrize("case", sorted(CASES))
def test_cudnn_passes_equal_the_cpu(case, dtype):
    fn, xs, ws, kw = CASES[case]
    g = yaten.Generator().manual_seed(3)
    x = yaten.randn(*xs, generator=g).to(getattr(yaten, dtype))
    w = yaten.randn(*ws, generator=g).to(getattr(yaten, dtype))
    xa, wa = x.clone().requires_grad_(), w.clone().requires_grad_()
    xc, wc = x.cuda().requires_grad_(), w.cuda().requires_grad_()
    out = fn(xa, wa, **kw)
    plans, v7 = yaten._C._cudnn_call_counts()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        outc = fn(xc, wc, **kw)
        outc.float().square().sum().backward()
    # each pass cuDNN took ran an execution plan (Note [cuDNN execution plans]), none the _v7 calls
    passes = 1 if case == "transposed_big_output_padding" else 3
    assert yaten._C._cudnn_call_counts() == (plans + passes, v7)
    out.float().square().sum().backward()
    tol = TOL[dtype]
    assert outc.is_cuda and outc.shape == out.shape
    assert yaten.allclose(outc.cpu().double(), out.double(), rtol=tol, atol=tol)
    for a, c in [(xa, xc), (wa, wc)]:
        scale = a.grad.double().abs().max().item() + 1
        assert yaten.allclose(c.grad.cpu().double() / scale, a.grad.double() / scale, rtol=tol, atol=tol)
    # every pass went to cuDNN, except the transposed convolution whose output_padding passes the stride: its
    # forward and weight gradient take yaten's kernels (its input's gradient is a plain convolution: cuDNN)
    expected = ["yaten::col2im", "yaten::im2col"] if case == "transposed_big_output_padding" else []
    assert column_ops(prof) == expected


@needs_gpu
def test_with_cudnn_off_the_own_kernels_run():
    g = yaten.Generator().manual_seed(4)
    x = yaten.randn(2, 4, 9, 8, generator=g).cuda()
    w = yaten.randn(6, 4, 3, 3, generator=g).cuda()
    with cudnn.flags(enabled=False), profile(activities=[ProfilerActivity.CPU]) as prof:
        out = F.conv2d(x, w, padding=1)
    assert column_ops(prof) == ["yaten::im2col"]
    expected = F.conv2d(x.cpu(), w.cpu(), padding=1)
    assert yaten.allclose(out.cpu(), expected, rtol=1e-4, atol=1e-4)


@needs_cudnn
def test_tf32_by_default_within_tf32_rounding():
    """TF32 keeps 10 bits of mantissa: a 3x3x64 convolution of unit normals is within ~1e-2 of the float32 result."""
    g = yaten.Generator().manual_seed(6)
    x = yaten.randn(4, 64, 16, 16, generator=g)
    w = yaten.randn(32, 64, 3, 3, generator=g) / 24
    expected = F.conv2d(x, w, padding=1)
    with cudnn.flags(allow_tf32=True):
        out = F.conv2d(x.cuda(), w.cuda(), padding=1).cpu()
    assert yaten.allclose(out, expected, rtol=2e-2, atol=2e-2)
    with cudnn.flags(allow_tf32=False):
        exact = F.conv2d(x.cuda(), w.cuda(), padding=1).cpu()
    assert yaten.allclose(exact, expected, rtol=1e-4, atol=1e-4)


@needs_cudnn
def test_benchmark_times_the_algorithms_and_keeps_one_per_shape():
    g = yaten.Generator().manual_seed(8)
    x = yaten.randn(4, 8, 12, 12, generator=g).requires_grad_()
    w = yaten.randn(16, 8, 3, 3, generator=g).requires_grad_()
    out = F.conv2d(x, w, stride=2, padding=1)
    out.square().sum().backward()
    xc, wc = x.detach().cuda().requires_grad_(), w.detach().cuda().requires_grad_()
    plans, v7 = yaten._C._cudnn_call_counts()
    with cudnn.flags(benchmark=True):
        for _ in range(2):  # the first call times, the second runs the algorithm kept
            xc.grad = wc.grad = None
            outc = F.conv2d(xc, wc, stride=2, padding=1)
            outc.square().sum().backward()
            assert yaten.allclose(outc.cpu(), out.detach(), rtol=1e-4, atol=1e-4)
            for a, c in [(x, xc), (w, wc)]:
                assert yaten.allclose(c.grad.cpu(), a.grad, rtol=1e-4, atol=1e-3)
    assert yaten._C._cudnn_call_counts() == (plans, v7 + 6)  # benchmark times through the _v7 calls


@needs_cudnn
def test_the_v7_calls_when_execution_plans_are_off():
    """YATEN_CUDNN_GRAPH=0 sends convolutions to cuDNN's _v7 calls: the path to compare the plans with."""
    code = """
import yaten
import yaten.nn.functional as F
g = yaten.Generator().manual_seed(5)
x, w = yaten.randn(2, 4, 9, 8, generator=g), yaten.randn(6, 4, 3, 3, generator=g)
with yaten.backends.cudnn.flags(allow_tf32=False):
    out = F.conv2d(x.cuda(), w.cuda(), padding=1).cpu()
print(yaten._C._cudnn_call_counts(), yaten.allclose(out, F.conv2d(x, w, padding=1), rtol=1e-4, atol=1e-4))
"""
    env = dict(os.environ, YATEN_CUDNN_GRAPH="0")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(0, 1) True"


@needs_cudnn
def test_deterministic_algorithms_repeat_their_bits():
    g = yaten.Generator().manual_seed(7)
    x = yaten.randn(8, 16, 20, 20, generator=g).cuda()
    grad = yaten.randn(8, 16, 20, 20, generator=g).cuda()
    with cudnn.flags(deterministic=True):
        runs = [yaten._C._convolution_weight_backward(grad, x, [16, 16, 3, 3], [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
                for _ in range(3)]
    assert all(yaten.equal(r, runs[0]) for r in runs)
