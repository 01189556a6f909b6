"""Every op with a CUDA kernel against its CPU kernel, driven by ops.yaml.

For each op that declares a CUDA kernel and each dtype declared for CUDA, the CUDA result must equal the CPU result
(bool and integers exactly, floats and complex numbers within torch's default tolerances) over contiguous,
transposed, sliced, expanded and broadcast inputs, a CPU scalar operand, mixed input dtypes, a long vector (the
vectorized path with its tail), and through the in-place and out= forms. A new CUDA op is tested the moment it is declared. Skipped without a GPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import yaten
from codegen import parse
from test_ops import EXTRA_ARGS, LEADING_ARGS, NONZERO_DIVISOR, UNIT_DOMAIN, yaten_function

pytestmark = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")

OPS = parse.load(Path(__file__).resolve().parent.parent / "ops.yaml").ops
BY_NAME = {op.schema.full_name: op for op in OPS}
CUDA_POINTWISE = [op for op in OPS if op.is_pointwise and "CUDA" in op.dispatch and not op.schema.is_out
                  and not op.schema.is_inplace]
CASES = [(op, d) for op in CUDA_POINTWISE for d in op.dtypes["CUDA"]]
# torch.testing.assert_close's defaults
TOLERANCE = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
             "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}
SHIFTS = {"bitwise_left_shift", "bitwise_right_shift"}


def function_of(op):
    if op.python_module == "nn.functional":
        return getattr(yaten.nn.functional, op.schema.name)
    if op.python_module or op.schema.name in LEADING_ARGS:  # yaten._C._special's short names; polygamma's order
        return yaten_function(op)
    if "function" in op.variants:
        return getattr(yaten, op.schema.name, None) or getattr(yaten._C, op.schema.name)
    return lambda self, *args, **kwargs: getattr(self, op.schema.name)(*args, **kwargs)


def random_values(dtype: str, shape, seed: int):
    """A CPU tensor of `dtype`: small integers, or floats in [-8, 8)."""
    g = yaten.Generator().manual_seed(seed)
    if dtype == "bool":
        return yaten.randint(0, 2, shape, generator=g).to(yaten.bool)
    if dtype == "uint8":
        return yaten.randint(0, 9, shape, generator=g).to(yaten.uint8)
    if dtype.startswith("complex"):  # both parts in [-8, 8)
        parts = (yaten.rand(tuple(shape) + (2,), generator=g, dtype=yaten.float64) * 16 - 8)
        return yaten.view_as_complex(parts).to(getattr(yaten, dtype))
    if dtype in TOLERANCE:
        return (yaten.rand(shape, generator=g, dtype=yaten.float64) * 16 - 8).to(getattr(yaten, dtype))
    return yaten.randint(-8, 9, shape, generator=g).to(getattr(yaten, dtype))


def prepare(op, dtype, inputs):
    """Keeps the inputs in the op's domain: (-1, 1) for asin and friends, nonzero integer divisors, small shifts."""
    name = op.schema.name
    if name in UNIT_DOMAIN and dtype in TOLERANCE:
        inputs[0] = inputs[0] / 9
    if name in NONZERO_DIVISOR and len(inputs) > 1:
        inputs[1] = yaten.where(inputs[1] == 0, yaten.ones_like(inputs[1]), inputs[1])
    if name in SHIFTS:
        inputs[1] = inputs[1].abs() if dtype != "uint8" else inputs[1]
    return inputs


def layouts(op, dtype, seed):
    """(name, CPU inputs) for each layout; CUDA gets the same values in the same layout."""
    n = sum(1 for a in op.schema.arguments if a.type.is_tensor)
    base = [random_values(dtype, (4, 6), seed + k) for k in range(n)]
    yield "contiguous", base
    yield "transposed", [random_values(dtype, (6, 4), seed + k).t() for k in range(n)]
    yield "sliced", [random_values(dtype, (4, 12), seed + k)[:, ::2] for k in range(n)]
    yield "expanded", [random_values(dtype, (1, 6), seed + k).expand(4, 6) for k in range(n)]
    if n > 1:
        yield "broadcast", [base[0]] + [random_values(dtype, (6,), seed + 10 + k) for k in range(1, n)]
        yield "column_broadcast", [base[0]] + [random_values(dtype, (4, 1), seed + 20 + k) for k in range(1, n)]
    yield "long", [random_values(dtype, (1027,), seed + k) for k in range(n)]


