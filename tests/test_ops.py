"""Every op against PyTorch's CPU build: results, result dtypes, broadcasting, Python numbers, in-place and out=.

The pointwise tests are driven by ops.yaml: each pointwise functional op is compared with the torch function of the
same name for every dtype its CPU kernel declares, and every undeclared dtype must raise NotImplementedError. A new
op is tested the moment it is declared.
"""

from __future__ import annotations

import itertools
import zlib
from pathlib import Path

import pytest

import yaten
from codegen import parse
from codegen.model import dtype_rule
from helpers import DTYPE_NAMES, assert_same, from_torch, random_torch, to_torch, ydtype

ROOT = Path(__file__).resolve().parent.parent
OPS = parse.load(ROOT / "ops.yaml").ops
POINTWISE = [op for op in OPS if op.is_pointwise and not op.schema.is_out and not op.schema.is_inplace
             and "CPU" in op.dispatch]
CASES = [(op, d) for op in POINTWISE for d in DTYPE_NAMES]


def tensor_inputs(op):
    return [a for a in op.schema.arguments if a.type.is_tensor]


# Ops whose torch counterpart has another name or needs an argument the entry requires.
TORCH_EQUIVALENT = {
    "_div_trunc": lambda torch: lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "_clamp": lambda torch: torch.clamp,
    "_glu_halves": lambda torch: lambda a, b: torch.nn.functional.glu(torch.stack(torch.broadcast_tensors(a, b)),
                                                                     0).squeeze(0),
    "_squared_difference": lambda torch: lambda a, b: torch.nn.functional.mse_loss(
        *torch.broadcast_tensors(a, b), reduction="none"),
    "_smooth_l1_pointwise": lambda torch: lambda a, b, beta=1.0: torch.nn.functional.smooth_l1_loss(
        *torch.broadcast_tensors(a, b), reduction="none", beta=beta),
    "_bce_with_logits_pointwise": lambda torch: lambda a, b: torch.nn.functional.binary_cross_entropy_with_logits(
        *torch.broadcast_tensors(a, b), reduction="none"),
    "_huber_pointwise": lambda torch: lambda a, b, delta=1.0: torch.nn.functional.huber_loss(
        *torch.broadcast_tensors(a, b), reduction="none", delta=delta),
    "silu_backward": lambda torch: lambda g, x: torch.ops.aten.silu_backward(*torch.broadcast_tensors(g, x)),
    # torch's CPU gelu_backward goes through oneDNN, which fails on some strided inputs: its values on copies
    "gelu_backward": lambda torch: lambda g, x, **k: torch.ops.aten.gelu_backward(
        *torch.broadcast_tensors(g.contiguous(), x.contiguous()), **k),
}
EXTRA_ARGS = {"round.decimals": {"decimals": 2}, "lerp.Scalar": {"weight": 0.3},
              "hardtanh": {"min_val": 0.0, "max_val": 2.0},  # torch refuses limits below 0 for uint8
              "threshold": {"threshold": 1, "value": 7}, "_smooth_l1_pointwise": {"beta": 0.7},
              "_huber_pointwise": {"delta": 1.3}}
UNIT_DOMAIN = {"asin", "acos", "atanh", "erfinv", "logit"}  # inputs scaled into (-1, 1)
NONZERO_DIVISOR = {"div", "remainder", "fmod", "floor_divide", "_div_trunc"}


# Where torch's float64 value is further from mpmath's than its default tolerance, the bound its error reaches
# (yaten's is checked against mpmath in tests/test_special_functions.py): torch's J1 is 1.1e-6 off near x = -5.06.
TORCH_INACCURATE = {"special_bessel_j1": 2e-6}


# Ops whose first argument is a number the entry requires (polygamma's order): called with this one.
LEADING_ARGS = {"polygamma": (2,)}


def yaten_function(op):
    """yaten's generated Python function for `op`, called with the tensors (and keywords) alone: the special ops
    from yaten._C._special under their short names, LEADING_ARGS put in front."""
    name = op.schema.name
    if op.python_module == "nn.functional":
        return getattr(yaten._C._nn_functional, name)
    if op.python_module == "special":
        return getattr(yaten._C._special, name.removeprefix("special_"))
    if name in LEADING_ARGS:
        lead = LEADING_ARGS[name]
        return lambda *a, **k: getattr(yaten._C, name)(*lead, *a, **k)
    return getattr(yaten._C, name)


