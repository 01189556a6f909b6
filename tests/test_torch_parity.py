"""Torch parity of the binding layer (issue 21): calls a torch user writes, compared with torch's results."""

from __future__ import annotations

import pytest

import yaten
from helpers import from_torch


def run_both(torch, expr: str):
    """`expr` with M as yaten and as torch: ("ok", repr) or (exception type, None) for each."""
    outcomes = []
    for module in (yaten, torch):
        try:
            value = eval(expr, {"M": module})
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            outcomes.append((type(e), None))
            continue
        outcomes.append(("ok", repr(value).replace("torch.", "").replace("yaten.", "")))
    return outcomes


# Note [Numbers given as tensors] (arg_parser.h): a 0-dim tensor where the schema says Scalar, float or int.
NUMBER_TENSOR_CALLS = [
    "M.ones(3).masked_fill(M.tensor([True, False, True]), M.tensor(5.0))",
    "M.ones(3).masked_fill(M.tensor([True, False, True]), M.tensor(5))",
    "M.arange(10).narrow(0, M.tensor(2), 3)",
    "M.linspace(M.tensor(0.0), M.tensor(1.0), 5)",
    "M.logspace(M.tensor(0.0), M.tensor(1.0), 5)",
    "M.linspace(0.0, 1.0, M.tensor(3))",
    "M.arange(5.0).clamp(min=M.tensor(1.0))",
    "M.arange(6.0).reshape(2, 3).select(M.tensor(1), 0)",
    "M.zeros(M.tensor(2), 3)",
    "M.arange(6.0).view(M.tensor(3), -1)",
    "M.arange(4.0).pow(M.tensor(2))",
    "M.ones(2).fill_(M.tensor(3.5))",
    "M.arange(6.0).reshape(2, 3).sum(M.tensor(1))",
    "M.ones(3, dtype=M.int32).masked_fill(M.tensor([True, False, True]), M.tensor(2.7))",
    "M.ones(3).masked_fill(M.tensor([True, False, True]), M.tensor([2.0, 3.0]))",
]


@pytest.mark.parametrize("start", ["M.tensor(2.0)", "M.tensor([2])"])
def test_a_tensor_that_is_no_int_is_refused(torch, start):
    # A deliberate difference (docs/torch-differences.md): torch's narrow has a Tensor overload that raises
    # RuntimeError for these; yaten has only the int one, whose argument check raises TypeError.
    with pytest.raises(RuntimeError, match="0-dim integral Tensor"):
        eval(f"M.arange(10).narrow(0, {start}, 3)", {"M": torch})
    with pytest.raises(TypeError, match="argument 'start' .* must be int, not yaten.Tensor"):
        eval(f"M.arange(10).narrow(0, {start}, 3)", {"M": yaten})


def test_masked_fill_value_tensor_gets_its_gradient(torch):
    mask = [[True, False, True], [False, False, True]]
    t_value, y_value = torch.tensor(5.0, requires_grad=True), yaten.tensor(5.0, requires_grad=True)
    t_self = torch.arange(6.0).reshape(2, 3).requires_grad_()
    y_self = yaten.arange(6.0).reshape(2, 3).requires_grad_()
    t_out = t_self.masked_fill(torch.tensor(mask), t_value)
    y_out = y_self.masked_fill(yaten.tensor(mask), y_value)
    assert y_out.tolist() == t_out.tolist()
    (t_out * torch.arange(6.0).reshape(2, 3)).sum().backward()
    (y_out * yaten.arange(6.0).reshape(2, 3)).sum().backward()
    assert y_value.grad.item() == t_value.grad.item() and y_self.grad.tolist() == t_self.grad.tolist()


def test_index_fill_and_take_differentiate(torch):
    t_self, y_self = torch.arange(6.0).reshape(2, 3).requires_grad_(), yaten.arange(6.0).reshape(2, 3).requires_grad_()
    t_value, y_value = torch.tensor(2.0, requires_grad=True), yaten.tensor(2.0, requires_grad=True)
    weights = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    t_out = t_self.index_fill(1, torch.tensor([0, 2]), t_value) + t_self.take(torch.tensor([[5, 5], [0, -1]])).sum()
    y_out = y_self.index_fill(1, yaten.tensor([0, 2]), y_value) + y_self.take(yaten.tensor([[5, 5], [0, -1]])).sum()
    (t_out * torch.tensor(weights)).sum().backward()
    (y_out * yaten.tensor(weights)).sum().backward()
    assert y_self.grad.tolist() == t_self.grad.tolist() and y_value.grad.item() == t_value.grad.item()