def to_cuda(t):
    return t.cuda() if isinstance(t, yaten.Tensor) else t


def assert_cuda_matches_cpu(actual, expected, context):
    assert actual.is_cuda, context
    assert actual.dtype == expected.dtype, (context, actual.dtype, expected.dtype)
    assert tuple(actual.shape) == tuple(expected.shape), context
    name = repr(expected.dtype).split(".")[1]
    got = actual.cpu()
    if name in TOLERANCE:
        rtol, atol = TOLERANCE[name]
        wide = yaten.complex128 if expected.dtype.is_complex else yaten.float64
        np.testing.assert_allclose(got.to(wide).numpy(), expected.to(wide).numpy(), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=str(context))
    else:
        np.testing.assert_array_equal(got.numpy(), expected.numpy(), err_msg=str(context))


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{op.schema.full_name}-{d}" for op, d in CASES])
def test_cuda_matches_cpu_for_every_layout(op, dtype):
    fn = function_of(op)
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    for layout, inputs in layouts(op, dtype, seed=len(op.schema.full_name)):
        inputs = prepare(op, dtype, list(inputs))
        expected = fn(*inputs, **kwargs)
        actual = fn(*[to_cuda(t) for t in inputs], **kwargs)
        assert_cuda_matches_cpu(actual, expected, (op.schema.full_name, dtype, layout))


@pytest.mark.parametrize("op,dtype", [(op, d) for op, d in CASES if sum(a.type.is_tensor for a in op.schema.arguments) > 1],
                         ids=[f"{op.schema.full_name}-{d}" for op, d in CASES
                              if sum(a.type.is_tensor for a in op.schema.arguments) > 1])
def test_cuda_takes_a_cpu_scalar_operand(op, dtype):
    """A 0-dim CPU tensor (how Python numbers arrive) joins a CUDA op: passed by value, never copied over."""
    fn = function_of(op)
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    n = sum(1 for a in op.schema.arguments if a.type.is_tensor)
    inputs = prepare(op, dtype, [random_values(dtype, (5, 7), 1)] + [random_values(dtype, (), 2 + k)
                                                                       for k in range(1, n)])
    expected = fn(*inputs, **kwargs)
    actual = fn(inputs[0].cuda(), *inputs[1:], **kwargs)
    assert_cuda_matches_cpu(actual, expected, (op.schema.full_name, dtype))


MIXED = [op for op in CUDA_POINTWISE if sum(a.type.is_tensor for a in op.schema.arguments) > 1
         and "float32" in op.dtypes["CUDA"]]


@pytest.mark.parametrize("op", MIXED, ids=[op.schema.full_name for op in MIXED])
def test_cuda_converts_mixed_input_dtypes_in_the_kernel(op):
    fn = function_of(op)
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    n = sum(1 for a in op.schema.arguments if a.type.is_tensor)
    inputs = prepare(op, "float32", [random_values("float32", (3, 5), 3)] +
                     [random_values("int32", (3, 5), 4 + k) for k in range(1, n)])
    try:
        expected = fn(*inputs, **kwargs)
    except (RuntimeError, TypeError) as e:  # the op refuses the mix on the CPU: CUDA must refuse it too
        with pytest.raises(type(e)):
            fn(*[t.cuda() for t in inputs], **kwargs)
        return
    actual = fn(*[t.cuda() for t in inputs], **kwargs)
    assert_cuda_matches_cpu(actual, expected, op.schema.full_name)