def functions(torch, op):
    """yaten's and torch's Python function for `op` (yaten.nn.functional.gelu beside torch.nn.functional.gelu)."""
    name = op.schema.name
    if op.python_module == "nn.functional":
        theirs = getattr(torch.nn.functional, name)
    elif op.python_module == "special":
        theirs = getattr(torch.special, name.removeprefix("special_"))
    elif name in LEADING_ARGS:
        lead = LEADING_ARGS[name]
        theirs = lambda *a, **k: getattr(torch, name)(*lead, *a, **k)  # noqa: E731
    else:
        theirs = TORCH_EQUIVALENT[name](torch) if name in TORCH_EQUIVALENT else getattr(torch, name)
    return yaten_function(op), theirs


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{op.schema.full_name}-{d}" for op, d in CASES])
def test_pointwise_op_matches_torch_for_every_declared_dtype(torch, op, dtype):
    gen = torch.Generator().manual_seed(zlib.crc32(f"{op.schema.full_name}-{dtype}".encode()))
    name = op.schema.name
    shapes = [(3, 4)] + [(4,)] * (len(tensor_inputs(op)) - 1)  # broadcasting in every multi-input case
    inputs = [random_torch(torch, dtype, s, gen) for s in shapes]
    if name in UNIT_DOMAIN and inputs[0].dtype.is_floating_point:
        inputs[0] = inputs[0] / 9
    if name in NONZERO_DIVISOR:
        inputs[1] = torch.where(inputs[1] == 0, torch.ones_like(inputs[1]), inputs[1])
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    ours, theirs = functions(torch, op)
    compute_dtype = dtype_rule(op.dtype_rule).compute_dtype(dtype)  # the rule as ops.yaml's table declares it
    declared = compute_dtype in op.dtypes["CPU"]
    if not declared:
        with pytest.raises(NotImplementedError, match=rf"{name}.*no CPU kernel for dtype {dtype}"):
            ours(*[from_torch(t) for t in inputs], **kwargs)
        return
    expected = theirs(*inputs, **kwargs)
    if dtype in ("float16", "bfloat16") and expected.dtype == inputs[0].dtype:
        # yaten computes reduced precision in float and rounds once; torch rounds some intermediates (logit), so
        # the reference is torch's float32 result, rounded.
        expected = theirs(*[t.float() for t in inputs], **kwargs).to(expected.dtype)
    actual = ours(*[from_torch(t) for t in inputs], **kwargs)
    if name in TORCH_INACCURATE and dtype == "float64":
        torch.testing.assert_close(to_torch(torch, actual), expected, equal_nan=True, rtol=TORCH_INACCURATE[name],
                                   atol=0)
        return
    assert_matches(torch, actual, expected)


LAYOUTS = ["zero-dim", "empty", "transposed", "strided", "expanded"]
LAYOUT_CASES = [(op, layout) for op in POINTWISE for layout in LAYOUTS]


def laid_out(module, t, layout):
    """`t` (shape (3, 4) or (4,)) in `layout`, made with `module` (torch or yaten: the same calls), from its values."""
    if layout == "contiguous":
        return t
    if layout == "zero-dim":
        return t.reshape(-1)[1].clone()
    if layout == "empty":
        return t.reshape(-1)[:0].reshape((0,) + tuple(t.shape[1:]))
    if layout == "transposed":
        return t.t().contiguous().t() if t.dim() == 2 else t.flip(0).contiguous().flip(0)
    if layout == "strided":
        doubled = module.zeros((t.shape[0] * 2,) + tuple(t.shape[1:]), dtype=t.dtype)
        doubled[::2] = t
        return doubled[::2]
    return t[:1].expand(*t.shape)  # expanded: stride 0


@pytest.mark.parametrize("op,layout", LAYOUT_CASES, ids=[f"{op.schema.full_name}-{lay}" for op, lay in LAYOUT_CASES])
def test_pointwise_op_matches_torch_on_every_layout(torch, op, layout):
    # 0-dim, empty, non-contiguous (transposed, every other row) and expanded (stride 0) inputs, in a declared dtype,
    # with the other inputs broadcasting against them; torch's views keep their strides when converted.
    dtype = next(d for d in ("float32", "int64", "bool") if d in op.dtypes["CPU"])
    gen = torch.Generator().manual_seed(zlib.crc32(f"{op.schema.full_name}-{layout}".encode()))
    name = op.schema.name
    shapes = [(3, 4)] + [(4,)] * (len(tensor_inputs(op)) - 1)
    inputs = [random_torch(torch, dtype, s, gen) for s in shapes]
    if name in UNIT_DOMAIN and inputs[0].dtype.is_floating_point:
        inputs[0] = inputs[0] / 9
    if name in NONZERO_DIVISOR:
        inputs[1] = torch.where(inputs[1] == 0, torch.ones_like(inputs[1]), inputs[1])
    # Each input in the layout, except that an empty first input (0, 4) meets the others as they are, (4,).
    layouts = [layout if k == 0 or layout != "empty" else "contiguous" for k in range(len(inputs))]
    given = [laid_out(torch, t, lay) for t, lay in zip(inputs, layouts)]
    ours_given = [laid_out(yaten, from_torch(t), lay) for t, lay in zip(inputs, layouts)]
    assert [tuple(t.stride()) for t in ours_given] == [tuple(t.stride()) for t in given]
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    ours, theirs = functions(torch, op)
    try:
        expected = theirs(*given, **kwargs)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            ours(*ours_given, **kwargs)
        return
    assert_matches(torch, ours(*ours_given, **kwargs), expected)


