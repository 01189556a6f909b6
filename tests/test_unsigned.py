"""uint16, uint32 and uint64 (issue 52): the dtypes, their promotion, conversions, interop, and the ops that take them,
each compared with NumPy's results (and torch's, where torch 2.13 implements the op for these dtypes)."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import yaten
from helpers import warn_always

WIDE = ["uint16", "uint32", "uint64"]
ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128"] + WIDE


def values(dtype: str, n: int = 64, seed: int = 0) -> np.ndarray:
    """n values of dtype spread over its whole range, the extremes included."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    body = rng.integers(0, info.max, size=n - 4, dtype=dtype, endpoint=True)
    return np.concatenate([np.array([0, 1, info.max, info.max - 1], dtype=dtype), body])


def ours(a: np.ndarray) -> yaten.Tensor:
    return yaten.from_numpy(np.ascontiguousarray(a))


def same(got: yaten.Tensor, expected: np.ndarray, dtype: str | None = None) -> None:
    assert str(got.dtype) == f"yaten.{dtype or expected.dtype}", (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got.numpy(), expected)


# ------------------------------------------------------------------------------------------------ the dtypes

@pytest.mark.parametrize("name", WIDE)
def test_the_dtypes_and_their_properties(name):
    dtype = getattr(yaten, name)
    assert repr(dtype) == f"yaten.{name}"
    assert dtype.itemsize == np.dtype(name).itemsize
    assert not dtype.is_signed and not dtype.is_floating_point and not dtype.is_complex
    info = yaten.iinfo(dtype)
    assert (info.min, info.max, info.bits) == (0, np.iinfo(name).max, np.iinfo(name).bits)
    assert yaten.empty(3, dtype=dtype).element_size() == np.dtype(name).itemsize
    assert yaten.tensor([1], dtype=dtype).type() == f"yaten.{name.replace('uint', 'UInt')}Tensor"


def test_promotion_is_torchs_where_torch_has_one_and_the_standards_elsewhere():
    torch = pytest.importorskip("torch")
    strict = pytest.importorskip("array_api_strict")
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            if a not in WIDE and b not in WIDE:
                continue
            try:
                expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
            except RuntimeError:  # torch promotes these only with themselves and the floating types
                expected = None
            if expected is None:
                try:
                    expected = strict.result_type(getattr(strict, a if a != "bool" else "bool"),
                                                  getattr(strict, b))
                except (TypeError, AttributeError):
                    expected = None
            if a in ("bool",) or b in ("bool",):  # the standard has no bool-integer promotion; yaten: the integer
                expected = a if b == "bool" else b
            if expected is None and {a, b} & {"complex64", "complex128"}:
                expected = a if a.startswith("complex") else b  # yaten: the complex type, as for any integer
            if expected is None and {a, b} & {"float16", "bfloat16"}:
                expected = a if a in ("float16", "bfloat16") else b
            if expected is None:  # uint64 with a signed integer: no integer type holds both
                with pytest.raises(TypeError, match="no common dtype"):
                    yaten.promote_types(getattr(yaten, a), getattr(yaten, b))
                continue
            got = yaten.promote_types(getattr(yaten, a), getattr(yaten, b))
            assert str(got).split(".")[-1] == str(expected).split(".")[-1], (a, b, got, expected)


# ------------------------------------------------------------------------------------------------ values in and out

@pytest.mark.parametrize("name", WIDE)
def test_python_numbers_numpy_and_dlpack_round_trip_the_whole_range(name):
    top = np.iinfo(name).max
    t = yaten.tensor([0, 1, top, top - 1], dtype=getattr(yaten, name))
    assert t.tolist() == [0, 1, top, top - 1]
    assert t[2].item() == top and int(t[2]) == top
    same(t, np.array([0, 1, top, top - 1], dtype=name))
    a = values(name)
    same(ours(a), a)  # from_numpy
    same(yaten.tensor(a), a)  # a NumPy array given to tensor()
    np.testing.assert_array_equal(np.from_dlpack(ours(a)), a)
    same(yaten.from_dlpack(a), a)
    same(yaten.full((2,), top, dtype=getattr(yaten, name)), np.full(2, top, dtype=name))
    assert "dtype=yaten." + name in repr(t) and str(top) in repr(t)