INPLACE = [(op, BY_NAME[name]) for op in CUDA_POINTWISE
           for name in [op.schema.full_name.replace(op.schema.name, op.schema.name + "_", 1)]
           if name in BY_NAME and "CUDA" in BY_NAME[name].dispatch]
OUT = [op for op in CUDA_POINTWISE if any(o.derived_from == op.schema.full_name and o.schema.is_out for o in OPS)]


@pytest.mark.parametrize("op,inplace", INPLACE, ids=[i.schema.full_name for _, i in INPLACE])
def test_cuda_inplace_form_matches_cpu(op, inplace):
    dtype = "float32" if "float32" in op.dtypes["CUDA"] else op.dtypes["CUDA"][-1]
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    n = sum(1 for a in op.schema.arguments if a.type.is_tensor)
    for layout in ("contiguous", "transposed"):
        inputs = prepare(op, dtype, [random_values(dtype, (4, 6), 5 + k) for k in range(n)])
        if layout == "transposed":
            inputs[0] = inputs[0].t().contiguous().t()
        cpu_self, cuda_self = inputs[0].clone(), inputs[0].cuda()
        if layout == "transposed":
            cuda_self = inputs[0].t().contiguous().cuda().t()
        lead = LEADING_ARGS.get(op.schema.name, ())  # polygamma_(self, n)
        getattr(cpu_self, op.schema.name + "_")(*lead, *inputs[1:], **kwargs)
        result = getattr(cuda_self, op.schema.name + "_")(*lead, *[t.cuda() for t in inputs[1:]], **kwargs)
        assert result is cuda_self
        assert_cuda_matches_cpu(cuda_self, cpu_self, (inplace.schema.full_name, layout))


@pytest.mark.parametrize("op", OUT, ids=[op.schema.full_name for op in OUT])
def test_cuda_out_form_matches_cpu(op):
    dtype = "float32" if "float32" in op.dtypes["CUDA"] else op.dtypes["CUDA"][-1]
    # yaten.nn.functional's Python wrappers take inplace= as torch's do; the generated binding takes out=
    fn = getattr(yaten._C._nn_functional, op.schema.name) if op.python_module == "nn.functional" else function_of(op)
    kwargs = EXTRA_ARGS.get(op.schema.full_name, {})
    n = sum(1 for a in op.schema.arguments if a.type.is_tensor)
    inputs = prepare(op, dtype, [random_values(dtype, (4, 6), 9 + k) for k in range(n)])
    expected = fn(*inputs, **kwargs)
    out = yaten.empty((4, 6), dtype=expected.dtype, device="cuda")
    result = fn(*[t.cuda() for t in inputs], **kwargs, out=out)
    assert result is out
    assert_cuda_matches_cpu(out, expected, op.schema.full_name)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_where_and_masked_fill_on_cuda(dtype):
    a, b = random_values(dtype, (4, 6), 1), random_values(dtype, (6,), 2)
    mask = random_values("bool", (4, 6), 3)
    assert_cuda_matches_cpu(yaten.where(mask.cuda(), a.cuda(), b.cuda()), yaten.where(mask, a, b), "where")
    assert_cuda_matches_cpu(yaten.where(mask.cuda(), a.cuda(), 1), yaten.where(mask, a, 1), "where scalar")
    assert_cuda_matches_cpu(a.cuda().masked_fill(mask.cuda(), 1), a.masked_fill(mask, 1), "masked_fill")


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_factories_on_cuda_match_cpu(dtype):
    d = getattr(yaten, dtype)
    for make in (lambda dev: yaten.zeros(3, 5, dtype=d, device=dev), lambda dev: yaten.ones(7, dtype=d, device=dev),
                 lambda dev: yaten.full((2, 3), 5, dtype=d, device=dev), lambda dev: yaten.arange(2, 40, 3, dtype=d, device=dev),
                 lambda dev: yaten.eye(4, 5, dtype=d, device=dev), lambda dev: yaten.zeros_like(yaten.ones(2, 2, dtype=d, device=dev)),
                 lambda dev: yaten.full_like(yaten.ones(3, dtype=d, device=dev), 2)):
        assert_cuda_matches_cpu(make("cuda"), make("cpu"), dtype)
    assert_cuda_matches_cpu(yaten.linspace(0, 1, 11, device="cuda"), yaten.linspace(0, 1, 11), "linspace")
    assert_cuda_matches_cpu(yaten.arange(0.5, 3.0, 0.25, device="cuda"), yaten.arange(0.5, 3.0, 0.25), "arange float")