PROMOTION_DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("name", ["add", "mul", "div"])
@pytest.mark.parametrize("a,b", list(itertools.product(PROMOTION_DTYPES, repeat=2)))
def test_binary_op_promotes_like_torch(torch, name, a, b):
    gen = torch.Generator().manual_seed(7)
    x = random_torch(torch, a, (2, 3), gen, 1, 5)
    y = random_torch(torch, b, (3,), gen, 1, 5)
    expected = getattr(torch, name)(x, y)
    actual = getattr(yaten, name)(from_torch(x), from_torch(y))
    assert str(actual.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    torch.testing.assert_close(to_torch(torch, actual), expected)


NUMBERS = [2, -3, 2.5, True, 0.1]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/"])
def test_python_number_on_either_side_promotes_like_torch(torch, dtype, number, symbol):
    gen = torch.Generator().manual_seed(3)
    x = random_torch(torch, dtype, (5,), gen, 1, 5)
    y = from_torch(x)
    for left, right, yl, yr in ((x, number, y, number), (number, x, number, y)):
        try:
            expected = eval(f"left {symbol} right")
        except RuntimeError:
            with pytest.raises(RuntimeError):
                eval(f"yl {symbol} yr")
            continue
        actual = eval(f"yl {symbol} yr")
        assert str(actual.dtype).split(".")[1] == str(expected.dtype).split(".")[1], (left, right)
        torch.testing.assert_close(to_torch(torch, actual), expected, equal_nan=True)


def test_zero_dim_tensor_participates_below_dimensioned_tensors(torch):
    cases = [("int8", "int64"), ("float16", "float64"), ("int32", "float64"), ("bool", "int32"), ("uint8", "int8")]
    for a, b in cases:
        x = torch.ones(3, dtype=getattr(torch, a))
        s = torch.tensor(2, dtype=getattr(torch, b))
        for lhs, rhs in ((x, s), (s, x)):
            expected = torch.add(lhs, rhs)
            actual = yaten.add(from_torch(lhs), from_torch(rhs))
            assert_same(torch, actual, expected)


def test_alpha_scales_other(torch):
    x, y = torch.arange(6.0).reshape(2, 3), torch.tensor([1.0, 2.0, 3.0])
    assert_same(torch, yaten.add(from_torch(x), from_torch(y), alpha=2.5), torch.add(x, y, alpha=2.5))
    assert_same(torch, yaten.sub(from_torch(x), from_torch(y), alpha=3), torch.sub(x, y, alpha=3))
    assert_same(torch, from_torch(x).add(4, alpha=2), x.add(4, alpha=2))
    xi = torch.arange(6)
    assert_same(torch, yaten.add(from_torch(xi), from_torch(xi), alpha=-2), torch.add(xi, xi, alpha=-2))


@pytest.mark.parametrize("alpha", [2, 0.5, True])
@pytest.mark.parametrize("op, dtype", [("add", "int64"), ("add", "int8"), ("add", "bool"), ("add", "float32"),
                                       ("sub", "int64"), ("sub", "float32")])  # sub refuses bool tensors anyway
def test_alpha_kind_is_checked_like_torch(torch, op, dtype, alpha):
    # torch refuses a floating alpha for integral results and a bool alpha for non-bool ones (yaten truncated them)
    t = torch.tensor([1, 0, 1]).to(getattr(torch, dtype))
    try:
        expected = getattr(torch, op)(t, t, alpha=alpha)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).split(": ")[-1][:40].replace(".", r"\.")):
            getattr(yaten, op)(from_torch(t), from_torch(t), alpha=alpha)
        return
    assert_same(torch, getattr(yaten, op)(from_torch(t), from_torch(t), alpha=alpha), expected)


def test_broadcasting_matches_torch_on_many_shapes(torch):
    gen = torch.Generator().manual_seed(0)
    shapes = [((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (5, 1, 1)), ((), (2, 2)), ((0, 3), (3,)), ((4, 0), (1,))]
    for sa, sb in shapes:
        x = torch.rand(sa, generator=gen)
        y = torch.rand(sb, generator=gen)
        assert_same(torch, yaten.add(from_torch(x), from_torch(y)), x + y)
        assert_same(torch, yaten.mul(from_torch(y), from_torch(x)), y * x)


def test_shapes_that_do_not_broadcast_raise_runtime_error():
    with pytest.raises(RuntimeError, match=r"add.Tensor: the size of tensor a \(3\) must match the size of tensor b "
                                           r"\(4\) at non-singleton dimension 1"):
        yaten.add(yaten.zeros(2, 3), yaten.zeros(4))


def test_inplace_add_and_mul_return_self_and_keep_dtype(torch):
    x = yaten.tensor([1.0, 2.0, 3.0])
    assert x.add_(yaten.tensor([1, 1, 1])) is x
    assert x.mul_(2) is x
    assert x.add_(1, alpha=3) is x
    assert x.tolist() == [7.0, 9.0, 11.0] and x.dtype == yaten.float32
    y = x
    y += 1
    y *= yaten.tensor(2.0)
    assert y is x and x.tolist() == [16.0, 20.0, 24.0]
    h = yaten.ones(3, dtype=yaten.float16)
    h.add_(yaten.tensor([0.5, 1.5, 2.5], dtype=yaten.float64))  # computed in float64, written back as float16
    assert h.dtype == yaten.float16 and h.tolist() == [1.5, 2.5, 3.5]


def test_inplace_that_would_change_dtype_or_shape_raises_like_torch(torch):
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        yaten.tensor([1, 2]).add_(1.5)
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).add_(1.5)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        yaten.zeros(3).add_(yaten.zeros(2, 3))


