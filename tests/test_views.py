"""Views, indexing, NumPy zero-copy and promotion helpers, against torch."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import yaten
from helpers import DTYPE_NAMES, assert_same, from_torch, to_torch, ydtype


def base_pair(torch, shape=(2, 3, 4)):
    n = 1
    for s in shape:
        n *= s
    return yaten.arange(n).reshape(list(shape)), torch.arange(n).reshape(shape)


def shares(a, b) -> bool:
    return a.numel() > 0 and \
        abs(a.data_ptr() - b.data_ptr()) < b.numel() * b.element_size() + 1


VIEW_CASES = [
    ("view", lambda t: t.view(6, 4)), ("view-1", lambda t: t.view(-1)), ("view3", lambda t: t.view(2, -1, 2)),
    ("reshape", lambda t: t.reshape(4, 6)), ("permute", lambda t: t.permute(2, 0, 1)),
    ("transpose", lambda t: t.transpose(0, 2)), ("narrow", lambda t: t.narrow(2, 1, 2)),
    ("select", lambda t: t.select(1, -1)), ("squeeze", lambda t: t[:, :1].squeeze()),
    ("squeeze_dim", lambda t: t[:, :1].squeeze(1)), ("unsqueeze", lambda t: t.unsqueeze(-1)),
    ("expand", lambda t: t[:, :1].expand(2, 5, 4)), ("expand-1", lambda t: t[:1].expand(3, -1, -1)),
    ("flatten", lambda t: t.flatten(1)), ("unflatten", lambda t: t.unflatten(2, (2, 2))),
    ("diagonal", lambda t: t.diagonal(0, 1, 2)), ("diagonal_offset", lambda t: t.diagonal(1, 1, 2)),
    ("diagonal_neg", lambda t: t.diagonal(-1, 1, 2)), ("movedim", lambda t: t.movedim(0, 2)),
    ("movedim_list", lambda t: t.movedim([0, 1], [2, 0])), ("movedim_neg", lambda t: t.movedim([-1], [0])),
    ("T", lambda t: t.T), ("mT", lambda t: t.mT), ("as_strided", lambda t: t.as_strided((3, 2), (4, 1), 2)),
    ("t", lambda t: t[0].t()), ("expand_as", lambda t: t[:1].expand_as(t)),
]


@pytest.mark.parametrize("name,fn", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_ops_match_torch_and_share_storage(torch, name, fn):
    y, t = base_pair(torch)
    yv, tv = fn(y), fn(t)
    assert_same(torch, yv, tv)
    assert yv.stride() == tv.stride() and yv.storage_offset() == tv.storage_offset()
    assert shares(yv, y)


def test_write_through_a_view_reaches_the_base(torch):
    y, t = base_pair(torch)
    for fn in (lambda a: a.transpose(0, 1)[1], lambda a: a[:, 1:, ::2], lambda a: a.diagonal(0, 1, 2)):
        fn(y).fill_(-7)
        fn(t).fill_(-7)
    y.permute(2, 1, 0).select(0, 3).mul_(10)
    t.permute(2, 1, 0).select(0, 3).mul_(10)
    assert_same(torch, y, t)


def test_reshape_copies_exactly_when_torch_copies(torch):
    y, t = base_pair(torch)
    inputs = [(y, t), (y.transpose(0, 2), t.transpose(0, 2)), (y[:, ::2], t[:, ::2]), (y[:, :, 1:3], t[:, :, 1:3]),
              (y[:, 1:2], t[:, 1:2]), (y[:1].expand(3, 3, 4), t[:1].expand(3, 3, 4))]
    for yi, ti in inputs:
        shape = tuple(ti.shape)
        for target in [(-1,), (shape[0], -1), (-1, shape[-1]), shape[::-1], (1, *shape)]:
            yr, tr = yi.reshape(target), ti.reshape(target)
            assert_same(torch, yr, tr)
            assert (yr.data_ptr() == yi.data_ptr()) == (tr.data_ptr() == ti.data_ptr()), (shape, ti.stride(), target)


def test_view_that_needs_a_copy_raises_with_torch_advice():
    y = yaten.arange(24).reshape(2, 3, 4).transpose(0, 2)
    with pytest.raises(RuntimeError, match=r"Use \.reshape\(\.\.\.\) instead"):
        y.view(-1)
    with pytest.raises(RuntimeError, match=r"shape '\[5, 5\]' is invalid for input of size 24"):
        y.reshape(5, 5)


def test_split_chunk_unbind_match_torch(torch):
    y, t = base_pair(torch)
    for yp, tp in ((y.split(2, dim=2), t.split(2, dim=2)), (y.split([1, 3], dim=2), t.split([1, 3], dim=2)),
                   (y.chunk(2, 1), t.chunk(2, 1)), (y.unbind(1), t.unbind(1)), (y.split(5, 0), t.split(5, 0))):
        assert len(yp) == len(tp)
        for a, b in zip(yp, tp):
            assert_same(torch, a, b)
            assert shares(a, y)


def test_bad_dims_raise_index_error():
    y = yaten.zeros(2, 3)
    with pytest.raises(IndexError, match=r"dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        y.transpose(0, 2)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        y.select(1, 3)
    with pytest.raises(RuntimeError, match="the expanded size of the tensor"):
        y.expand(4, 4)


GETITEM_CASES = [
    "[1]", "[-1]", "[:, 1]", "[..., 1]", "[None, 1]", "[1, ..., None]", "[::2]", "[1:3, ::2, -1]",
    "[0, 1, 2]", "[:, -2:]", "[..., ::3]", "[5:]", "[:, 1:1]",
    "[[0, 1]]", "[:, [2, 0]]", "[1, [0, 2]]", "[torch.tensor([1, 0])]", "[:, :, torch.tensor([[0, 1], [3, 3]])]",
    "[torch.tensor([-1])]", "[torch.tensor(1)]",
    "[torch.tensor([True, False])]", "[:, torch.tensor([True, False, True])]",
    "[[0, 1], [1, 2]]", "[:, [0, 2], [1, 3]]", "[[0, 1], :, [1, 3]]", "[torch.tensor([[0], [1]]), torch.tensor([1, 2])]",
    "[1, :, [0, 2]]", "[torch.tensor([True, False]), [0, 2]]", "[..., [0, -1], [3, 0]]", "[[1], [2], [3]]",
    "[torch.tensor([[True, False, True], [False, False, True]])]", "[x > 10]",
    # a strided source: rows that are contiguous runs (the parallel row copy) and runs that are not (the general walk)
    "[:, 1][[1, 0, -1]]", "[:, ::2][[1, 0, -1]]", "[..., ::2][[1, 0]]", "[:, ::2][torch.tensor([[1], [0]])]",
]


@pytest.mark.parametrize("expr", GETITEM_CASES)
def test_getitem_matches_torch(torch, expr):
    y, t = base_pair(torch)
    x = t
    expected = eval(f"t{expr}")
    y_expr = expr.replace("torch.tensor", "yaten.tensor").replace("x > 10", "from_torch(x > 10)")
    actual = eval(f"y{y_expr}")
    assert_same(torch, actual, expected)
    basic = "tensor" not in expr and "[[" not in expr and ", [" not in expr and "x >" not in expr
    if basic and expected.numel() > 0:
        assert shares(actual, y)  # basic indexing gives views
    if not basic and expected.numel() > 0:
        assert not shares(actual, y)  # advanced indexing copies


SETITEM_CASES = [
    ("[1]", "0"), ("[:, 1]", "torch.tensor([7, 8, 9, 10])"), ("[..., -1]", "5"), ("[0, ::2, 1:3]", "-1"),
    ("[torch.tensor([1, 0])]", "3"), ("[:, torch.tensor([2])]", "torch.tensor([9, 9, 9, 9])"),
    ("[torch.tensor([True, False])]", "4"), ("[:, :, torch.tensor([True, False, True, False])]", "6"),
    ("[t > 10]", "0"), ("[torch.tensor([False, True])]", "torch.arange(12).reshape(3, 4) * 2"),
    ("[[0, 1], [1, 2]]", "5"), ("[:, [0, 2], [1, 3]]", "torch.tensor([10, 20])"),
    ("[[0, 1], :, [1, 3]]", "torch.arange(6).reshape(2, 3)"), ("[:, torch.tensor([[0], [2]]), [1, 3]]", "-3"),
    ("[torch.tensor([[True, False, True], [False, True, False]])]", "torch.arange(12).reshape(3, 4)"),
]


@pytest.mark.parametrize("index,value", SETITEM_CASES)
def test_setitem_matches_torch(torch, index, value):
    y, t = base_pair(torch)
    exec(f"t{index} = {value}")
    y_index = index.replace("torch.tensor", "yaten.tensor").replace("t > 10", "from_torch(t_before > 10)")
    t_before = base_pair(torch)[1]  # noqa: F841  (used by the eval)
    y_value = value.replace("torch.tensor", "yaten.tensor").replace("torch.arange", "yaten.arange")
    exec(f"y{y_index} = {y_value}")
    assert_same(torch, y, t)


def test_index_errors_like_torch():
    y = yaten.zeros(2, 3)
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        y[0, 0, 0]
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        y[2]
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        y[yaten.tensor([5])]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        y[::-1]
    with pytest.raises(IndexError, match="single ellipsis"):
        y[..., ...]
    with pytest.raises(IndexError, match="does not match the shape of the indexed tensor"):
        y[yaten.tensor([True, False, True])]
    with pytest.raises(IndexError, match="does not match the shape of the indexed tensor"):
        y[yaten.tensor([True, False, True])] = 1.0  # the masked_fill_ path checks the shape too
    with pytest.raises(TypeError, match="can't assign a str"):
        y[0] = "a"


def test_iteration_unbinds_the_first_dimension():
    rows = list(yaten.arange(6).reshape(3, 2))
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(yaten.tensor(1))


@pytest.mark.parametrize("dtype", [n for n in DTYPE_NAMES if n != "bfloat16"])
def test_from_numpy_shares_memory_both_ways(dtype):
    array = np.arange(6).astype(dtype).reshape(2, 3)
    t = yaten.from_numpy(array)
    assert t.dtype == ydtype(dtype) and t.shape == (2, 3) and t.data_ptr() == array.ctypes.data
    t[0, 0] = 1
    assert array[0, 0] == 1
    array[1, 2] = 0
    assert t[1, 2].item() == 0


def test_from_numpy_keeps_the_array_alive_and_handles_strides():
    array = np.arange(12.0).reshape(3, 4)[:, ::2]
    t = yaten.from_numpy(array)
    assert t.stride() == (4, 2) and t.tolist() == array.tolist()
    del array
    gc.collect()
    assert t.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    with pytest.raises(ValueError, match="negative"):
        yaten.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        yaten.from_numpy(np.zeros(2, dtype="datetime64[s]"))
    with pytest.raises(TypeError, match="expected np.ndarray"):
        yaten.from_numpy([1, 2])


def test_tensor_copies_and_as_tensor_shares():
    array = np.arange(4, dtype=np.float32)
    copied, shared = yaten.tensor(array), yaten.as_tensor(array)
    array[0] = 9
    assert copied.tolist()[0] == 0 and shared.tolist()[0] == 9
    assert yaten.as_tensor(array, dtype=yaten.float64).dtype == yaten.float64
    t = yaten.ones(2)
    assert yaten.as_tensor(t) is t
    assert yaten.tensor(np.array([1, 2])).dtype == yaten.int64


def test_numpy_view_of_a_view_is_zero_copy():
    t = yaten.arange(12.0).reshape(3, 4)
    a = t[:, 1::2].numpy()
    assert a.strides == (16, 8) and a.tolist() == [[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]]
    a[0, 0] = -1
    assert t[0, 1].item() == -1


def test_result_type_and_can_cast_match_torch(torch):
    cases = [(("int32", [1]), 2.5), (("int8", [1]), ("int64", 1)), (("float16", [1]), ("float64", 2.0)),
             (("bool", [True]), 3), (("uint8", [1]), -1)]
    for a, b in cases:
        def make(lib, spec):
            if isinstance(spec, tuple):
                dtype, data = spec
                return lib.tensor(data, dtype=getattr(lib, dtype))
            return spec
        expected = torch.result_type(make(torch, a), make(torch, b))
        assert repr(yaten.result_type(make(yaten, a), make(yaten, b))) == repr(expected).replace("torch", "yaten")
    for a in DTYPE_NAMES:
        for b in DTYPE_NAMES:
            assert yaten.can_cast(ydtype(a), ydtype(b)) == torch.can_cast(getattr(torch, a), getattr(torch, b))


def test_partially_overlapping_copy_raises_like_torch(torch):
    y, t = base_pair(torch, (10,))
    with pytest.raises(RuntimeError, match="refer to a single memory location. Please clone"):
        t[1:] = t[:-1]
    with pytest.raises(RuntimeError, match="refer to a single memory location. Please clone"):
        y[1:] = y[:-1]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        y[:5].add_(y[2:7])
    y[1:] = y[:-1].clone()
    t[1:] = t[:-1].clone()
    assert_same(torch, y, t)
    y.add_(y)  # the same elements: fine
    assert y.tolist()[:3] == [0, 0, 2]


def test_dlpack_round_trips_with_numpy_and_torch_without_copies(torch):
    t = yaten.arange(6.0).reshape(2, 3)[:, 1:]
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr() and a.tolist() == t.tolist()
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr() and tt.stride() == t.stride()
    tt[0, 0] = -5
    assert t[0, 0].item() == -5
    for source in (np.arange(4, dtype=np.int16), torch.arange(5.0).to(torch.bfloat16),
                   torch.tensor([True, False]), np.ones((2, 3), dtype=np.float32)[:, ::2]):
        y = yaten.from_dlpack(source)
        assert y.data_ptr() == (source.data_ptr() if hasattr(source, "data_ptr") else source.ctypes.data)
        expected = source.float().tolist() if hasattr(source, "float") else source.tolist()
        assert (y.float().tolist() if y.dtype == yaten.bfloat16 else y.tolist()) == expected
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_lifetimes_and_single_use():
    source = np.arange(3.0)
    y = yaten.from_dlpack(source)
    del source
    gc.collect()
    assert y.tolist() == [0.0, 1.0, 2.0]  # the producer's memory lives as long as the tensor
    t = yaten.ones(2)
    capsule = t.__dlpack__()
    legacy = yaten.from_dlpack(capsule)
    del t
    gc.collect()
    assert legacy.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="consumed only once"):
        yaten.from_dlpack(capsule)
    unused = yaten.ones(3).__dlpack__(max_version=(1, 1))  # freed by its destructor when nobody takes it
    del unused
    gc.collect()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_and_scatter_match_torch(torch, dim):
    gen = torch.Generator().manual_seed(dim + 5)
    source = torch.randn(4, 5, generator=gen)
    index = torch.randint(0, 4 if dim == 0 else 5, (3, 4), generator=gen)
    y, yi = from_torch(source), from_torch(index)
    assert_same(torch, yaten.gather(y, dim, yi), torch.gather(source, dim, index))
    src = torch.randn(3, 4, generator=gen)
    assert_same(torch, y.scatter(dim, yi, from_torch(src)), source.scatter(dim, index, src))
    assert_same(torch, y.scatter(dim, yi, 2.5), source.scatter(dim, index, 2.5))
    y.scatter_(dim, yi, -1.0)
    source.scatter_(dim, index, -1.0)
    assert_same(torch, y, source)


def test_gather_bad_index_raises():
    y = yaten.zeros(3, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        yaten.gather(y, 0, yaten.tensor([[3, 0, 0]]))
    with pytest.raises(RuntimeError, match=r"expected dtype int64 \(or int32\) for index"):
        yaten.gather(y, 0, yaten.tensor([[0.0]]))


BASIC_CASES = ["[1]", "[-1]", "[1, 2]", "[1:3]", "[:, 0]", "[..., None]", "[None, ..., 1:, None]", "[::2, -2::3]",
               "[1, ..., 2]", "[...]", "[()]", "[:]", "[5:1]", "[-100:100]", "[:, :, 0]", "[1, None, :2]"]


@pytest.mark.parametrize("expr", BASIC_CASES)
def test_basic_indexing_in_cpp_equals_the_python_rules(torch, expr):
    # Note [Basic indexing in C++]: the compiled fast path and yaten/_indexing.py give the same views.
    from yaten import _indexing

    y, t = base_pair(torch)
    fast = eval(f"y{expr}")
    slow = _indexing.getitem(y, eval(f"_index{expr}", {"_index": _Index()}))
    assert_same(torch, fast, eval(f"t{expr}"))
    assert (fast.shape, fast.stride(), fast.storage_offset()) == (slow.shape, slow.stride(), slow.storage_offset())
    assert fast is not y and shares(fast, y) == shares(slow, y)
    x = yaten.arange(24.0).reshape(2, 3, 4).requires_grad_()
    eval(f"x{expr}").sum().backward()
    x2 = yaten.arange(24.0).reshape(2, 3, 4).requires_grad_()
    _indexing.getitem(x2, eval(f"_index{expr}", {"_index": _Index()})).sum().backward()
    assert x.grad.tolist() == x2.grad.tolist()


class _Index:
    def __getitem__(self, index):
        return index


def test_indices_the_fast_path_leaves_to_python(torch):
    np = pytest.importorskip("numpy")
    y, t = base_pair(torch)
    assert_same(torch, y[np.int64(1)], t[1])
    assert_same(torch, y[np.int32(1):], t[1:])
    assert_same(torch, y[yaten.tensor(1)], t[torch.tensor(1)])
    assert_same(torch, y[1, [0, 2]], t[1, [0, 2]])
    assert_same(torch, y[True], t[True])  # a Python bool is a zero-dim mask: a new dimension of size 1 or 0
    assert_same(torch, y[False, 1:], t[False, 1:])
    assert_same(torch, y[yaten.tensor(True), None], t[torch.tensor(True), None])
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 2"):
        y[2**70]
    assert_same(torch, y[1 : 2**70], t[1:])  # bounds past int64 clamp, as NumPy's and torch's do
    assert_same(torch, y[-(2**70) : 2], t[:2])
    assert y[:: 2**70].shape == np.zeros(y.shape)[:: 2**70].shape
    with pytest.raises(IndexError, match="only integers, slices"):
        y["a"]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        yaten.tensor(1.0)[0]


@pytest.mark.parametrize("expr", ["[1, 10]", "[:, 10]", "[1, ..., 9]", "[[0, 1], 2, 9]", "[np.int64(1), 10]",
                                  "[5]", "[-4]", "[0, 0, -6]"])
def test_out_of_range_indices_name_the_dimension_of_the_indexed_tensor(torch, expr):
    # Both paths (Note [Basic indexing in C++] and yaten/_indexing.py) say what torch says.
    np = pytest.importorskip("numpy")
    y, t = yaten.zeros(3, 4, 5), torch.zeros(3, 4, 5)
    with pytest.raises(IndexError) as expected:
        eval(f"t{expr}")
    with pytest.raises(IndexError) as got:
        eval(f"y{expr}")
    assert str(got.value) == str(expected.value)


def test_an_out_view_resized_by_an_op_gets_an_as_strided_history_over_its_base(torch):
    # lt(a, x, out=a[:1]) resizes the view a[:1] to a's shape; its history then reads the base through as_strided,
    # as torch's AsStridedBackward0, instead of replaying the slice (which made the old shape and failed backward)
    import warnings

    grads = []
    for lib in (yaten, torch):
        base = lib.ones(4, 3, dtype=lib.float64, requires_grad=True)
        a = base[::2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the resize warning, which both give
            r = lib.lt(a, 1e-300, out=a[:1])
        assert tuple(r.shape) == (2, 3) and r.grad_fn.name() == "AsStridedBackward0"
        (r * lib.arange(6.0, dtype=lib.float64).reshape(2, 3)).sum().backward()
        grads.append(base.grad.tolist())
    assert grads[0] == grads[1]


def test_split_pieces_share_one_backward_node_as_torch():
    """Note [One node for split's pieces]: split/split_with_sizes/unbind record torch's SplitBackward0,
    SplitWithSizesBackward0 and UnbindBackward0, and the gradient is the pieces' gradients joined, zeros for the
    pieces nobody used."""
    torch = pytest.importorskip("torch")
    got = {}
    for lib in (torch, yaten):
        x = lib.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]] * 2, requires_grad=True)
        a, b, c = x.split(2, dim=1)
        d, e = x.split([4, 2], dim=1)
        rows = x.unbind(0)
        names = [t.grad_fn.name() for t in (a, d, rows[1])]
        (a * 2 + b * 3).sum().backward(retain_graph=True)
        (e * 5).sum().backward(retain_graph=True)
        (rows[1] * 7).sum().backward()
        got[lib.__name__] = (names, x.grad.tolist())
    assert got["yaten"] == got["torch"], got


def test_split_piece_changed_in_place():
    """torch refuses an in-place change of a split piece; yaten records it as a change of a view of the base, and
    the gradient follows it: z = w.clone(); z.split(2)[0].mul_(2) doubles the first two elements' gradient."""
    w = yaten.ones(4, requires_grad=True)
    z = w.clone()
    first, _ = z.split(2)
    first.mul_(2)
    (z * yaten.arange(4.0)).sum().backward()
    assert w.grad.tolist() == [0.0, 2.0, 2.0, 3.0]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint8", "bool", "complex64", "complex128"])
def test_transposed_copies_are_numpys(dtype):
    # copy_'s path for a transposed contiguous source (kernels/cpu/copy.h, copy_transposed): 32 x 32 tiles of
    # register transposes, partial tiles at the edges, batches and size-1 batch dims, and rows a multiple of 1 KiB
    # apart (512 float64, 1024 int16), which go through a buffer
    rng = np.random.default_rng(0)
    for shape in [(2, 2), (3, 5), (33, 31), (65, 130), (7, 9, 11), (4, 1, 3, 70), (2, 64, 128), (512, 128),
                  (2, 1024, 4)]:
        a = rng.standard_normal(shape) * 100
        a = a > 0 if dtype == "bool" else (a + 1j * a[..., ::-1] if dtype.startswith("complex") else a)
        a = np.ascontiguousarray(a.astype(dtype))
        got = yaten.from_numpy(a).mT.contiguous()
        np.testing.assert_array_equal(got.numpy(), np.swapaxes(a, -1, -2), err_msg=str(shape))
        out = yaten.empty(got.shape, dtype=got.dtype)
        out.copy_(yaten.from_numpy(a).mT)
        np.testing.assert_array_equal(out.numpy(), np.swapaxes(a, -1, -2), err_msg=str(shape))