@pytest.mark.parametrize("src", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                                 "float64"])
def test_copies_convert_every_dtype_pair_on_the_device(src):
    x = random_values(src, (5, 6), 4)
    for dst in ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]:
        d = getattr(yaten, dst)
        expected = x.to(d)
        assert_cuda_matches_cpu(x.cuda().to(d), expected, (src, dst, "device"))          # on the device
        assert_cuda_matches_cpu(x.to("cuda", d), expected, (src, dst, "host to device"))
        assert x.cuda().to("cpu", d).tolist() == expected.tolist()                          # device to host
        out = yaten.empty((6, 5), dtype=d, device="cuda").t()                               # into a strided view
        out.copy_(x.cuda())
        assert_cuda_matches_cpu(out, expected, (src, dst, "strided destination"))


def test_strided_copies_stay_on_the_device_and_broadcast():
    m = random_values("float32", (64, 48), 5)
    g = m.cuda()
    assert_cuda_matches_cpu(g.t().contiguous(), m.t().contiguous(), "transpose")
    assert_cuda_matches_cpu(g[::3, 1::2].contiguous(), m[::3, 1::2].contiguous(), "slices")
    target = yaten.zeros(5, 48, device="cuda")
    target.copy_(g[0])  # broadcast a row
    assert_cuda_matches_cpu(target, m[0].expand(5, 48).contiguous(), "broadcast copy")
    host = yaten.zeros(48, 64)
    host.t().copy_(g)  # device to a strided host view
    assert host.t().tolist() == m.tolist()


# ------------------------------------------------------------------------------------------------ reductions

# How each reduction with a CUDA kernel is called: (x, dims or None, keepdim). A reduction given a CUDA kernel in
# ops.yaml without an entry here fails test_every_cuda_reduction_is_exercised.
REDUCTION_CALLS = {
    "sum": lambda x, dims, keep: x.sum() if dims is None else x.sum(dims, keepdim=keep),
    "mean": lambda x, dims, keep: x.mean() if dims is None else x.mean(dims, keepdim=keep),
    "prod": lambda x, dims, keep: x.prod() if dims is None else x.prod(dims[0], keepdim=keep),
    "amax": lambda x, dims, keep: x.amax() if dims is None else x.amax(dims, keepdim=keep),
    "amin": lambda x, dims, keep: x.amin() if dims is None else x.amin(dims, keepdim=keep),
    "all": lambda x, dims, keep: x.all() if dims is None else yaten.all(x, dims, keepdim=keep),
    "any": lambda x, dims, keep: x.any() if dims is None else yaten.any(x, dims, keepdim=keep),
    "softmax": lambda x, dims, keep: x.softmax(-1 if dims is None else dims[-1]),  # keepdim does not apply
    "log_softmax": lambda x, dims, keep: x.log_softmax(-1 if dims is None else dims[-1]),
    # with indices: a single dim (the last of `dims`), or the flattened tensor
    "max": lambda x, dims, keep: tuple(x.reshape(-1).max(0, keepdim=keep) if dims is None else
                                       x.max(dims[-1], keepdim=keep)),
    "min": lambda x, dims, keep: tuple(x.reshape(-1).min(0, keepdim=keep) if dims is None else
                                       x.min(dims[-1], keepdim=keep)),
    "argmax": lambda x, dims, keep: x.argmax() if dims is None else x.argmax(dims[-1], keepdim=keep),
    "argmin": lambda x, dims, keep: x.argmin() if dims is None else x.argmin(dims[-1], keepdim=keep),
    "var_mean": lambda x, dims, keep: tuple(yaten.var_mean(x, dims, keepdim=keep)),
    # scans: along the last of `dims` (keepdim does not apply)
    "cumsum": lambda x, dims, keep: x.cumsum(-1 if dims is None else dims[-1]),
    "cumprod": lambda x, dims, keep: x.cumprod(-1 if dims is None else dims[-1]),
    "cummax": lambda x, dims, keep: tuple(x.cummax(-1 if dims is None else dims[-1])),
    "cummin": lambda x, dims, keep: tuple(x.cummin(-1 if dims is None else dims[-1])),
    "logcumsumexp": lambda x, dims, keep: x.logcumsumexp(-1 if dims is None else dims[-1]),
}
CUDA_REDUCTIONS = [op for op in OPS if "reduction" in op.tags and "CUDA" in op.dispatch]
REDUCTION_CASES = sorted({(op.schema.name, d) for op in CUDA_REDUCTIONS for d in op.dtypes["CUDA"]})
# (shape, dims): the whole tensor (split into segments when long), the last dim (a row per output), the leading
# dims (a column per output), dims that need moving last, a long row reduced by a block, and long rows cut into
# segments whose starts are not 16-byte aligned (rows of an odd length: the element-wise interleaved path)
REDUCTION_LAYOUTS = [((3, 5, 7), None), ((3, 5, 7), [2]), ((3, 5, 7), [0]), ((3, 5, 7), [0, 1]),
                     ((3, 5, 7), [0, 2]), ((4, 3000), [1]), ((3000, 6), [0]), ((200003,), None), ((2, 70000), [1]),
                     ((3, 100001), [1])]