def test_out_writes_into_the_given_tensor(torch):
    a, b = yaten.tensor([1.0, 2.0]), yaten.tensor([3.0, 4.0])
    out = yaten.empty(2)
    assert yaten.add(a, b, out=out) is out and out.tolist() == [4.0, 6.0]
    assert yaten.mul(a, b, out=out) is out and out.tolist() == [3.0, 8.0]
    out64 = yaten.empty(2, dtype=yaten.float64)
    yaten.div(a, b, out=out64)
    assert out64.dtype == yaten.float64 and out64.tolist() == pytest.approx([1 / 3, 0.5])
    fresh = yaten.empty(0)
    assert yaten.sub(a, b, out=fresh) is fresh and fresh.tolist() == [-2.0, -2.0] and fresh.shape == (2,)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        yaten.add(a, b, out=yaten.empty(2, dtype=yaten.int64))


def test_integer_division_is_true_division(torch):
    x, y = torch.tensor([7, -7, 1, 0]), torch.tensor([2, 2, 0, 0])
    assert_same(torch, yaten.div(from_torch(x), from_torch(y)), torch.div(x, y))
    assert_same(torch, from_torch(x) / 2, x / 2)


def test_bool_arithmetic_follows_torch(torch):
    a = torch.tensor([True, False, True])
    b = torch.tensor([True, True, False])
    assert_same(torch, yaten.add(from_torch(a), from_torch(b)), a + b)
    assert_same(torch, yaten.mul(from_torch(a), from_torch(b)), a * b)
    with pytest.raises(RuntimeError):
        yaten.sub(from_torch(a), from_torch(b))
    with pytest.raises(RuntimeError):
        -from_torch(a)


def test_integer_overflow_wraps_like_torch(torch):
    x = torch.tensor([100, 120, -128], dtype=torch.int8)
    assert_same(torch, from_torch(x) + 100, x + 100)
    assert_same(torch, from_torch(x) * 3, x * 3)


def test_float_specials_propagate(torch):
    x = torch.tensor([0.0, -0.0, float("inf"), float("nan"), 1.0])
    y = torch.tensor([0.0, 1.0, float("-inf"), 1.0, -0.0])
    for name in ("add", "sub", "mul", "div"):
        assert_same(torch, getattr(yaten, name)(from_torch(x), from_torch(y)), getattr(torch, name)(x, y))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_rounds_to_nearest_even_like_torch(torch, dtype):
    # Values around every rounding case: ties, subnormals, overflow to inf, NaN.
    import struct

    gen = torch.Generator().manual_seed(5)
    bits = torch.randint(0, 2**31 - 1, (4000,), generator=gen).tolist()
    values = [struct.unpack("<f", struct.pack("<I", b ^ (s << 31)))[0] for b, s in zip(bits, itertools.cycle([0, 1]))]
    values += [65504.0, 65520.0, 65519.99, 6.0e-8, 3.0e-8, 2.98e-8, 1.0 + 2**-11, 1.0 + 3 * 2**-11, 2**-24, -0.0]
    values = [v for v in values if v == v]  # NaN payloads are compared separately
    expected = torch.tensor(values, dtype=torch.float32).to(getattr(torch, dtype))
    actual = yaten.tensor(values, dtype=yaten.float32).to(getattr(yaten, dtype))
    assert to_torch(torch, actual).float().tolist() == expected.float().tolist()
    nan = yaten.tensor([float("nan")]).to(getattr(yaten, dtype)).float().tolist()[0]
    assert nan != nan


