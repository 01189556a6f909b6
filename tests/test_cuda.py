"""The CUDA backend. Skipped without a GPU (CI has none); run on a GPU machine to check the path."""

from __future__ import annotations

from pathlib import Path

import pytest

import yaten
from codegen import parse

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
OPS = parse.load(Path(__file__).resolve().parent.parent / "ops.yaml").ops


def test_round_trip_to_the_gpu():
    x = yaten.tensor([[1.5, -2.0], [3.0, 4.25]])
    g = x.cuda()
    assert g.is_cuda and str(g.device) == "cuda:0"
    assert g.cpu().tolist() == x.tolist()
    assert yaten.tensor([1, 2], device="cuda").cpu().tolist() == [1, 2]


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_add_on_cuda_matches_cpu(dtype):
    d = getattr(yaten, dtype)
    flat = yaten.arange(12).to(d)
    matrix = yaten.tensor([[float(v) for v in range(4)]] * 3).to(d)
    row = yaten.tensor([1, 2, 3, 4]).to(d)
    for x, y in ((flat, flat), (matrix, row)):  # same shape, and broadcasting
        expected = yaten.add(x, y, alpha=2)
        actual = yaten.add(x.cuda(), y.cuda(), alpha=2)
        assert actual.is_cuda and actual.dtype == expected.dtype
        assert actual.cpu().tolist() == expected.tolist()


def test_add_with_python_number_and_inplace_on_cuda():
    g = yaten.ones(4, device="cuda")
    assert (g + 2).cpu().tolist() == [3.0] * 4
    assert g.add_(g) is g and g.cpu().tolist() == [2.0] * 4


def test_factories_on_cuda():
    assert yaten.full((2, 2), 3.0, device="cuda").cpu().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert yaten.zeros(3, device="cuda").cpu().tolist() == [0.0] * 3


def test_missing_cuda_kernel_names_op_key_and_fix():
    line = next(op.location.line for op in OPS if op.schema.full_name == "sub.Tensor")
    g = yaten.ones(2, device="cuda")
    with pytest.raises(NotImplementedError, match=rf"yaten::sub.Tensor has no kernel for CUDA. Registered: CPU "
                                                  rf"\(ops.yaml:{line}\).*Move the tensors with .cpu\(\)"):
        yaten.sub(g, g)


def test_tensors_on_two_devices_raise():
    with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
        yaten.add(yaten.ones(2, device="cuda"), yaten.ones(2))