def test_a_tensor_overload_wins_over_a_number(torch):
    # add(int32 tensor, float64 0-dim tensor) is add.Tensor (promotes to float64), not add.Scalar (float32).
    t = torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(2.5, dtype=torch.float64)
    y = yaten.tensor([1, 2], dtype=yaten.int32) + yaten.tensor(2.5, dtype=yaten.float64)
    assert str(y.dtype) == str(t.dtype).replace("torch.", "yaten.") and y.tolist() == t.tolist()
    assert yaten.add(yaten.tensor([1, 2], dtype=yaten.int32), yaten.tensor(2.5, dtype=yaten.float64)).dtype == y.dtype
    x = from_torch(torch.arange(3.0))
    assert yaten.ops.yaten.add(x, yaten.tensor(1.0)).tolist() == [1.0, 2.0, 3.0]


def test_calls_by_name_take_numbers_given_as_tensors(torch):
    mask = yaten.tensor([True, False])
    assert yaten.ops.yaten.masked_fill(yaten.ones(2), mask, yaten.tensor(2.0)).tolist() == [2.0, 1.0]
    assert yaten.ops.yaten.masked_fill.Scalar(yaten.ones(2), mask, yaten.tensor(3)).tolist() == [3.0, 1.0]
    assert yaten.ops.yaten.narrow(yaten.arange(5), 0, yaten.tensor(1), 2).tolist() == [1, 2]
    with pytest.raises(TypeError, match="must be int"):
        yaten.ops.yaten.narrow.default(yaten.arange(5), 0, yaten.tensor(1.0), 2)


KEYWORD_AND_OVERLOAD_CALLS = [
    "tuple(M.zeros(1, 3, 1, 2).squeeze((0, 2)).shape)",
    "tuple(M.zeros(1, 3, 1, 2).squeeze((0, 1)).shape)",
    "tuple(M.zeros(1, 3, 1, 2).squeeze((-1, -2)).shape)",
    "tuple(M.zeros(1, 3, 1, 2).squeeze(()).shape)",
    "M.zeros(1, 3).squeeze((0, 0))",
    "M.zeros(1, 3).squeeze((2,))",
    "M.var_mean(M.arange(5.0), True)",
    "M.var_mean(M.arange(5.0), False)",
    "M.var_mean(M.arange(6.0).reshape(2, 3), 1, False)",
    "M.var_mean(M.arange(6.0).reshape(2, 3), [0], True, True)",
    "M.std_mean(M.arange(5.0), True)",
    "M.std_mean(M.arange(6.0).reshape(2, 3), 0, False)",
    "M.arange(6.0).reshape(2, 3).norm(p='fro')",
    "M.arange(6.0).reshape(2, 3).norm('fro', dim=1)",
    "M.norm(M.arange(6.0).reshape(2, 3), p='fro', dim=(0, 1), keepdim=True)",
    "M.arange(6.0).reshape(2, 3).norm(p='abc')",
]


def test_unbiased_overloads_differentiate(torch):
    t = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    y = from_torch(t.detach()).requires_grad_()
    for fn in ("var_mean", "std_mean"):
        (a, b), (c, d) = getattr(torch, fn)(t, 1, False), getattr(yaten, fn)(y, 1, False)
        (a.sum() + b.sum()).backward()
        (c.sum() + d.sum()).backward()
        assert y.grad.reshape(-1).tolist() == pytest.approx(t.grad.reshape(-1).tolist())
        t.grad, y.grad = None, None


def test_nuclear_norm_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="p='nuc'"):
        yaten.ones(2, 2).norm(p="nuc")


INDEX_DTYPE_CALLS = [
    "M.arange(6.0).reshape(2, 3).gather(1, M.tensor([[0], [2]], dtype=M.int32))",
    "M.zeros(2, 3).scatter(1, M.tensor([[0], [2]], dtype=M.int32), 1.0)",
    "M.zeros(2, 3).scatter(1, M.tensor([[0], [2]], dtype=M.int32), M.ones(2, 1))",
    "M.zeros(2, 3).scatter_add(1, M.tensor([[0, 0], [2, 2]], dtype=M.int32), M.ones(2, 2))",
    "M.zeros(2, 3).scatter_add_(1, M.tensor([[0, 0], [2, 2]], dtype=M.int32).t().contiguous().t(), M.ones(2, 2))",
    "M.arange(6.0).reshape(2, 3).gather(1, M.tensor([[0], [2]], dtype=M.int32).expand(2, 3))",
    "M.arange(6.0).index_select(0, M.tensor([0, 2], dtype=M.int32))",
    "M.arange(6.0)[M.tensor([0, 5], dtype=M.int32)]",
    "M.arange(6.0).gather(0, M.tensor([0.0]))",
    "M.arange(6.0).gather(0, M.tensor([5, 0], dtype=M.int32))",
]