def test_factories_match_torch(torch):
    assert_same(torch, yaten.zeros(2, 3), torch.zeros(2, 3))
    assert_same(torch, yaten.zeros((2, 3), dtype=yaten.int16), torch.zeros((2, 3), dtype=torch.int16))
    assert_same(torch, yaten.ones([4]), torch.ones([4]))
    assert_same(torch, yaten.ones(2, 2, dtype=yaten.bool), torch.ones(2, 2, dtype=torch.bool))
    assert_same(torch, yaten.full((2, 2), 7), torch.full((2, 2), 7))
    assert_same(torch, yaten.full((2,), 1.5), torch.full((2,), 1.5))
    assert_same(torch, yaten.full((2,), True), torch.full((2,), True))
    assert_same(torch, yaten.full((3,), 2, dtype=yaten.float64), torch.full((3,), 2, dtype=torch.float64))
    assert_same(torch, yaten.zeros(0, 3), torch.zeros(0, 3))
    e = yaten.empty(3, 4, dtype=yaten.int32)
    assert e.shape == (3, 4) and e.dtype == yaten.int32 and e.is_contiguous()


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((1, 10, 3), {}), ((10, 0, -3), {}), ((0, 1, 0.1), {}), ((-2.5, 2.5, 0.5), {}), ((0,), {}),
    ((5,), {"dtype": "float16"}), ((1, 4), {"dtype": "float64"}), ((0.5, 3), {"dtype": "int32"}), ((3.0,), {}),
])
def test_arange_matches_torch(torch, args, kwargs):
    expected = torch.arange(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    actual = yaten.arange(*args, **{k: getattr(yaten, v) for k, v in kwargs.items()})
    assert_same(torch, actual, expected)


def test_arange_bad_input_raises():
    with pytest.raises(RuntimeError, match="arange: step must be nonzero"):
        yaten.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        yaten.arange(5, 0, 1)
    with pytest.raises(NotImplementedError, match=r"arange.start: no CPU kernel for dtype bool \(ops.yaml declares"):
        yaten.arange(3, dtype=yaten.bool)


def test_clone_and_contiguous(torch):
    x = yaten.tensor([[1, 2], [3, 4]], dtype=yaten.int16)
    c = x.clone()
    assert c.tolist() == x.tolist() and c.dtype == x.dtype and c.data_ptr() != x.data_ptr()
    c.add_(1)
    assert x.tolist() == [[1, 2], [3, 4]]
    assert x.contiguous() is not None and x.contiguous().data_ptr() == x.data_ptr()


def test_copy_converts_and_broadcasts(torch):
    dst = yaten.zeros(2, 3, dtype=yaten.int32)
    assert dst.copy_(yaten.tensor([1.7, -2.2, 3.9])) is dst
    expected = torch.zeros(2, 3, dtype=torch.int32).copy_(torch.tensor([1.7, -2.2, 3.9]))
    assert_same(torch, dst, expected)
    for a, b in itertools.product(DTYPE_NAMES, repeat=2):
        src = torch.tensor([0, 1, 3, 5], dtype=getattr(torch, a))
        out = torch.empty(4, dtype=getattr(torch, b)).copy_(src)
        got = yaten.empty(4, dtype=ydtype(b)).copy_(from_torch(src))
        assert_same(torch, got, out)


def assert_matches(torch, actual, expected):
    """Same dtype and shape; integer and bool results exactly equal; float results within torch's default
    tolerance for the dtype (libm and torch's vectorized math may differ in the last bit)."""
    assert str(actual.dtype).split(".")[1] == str(expected.dtype).split(".")[1], (actual.dtype, expected.dtype)
    if expected.dtype.is_floating_point:
        assert tuple(actual.shape) == tuple(expected.shape)
        torch.testing.assert_close(to_torch(torch, actual), expected, equal_nan=True)
    else:
        assert_same(torch, actual, expected)


DERIVED = [op for op in OPS if op.derived_from is not None and op.forward_to is None]
SCALAR_FORMS = [op for op in OPS if op.forward_to is not None]


BY_NAME = {op.schema.full_name: op for op in OPS}


@pytest.mark.parametrize("op", DERIVED, ids=[op.schema.full_name for op in DERIVED])
def test_derived_inplace_and_out_forms_match_torch(torch, op):
    gen = torch.Generator().manual_seed(zlib.crc32(op.schema.full_name.encode()))
    base = BY_NAME[op.derived_from]
    name = op.schema.base_name
    dtype = "float32" if "float32" in base.dtypes["CPU"] else "int32"
    n_inputs = len([a for a in op.schema.arguments if a.type.is_tensor and not (a.keyword_only and a.type.is_mutable)])
    inputs = [random_torch(torch, dtype, (3, 4) if i == 0 else (4,), gen, 1, 5) for i in range(n_inputs)]
    kwargs = EXTRA_ARGS.get(base.schema.full_name, {})
    ours, theirs = functions(torch, base)
    expected = theirs(*inputs, **kwargs)
    if op.schema.is_inplace:
        target = from_torch(inputs[0])
        result = getattr(target, name + "_")(*[from_torch(t) for t in inputs[1:]], **kwargs)
        assert result is target
    else:
        target = yaten.empty(0, dtype=getattr(yaten, str(expected.dtype).split(".")[1]))
        result = ours(*[from_torch(t) for t in inputs], out=target, **kwargs)
        assert result is target
    assert_matches(torch, target, expected)


@pytest.mark.parametrize("op", SCALAR_FORMS, ids=[op.schema.full_name for op in SCALAR_FORMS])
@pytest.mark.parametrize("dtype", ["int32", "float16", "float32"])
@pytest.mark.parametrize("number", [3, 2.5, True], ids=repr)
def test_scalar_forms_match_torch(torch, op, dtype, number):
    """`forms: [scalar]`: the number takes part in type promotion as torch's wrapped numbers do."""
    gen = torch.Generator().manual_seed(zlib.crc32(op.schema.full_name.encode()))
    name = op.schema.name
    n_tensors = len([a for a in op.schema.arguments if a.type.is_tensor and not a.keyword_only])
    inputs = [random_torch(torch, dtype, (3, 4) if i == 0 else (4,), gen, 1, 5) for i in range(n_tensors)]
    if op.schema.is_inplace:  # methods
        ours_fn = lambda first, *rest, **kw: getattr(first, name)(*rest, **kw)  # noqa: E731
        theirs_fn = lambda first, *rest: getattr(first.clone(), name)(*rest)  # noqa: E731
    else:  # functions, in their namespace (yaten.special.zeta beside torch.special.zeta)
        ours_fn, theirs_fn = functions(torch, op)
    try:
        expected = theirs_fn(*inputs, number)
    except RuntimeError as e:  # torch refuses (an in-place result that cannot be cast, bool arithmetic, a dtype)
        with pytest.raises(RuntimeError):
            ours_fn(*[from_torch(t) for t in inputs], number)
        return
    if op.schema.is_inplace:
        target = from_torch(inputs[0])
        assert getattr(target, name)(*[from_torch(t) for t in inputs[1:]], number) is target
        actual = target
    elif op.schema.is_out:  # Scalar_out: an empty out= of the result's dtype, resized and returned
        target = yaten.empty(0, dtype=getattr(yaten, str(expected.dtype).split(".")[-1]))
        assert ours_fn(*[from_torch(t) for t in inputs], number, out=target) is target
        actual = target
    else:
        actual = ours_fn(*[from_torch(t) for t in inputs], number)
    assert_matches(torch, actual, expected)


def test_special_values_and_logical_ops_match_torch(torch):
    x = torch.tensor([0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf")])
    for name in ("isnan", "isinf", "isfinite", "logical_not"):
        assert_matches(torch, getattr(yaten, name)(from_torch(x)), getattr(torch, name)(x))
        assert_matches(torch, getattr(yaten, name)(from_torch(x.half())), getattr(torch, name)(x.half()))
    ints = torch.tensor([0, 3, -1, 0])
    for name in ("logical_and", "logical_or", "logical_xor"):
        assert_matches(torch, getattr(yaten, name)(from_torch(x[:4]), from_torch(ints)), getattr(torch, name)(x[:4], ints))


# ---------------------------------------------------------------------------------------------------- CPU kernels I, part 2

SPECIALS = [0.0, -0.0, 1.5, -2.5, float("nan"), float("inf"), float("-inf"), 7.0]


def test_clamp_and_clip_match_torch_with_every_kind_of_bound(torch):
    gen = torch.Generator().manual_seed(31)
    for dtype in ("int32", "float16", "float32", "float64"):
        t = random_torch(torch, dtype, (3, 4), gen)
        y = from_torch(t)
        for lo, hi in ((-2, 3), (None, 1.5), (0.5, None), (4, -4), (float("nan"), 1)):
            assert_matches(torch, yaten.clamp(y, lo, hi), torch.clamp(t, lo, hi))
            assert_matches(torch, y.clip(min=lo, max=hi), t.clip(min=lo, max=hi))
        lo_t, hi_t = random_torch(torch, dtype, (4,), gen), random_torch(torch, dtype, (3, 1), gen)
        assert_matches(torch, yaten.clamp(y, from_torch(lo_t), from_torch(hi_t)), torch.clamp(t, lo_t, hi_t))
        assert_matches(torch, yaten.clamp(y, max=from_torch(hi_t)), torch.clamp(t, max=hi_t))
        assert_matches(torch, yaten.clamp_min(y, 1), torch.clamp_min(t, 1))
        z = from_torch(t)
        assert z.clamp_(-1, 1) is z
        assert_matches(torch, z, t.clone().clamp_(-1, 1))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        yaten.clamp(yaten.zeros(2))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        yaten.arange(3).clamp_(0.5, 1)


def test_where_matches_torch_with_tensors_numbers_and_broadcasting(torch):
    gen = torch.Generator().manual_seed(32)
    cond = torch.rand(3, 1, generator=gen) > 0.5
    x = random_torch(torch, "int32", (4,), gen)
    f = random_torch(torch, "float16", (3, 4), gen)
    c, yx, yf = from_torch(cond), from_torch(x), from_torch(f)
    assert_matches(torch, yaten.where(c, yx, yf), torch.where(cond, x, f))
    assert_matches(torch, yaten.where(c, yx, 2.5), torch.where(cond, x, 2.5))
    assert_matches(torch, yaten.where(c, 7, yx), torch.where(cond, 7, x))
    assert_matches(torch, yaten.where(c, 1, 0), torch.where(cond, 1, 0))
    assert_matches(torch, yaten.where(c, 1.0, 0), torch.where(cond, 1.0, 0))
    with pytest.raises(RuntimeError, match="where: expected condition to be a boolean tensor, but got a tensor with "
                                           "dtype float32"):
        yaten.where(yaten.ones(2), yaten.ones(2), yaten.zeros(2))


def test_isclose_allclose_equal_nan_to_num_match_torch(torch):
    a = torch.tensor(SPECIALS)
    b = torch.tensor([0.0, 0.0, 1.5 + 1e-6, -2.4, float("nan"), float("inf"), float("inf"), 7.1])
    ya, yb = from_torch(a), from_torch(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1, "atol": 0.0}, {"atol": 0.2}):
        assert_matches(torch, yaten.isclose(ya, yb, **kw), torch.isclose(a, b, **kw))
        assert yaten.allclose(ya, yb, **kw) == torch.allclose(a, b, **kw)
    ints = torch.tensor([1, 5, 100])
    assert_matches(torch, yaten.isclose(from_torch(ints), from_torch(ints + 1), rtol=0.05), torch.isclose(ints, ints + 1, rtol=0.05))
    assert yaten.allclose(ya[:4], ya[:4]) and not yaten.allclose(ya, ya)
    assert yaten.equal(ya[:4], ya[:4].clone()) and not yaten.equal(ya[:4], yb[:4]) and not yaten.equal(ya, ya[:2])
    with pytest.raises(RuntimeError, match="isclose: expected both inputs to have the same dtype"):
        yaten.isclose(ya[:3], from_torch(ints))
    for dtype in ("float16", "bfloat16", "float32", "float64"):
        t = a.to(getattr(torch, dtype))
        assert_matches(torch, yaten.nan_to_num(from_torch(t)), torch.nan_to_num(t))
        assert_matches(torch, from_torch(t).nan_to_num(1.0, 9.0, -9.0), t.nan_to_num(1.0, 9.0, -9.0))


def test_division_modes_and_integer_division_by_zero_follow_torch(torch):
    x = torch.tensor([7, -7, 7, -7, 0, -128], dtype=torch.int64)
    y = torch.tensor([2, 2, -2, -2, 3, -1], dtype=torch.int64)
    for dtype in ("int8", "int32", "int64", "float32", "float64"):
        a, b = x.to(getattr(torch, dtype)), y.to(getattr(torch, dtype))
        for mode in (None, "trunc", "floor"):
            assert_matches(torch, yaten.div(from_torch(a), from_torch(b), rounding_mode=mode),
                           torch.div(a, b, rounding_mode=mode))
        assert_matches(torch, from_torch(a) % from_torch(b), a % b)
        assert_matches(torch, from_torch(a) // from_torch(b), a // b)
        assert_matches(torch, yaten.fmod(from_torch(a), from_torch(b)), torch.fmod(a, b))
    f = torch.tensor([5.5, -5.5, 0.0, -0.0, float("inf"), 1.0])
    g = torch.tensor([2.0, 2.0, -3.0, 3.0, 2.0, 0.0])
    for name in ("remainder", "fmod", "floor_divide"):
        assert_matches(torch, getattr(yaten, name)(from_torch(f), from_torch(g)), getattr(torch, name)(f, g))
    for fn in (lambda a, b: a // b, lambda a, b: a % b, lambda a, b: yaten.fmod(a, b)):
        with pytest.raises(ZeroDivisionError) as caught:
            fn(yaten.tensor([1, 2]), yaten.tensor([1, 0]))
        assert isinstance(caught.value, RuntimeError)  # what torch raises
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                                         "found 'round'"):
        yaten.div(yaten.ones(1), yaten.ones(1), rounding_mode="round")


def test_pow_with_numbers_on_either_side_and_integer_powers(torch):
    base = torch.tensor([-3, -1, 0, 1, 2, 5])
    exponent = torch.tensor([3, -1, 2, -5, 10, 0])
    assert_matches(torch, yaten.pow(from_torch(base), from_torch(exponent)), torch.pow(base, exponent))
    for number in (2, 0.5, -1.5, True):
        for t in (base, base.float(), base.half()):
            assert_matches(torch, from_torch(t) ** number, t ** number)
            assert_matches(torch, number ** from_torch(t.abs()), number ** t.abs())
    assert_matches(torch, yaten.square(from_torch(base > 0)), torch.square(base > 0))
    assert_matches(torch, yaten.square(from_torch(base.half())), torch.square(base.half()))


def test_python_operators_match_torch(torch):
    gen = torch.Generator().manual_seed(33)
    a = random_torch(torch, "int32", (3, 4), gen)
    b = random_torch(torch, "int32", (4,), gen, 1, 5)
    ya, yb = from_torch(a), from_torch(b)
    for symbol in ("%", "//", "&", "|", "^", "<<", ">>"):
        assert_matches(torch, eval(f"ya {symbol} yb"), eval(f"a {symbol} b"))
        assert_matches(torch, eval(f"ya {symbol} 3"), eval(f"a {symbol} 3"))
        assert_matches(torch, eval(f"5 {symbol} yb"), eval(f"5 {symbol} b"))
        target, expected = from_torch(a), a.clone()
        exec(f"target {symbol}= yb")
        exec(f"expected {symbol}= b")
        assert_matches(torch, target, expected)
    assert_matches(torch, ~ya, ~a)
    assert_matches(torch, ~from_torch(a > 0), ~(a > 0))
    assert_matches(torch, abs(ya), abs(a))
    assert_matches(torch, ya ** 2, a ** 2)
    assert (+ya) is ya


def test_activations_with_their_parameters_match_torch(torch):
    F = torch.nn.functional
    t = torch.tensor(SPECIALS + [0.3, -0.7, 25.0, -25.0, 3.0, -3.0])
    y = from_torch(t)
    YF = yaten.nn.functional
    cases = [
        ("hardtanh", (-0.5, 2.0)), ("leaky_relu", (0.2,)), ("elu", (0.5,)), ("softplus", (2.0, 5.0)),
        ("gelu", ()), ("relu6", ()), ("selu", ()), ("silu", ()), ("mish", ()), ("hardsigmoid", ()), ("hardswish", ()),
    ]
    for name, args in cases:
        actual, expected = getattr(YF, name)(y, *args), getattr(F, name)(t, *args)
        if name == "gelu":
            # torch's erf-gelu of +inf is nan on some builds and inf on others (its vectorized erf); the limit is inf
            assert actual[5].item() == float("inf")
            finite = torch.isfinite(t)
            actual, expected = from_torch(to_torch(torch, actual)[finite]), expected[finite]
        assert_matches(torch, actual, expected)
    assert_matches(torch, YF.gelu(y, approximate="tanh"), F.gelu(t, approximate="tanh"))
    assert_matches(torch, YF.relu(y), F.relu(t))
    with pytest.raises(RuntimeError, match="gelu: approximate must be 'none' or 'tanh', not 'fast'"):
        YF.gelu(y, approximate="fast")


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "gelu", "silu"])
def test_vectorized_float32_math_is_accurate_over_the_whole_range(torch, name):
    """The 8-lane float32 kernels on a dense sweep (both tails, subnormal results, overflow), strided too."""
    F = torch.nn.functional
    t = torch.cat([torch.linspace(-110, 95, 20001), torch.linspace(-1e-3, 1e-3, 1001),
                   torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0])])
    theirs = getattr(F, name) if name in ("gelu", "silu") else getattr(torch, name)
    ours = getattr(yaten.nn.functional, name) if name in ("gelu", "silu") else getattr(yaten, name)
    expected = theirs(t.double()).float()
    y = from_torch(t)
    torch.testing.assert_close(to_torch(torch, ours(y)), expected, equal_nan=True, rtol=2e-6, atol=1e-6)
    torch.testing.assert_close(to_torch(torch, ours(y[::3])), expected[::3], equal_nan=True, rtol=2e-6, atol=1e-6)