def test_every_cuda_reduction_is_exercised():
    assert {op.schema.name for op in CUDA_REDUCTIONS} <= set(REDUCTION_CALLS)


@pytest.mark.parametrize("name,dtype", REDUCTION_CASES, ids=[f"{n}-{d}" for n, d in REDUCTION_CASES])
def test_cuda_reduction_matches_cpu(name, dtype):
    call = REDUCTION_CALLS[name]
    for shape, dims in REDUCTION_LAYOUTS:
        if name == "prod" and dims is not None and len(dims) > 1:
            continue
        x = random_values(dtype, shape, 11)
        if name.endswith("softmax") and x.dim() == 1 and x.numel() > 100000:
            x = x.reshape(1, -1)  # softmax of one long row: the three-pass path
        if name in ("prod", "cumprod") and dtype in TOLERANCE:
            x = x / 8 + 1  # products of many values near 1
        if name == "prod" and x.dtype.is_complex:
            x = x / x.abs()  # unit moduli: no product of 3000 overflows in one order and not in another
        for keep in (False, True):
            results = call(x, dims, keep), call(x.cuda(), dims, keep)
            if not isinstance(results[0], tuple):
                results = (results[0],), (results[1],)
            for expected, actual in zip(*results):
                check_reduction(name, dtype, shape, dims, keep, x, expected, actual)


def check_reduction(name, dtype, shape, dims, keep, x, expected, actual):
    n = x.numel() // max(expected.numel(), 1)
    if name.startswith("cum"):
        n = x.shape[-1 if dims is None else dims[-1]] if x.dim() else 1  # a scan's last sum has them all
    if repr(expected.dtype).split(".")[1] in TOLERANCE:
        # another summation order: error grows with the count
        rtol, _ = TOLERANCE[repr(expected.dtype).split(".")[1]]
        wide = yaten.complex128 if expected.dtype.is_complex else yaten.float64
        got, want = actual.cpu().to(wide).numpy(), expected.to(wide).numpy()
        scale = max(1.0, float(np.abs(want).max(initial=0)))
        np.testing.assert_allclose(got, want, rtol=max(rtol, 1e-5), atol=scale * max(rtol, 1e-6) * n ** 0.5,
                                   equal_nan=True, err_msg=str((name, dtype, shape, dims, keep)))
        assert actual.dtype == expected.dtype and tuple(actual.shape) == tuple(expected.shape)
    else:
        assert_cuda_matches_cpu(actual, expected, (name, dtype, shape, dims, keep))


