"""torch's functions that yaten writes in Python (yaten/_torch_functions.py): isin, diff, take_along_dim,
broadcast_shapes, finfo, iinfo, each against torch's own values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import yaten
from helpers import from_torch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.float32, torch.float64])
@pytest.mark.parametrize("invert", [False, True])
def test_isin(dtype, invert):
    g = torch.Generator().manual_seed(0)
    elements = torch.randint(-5, 6, (4, 5), generator=g).to(dtype)
    tests = torch.randint(-5, 6, (7,), generator=g).to(dtype)
    expected = torch.isin(elements, tests, invert=invert)
    assert yaten.isin(from_torch(elements), from_torch(tests), invert=invert).tolist() == expected.tolist()
    assert yaten.isin(from_torch(elements), 3).tolist() == torch.isin(elements, 3).tolist()
    assert yaten.isin(2, from_torch(tests)).tolist() == torch.isin(2, tests).tolist()
    empty = torch.empty(0, dtype=dtype)
    assert yaten.isin(from_torch(elements), from_torch(empty)).tolist() == torch.isin(elements, empty).tolist()


def test_isin_of_nan_is_false_as_in_torch():
    values = torch.tensor([float("nan"), 1.0])
    assert yaten.isin(from_torch(values), from_torch(values)).tolist() == torch.isin(values, values).tolist()


@pytest.mark.parametrize("n", [0, 1, 2, 4])
@pytest.mark.parametrize("dim", [0, -1])
def test_diff(n, dim):
    t = torch.arange(24.0).reshape(4, 6) ** 2
    expected = torch.diff(t, n=n, dim=dim)
    assert yaten.diff(from_torch(t), n=n, dim=dim).tolist() == expected.tolist()
    pre = torch.ones(4, 6)[:1] if dim == 0 else torch.ones(4, 1)
    expected = torch.diff(t, n=n, dim=dim, prepend=pre, append=pre)
    got = yaten.diff(from_torch(t), n=n, dim=dim, prepend=from_torch(pre), append=from_torch(pre))
    assert got.tolist() == expected.tolist()
    flags = torch.tensor([True, False, False, True])
    assert yaten.diff(from_torch(flags)).tolist() == torch.diff(flags).tolist()
    with pytest.raises(RuntimeError):
        yaten.diff(yaten.tensor(1.0))


def test_take_along_dim():
    t = torch.arange(12.0).reshape(3, 4)
    index = torch.argsort(t, dim=1, descending=True)
    for dim in (0, 1, -1, None):
        idx = index if dim != 0 else index[:2] % 3
        expected = torch.take_along_dim(t, idx, dim=dim)
        assert yaten.take_along_dim(from_torch(t), from_torch(idx), dim=dim).tolist() == expected.tolist()
    broadcast = torch.tensor([[0], [3], [1]])
    assert yaten.take_along_dim(from_torch(t), from_torch(broadcast), 1).tolist() == \
        torch.take_along_dim(t, broadcast, 1).tolist()
    with pytest.raises(RuntimeError, match="Long"):
        yaten.take_along_dim(from_torch(t), yaten.zeros(3, 1, dtype=yaten.int32), 1)


def test_broadcast_shapes():
    for shapes in [((2, 1), (3,)), ((1,), (5, 1, 4)), (3, (2, 1)), ((0, 1), (1, 7)), ()]:
        assert tuple(yaten.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(RuntimeError, match="Shape mismatch"):
        yaten.broadcast_shapes((2,), (3,))


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_finfo(name):
    ours, theirs = yaten.finfo(getattr(yaten, name)), torch.finfo(getattr(torch, name))
    for attribute in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert yaten.finfo().dtype == torch.finfo().dtype
    with pytest.raises(TypeError):
        yaten.finfo(yaten.int32)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"])
def test_iinfo(name):
    ours, theirs = yaten.iinfo(getattr(yaten, name)), torch.iinfo(getattr(torch, name))
    for attribute in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    with pytest.raises(TypeError):
        yaten.iinfo(yaten.float32)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.int64, torch.int8,
                                   torch.bool])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": (0, 2), "keepdim": True}, {"dim": -1, "keepdim": True},
                                    {"dim": [0, 1, 2]}])
def test_hash_tensor(dtype, kwargs):
    g = torch.Generator().manual_seed(0)
    t = (torch.randn(3, 5, 7, generator=g) * 100).to(dtype)
    expected = torch.hash_tensor(t, **kwargs)
    got = yaten.hash_tensor(from_torch(t), **kwargs)
    _same(got, expected)
    _same(from_torch(t).hash_tensor(**kwargs), expected)
    _same(yaten.hash_tensor(from_torch(t[:, :1]), 1), torch.hash_tensor(t[:, :1], 1))  # one element per row
    for bad in ({"mode": 1}, ):
        with pytest.raises(RuntimeError, match="Unknown hash_tensor mode"):
            yaten.hash_tensor(from_torch(t), **bad)
    with pytest.raises(RuntimeError, match="reduction dim to be specified"):
        yaten.hash_tensor(yaten.empty(0, 3))
    with pytest.raises(IndexError, match="dim 0 to have non-zero size"):
        yaten.hash_tensor(yaten.empty(0, 3), 0)
    _same(yaten.hash_tensor(yaten.empty(0, 3), 1), torch.hash_tensor(torch.empty(0, 3), 1))
    scalar = torch.tensor(2.5)
    for kwargs in ({}, {"dim": 0, "keepdim": True}, {"dim": -1}):
        _same(yaten.hash_tensor(from_torch(scalar), **kwargs), torch.hash_tensor(scalar, **kwargs))


def test_warnings_given_once_unless_warn_always_as_torch():
    import warnings

    counts = {}
    for lib in (yaten, torch):
        lib.set_warn_always(False)
        assert lib.is_warn_always_enabled() is False
        x = lib.zeros(2)
        got = []
        for always in (False, True):
            lib.set_warn_always(always)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for _ in range(3):
                    x.copy_(lib.ones(2, dtype=lib.complex64))
            got.append(sum("discards the imaginary part" in str(w.message) for w in caught))
        lib.set_warn_always(False)
        counts[lib.__name__] = got
    # torch may have warned before this test (once per process): then its first count is 0, else 1, as ours
    assert counts["yaten"][1] == counts["torch"][1] == 3 and counts["yaten"][0] <= 1 and counts["torch"][0] <= 1


def test_set_flush_denormal_reaches_the_pool_threads():
    tiny = 1e-39  # a float32 subnormal
    try:
        assert yaten.set_flush_denormal(True) is torch.set_flush_denormal(True) is True
        small = yaten.tensor([tiny]) * 1.0
        assert small.tolist() == (torch.tensor([tiny]) * 1.0).tolist() == [0.0]
        threads = yaten.get_num_threads()
        yaten.set_num_threads(2)
        try:
            many = yaten.full((1 << 20,), tiny) * 1.0  # split over the pool
            assert int((many != 0).sum()) == 0
        finally:
            yaten.set_num_threads(threads)
    finally:
        yaten.set_flush_denormal(False)
        torch.set_flush_denormal(False)
    assert (yaten.tensor([tiny]) * 1.0).item() != 0.0


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 10.0, -3.0])
def test_segment_reduce(reduce, initial):
    data = torch.tensor([1.0, 0.0, 3.0, 4.0, 0.0, 6.0, 6.0, 2.0])
    lengths = torch.tensor([2, 0, 3, 3])
    offsets = torch.tensor([0, 2, 2, 5, 8])
    expected = torch.segment_reduce(data, reduce, lengths=lengths, initial=initial)
    _same_values(yaten.segment_reduce(from_torch(data), reduce, lengths=from_torch(lengths), initial=initial), expected)
    _same_values(yaten.segment_reduce(from_torch(data), reduce, offsets=from_torch(offsets), initial=initial), expected)
    # leading dims: lengths per row, the segments along axis 1; trailing dims carried along
    x = torch.arange(48.0).reshape(2, 6, 4) % 7
    rows = torch.tensor([[2, 4], [3, 3]])
    _same_values(yaten.segment_reduce(from_torch(x), reduce, lengths=from_torch(rows), axis=1, initial=initial),
                 torch.segment_reduce(x, reduce, lengths=rows, axis=1, initial=initial))
    # gradients: ties of max/min share evenly, zeros in a product as torch's
    if initial is None:
        ours, theirs = from_torch(data).requires_grad_(), data.clone().requires_grad_()
        yaten.segment_reduce(ours, reduce, lengths=from_torch(lengths)).sum().backward()
        torch.segment_reduce(theirs, reduce, lengths=lengths).sum().backward()
        assert ours.grad.tolist() == pytest.approx(theirs.grad.tolist())


def test_segment_reduce_errors():
    data = yaten.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="sum to data.size"):
        yaten.segment_reduce(data, "sum", lengths=yaten.tensor([1, 1]))
    with pytest.raises(RuntimeError, match="indices based reduction is not supported"):
        yaten.segment_reduce(data, "sum", indices=yaten.tensor([0, 0, 1]))
    with pytest.raises(RuntimeError, match="must be either sum, prod, mean"):
        yaten.segment_reduce(data, "median", lengths=yaten.tensor([3]))
    with pytest.raises(NotImplementedError):
        yaten.segment_reduce(yaten.tensor([1, 2]), "sum", lengths=yaten.tensor([2]))
    assert yaten.segment_reduce(data, "sum", lengths=yaten.tensor([1, 1]), unsafe=True).tolist() == [1.0, 2.0]


def _same_values(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_generic_streams_and_events_on_the_cpu_are_torchs():
    for device in ("cpu", None):
        ours, theirs = yaten.Stream(device), torch.Stream(device)
        if theirs.device.type != "cpu":
            continue  # torch found an accelerator: yaten's is compared in tests/test_cuda.py
        for attribute in ("stream_id", "device_index", "device_type"):
            assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
        assert ours.query() is theirs.query() is True
        assert ours.synchronize() is None and str(ours.device) == "cpu"
        with ours:
            pass
        for lib, stream in ((yaten, ours), (torch, theirs)):
            event = lib.Event(device)
            assert event.query() is True
            with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
                event.record()
            with pytest.raises(RuntimeError, match="cpu backend doesn't support events"):
                stream.record_event()


def test_accelerator_error_is_a_runtime_error_as_torchs():
    assert issubclass(yaten.AcceleratorError, RuntimeError) and issubclass(torch.AcceleratorError, RuntimeError)


IN_PLACE_CASES = ["abs_", "ceil_", "cos_", "exp_", "floor_", "frac_", "log1p_", "neg_", "negative_", "reciprocal_",
                  "relu_", "round_", "sigmoid_", "sqrt_", "tanh_", "trunc_", "fix_", "sinc_", "erf_", "expm1_"]


@pytest.mark.parametrize("name", IN_PLACE_CASES)
def test_top_level_in_place_functions(name):
    values = [0.25, 1.5, 2.75, 0.5]
    ours, theirs = yaten.tensor(values), torch.tensor(values)
    result = getattr(yaten, name)(ours)
    getattr(torch, name)(theirs)
    assert result is ours
    assert ours.tolist() == pytest.approx(theirs.tolist(), rel=1e-6)
    x, t = yaten.tensor([-2.0, 0.5, 3.0]), torch.tensor([-2.0, 0.5, 3.0])
    yaten.clamp_(x, -1, 1)
    torch.clamp_(t, -1, 1)
    assert x.tolist() == t.tolist()


def _same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    if isinstance(theirs, bool):
        assert ours is theirs
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.tolist() == theirs.tolist()


SHAPE_CASES = [
    ("atleast_1d", lambda m: (m.tensor(3.0),)), ("atleast_2d", lambda m: (m.arange(3),)),
    ("atleast_3d", lambda m: (m.arange(6).reshape(2, 3),)), ("atleast_3d", lambda m: (m.arange(3),)),
    ("column_stack", lambda m: ([m.arange(3), m.arange(6).reshape(3, 2)],)),
    ("row_stack", lambda m: ([m.arange(3), m.arange(6).reshape(2, 3)],)),
    ("dstack", lambda m: ([m.arange(3), m.arange(3)],)),
    ("hsplit", lambda m: (m.arange(12).reshape(2, 6), 3)), ("vsplit", lambda m: (m.arange(12).reshape(4, 3), [1, 3])),
    ("dsplit", lambda m: (m.arange(24).reshape(2, 3, 4), 2)),
    ("tensor_split", lambda m: (m.arange(7), 3)), ("tensor_split", lambda m: (m.arange(10).reshape(2, 5), [1, -1], 1)),
    ("fliplr", lambda m: (m.arange(6).reshape(2, 3),)), ("flipud", lambda m: (m.arange(6).reshape(3, 2),)),
    ("ravel", lambda m: (m.arange(6).reshape(2, 3).t(),)),
    ("rot90", lambda m: (m.arange(6).reshape(2, 3),)), ("rot90", lambda m: (m.arange(24).reshape(2, 3, 4), 3, [2, 0])),
    ("rot90", lambda m: (m.arange(6).reshape(2, 3), -2)),
    ("kron", lambda m: (m.arange(6).reshape(2, 3), m.arange(4).reshape(2, 2))),
    ("kron", lambda m: (m.arange(3), m.arange(8).reshape(2, 2, 2))),
    ("inner", lambda m: (m.arange(6.0).reshape(2, 3), m.arange(12.0).reshape(4, 3))),
    ("cartesian_prod", lambda m: (m.arange(3), m.arange(2), m.arange(2))),
    ("tril_indices", lambda m: (4, 3, -1)), ("triu_indices", lambda m: (3, 5, 1)),
    ("isposinf", lambda m: (m.tensor([1.0, float("inf"), float("-inf")]),)),
    ("isneginf", lambda m: (m.tensor([1.0, float("inf"), float("-inf")]),)),
    ("isreal", lambda m: (m.tensor([1 + 0j, 2j]),)), ("argwhere", lambda m: (m.tensor([[0, 1], [2, 0]]),)),
    ("masked_select", lambda m: (m.arange(6).reshape(2, 3), m.tensor([True, False, True]))),
    ("float_power", lambda m: (m.arange(4), 2)), ("float_power", lambda m: (m.tensor([2.0, 3.0]), m.tensor([0.5, -1.0]))),
    ("is_complex", lambda m: (m.tensor([1j]),)), ("is_floating_point", lambda m: (m.tensor([1]),)),
    ("is_nonzero", lambda m: (m.tensor([0.5]),)), ("is_same_size", lambda m: (m.ones(2, 3), m.zeros(2, 3))),
    ("is_signed", lambda m: (m.tensor([1], dtype=m.uint8),)),
]


@pytest.mark.parametrize("name, make", SHAPE_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SHAPE_CASES)])
def test_torch_functions_beside_torch(name, make):
    _same(getattr(yaten, name)(*make(yaten)), getattr(torch, name)(*make(torch)))


def test_errors_are_torchs():
    for call in (lambda m: m.hsplit(m.arange(5), 2), lambda m: m.vsplit(m.arange(4), 2),
                 lambda m: m.rot90(m.arange(3)), lambda m: m.is_nonzero(m.tensor([1, 2])),
                 lambda m: m.fliplr(m.arange(3)), lambda m: m.bincount(m.tensor([1, -1])),
                 lambda m: m.bincount(m.tensor([[1]])), lambda m: m.bincount(m.tensor([True]))):
        with pytest.raises(RuntimeError):
            call(torch)
        with pytest.raises(RuntimeError):
            call(yaten)


def _close(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _close(o, t)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (ours.dtype, theirs.dtype)
    torch.testing.assert_close(torch.tensor(ours.tolist(), dtype=theirs.dtype).reshape(theirs.shape), theirs,
                               rtol=1e-6, atol=1e-6)


_M = [[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.5, -1.0], [3.0, 3.5, 3.0, 2.0]]
NUMERIC_CASES = [
    ("aminmax", lambda m: (m.tensor(_M),), {}), ("aminmax", lambda m: (m.tensor(_M),), {"dim": 1, "keepdim": True}),
    ("cov", lambda m: (m.tensor(_M),), {}), ("cov", lambda m: (m.tensor(_M),), {"correction": 0}),
    ("cov", lambda m: (m.tensor(_M),),
     lambda m: {"fweights": m.tensor([1, 2, 1, 3]), "aweights": m.tensor([0.5, 1.0, 2.0, 1.0])}),
    ("cov", lambda m: (m.tensor([1.0, 2.0, 4.0]),), {}), ("corrcoef", lambda m: (m.tensor(_M),), {}),
    ("gcd", lambda m: (m.tensor([12, -18, 0, 7, 0]), m.tensor([8, 12, 5, 0, 0])), {}),
    ("lcm", lambda m: (m.tensor([12, -18, 0, 7, 4]), m.tensor([8, 12, 5, 3, -6])), {}),
    ("unravel_index", lambda m: (m.tensor([0, 5, -1, 11]), (3, 4)), {}),
    ("trapezoid", lambda m: (m.tensor(_M),), {}), ("trapezoid", lambda m: (m.tensor(_M),), {"dx": 0.5, "dim": 0}),
    ("trapezoid", lambda m: (m.tensor(_M), m.tensor([0.0, 1.0, 3.0, 6.0])), {}),
    ("trapz", lambda m: (m.tensor(_M),), {"dim": 0}),
    ("cumulative_trapezoid", lambda m: (m.tensor(_M),), {}),
    ("cumulative_trapezoid", lambda m: (m.tensor(_M), m.tensor([0.0, 1.0, 3.0, 6.0])), {}),
    ("block_diag", lambda m: (m.tensor([[1, 2]]), m.tensor(3), m.tensor([4, 5]), m.tensor([[6], [7]])), {}),
    ("combinations", lambda m: (m.tensor([1, 2, 3, 4]),), {}),
    ("combinations", lambda m: (m.tensor([1, 2, 3]),), {"r": 3, "with_replacement": True}),
    ("vander", lambda m: (m.tensor([1, 2, 3]),), {}), ("vander", lambda m: (m.tensor([1.5, 2.0]), 4, True), {}),
    ("dist", lambda m: (m.tensor(_M), m.tensor(_M) * 2), {}), ("dist", lambda m: (m.tensor(_M), m.zeros(4), 1), {}),
    ("hann_window", lambda m: (8,), {}), ("hann_window", lambda m: (7, False), {}),
    ("hamming_window", lambda m: (8,), {}), ("bartlett_window", lambda m: (9,), {}),
    ("blackman_window", lambda m: (6, False), {}), ("kaiser_window", lambda m: (8,), {}),
    ("kaiser_window", lambda m: (5, False, 5.0), {}), ("hann_window", lambda m: (1,), {}),
]


@pytest.mark.parametrize("name, make, kwargs", NUMERIC_CASES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(NUMERIC_CASES)])
def test_numeric_functions_beside_torch(name, make, kwargs):
    ours = kwargs(yaten) if callable(kwargs) else kwargs
    theirs = kwargs(torch) if callable(kwargs) else kwargs
    _close(getattr(yaten, name)(*make(yaten), **ours), getattr(torch, name)(*make(torch), **theirs))


COPY_CASES = [
    ("alias_copy", ()), ("as_strided_copy", ((2, 2), (1, 3))), ("detach_copy", ()), ("diagonal_copy", (0, 0, 1)),
    ("expand_copy", ((2, 3, 4),)), ("permute_copy", ((1, 0),)), ("select_copy", (1, 2)),
    ("slice_copy", (1, 1, 3)), ("split_copy", (1,)), ("split_with_sizes_copy", ([1, 2],)), ("squeeze_copy", ()),
    ("t_copy", ()), ("transpose_copy", (0, 1)), ("unbind_copy", (1,)), ("unsqueeze_copy", (0,)),
    ("view_as_real_copy", None), ("view_copy", ((4, 3),)), ("narrow_copy", (1, 1, 2)),
]


@pytest.mark.parametrize("name, args", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_view_copies_are_contiguous_copies(name, args):
    if args is None:  # the complex ones
        ours, theirs = yaten.tensor([[1 + 2j, 3j], [4.0 + 0j, -1j]]), torch.tensor([[1 + 2j, 3j], [4.0 + 0j, -1j]])
        args = ()
    else:
        ours, theirs = yaten.arange(12.0).reshape(3, 4), torch.arange(12.0).reshape(3, 4)
    got, expected = getattr(yaten, name)(ours, *args), getattr(torch, name)(theirs, *args)
    got_list = got if isinstance(got, tuple) else (got,)
    expected_list = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got_list, expected_list, strict=True):
        assert g.tolist() == e.tolist() and g.is_contiguous()
        if g.numel():
            g.reshape(-1)[0] = 99  # a copy: the input is not written
    assert ours.tolist() == theirs.tolist()


MORE_CASES = [
    ("frexp", lambda m: (m.tensor([0.0, -0.0, 1.0, 3.0, -5.5, float("inf"), float("nan"), 1e-40, 0.75, 2.0**-149]),),
     {}),
    ("frexp", lambda m: (m.tensor([1e-310, -3e300, 0.1, 1024.0], dtype=m.float64),), {}),
    ("bincount", lambda m: (m.tensor([1, 3, 3, 0]),), {}), ("bincount", lambda m: (m.tensor([1, 3]),), {"minlength": 6}),
    ("bincount", lambda m: (m.tensor([1, 3, 3]),), lambda m: {"weights": m.tensor([0.5, 1.0, 2.0])}),
    # the CPU kernel (kernels/cpu/indexing/bincount.h): its eight partial counts per value past 8 elements a value,
    # int32 and uint8 inputs, empty with minlength, one count per value for sparse values
    ("bincount", lambda m: (m.tensor([i % 5 for i in range(203)]),), {}),
    ("bincount", lambda m: (m.tensor([4, 0, 4], dtype=m.int32),), {}),
    ("bincount", lambda m: (m.tensor([2, 7], dtype=m.uint8),), {"minlength": 3}),
    ("bincount", lambda m: (m.tensor([], dtype=m.int64),), {"minlength": 4}),
    ("bincount", lambda m: (m.tensor([1000, 3, 999]),), {}),
    ("bincount", lambda m: (m.tensor([], dtype=m.int64),), {}),
    ("renorm", lambda m: (m.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, 0, 3), {}),
    ("renorm", lambda m: (m.arange(12.0).reshape(2, 3, 2), 1, 1, 5.0), {}),
    ("unique_consecutive", lambda m: (m.tensor([1, 1, 2, 2, 3, 1]),), {"return_inverse": True, "return_counts": True}),
    # the CPU kernel (kernels/cpu/sort/unique_consecutive.h): each NaN a run, -0 and 0 one, a 2-d inverse
    ("unique_consecutive", lambda m: (m.tensor([1.0, 1.0, float("nan"), float("nan"), -0.0, 0.0, 2.0]),),
     {"return_inverse": True, "return_counts": True}),
    ("unique_consecutive", lambda m: (m.tensor([[3, 3], [3, 1]]),), {"return_inverse": True}),
    ("unique_consecutive", lambda m: (m.tensor([], dtype=m.float32),), {"return_counts": True}),
    ("unique_consecutive", lambda m: (m.tensor([[1, 1], [1, 1], [2, 0]]),), {"dim": 0, "return_counts": True}),
    ("unique_consecutive", lambda m: (m.tensor([[1, 1, 2], [1, 1, 0]]),), {"dim": 1, "return_inverse": True}),
]


@pytest.mark.parametrize("name, make, kwargs", MORE_CASES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(MORE_CASES)])
def test_more_functions_beside_torch(name, make, kwargs):
    ours = kwargs(yaten) if callable(kwargs) else kwargs
    theirs = kwargs(torch) if callable(kwargs) else kwargs
    got, expected = getattr(yaten, name)(*make(yaten), **ours), getattr(torch, name)(*make(torch), **theirs)
    got = got if isinstance(got, tuple) else (got,)
    expected = tuple(expected) if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected, strict=True):
        assert tuple(g.shape) == tuple(e.shape) and str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        torch.testing.assert_close(torch.tensor(g.tolist(), dtype=e.dtype).reshape(e.shape), e, equal_nan=True)


def _x(m, *shape):
    return (m.arange(float(__import__("math").prod(shape))).reshape(*shape) * 0.37 - 2.0).sin()


NN_CASES = [
    ("celu", lambda m: (_x(m, 2, 5), 0.7)), ("selu", lambda m: (_x(m, 2, 5),)),
    ("prelu", lambda m: (_x(m, 2, 3, 4), m.tensor([0.1, 0.2, 0.3]))), ("hardshrink", lambda m: (_x(m, 7), 0.3)),
    ("threshold", lambda m: (_x(m, 7), 0.1, -5.0)), ("rrelu", lambda m: (_x(m, 7),)),
    ("channel_shuffle", lambda m: (_x(m, 1, 6, 2, 2), 3)), ("native_channel_shuffle", lambda m: (_x(m, 1, 4, 3), 2)),
    ("rms_norm", lambda m: (_x(m, 3, 4), [4], m.tensor([1.0, 2.0, 0.5, 1.5]), 1e-5)),
    ("max_pool1d", lambda m: (_x(m, 2, 3, 9), 3)), ("max_pool1d", lambda m: (_x(m, 2, 3, 9), 3, 2, 1, 1, True)),
    ("max_pool2d", lambda m: (_x(m, 1, 2, 6, 6), [2, 3], [], 1)), ("max_pool3d", lambda m: (_x(m, 1, 1, 4, 4, 4), 2)),
    ("max_pool1d_with_indices", lambda m: (_x(m, 1, 2, 8), 2)),
    ("avg_pool1d", lambda m: (_x(m, 2, 3, 9), 3, 2, 1, False, False)),
    ("adaptive_avg_pool1d", lambda m: (_x(m, 2, 3, 10), 4)),
    ("pixel_shuffle", lambda m: (_x(m, 1, 8, 2, 3), 2)), ("pixel_unshuffle", lambda m: (_x(m, 1, 2, 4, 6), 2)),
    ("pdist", lambda m: (_x(m, 5, 3), 1.5)), ("cosine_similarity", lambda m: (_x(m, 4, 3), _x(m, 4, 3).flip(0), 0)),
    ("pairwise_distance", lambda m: (_x(m, 4, 3), _x(m, 4, 3) * 2, 3.0, 1e-6, True)),
    ("bilinear", lambda m: (_x(m, 2, 3), _x(m, 2, 4), _x(m, 5, 3, 4), _x(m, 5))),
    ("alpha_dropout", lambda m: (_x(m, 3, 4), 0.5, False)), ("feature_alpha_dropout", lambda m: (_x(m, 2, 3, 4), 0.5, False)),
    ("feature_dropout", lambda m: (_x(m, 2, 3, 4), 0.5, False)),
    ("layer_norm", lambda m: (_x(m, 2, 3, 4), [3, 4], _x(m, 3, 4), _x(m, 3, 4) + 1, 1e-5, False)),
    ("group_norm", lambda m: (_x(m, 2, 4, 3), 2, m.ones(4), m.zeros(4), 1e-5, True)),
    ("batch_norm", lambda m: (_x(m, 4, 3, 2), m.tensor([1.0, 2.0, 3.0]), m.tensor([0.0, 1.0, -1.0]), m.zeros(3),
                              m.ones(3), True, 0.1, 1e-5, False)),
    ("batch_norm", lambda m: (_x(m, 4, 3), None, None, m.tensor([0.5, 0.0, 1.0]), m.tensor([2.0, 1.0, 0.5]), False,
                              0.1, 1e-5, False)),
    ("instance_norm", lambda m: (_x(m, 2, 3, 5), m.tensor([1.0, 2.0, 3.0]), None, None, None, True, 0.1, 1e-5,
                                 False)),
]


@pytest.mark.parametrize("name, make", NN_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(NN_CASES)])
def test_top_level_nn_spellings_beside_torch(name, make):
    got, expected = getattr(yaten, name)(*make(yaten)), getattr(torch, name)(*make(torch))
    got = got if isinstance(got, tuple) else (got,)
    expected = tuple(expected) if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected, strict=True):
        assert tuple(g.shape) == tuple(e.shape)
        torch.testing.assert_close(torch.tensor(g.tolist(), dtype=e.dtype).reshape(e.shape), e, rtol=1e-5, atol=1e-5)