def test_masked_fill_out_of_place_broadcasts_like_torch(torch):
    t = torch.arange(6.0).reshape(2, 3)
    mask = torch.tensor([True, False, True])
    y = from_torch(t)
    assert_matches(torch, yaten.masked_fill(y, from_torch(mask), -1.0), torch.masked_fill(t, mask, -1.0))
    assert_matches(torch, y.masked_fill(from_torch(mask), 7), t.masked_fill(mask, 7))
    assert y.tolist() == t.tolist()


def test_out_with_a_wrong_shape_is_resized_with_torch_warning():
    out = yaten.zeros(5)
    with pytest.warns(UserWarning, match="an output with one or more elements was resized"):
        yaten.add(yaten.ones(2, 3), yaten.ones(3), out=out)
    assert out.shape == (2, 3) and out.tolist() == [[2.0] * 3] * 2


def test_outputs_follow_a_transposed_input_layout(torch):
    a = yaten.arange(12.0).reshape(3, 4).T
    r = a + 1
    assert r.stride() == a.stride() and r.tolist() == (torch.arange(12.0).reshape(3, 4).T + 1).tolist()
    s = yaten.arange(12.0).reshape(3, 4)[:, ::2] * 2  # not dense: contiguous result
    assert s.is_contiguous()


def test_functional_inplace_flags_write_into_the_input(torch):
    F, YF = torch.nn.functional, yaten.nn.functional
    t = torch.tensor([-2.0, -0.5, 0.5, 7.0])
    for name, args in (("relu", ()), ("relu6", ()), ("selu", ()), ("hardtanh", (-1.0, 1.0)), ("leaky_relu", (0.1,)),
                       ("elu", (0.5,)), ("silu", ()), ("mish", ()), ("hardsigmoid", ()), ("hardswish", ())):
        y = from_torch(t)
        assert getattr(YF, name)(y, *args, inplace=True) is y
        assert_matches(torch, y, getattr(F, name)(t, *args))


def test_writing_into_an_expanded_tensor_is_refused_like_torch(torch):
    target = yaten.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single "
                                           "memory location"):
        target.add_(1)
    with pytest.raises(RuntimeError):
        torch.zeros(3).expand(2, 3).add_(1)