def test_numbers_past_int64_are_uint64_values_only():
    t = yaten.tensor([2**64 - 1, 2**63], dtype=yaten.uint64)
    assert t.tolist() == [2**64 - 1, 2**63]
    assert (t == 2**64 - 1).tolist() == [True, False]
    assert (t - 1).tolist() == [2**64 - 2, 2**63 - 1]
    with pytest.raises(RuntimeError, match="int64 without overflow"):
        yaten.tensor([2**63])  # an int list is int64, as torch's
    with pytest.raises(RuntimeError, match="overflow"):
        yaten.tensor([2**63], dtype=yaten.uint32)
    with pytest.raises(OverflowError):
        yaten.tensor([2**64], dtype=yaten.uint64)


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", WIDE)
def test_conversions_to_and_from_every_dtype_are_numpys(src, dst):
    if src in ("bfloat16",):
        a = np.array([0, 1, 2, 200, 255], dtype=np.float32)
        got = ours(a).to(yaten.bfloat16).to(getattr(yaten, dst))
        same(got, a.astype(dst))
        back = ours(a.astype(dst)).to(yaten.bfloat16).float()
        same(back, a)
        return
    if src in WIDE or src.startswith(("int", "uint")):
        # integers convert modulo 2^bits both ways, as NumPy's astype
        a = (values(src) if src.startswith("uint") else
             np.random.default_rng(1).integers(np.iinfo(src).min, np.iinfo(src).max, 64, dtype=src, endpoint=True))
    elif src == "bool":
        a = np.array([True, False, True])
    else:  # floats in range (out of range is undefined in C++ and NumPy alike)
        hi = {"float16": 65504.0, "float32": 4e9 if dst != "uint16" else 6e4,
              "float64": 1e19 if dst == "uint64" else np.iinfo(dst).max}.get(src, 200.0)
        hi = min(hi, float(np.iinfo(dst).max))
        a = np.array([0.0, 1.0, 2.9, 200.7, hi * 0.75, hi], dtype=src.replace("complex64", "float32").replace(
            "complex128", "float64"))
        a = a.astype(src)
        if src.startswith("complex"):
            with warn_always(), pytest.warns(UserWarning, match="discards the imaginary part"):
                got = ours(a).to(getattr(yaten, dst))
            same(got, a.real.astype(dst))
            return
    same(ours(a).to(getattr(yaten, dst)), a.astype(dst))
    if src.startswith("complex"):
        return
    b = values(dst) if src not in ("float16",) else np.array([0, 1, 255, 1000], dtype=dst)
    expected = b.astype(src)
    got = ours(b).to(getattr(yaten, src))
    if src == "float32" or src == "float16":
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-7 if src == "float32" else 1e-3)
    else:
        same(got, expected)


# ------------------------------------------------------------------------------------------------ the ops