def test_cuda_extremes_scans_and_var_follow_the_cpu_on_nan_ties_and_edges():
    nan = float("nan")
    for values in ([1.0, 3.0, 3.0, nan, 2.0, nan], [5.0, 5.0, -1.0, 5.0], [-float("inf")] * 3):
        x = yaten.tensor(values)
        for fn in (lambda t: tuple(t.max(0)), lambda t: tuple(t.min(0)), lambda t: t.argmax(), lambda t: t.argmin(),
                   lambda t: tuple(t.cummax(0)), lambda t: tuple(t.cummin(0)), lambda t: t.cumsum(0)):
            want, got = fn(x), fn(x.cuda())
            for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                np.testing.assert_array_equal(g.cpu().numpy(), w.numpy(), err_msg=str(values))
    long = yaten.zeros(100_000)
    long[77_777] = 1.0
    long[88_888] = 1.0  # the first of two maxima, across segments
    assert long.cuda().argmax().item() == 77_777 and tuple(long.cuda().max(0))[1].item() == 77_777
    x = random_values("float64", (6, 9), 3)
    for correction in (0, 1, 2):
        want, got = yaten.var_mean(x, [1], correction=correction), yaten.var_mean(x.cuda(), [1], correction=correction)
        for w, g in zip(want, got):
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-12)
    assert np.isnan(yaten.var_mean(yaten.ones(1, device="cuda"))[0].item())  # one element, correction 1
    with pytest.raises(IndexError, match="non-zero size"):
        yaten.empty(3, 0, device="cuda").max(1)
    with pytest.raises(RuntimeError, match="numel"):
        yaten.empty(0, device="cuda").argmax()
    assert yaten.empty(0, 4, device="cuda").cumsum(0).shape == (0, 4)
    assert yaten.tensor([True, True, False], device="cuda").cumsum(0).cpu().tolist() == [1, 2, 2]


def test_rows_of_millions_scanned_by_cub_device_scan_equal_the_cpu():
    # up to four rows of 2^20 elements or more: cumsum of floating dtypes in one pass (cub::DeviceScan), the others
    # (cumprod, integers, five rows) by the blocks' passes; integers in double sum exactly, NaN sticks
    g = yaten.Generator().manual_seed(9)
    for shape in ((2**21 + 3,), (2, 2**20 + 5), (4, 2**20), (5, 2**20)):
        x = yaten.randint(-3, 4, shape, generator=g).to(yaten.float64)
        x.reshape(-1)[2**20 + 1] = float("nan")
        np.testing.assert_array_equal(x.cuda().cumsum(-1).cpu().numpy(), x.cumsum(-1).numpy(), err_msg=str(shape))
        for dtype in (yaten.float32, yaten.float16, yaten.bfloat16):
            t = x.nan_to_num(0.0).to(dtype)  # exact in double, then rounded once to the dtype: equal bits
            np.testing.assert_array_equal(t.cuda().cumsum(-1).float().cpu().numpy(), t.cumsum(-1).float().numpy(),
                                          err_msg=str((shape, dtype)))
        i = x.nan_to_num(0.0).to(yaten.int32)
        np.testing.assert_array_equal(i.cuda().cumsum(-1).cpu().numpy(), i.cumsum(-1).numpy())


