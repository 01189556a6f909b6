"""The Tensor object: construction from Python data, attributes, conversion back, printing, dtypes, devices."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import yaten
from helpers import DTYPE_NAMES, from_torch, ydtype


@pytest.mark.parametrize("data", [
    [1, 2, 3], [1.0, 2, 3], [True, False], [[1, 2], [3, 4]], [[True, 2], [3, 4]], [[1.5]], 7, 2.5, True, [],
    [[]], [[1], [2]], (1, 2.5), [[[1, 2]], [[3, 4]]],
])
def test_tensor_infers_shape_and_dtype_like_torch(torch, data):
    expected = torch.tensor(data)
    actual = yaten.tensor(data)
    assert actual.shape == tuple(expected.shape)
    assert repr(actual.dtype) == repr(expected.dtype).replace("torch", "yaten")
    assert actual.tolist() == expected.tolist()


def test_tensor_with_dtype_converts_values(torch):
    for name in DTYPE_NAMES:
        data = [0, 1, 2, 3] if name != "bool" else [True, False]
        expected = torch.tensor(data, dtype=getattr(torch, name))
        actual = yaten.tensor(data, dtype=ydtype(name))
        assert actual.dtype == ydtype(name) and actual.tolist() == expected.tolist()
    assert yaten.tensor([1.9, -1.9], dtype=yaten.int32).tolist() == [1, -1]


def test_tensor_rejects_ragged_and_non_numeric_data():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 3\\)"):
        yaten.tensor([[1, 2], [3, 4, 5]])
    with pytest.raises(ValueError, match="ragged"):
        yaten.tensor([[1, 2], 3])
    with pytest.raises(TypeError, match="could not infer dtype of str"):
        yaten.tensor([1, "a"])
    with pytest.raises(TypeError):
        yaten.tensor([1, 2], dtype="float32")
    with pytest.raises(OverflowError, match="int too big"):  # torch: ValueError "Overflow when unpacking long long"
        yaten.tensor([2**70])


def test_tensor_from_a_tensor_copies():
    a = yaten.tensor([1, 2])
    b = yaten.tensor(a, dtype=yaten.float64)
    assert b.dtype == yaten.float64 and b.tolist() == [1.0, 2.0] and a.dtype == yaten.int64


def test_attributes():
    t = yaten.zeros(2, 3, dtype=yaten.int16)
    assert t.shape == (2, 3) and t.size() == (2, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert t.stride() == (3, 1) and t.stride(0) == 3
    assert t.ndim == 2 and t.dim() == 2 and t.numel() == 6 and len(t) == 2
    assert t.dtype == yaten.int16 and t.element_size() == 2 and t.is_contiguous() and t.storage_offset() == 0
    assert str(t.device) == "cpu" and t.device == yaten.device("cpu") and not t.is_cuda
    with pytest.raises(IndexError, match="dimension out of range"):
        t.size(2)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(yaten.tensor(1))


def test_item_and_conversions_to_python_numbers():
    assert yaten.tensor([[2.5]]).item() == 2.5
    assert yaten.tensor(3).item() == 3 and isinstance(yaten.tensor(3).item(), int)
    assert yaten.tensor(True).item() is True
    assert float(yaten.tensor(1.5)) == 1.5 and int(yaten.tensor(7)) == 7
    assert bool(yaten.tensor([0.0])) is False
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        yaten.tensor([1, 2]).item()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(yaten.tensor([1, 2]))


@pytest.mark.parametrize("name", [n for n in DTYPE_NAMES if n != "bfloat16"])
def test_numpy_shares_memory_and_keeps_the_tensor_alive(name):
    t = yaten.arange(6, dtype=yaten.int64).to(ydtype(name)) if name != "bool" else yaten.tensor([True, False])
    array = t.numpy()
    assert array.dtype == np.dtype(name if name != "bool" else "bool")
    assert array.tolist() == t.tolist()
    assert array.ctypes.data == t.data_ptr()
    del t
    gc.collect()
    assert array.tolist() == array.copy().tolist()  # still readable: the array holds the tensor


def test_numpy_write_is_seen_by_the_tensor_and_asarray_works():
    t = yaten.zeros(2, 2)
    t.numpy()[0, 1] = 5
    assert t.tolist() == [[0.0, 5.0], [0.0, 0.0]]
    assert np.asarray(t).shape == (2, 2) and np.asarray(t, dtype=np.float64).dtype == np.float64
    with pytest.raises(TypeError, match="bfloat16"):
        yaten.zeros(2, dtype=yaten.bfloat16).numpy()


def test_to_and_dtype_shortcuts():
    t = yaten.tensor([1.5, -2.5])
    assert t.to(yaten.float32) is t
    assert t.to(yaten.int32).tolist() == [1, -2] and t.int().dtype == yaten.int32
    assert t.double().dtype == yaten.float64 and t.half().dtype == yaten.float16 and t.long().dtype == yaten.int64
    assert t.bool().tolist() == [True, True] and t.bfloat16().float().tolist() == [1.5, -2.5]
    assert t.to("cpu") is t and t.cpu() is t
    assert t.to(yaten.zeros(1, dtype=yaten.float64)).dtype == yaten.float64
    with pytest.raises(TypeError):
        t.to(2.5)
    # an int is a CUDA device, as in torch
    with pytest.raises(RuntimeError, match="cuda:7 does not exist|no CUDA GPU|built without CUDA"):
        t.to(7)


def test_dtype_objects():
    assert yaten.float32.is_floating_point and not yaten.int32.is_floating_point
    assert yaten.float16.itemsize == 2 and yaten.int64.itemsize == 8
    assert yaten.float is yaten.float32 and yaten.long is yaten.int64 and yaten.half is yaten.float16
    assert repr(yaten.bfloat16) == "yaten.bfloat16"
    assert yaten.promote_types(yaten.int32, yaten.float16) == yaten.float16
    assert yaten.promote_types(yaten.uint8, yaten.int8) == yaten.int16


def test_promote_types_matches_torch_on_every_pair(torch):
    for a in DTYPE_NAMES:
        for b in DTYPE_NAMES:
            expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert repr(yaten.promote_types(ydtype(a), ydtype(b))) == repr(expected).replace("torch", "yaten")


def test_default_dtype_can_be_changed():
    assert yaten.get_default_dtype() == yaten.float32
    yaten.set_default_dtype(yaten.float64)
    try:
        assert yaten.tensor([1.5]).dtype == yaten.float64
        assert yaten.zeros(2).dtype == yaten.float64
        assert (yaten.tensor([1]) + 0.5).dtype == yaten.float64
        assert repr(yaten.tensor([1.5])) == "tensor([1.5000])"
    finally:
        yaten.set_default_dtype(yaten.float32)
    with pytest.raises(TypeError, match="only floating-point dtypes"):
        yaten.set_default_dtype(yaten.int32)


def test_devices():
    assert yaten.device("cuda:1").index == 1 and yaten.device("cuda").type == "cuda"
    assert repr(yaten.device("cpu")) == "device(type='cpu')"
    assert yaten.device("cuda", 0) == "cuda:0"
    with pytest.raises(ValueError):
        yaten.device("tpu")


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="use yaten.tensor"):
        yaten.Tensor()


REPR_CASES = [
    "torch.tensor([1., 2., 3.])",
    "torch.tensor([1.5, 2.25, -3.125])",
    "torch.tensor([[1., 2.], [3., 4.]])",
    "torch.tensor([1, 2, 3])",
    "torch.tensor([1, -2, 300], dtype=torch.int32)",
    "torch.tensor([True, False])",
    "torch.tensor(3.5)",
    "torch.tensor(7)",
    "torch.tensor([])",
    "torch.zeros(0, 3)",
    "torch.zeros(0, dtype=torch.int64)",
    "torch.tensor([1e-5, 1.0])",
    "torch.tensor([1e10, 1.0])",
    "torch.tensor([1.0, float('nan'), float('inf')])",
    "torch.tensor([0.1, float('-inf')])",
    "torch.tensor([1.5, 2.5], dtype=torch.float16)",
    "torch.tensor([1.5], dtype=torch.bfloat16)",
    "torch.tensor([1., 2.], dtype=torch.float64)",
    "torch.arange(24.).reshape(2, 3, 4)",
    "torch.arange(30.)",
    "torch.arange(2000)",
    "torch.arange(2000.).reshape(40, 50)",
    "torch.arange(24).reshape(2, 3, 4) * 1000",
    "torch.tensor([-0.0, 0.0])",
    "torch.tensor([123456.7, 0.5])",
]


@pytest.mark.parametrize("expr", REPR_CASES)
def test_repr_matches_torch(torch, expr):
    expected = eval(expr)
    actual = from_torch(expected)
    assert repr(actual) == repr(expected).replace("torch.", "yaten.")


@pytest.mark.parametrize("expr", ["{m}.tensor([1., 2.], requires_grad=True)",
                                  "{m}.tensor([1., 2.], dtype={m}.float64, requires_grad=True) * 2",
                                  "{m}.ones(2, 2, requires_grad=True).t()", "{m}.ones(3, requires_grad=True).sum()",
                                  "{m}.ones(2, requires_grad=True).detach()", "{m}.ones(2, requires_grad=True)[0]"])
def test_repr_names_autograd_state_as_torch_does(torch, expr):
    assert repr(eval(expr.format(m="yaten"))) == repr(eval(expr.format(m="torch"))).replace("torch.", "yaten.")


def test_torch_habits_beyond_ops_agree_with_torch(torch):
    t = torch.arange(12.0).reshape(3, 4)
    y = from_torch(t)
    for yt, tt in [(y.new_zeros(2, 3), t.new_zeros(2, 3)), (y.new_ones((2,)), t.new_ones((2,))),
                   (y.new_full((2, 2), 7), t.new_full((2, 2), 7)), (y.new_tensor([1, 2]), t.new_tensor([1, 2])),
                   (y.new_zeros(2, dtype=yaten.int32), t.new_zeros(2, dtype=torch.int32)),
                   (y.type_as(yaten.tensor([1])), t.type_as(torch.tensor([1]))),
                   (y.view_as(yaten.zeros(4, 3)), t.view_as(torch.zeros(4, 3))),
                   (y.reshape_as(yaten.zeros(12)), t.reshape_as(torch.zeros(12)))]:
        assert yt.tolist() == tt.tolist() and str(yt.dtype)[6:] == str(tt.dtype)[6:]
    assert tuple(y.new_empty(2, 5).shape) == (2, 5) and y.new_zeros(1, requires_grad=True).requires_grad
    assert (y.nelement(), y.get_device(), y.is_complex()) == (t.nelement(), t.get_device(), t.is_complex())
    assert (5.0 in y, 50 in y, y[0] in y) == (5.0 in t, 50 in t, t[0] in t)
    with pytest.raises(RuntimeError, match="__contains__ only supports Tensor or scalar"):
        "a" in y  # noqa: B015
    assert f"{y.sum():.3f}" == f"{t.sum():.3f}" and format(yaten.tensor(5), "03d") == format(torch.tensor(5), "03d")
    with pytest.raises(TypeError):
        f"{y:.2f}"  # noqa: B018


def test_data_is_the_values_without_history(torch):
    w = yaten.ones(3, requires_grad=True)
    assert w.data.requires_grad is False and w.data.data_ptr() == w.data_ptr() and w.data.grad_fn is None
    w.data -= 0.5  # the optimizer habit: an update no graph records
    assert w.tolist() == [0.5, 0.5, 0.5] and w.requires_grad and w.is_leaf and w.grad_fn is None
    w.data = yaten.tensor([1.0, 2.0, 3.0])
    assert w.tolist() == [1.0, 2.0, 3.0]
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0]
    # A deliberate difference: torch gives .data a version counter of its own, so writing through it after a graph
    # saved the tensor silently corrupts that graph's gradients; yaten counts versions per storage and raises.
    loss = (w * w).sum()
    w.data += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    with pytest.raises(RuntimeError, match="must have its shape, dtype and device"):
        w.data = yaten.zeros(4)
    with pytest.raises(TypeError, match="expected a Tensor"):
        w.data = [1.0, 2.0, 3.0]


@pytest.mark.parametrize("call", ["tensor(1, 2)", "tensor([1], dtype='float')", "tensor([1], foo=1)",
                                  "tensor([1], requires_grad=1)"])
def test_tensor_refuses_arguments_as_torch_does(torch, call):
    # yaten.tensor reads its own arguments (tensor_type.cpp); torch's wording, with yaten's module name.
    with pytest.raises(TypeError) as expected:
        eval("torch." + call)
    with pytest.raises(TypeError) as got:
        eval("yaten." + call)
    assert str(got.value) == str(expected.value).replace("torch.", "yaten.")


def test_tensor_takes_every_kind_of_data(torch):
    np = pytest.importorskip("numpy")
    for data in ([1.5, 2.0], [[1, 2], [3, 4]], (True, False), [], np.arange(6.0).reshape(2, 3), 3, 2.5):
        for kwargs in ({}, {"dtype": "float64"}, {"dtype": "int32"}):
            pair = (yaten.tensor(data, **{k: getattr(yaten, v) for k, v in kwargs.items()}),
                           torch.tensor(data, **{k: getattr(torch, v) for k, v in kwargs.items()}))
            assert repr(pair[0]) == repr(pair[1]).replace("torch.", "yaten.")
    made = yaten.tensor(data=[1.0, 2.0], requires_grad=True)
    assert made.requires_grad and made.is_leaf
    source = np.arange(3.0)
    copy = yaten.tensor(source)
    source[0] = 7
    assert copy.tolist() == [0.0, 1.0, 2.0]  # a copy, not a view
    with pytest.raises(RuntimeError, match="floating point"):
        yaten.tensor([1], requires_grad=True)
    with pytest.raises(TypeError, match="missing required argument 'data'"):
        yaten.tensor()
    with pytest.raises(TypeError, match="multiple values for argument 'data'"):
        yaten.tensor([1], data=[2])