BOOL_DTYPE_CALLS = [
    "M.fmin(M.tensor([True, False, True]), M.tensor([False, False, True]))",
    "M.fmax(M.tensor([True, False, True]), M.tensor([False, False, True]))",
    "M.fmax(M.tensor([True, False]), M.tensor([1.5, float('nan')]))",
    "M.maximum(M.tensor([True, False]), M.tensor([False, False]))",
]


def test_equal_values_in_topk_and_kthvalue_come_first_first(torch):
    # docs/torch-differences.md: torch documents no order among equal values here; yaten's is the first occurrence,
    # and the values always agree with torch's.
    data = [1.0, 3.0, 3.0, 2.0, 3.0]
    got, expected = yaten.topk(yaten.tensor(data), 2), torch.topk(torch.tensor(data), 2)
    assert got.values.tolist() == expected.values.tolist() and got.indices.tolist() == [1, 2]
    got, expected = yaten.kthvalue(yaten.tensor(data), 3), torch.kthvalue(torch.tensor(data), 3)
    assert got.values.item() == expected.values.item() and got.indices.item() == 1
    got, expected = yaten.sort(yaten.tensor(data), stable=True), torch.sort(torch.tensor(data), stable=True)
    assert got.indices.tolist() == expected.indices.tolist()


# A 0-dim index with an empty src read past src (found by the op fuzzer: a segfault); what is no tensor.
EDGE_CALLS = [f"M.zeros((), dtype=M.int8).{op}(0, M.tensor(0), {src})" for op in ("scatter", "scatter_add")
              for src in ("M.ones(0, dtype=M.int8)", "M.ones((), dtype=M.int8)", "M.ones(3, dtype=M.int8)")]
EDGE_CALLS += ["M.where([1])", "M.squeeze(True, [1, 0])"]

# Ops torch users reach for that yaten lacked: index_fill (functional and in-place) and take.
MISSING_OP_CALLS = [
    "M.zeros(3, 2).index_fill(0, M.tensor([0, 2]), 7.0)",
    "M.zeros(3, 2).index_fill(0, M.tensor([-1]), 7.0)",
    "M.zeros(3, 2).index_fill(1, M.tensor([1]), M.tensor(7.0))",
    "M.zeros(3, 2, dtype=M.int32).index_fill(0, M.tensor([1]), 2.5)",
    "M.zeros(3, 2).index_fill_(0, M.tensor([1]), 4.0)",
    "M.index_fill(M.zeros(2, 3).t(), 0, M.tensor(1), 3.0)",
    "M.tensor(5.0).index_fill(0, M.tensor([0]), 1.0)",
    "M.zeros(3, 2).index_fill(0, M.tensor([3]), 7.0)",
    "M.zeros(3, 2).index_fill(0, M.tensor([0]), M.tensor([1.0]))",
    "M.arange(6.0).reshape(2, 3).take(M.tensor([[0, 5], [-1, 2]]))",
    "M.take(M.arange(6.0), M.tensor([1], dtype=M.int32))",
    "M.arange(6.0).take(M.tensor([6]))",
    "M.zeros(0).take(M.zeros(0, dtype=M.int64))",
    "M.arange(6.0).t().take(M.tensor(4))",
]

CALLS = [(kind, expr) for kind, exprs in (("number-tensor", NUMBER_TENSOR_CALLS), ("missing-op", MISSING_OP_CALLS),
                                          ("keyword-overload", KEYWORD_AND_OVERLOAD_CALLS),
                                          ("int32-index", INDEX_DTYPE_CALLS), ("bool", BOOL_DTYPE_CALLS),
                                          ("edge", EDGE_CALLS)) for expr in exprs]


@pytest.mark.parametrize("kind,expr", CALLS, ids=[f"{kind}:{expr}" for kind, expr in CALLS])
def test_call_agrees_with_torch(torch, kind, expr):
    # The same value (by repr) or the same exception type as torch.
    got, expected = run_both(torch, expr)
    assert got == expected