def test_long_rows_scanned_in_chunks_and_reduced_in_segments_equal_the_cpu():
    # rows long enough to be cut into chunks (scans) and segments (max/argmax/var_mean), with ties, NaN and
    # infinities on both sides of the cuts
    g = yaten.Generator().manual_seed(8)
    for shape in ((1_000_003,), (3, 400_001)):
        x = yaten.randint(-3, 4, shape, generator=g).to(yaten.float64)  # few values: long runs of ties
        flat = x.reshape(-1)
        for at in (5, 65_536, 300_000, flat.numel() - 2):
            flat[at] = float("nan")
        for fn in (lambda t: t.cumsum(-1), lambda t: tuple(t.cummax(-1)), lambda t: tuple(t.cummin(-1)),
                   lambda t: tuple(t.max(-1)), lambda t: tuple(t.min(-1)), lambda t: t.argmax(-1)):
            want, got = fn(x), fn(x.cuda())
            for w, c in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                np.testing.assert_array_equal(c.cpu().numpy(), w.numpy())  # integers in double: sums are exact
        y = x.nan_to_num(0.0) * 1e-3 + 1.0
        np.testing.assert_allclose(y.cuda().cumprod(-1).cpu().numpy(), y.cumprod(-1).numpy(), rtol=1e-10)
        i = x.nan_to_num(0.0).to(yaten.int64)
        np.testing.assert_array_equal(i.cuda().cumsum(-1).cpu().numpy(), i.cumsum(-1).numpy())
        for t in (x.nan_to_num(0.0) + 1e4, x.nan_to_num(0.0).float()):  # a large mean: the shifted sums hold
            for w, c in zip(yaten.var_mean(t, [-1]), yaten.var_mean(t.cuda(), [-1])):
                np.testing.assert_allclose(c.cpu().numpy(), w.numpy(), rtol=1e-6 if t.dtype == yaten.float32 else 1e-12)
    inf = yaten.ones(100_000, dtype=yaten.float64)
    inf[70_000] = float("inf")
    var, mean = yaten.var_mean(inf.cuda())
    assert np.isnan(var.item()) and mean.item() == float("inf")  # as the CPU: the mean is infinite, the var NaN
    var, mean = yaten.var_mean(inf)
    assert np.isnan(var.item()) and mean.item() == float("inf")


def test_bad_indices_raise_the_cpus_index_error_on_cuda():
    x = yaten.arange(24.0).reshape(4, 6)
    cases = [lambda t, i: t[i], lambda t, i: t[:, i], lambda t, i: t.index_select(1, i),
             lambda t, i: yaten.gather(t, 1, i.reshape(1, -1)), lambda t, i: t[i % 4, i]]
    for bad in ([0, 6, 2], [1, -7], [2**40], [-(2**62)]):
        for fn in cases:
            i = yaten.tensor(bad)
            with pytest.raises(IndexError) as cpu:
                fn(x, i)
            with pytest.raises(IndexError) as cuda:
                fn(x.cuda(), i.cuda())
            assert str(cuda.value) == str(cpu.value)
    assert x.cuda()[yaten.tensor([-1, 3]).cuda(), yaten.tensor([5, -6]).cuda()].cpu().tolist() == [23.0, 18.0]


def test_cuda_reductions_take_dtype_and_transposed_input():
    x = random_values("float32", (64, 33), 5)
    g = x.cuda()
    assert_cuda_matches_cpu(g.sum(dtype=yaten.float64), x.sum(dtype=yaten.float64), "sum dtype")
    assert_cuda_matches_cpu(g.t().sum(1), x.t().sum(1), "transposed rows")
    i = random_values("int32", (5, 6), 6)
    assert_cuda_matches_cpu(i.cuda().sum(0), i.sum(0), "int sum is int64")
    assert_cuda_matches_cpu(i.float().cuda().mean(), i.float().mean(), "mean")
    with pytest.raises(IndexError, match="amax"):
        yaten.empty(0, 3, device="cuda").amax(0)
    nan = yaten.tensor([1.0, float("nan"), 3.0], device="cuda")
    assert np.isnan(nan.amax().item()) and np.isnan(nan.sum().item())
    assert yaten.empty(0, device="cuda").sum().item() == 0.0 and np.isnan(yaten.empty(0, device="cuda").mean().item())