BINARY = {
    "add": (lambda x, y: x + y, np.add), "sub": (lambda x, y: x - y, np.subtract),
    "mul": (lambda x, y: x * y, np.multiply),
    "bitwise_and": (lambda x, y: x & y, np.bitwise_and), "bitwise_or": (lambda x, y: x | y, np.bitwise_or),
    "bitwise_xor": (lambda x, y: x ^ y, np.bitwise_xor),
    "maximum": (yaten.maximum, np.maximum), "minimum": (yaten.minimum, np.minimum),
    "eq": (lambda x, y: x == y, np.equal), "ne": (lambda x, y: x != y, np.not_equal),
    "lt": (lambda x, y: x < y, np.less), "le": (lambda x, y: x <= y, np.less_equal),
    "gt": (lambda x, y: x > y, np.greater), "ge": (lambda x, y: x >= y, np.greater_equal),
    "floor_divide": (lambda x, y: x // y, np.floor_divide), "remainder": (lambda x, y: x % y, np.remainder),
    "fmod": (yaten.fmod, np.fmod),
    "logical_and": (yaten.logical_and, np.logical_and), "logical_xor": (yaten.logical_xor, np.logical_xor),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", WIDE)
def test_binary_ops_wrap_and_compare_as_numpy(name, dtype):
    ours_fn, numpy_fn = BINARY[name]
    a, b = values(dtype, seed=1), values(dtype, seed=2)
    if name in ("floor_divide", "remainder", "fmod"):
        b = np.where(b == 0, 3, b).astype(dtype)
        b[::3] = np.array([1, 2, 7], dtype=dtype)[np.arange(len(b[::3])) % 3]
    with np.errstate(over="ignore"):
        expected = numpy_fn(a, b)
    same(ours_fn(ours(a), ours(b)), expected)
    # a Python int on the right keeps the tensor's dtype (as torch's wrapped numbers)
    if name not in ("logical_and", "logical_xor", "maximum", "minimum"):  # torch takes no number there
        with np.errstate(over="ignore"):
            expected = numpy_fn(a, np.array(5, dtype=dtype))
        same(ours_fn(ours(a), 5), expected)


@pytest.mark.parametrize("dtype", WIDE)
def test_shifts_pow_neg_abs_sign_and_rounding(dtype):
    a = values(dtype)
    bits = np.iinfo(dtype).bits
    s = (np.arange(len(a)) % bits).astype(dtype)
    same(ours(a) << ours(s), np.left_shift(a, s))
    same(ours(a) >> ours(s), np.right_shift(a, s))
    same(~ours(a), np.invert(a))
    with np.errstate(over="ignore"):
        same(-ours(a), np.negative(a))
        same(ours(a) ** 3, a ** np.array(3, dtype=dtype))
        same(ours(a).square(), a * a)
    same(ours(a).abs(), a)
    same(ours(a).sign(), np.sign(a))
    for fn in ("floor", "ceil", "trunc", "round"):
        same(getattr(ours(a), fn)(), a)
    for fn in ("isnan", "isinf"):
        same(getattr(yaten, fn)(ours(a)), np.zeros(len(a), bool))
    same(yaten.isfinite(ours(a)), np.ones(len(a), bool))
    lo, hi = np.array(10, dtype), np.array(np.iinfo(dtype).max // 2, dtype)
    same(ours(a).clamp(10, int(hi)), np.clip(a, lo, hi))
    same(yaten.where(ours(a) > int(hi), ours(a), ours(s)), np.where(a > hi, a, s))
    same(ours(a) / ours(np.full_like(a, 2)), a / np.float32(2.0) if dtype == "uint16" else (a / 2).astype(np.float32),
         "float32")


@pytest.mark.parametrize("dtype", WIDE)
def test_reductions_and_scans(dtype):
    a = values(dtype, n=48).reshape(6, 8)
    with np.errstate(over="ignore"):
        same(ours(a).sum(), a.sum(dtype=np.int64), "int64")  # torch's: integer sums are int64
        same(ours(a).sum(1, dtype=getattr(yaten, dtype)), a.sum(1, dtype=dtype))
        same(ours(a).prod(0), a.astype(np.int64).prod(0), "int64")
        same(ours(a).cumsum(1), np.cumsum(a.astype(np.int64), 1), "int64")
        same(ours(a).cumprod(0, dtype=getattr(yaten, dtype)), np.cumprod(a, 0, dtype=dtype))
    same(ours(a).amax(1), a.max(1))
    same(ours(a).amin(0), a.min(0))
    same(ours(a).max(), np.array(a.max()))
    values_, indices = ours(a).max(1)
    same(values_, a.max(1))
    same(indices, a.argmax(1), "int64")
    same(ours(a).argmin(), np.array(a.argmin()), "int64")
    same(ours(a).cummax(1)[0], np.maximum.accumulate(a, 1))
    same(yaten.all(ours(a)), np.array(a.all()))
    same(yaten.any(ours(a), 1), a.any(1))
    same(yaten.count_nonzero(ours(a), 0), np.count_nonzero(a, 0).astype(np.int64), "int64")


@pytest.mark.parametrize("dtype", WIDE)
def test_sorting_searching_and_sets(dtype):
    a = values(dtype, n=40)
    a = np.concatenate([a, a[:7]])  # duplicates
    got, idx = ours(a).sort(stable=True)
    same(got, np.sort(a, kind="stable"))
    same(idx, np.argsort(a, kind="stable"), "int64")
    same(ours(a).sort(descending=True)[0], np.sort(a)[::-1])
    same(ours(a).argsort(stable=True), np.argsort(a, kind="stable"), "int64")
    same(ours(a).topk(5)[0], np.sort(a)[::-1][:5])
    same(ours(a).kthvalue(3)[0], np.array(np.sort(a)[2]))
    same(yaten.unique(ours(a)), np.unique(a))
    u, inverse, counts = yaten.unique(ours(a), return_inverse=True, return_counts=True)
    nu, ninv, ncounts = np.unique(a, return_inverse=True, return_counts=True)
    same(u, nu)
    same(inverse, ninv, "int64")
    same(counts, ncounts, "int64")
    s = np.sort(a)
    same(yaten.searchsorted(ours(s), ours(a[:9])), np.searchsorted(s, a[:9]), "int64")
    same(yaten.isin(ours(a), ours(a[:5])), np.isin(a, a[:5]))
    same(ours(a).median(), np.array(np.sort(a)[(len(a) - 1) // 2]))


@pytest.mark.parametrize("dtype", WIDE)
def test_indexing_and_layout(dtype):
    a = values(dtype, n=24).reshape(4, 6)
    t = ours(a)
    same(t[1], a[1])
    same(t[:, ::2], a[:, ::2])
    same(t[yaten.tensor([2, 0, 2])], a[[2, 0, 2]])
    same(t[t > int(np.iinfo(dtype).max // 2)], a[a > np.iinfo(dtype).max // 2])
    same(t.nonzero(), np.argwhere(a), "int64")
    same(t.index_select(1, yaten.tensor([5, 0])), a[:, [5, 0]])
    same(t.gather(1, yaten.tensor([[0, 1]] * 4)), np.take_along_axis(a, np.array([[0, 1]] * 4), 1))
    same(yaten.cat([t, t]), np.concatenate([a, a]))
    same(yaten.stack([t, t], 1), np.stack([a, a], 1))
    same(t.flip(1), a[:, ::-1])
    same(t.roll(2, 1), np.roll(a, 2, 1))
    same(t.t().contiguous(), a.T)
    same(t.repeat(2, 1), np.tile(a, (2, 1)))
    same(t.tril(), np.tril(a))
    b = a.copy()
    b[1:3, 2] = 7
    u = t.clone()
    u[1:3, 2] = 7
    same(u, b)
    b[a > 100] = np.iinfo(dtype).max
    u[t > 100] = int(np.iinfo(dtype).max)
    same(u, b)
    u = t.clone()
    u.index_put_((yaten.tensor([0, 3]), yaten.tensor([1, 1])), yaten.tensor([9, 8], dtype=getattr(yaten, dtype)))
    b = a.copy()
    b[[0, 3], [1, 1]] = [9, 8]
    same(u, b)
    u = yaten.zeros(4, 6, dtype=getattr(yaten, dtype)).scatter_add_(1, yaten.tensor([[0, 0]] * 4), t[:, :2])
    b = np.zeros((4, 6), dtype)
    with np.errstate(over="ignore"):
        b[:, 0] = a[:, 0] + a[:, 1]
    same(u, b)


@pytest.mark.parametrize("dtype", WIDE)
def test_creation(dtype):
    d = getattr(yaten, dtype)
    same(yaten.arange(2, 20, 3, dtype=d), np.arange(2, 20, 3, dtype=dtype))
    same(yaten.zeros(2, 3, dtype=d), np.zeros((2, 3), dtype))
    same(yaten.ones(4, dtype=d), np.ones(4, dtype))
    same(yaten.eye(3, dtype=d), np.eye(3, dtype=dtype))
    same(yaten.full((2,), 9, dtype=d).fill_(12), np.full(2, 12, dtype))
    same(yaten.zeros_like(yaten.empty(3, dtype=d)), np.zeros(3, dtype))


@pytest.mark.parametrize("dtype", WIDE)
def test_matmul(dtype):
    a = (np.arange(12) * 977 % 65521).astype(dtype).reshape(3, 4)
    b = (np.arange(20) * 131 % 65521).astype(dtype).reshape(4, 5)
    with np.errstate(over="ignore"):
        same(ours(a) @ ours(b), a @ b)
        same(yaten.bmm(ours(a)[None], ours(b)[None]), (a @ b)[None])


def test_ops_that_do_not_take_them_say_so():
    x = yaten.tensor([4, 6], dtype=yaten.uint32)
    with pytest.raises(NotImplementedError, match=r"histc: no CPU kernel for dtype uint32"):
        yaten.histc(x)
    same(yaten.gcd(x, yaten.tensor([6, 9], dtype=yaten.uint32)),
         np.gcd(np.array([4, 6], "uint32"), np.array([6, 9], "uint32")))
    got = yaten.exp(x.to(yaten.uint16))  # computes in the default float dtype, as for every integer dtype
    assert got.dtype == yaten.float32
    np.testing.assert_allclose(got.numpy(), np.exp(np.array([4, 6], np.float32)), rtol=2e-7)


# ------------------------------------------------------------------------------------------------ files

@pytest.mark.parametrize("dtype", WIDE)
def test_checkpoints_move_between_yaten_and_torch(tmp_path, dtype):
    torch = pytest.importorskip("torch")
    a = values(dtype, n=12).reshape(3, 4)
    path = tmp_path / "u.pt"
    yaten.save({"x": ours(a), "view": ours(a)[1:, ::2]}, path)
    loaded = torch.load(path)
    assert loaded["x"].dtype == getattr(torch, dtype)
    np.testing.assert_array_equal(loaded["x"].numpy(), a)
    np.testing.assert_array_equal(loaded["view"].numpy(), a[1:, ::2])
    torch.save({"x": torch.from_numpy(a), "view": torch.from_numpy(a)[1:, ::2]}, path)
    back = yaten.load(path)
    same(back["x"], a)
    same(back["view"], a[1:, ::2])
    same(pickle.loads(pickle.dumps(ours(a))), a)
    buffer = io.BytesIO()
    yaten.save(ours(a), buffer)
    buffer.seek(0)
    same(yaten.load(buffer), a)


@pytest.mark.parametrize("dtype", WIDE)
def test_safetensors(tmp_path, dtype):
    from yaten import safetensors

    a = values(dtype, n=10)
    path = tmp_path / "u.safetensors"
    safetensors.save_file({"x": ours(a)}, path)
    same(safetensors.load_file(path)["x"], a)
    st = pytest.importorskip("safetensors.numpy")
    np.testing.assert_array_equal(st.load_file(str(path))["x"], a)


@pytest.mark.parametrize("dtype", WIDE)
def test_hash_tensor_of_the_wide_unsigned_integers(dtype):
    """torch's hash_tensor raises for these dtypes; yaten's widens them as every integer (uint64 as it is) and
    xor-reduces the 64-bit patterns, as NumPy computes here."""
    a = values(dtype, n=30).reshape(5, 6)
    bits = a.astype(np.uint64) if dtype == "uint64" else a.astype(np.int64).view(np.uint64)
    same(yaten.hash_tensor(ours(a)), np.array(np.bitwise_xor.reduce(bits, axis=None)), "uint64")
    same(yaten.hash_tensor(ours(a), 1), np.bitwise_xor.reduce(bits, axis=1), "uint64")
