"""yaten.array_api: the Python array API standard (2025.12) over yaten's own Tensor type.

`x.__array_namespace__()` returns this module, so libraries written against the standard (scikit-learn with
`array_api_dispatch=True`, SciPy with `SCIPY_ARRAY_API=1`, array-api-extra, ...) compute with yaten tensors, on the
CPU or a GPU, with no adapter and no copy. Functions follow the standard's signatures (positional-only and
keyword-only markers, `axis=`, `keepdims=`, `copy=`, `device=`) and its semantics where they differ from torch's
(docs/array-api.md lists each difference); `yaten` itself keeps torch's. Arrays made here are ordinary yaten tensors,
marked so that their operators promote zero-dim operands as the standard does (Note [Two conventions, one tensor
type], csrc/python/tensor_type.cpp).
"""

from __future__ import annotations

import builtins
import math
from typing import Any, NamedTuple

from .. import _C
from .._device import device as _device_class
from .._torch_functions import diff as _torch_diff
from .._torch_functions import iinfo as _torch_iinfo
from .._torch_functions import take_along_dim as _take_along_dim
from . import _core
from ._core import Tensor, axes_arg, check_array, device_arg, marked, named, normalize_axis, operands, out
from ._dtypes import astype, can_cast, finfo, iinfo, isdtype, result_type

__array_api_version__ = "2025.12"

# ----------------------------------------------------------------------------------------------- dtypes, constants

bool = _C.bool  # noqa: A001
int8, int16, int32, int64 = _C.int8, _C.int16, _C.int32, _C.int64
uint8, uint16, uint32, uint64 = _C.uint8, _C.uint16, _C.uint32, _C.uint64
float32, float64 = _C.float32, _C.float64
complex64, complex128 = _C.complex64, _C.complex128

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

Array = Tensor
__all__: list[str] = []  # filled at the end

# ----------------------------------------------------------------------------------------------- creation


def _default_dtype_for(value: Any) -> Any:
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.float):
        return _C.get_default_dtype()
    if isinstance(value, builtins.complex):
        return _core.default_complex()
    raise TypeError(f"expected a Python scalar, got {type(value).__name__}")


def _flatten_scalars(obj: Any, out_list: list[Any]) -> None:
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _flatten_scalars(item, out_list)
    else:
        out_list.append(obj)


def _shape_arg(shape: Any, name: str) -> list[int]:
    if isinstance(shape, builtins.int) and not isinstance(shape, builtins.bool):
        return [shape]
    if isinstance(shape, (tuple, list)) and builtins.all(
            isinstance(s, builtins.int) and not isinstance(s, builtins.bool) for s in shape):
        return list(shape)
    raise TypeError(f"{name}: shape must be an int or a tuple of ints, got {shape!r}")


@marked
def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: builtins.bool | None = None) -> Array:
    """An array from an array, a Python scalar, a nested sequence, or anything with the buffer protocol or
    __dlpack__. copy=None copies only when it must; copy=False raises ValueError when it would have to."""
    if isinstance(obj, Tensor):
        target_dtype = obj.dtype if dtype is None else dtype
        target_device = obj.device if device is None else _device_class(device_arg(device))
        if target_dtype == obj.dtype and target_device == obj.device:
            if copy:
                return obj.clone()
            return obj if _C._is_array_api(obj) else obj.view_as(obj)
        if copy is False:
            raise ValueError("asarray: copy=False, but the array's dtype or device differs from the one asked for")
        return obj.to(dtype=target_dtype, device=device_arg(target_device), copy=True)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        try:
            shared = from_dlpack(obj)
        except (BufferError, RuntimeError, TypeError):
            shared = None
        if shared is not None:
            return asarray(shared, dtype=dtype, device=device, copy=copy)
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__") or isinstance(obj, (memoryview, bytes,
                                                                                               bytearray)):
        import numpy as np

        array = np.asarray(obj)
        shared = _C.from_numpy(array) if array.dtype.isbuiltin and array.dtype.kind in "biufc" else None
        if shared is None:
            raise TypeError(f"asarray: cannot make an array of {type(obj).__name__}")
        if copy:
            shared = shared.clone()
        return asarray(shared, dtype=dtype, device=device, copy=None if copy else copy)
    if copy is False:
        raise ValueError("asarray: copy=False, but a Python object's values must be copied into an array")
    if isinstance(obj, (list, tuple)):
        values: list[Any] = []
        _flatten_scalars(obj, values)
        if values and builtins.all(isinstance(v, Tensor) for v in values):  # a nested sequence of arrays
            return _nested_stack(obj, result_type(*values) if dtype is None else dtype, device)
        if dtype is None:
            kinds = {_core.scalar_kind(v) if not isinstance(v, Tensor) else _core.kind_of(v.dtype) for v in values}
            if "complex" in kinds:
                dtype = _core.default_complex()
            elif "float" in kinds or not values:
                dtype = _C.get_default_dtype()
            elif "int" in kinds:
                dtype = int64
            else:
                dtype = bool
        _check_int_range(values, dtype)
        wide = _wide(dtype)
        result = _C.tensor(obj, dtype=wide, device=device_arg(device))
        return result if wide == dtype else result.to(dtype)
    if isinstance(obj, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
        if dtype is None:
            dtype = _default_dtype_for(obj)
        _check_int_range([obj], dtype)
        wide = _wide(dtype)
        result = _C.full([], obj, dtype=wide, device=device_arg(device))
        return result if wide == dtype else result.to(dtype)
    raise TypeError(f"asarray: cannot make an array of {type(obj).__name__}")


def _wide(dtype: Any) -> Any:
    """The dtype to read Python numbers in before rounding them to `dtype`: float64 (complex128) for the floating
    dtypes, so that a float past float32's range rounds to inf, as IEEE 754 (and NumPy) have it."""
    if dtype in _core.COMPLEX:
        return complex128
    if dtype in _core.REAL_FLOATING:
        return float64
    return dtype


def _nested_stack(obj: Any, dtype: Any, device: Any) -> Tensor:
    if isinstance(obj, (list, tuple)):
        return _C.stack([_nested_stack(o, dtype, device) for o in obj]) if len(obj) else _C.empty(
            [0], dtype=dtype, device=device_arg(device))
    if isinstance(obj, Tensor):
        return obj.to(dtype=dtype, device=device_arg(device) if device is not None else None)
    return _C.full([], obj, dtype=dtype, device=device_arg(device))


def _check_int_range(values: list[Any], dtype: Any) -> None:
    """Python ints must fit the integer dtype they go into (int64's range for bool); floating dtypes take any."""
    if dtype in _core.FLOATING:
        return
    info = _torch_iinfo(dtype if dtype in _core.INTEGRAL else int64)
    for v in values:
        if isinstance(v, builtins.int) and not isinstance(v, builtins.bool) and not info.min <= v <= info.max:
            raise OverflowError(f"asarray: {v} does not fit in {dtype}")


@marked
def arange(start: builtins.int | builtins.float, /, stop: builtins.int | builtins.float | None = None,
           step: builtins.int | builtins.float = 1, *, dtype: Any = None, device: Any = None) -> Array:
    """Evenly spaced values in [start, stop): ceil((stop - start) / step) of them."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if dtype is None:
        dtype = int64 if builtins.all(isinstance(v, builtins.int) for v in (start, stop, step)) else \
            _C.get_default_dtype()
    n = builtins.max(math.ceil((stop - start) / step), 0)
    if n == 0:
        return _C.empty([0], dtype=dtype, device=device_arg(device))
    if dtype in _core.INTEGRAL or dtype == bool:
        return _C.arange(start, stop, step, dtype=dtype, device=device_arg(device))
    values = _C.arange(0, n, 1, dtype=float64, device=device_arg(device)) * step + start
    return values.to(dtype)


@marked
def empty(shape: builtins.int | tuple[builtins.int, ...], *, dtype: Any = None, device: Any = None) -> Array:
    return _C.empty(_shape_arg(shape, "empty"), dtype=dtype, device=device_arg(device))


@marked
def zeros(shape: builtins.int | tuple[builtins.int, ...], *, dtype: Any = None, device: Any = None) -> Array:
    return _C.zeros(_shape_arg(shape, "zeros"), dtype=dtype, device=device_arg(device))


@marked
def ones(shape: builtins.int | tuple[builtins.int, ...], *, dtype: Any = None, device: Any = None) -> Array:
    return _C.ones(_shape_arg(shape, "ones"), dtype=dtype, device=device_arg(device))


@marked
def full(shape: builtins.int | tuple[builtins.int, ...], fill_value: Any, *, dtype: Any = None,
         device: Any = None) -> Array:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _default_dtype_for(fill_value)
    _check_int_range([fill_value], dtype)
    return _C.full(_shape_arg(shape, "full"), fill_value, dtype=dtype, device=device_arg(device))


def _like(x: Tensor, dtype: Any, device: Any) -> tuple[Any, Any]:
    return (x.dtype if dtype is None else dtype), device_arg(x.device if device is None else device)


@marked
def empty_like(x: Array, /, *, dtype: Any = None, device: Any = None) -> Array:
    dtype, device = _like(check_array(x, "empty_like"), dtype, device)
    return _C.empty(list(x.shape), dtype=dtype, device=device)


@marked
def zeros_like(x: Array, /, *, dtype: Any = None, device: Any = None) -> Array:
    dtype, device = _like(check_array(x, "zeros_like"), dtype, device)
    return _C.zeros(list(x.shape), dtype=dtype, device=device)


@marked
def ones_like(x: Array, /, *, dtype: Any = None, device: Any = None) -> Array:
    dtype, device = _like(check_array(x, "ones_like"), dtype, device)
    return _C.ones(list(x.shape), dtype=dtype, device=device)


@marked
def full_like(x: Array, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    dtype, device = _like(check_array(x, "full_like"), dtype, device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    _check_int_range([fill_value], dtype)
    return _C.full(list(x.shape), fill_value, dtype=dtype, device=device)


@marked
def eye(n_rows: builtins.int, n_cols: builtins.int | None = None, /, *, k: builtins.int = 0, dtype: Any = None,
        device: Any = None) -> Array:
    """Ones on the k-th diagonal of an n_rows x n_cols matrix, zeros elsewhere."""
    n_cols = n_rows if n_cols is None else n_cols
    result = _C.zeros([n_rows, n_cols], dtype=dtype, device=device_arg(device))
    if -n_rows < k < n_cols:
        result.diagonal(k).fill_(1)
    return result


@marked
def linspace(start: Any, stop: Any, /, num: builtins.int, *, dtype: Any = None, device: Any = None,
             endpoint: builtins.bool = True) -> Array:
    """num evenly spaced values from start to stop (stop included unless endpoint=False)."""
    is_complex = isinstance(start, builtins.complex) or isinstance(stop, builtins.complex)
    if dtype is None:
        dtype = _core.default_complex() if is_complex else _C.get_default_dtype()
    if dtype in _core.INTEGRAL or dtype == bool:
        raise TypeError(f"linspace: dtype must be floating, got {dtype}")
    if num < 0:
        raise ValueError("linspace: num must be non-negative")
    divisions = (num - 1) if endpoint else num
    if is_complex or dtype in _core.COMPLEX:
        steps = _C.arange(0, num, 1, dtype=float64, device=device_arg(device))
        delta = (complex(stop) - complex(start)) / divisions if divisions > 0 else 0j
        re = steps * delta.real + complex(start).real
        im = steps * delta.imag + complex(start).imag
        result = _C.complex(re, im).to(dtype)
        if endpoint and num > 1:
            result[-1] = stop
        return result
    if endpoint:
        return _C.linspace(start, stop, num, dtype=float64, device=device_arg(device)).to(dtype)
    if num == 0:
        return _C.empty([0], dtype=dtype, device=device_arg(device))
    return _C.linspace(start, stop, num + 1, dtype=float64, device=device_arg(device))[:-1].to(dtype)


def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from 1-D arrays, as a tuple; indexing 'xy' (the standard's default) or 'ij'."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    if arrays:
        dtype = result_type(*arrays)
        arrays = tuple(a.to(dtype) for a in arrays)
    return out(tuple(_C.meshgrid(list(arrays), indexing=indexing))) if arrays else ()


@marked
def tril(x: Array, /, *, k: builtins.int = 0) -> Array:
    return _C.tril(check_array(x, "tril"), k)


@marked
def triu(x: Array, /, *, k: builtins.int = 0) -> Array:
    return _C.triu(check_array(x, "triu"), k)


@marked
def from_dlpack(x: Any, /, *, device: Any = None, copy: builtins.bool | None = None) -> Array:
    """An array sharing the memory of x (anything with __dlpack__); copy=True copies, device= moves it."""
    from .._namespace import from_dlpack as _from_dlpack

    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} has no __dlpack__")
    if isinstance(x, Tensor):
        result = x.view_as(x)
    else:
        result = _from_dlpack(x)
    if device is not None and _device_class(device_arg(device)) != result.device:
        if copy is False:
            raise BufferError("from_dlpack: copy=False, but the array is on another device")
        return result.to(device_arg(device))
    return result.clone() if copy else result


# ----------------------------------------------------------------------------------------------- element functions

def _unary(name: str, fn: Any, doc: str, kinds: tuple[Any, ...] | None = None) -> Any:
    def function(x: Array, /) -> Array:
        check_array(x, name)
        if kinds is not None and x.dtype not in kinds:
            raise TypeError(f"{name}: not defined for {x.dtype}")
        return _C._mark_array_api(fn(x))

    return named(function, name, __name__, doc)


def _binary(name: str, fn: Any, doc: str) -> Any:
    def function(x1: Any, x2: Any, /) -> Array:
        a, b = operands(name, x1, x2)
        return _C._mark_array_api(fn(a, b))

    return named(function, name, __name__, doc)


def _keep_integral(fn: Any) -> Any:
    """A rounding function: integers (and booleans) are already whole, so they come back as they are."""

    def apply(x: Tensor) -> Tensor:
        if x.dtype in _core.INTEGRAL or x.dtype == bool:
            return x.clone()
        return fn(x)

    return apply


def _round(x: Tensor) -> Tensor:
    if x.dtype in _core.INTEGRAL or x.dtype == bool:
        return x.clone()
    if x.dtype in _core.COMPLEX:
        return _C.complex(_C.round(_C.real(x)), _C.round(_C.imag(x)))
    return _C.round(x)


def _sign(x: Tensor) -> Tensor:
    if x.dtype in _core.COMPLEX:
        # x / |x|, and NaN + NaN j where either part is NaN (the standard)
        return _C.where(_C.isnan(x), _C.full([], complex(math.nan, math.nan), dtype=x.dtype, device=x.device),
                        _C.sgn(x))
    if x.dtype in _core.REAL_FLOATING:
        # sign(-0) and sign(+0) are +0 and sign(NaN) is NaN (the standard; torch's sign gives 0 for NaN)
        return _C.where(x == 0, _C.zeros_like(x), _C.where(_C.isnan(x), x, _C.sign(x)))
    return _C.sign(x)


def _expm1(x: Tensor) -> Tensor:
    if x.dtype in _core.COMPLEX:
        # the standard's special values at infinities and NaNs are exp's (C99's) minus one (torch's complex expm1
        # gives NaN for them), and expm1(+-0 + 0j) is +0 + 0j (torch's -0 + 0j for -0)
        result = _C.where(_C.isfinite(x), _C.expm1(x), _C.exp(x) - 1)
        re, im = _C.real(x), _C.imag(x)
        zero = (re == 0) & (im == 0)
        return _C.where(zero, _C.complex(_C.zeros_like(re), im), result)
    return _C.expm1(x)


def _tanh(x: Tensor) -> Tensor:
    if x.dtype in _core.COMPLEX:
        # tanh(+-inf + iy) for a finite y is +-1 + 0j with the sign of y (the standard's table; C99 and torch take
        # the zero's sign from sin(2y))
        re, im = _C.real(x), _C.imag(x)
        edge = _C.isinf(re) & _C.isfinite(im)
        limit = _C.complex(_C.sign(re), _C.copysign(_C.zeros_like(im), im))
        return _C.where(edge, limit, _C.tanh(x))
    return _C.tanh(x)


def _real(x: Tensor) -> Tensor:
    return _C.real(x).clone() if x.dtype in _core.COMPLEX else x.clone()


def _imag(x: Tensor) -> Tensor:
    return _C.imag(x).clone() if x.dtype in _core.COMPLEX else _C.zeros_like(x)


def _conj(x: Tensor) -> Tensor:
    return _C.conj_physical(x) if x.dtype in _core.COMPLEX else x.clone()


def _floor_divide(a: Tensor, b: Tensor) -> Tensor:
    result = _C.floor_divide(a, b)
    if a.dtype in _core.REAL_FLOATING:
        # the standard: an infinite over a finite is the signed infinity, a finite over an infinite the signed zero
        # (torch's floor_divide gives NaN and -1 or 0 there); a / b is both
        one_infinite = _C.isinf(a) != _C.isinf(b)
        result = _C.where(one_infinite & ~_C.isnan(a) & ~_C.isnan(b), a / b, result)
    return result


def _pow(a: Tensor, b: Tensor) -> Tensor:
    result = _C.pow(a, b)
    if a.dtype in _core.REAL_FLOATING:
        # yaten's pow takes sqrt for an exponent of 0.5 (torch's path for a Python 0.5), so pow(-inf, 0.5) is NaN and
        # pow(-0, 0.5) is -0 there; the standard (and C's pow, torch's for a tensor exponent) has +inf and +0
        half = b == 0.5
        root = _C.where(a == -math.inf, _C.full([], math.inf, dtype=a.dtype, device=a.device), _C.abs(result))
        result = _C.where(half, root, result)
    return result


def _remainder(a: Tensor, b: Tensor) -> Tensor:
    result = _C.remainder(a, b)
    if a.dtype in _core.REAL_FLOATING:
        # a zero remainder has the divisor's sign, as Python's % (torch keeps the dividend's)
        result = _C.where(result == 0, _C.copysign(_C.zeros_like(result), b), result)
    return result


def _shift(fn: Any) -> Any:
    def apply(a: Tensor, b: Tensor) -> Tensor:
        if (b < 0).any():
            raise ValueError("bitwise shift: the shift must be non-negative")
        return fn(a, b)

    return apply


_UNARY = {
    "abs": (_C.abs, "|x|, elementwise.", _core.NUMERIC),
    "acos": (_C.acos, "The inverse cosine, elementwise.", _core.FLOATING),
    "acosh": (_C.acosh, "The inverse hyperbolic cosine, elementwise.", _core.FLOATING),
    "asin": (_C.asin, "The inverse sine, elementwise.", _core.FLOATING),
    "asinh": (_C.asinh, "The inverse hyperbolic sine, elementwise.", _core.FLOATING),
    "atan": (_C.atan, "The inverse tangent, elementwise.", _core.FLOATING),
    "atanh": (_C.atanh, "The inverse hyperbolic tangent, elementwise.", _core.FLOATING),
    "bitwise_invert": (_C.bitwise_not, "~x, elementwise.", _core.INTEGRAL + (_C.bool,)),
    "ceil": (_keep_integral(_C.ceil), "The smallest integer >= x, elementwise.", _core.REAL_FLOATING +
             _core.INTEGRAL),
    "conj": (_conj, "The complex conjugate, elementwise (real arrays unchanged).", _core.NUMERIC),
    "cos": (_C.cos, "The cosine, elementwise.", _core.FLOATING),
    "cosh": (_C.cosh, "The hyperbolic cosine, elementwise.", _core.FLOATING),
    "exp": (_C.exp, "e**x, elementwise.", _core.FLOATING),
    "expm1": (_expm1, "e**x - 1, elementwise, accurate near 0.", _core.FLOATING),
    "floor": (_keep_integral(_C.floor), "The largest integer <= x, elementwise.", _core.REAL_FLOATING +
              _core.INTEGRAL),
    "imag": (_imag, "The imaginary parts (zeros for a real array).", _core.NUMERIC),
    "isfinite": (_C.isfinite, "Whether each element is finite.", _core.NUMERIC + (_C.bool,)),
    "isinf": (_C.isinf, "Whether each element is infinite.", _core.NUMERIC + (_C.bool,)),
    "isnan": (_C.isnan, "Whether each element is NaN.", _core.NUMERIC + (_C.bool,)),
    "log": (_C.log, "The natural logarithm, elementwise.", _core.FLOATING),
    "log1p": (_C.log1p, "log(1 + x), elementwise, accurate near 0.", _core.FLOATING),
    "log2": (_C.log2, "The base-2 logarithm, elementwise.", _core.FLOATING),
    "log10": (_C.log10, "The base-10 logarithm, elementwise.", _core.FLOATING),
    "logical_not": (_C.logical_not, "not x, elementwise.", None),
    "negative": (_C.neg, "-x, elementwise.", _core.NUMERIC),
    "positive": (lambda x: x.clone(), "+x, elementwise.", _core.NUMERIC),
    "real": (_real, "The real parts (a real array itself).", _core.NUMERIC),
    "reciprocal": (_C.reciprocal, "1 / x, elementwise.", _core.FLOATING),
    "round": (_round, "x rounded to the nearest integer, halves to even.", _core.NUMERIC),
    "sign": (_sign, "The sign: -1, 0 or 1 (x / |x| for complex numbers).", _core.NUMERIC),
    "signbit": (_C.signbit, "Whether the sign bit is set (true for -0.0).", _core.REAL_FLOATING),
    "sin": (_C.sin, "The sine, elementwise.", _core.FLOATING),
    "sinh": (_C.sinh, "The hyperbolic sine, elementwise.", _core.FLOATING),
    "sqrt": (_C.sqrt, "The square root, elementwise.", _core.FLOATING),
    "square": (_C.square, "x * x, elementwise.", _core.NUMERIC),
    "tan": (_C.tan, "The tangent, elementwise.", _core.FLOATING),
    "tanh": (_tanh, "The hyperbolic tangent, elementwise.", _core.FLOATING),
    "trunc": (_keep_integral(_C.trunc), "x rounded toward zero, elementwise.", _core.REAL_FLOATING +
              _core.INTEGRAL),
}

_BINARY = {
    "add": (_C.add, "x1 + x2, elementwise."),
    "atan2": (_C.atan2, "The angle of the point (x2, x1), elementwise."),
    "bitwise_and": (_C.bitwise_and, "x1 & x2, elementwise."),
    "bitwise_left_shift": (_shift(_C.bitwise_left_shift), "x1 << x2, elementwise."),
    "bitwise_or": (_C.bitwise_or, "x1 | x2, elementwise."),
    "bitwise_right_shift": (_shift(_C.bitwise_right_shift), "x1 >> x2, elementwise."),
    "bitwise_xor": (_C.bitwise_xor, "x1 ^ x2, elementwise."),
    "copysign": (_C.copysign, "|x1| with the sign of x2, elementwise."),
    "divide": (_C.div, "x1 / x2, elementwise."),
    "equal": (_C.eq, "x1 == x2, elementwise."),
    "floor_divide": (_floor_divide, "x1 // x2, elementwise."),
    "greater": (_C.gt, "x1 > x2, elementwise."),
    "greater_equal": (_C.ge, "x1 >= x2, elementwise."),
    "hypot": (_C.hypot, "sqrt(x1**2 + x2**2), elementwise, without overflow."),
    "less": (_C.lt, "x1 < x2, elementwise."),
    "less_equal": (_C.le, "x1 <= x2, elementwise."),
    "logaddexp": (_C.logaddexp, "log(exp(x1) + exp(x2)), elementwise."),
    "logical_and": (_C.logical_and, "x1 and x2, elementwise."),
    "logical_or": (_C.logical_or, "x1 or x2, elementwise."),
    "logical_xor": (_C.logical_xor, "x1 xor x2, elementwise."),
    "maximum": (_C.maximum, "The larger of x1 and x2 (NaN if either is), elementwise."),
    "minimum": (_C.minimum, "The smaller of x1 and x2 (NaN if either is), elementwise."),
    "multiply": (_C.mul, "x1 * x2, elementwise."),
    "nextafter": (_C.nextafter, "The next representable value after x1 toward x2, elementwise."),
    "not_equal": (_C.ne, "x1 != x2, elementwise."),
    "pow": (_pow, "x1 ** x2, elementwise."),
    "remainder": (_remainder, "x1 % x2 with the sign of x2, elementwise."),
    "subtract": (_C.sub, "x1 - x2, elementwise."),
}

for _name, (_fn, _doc, _kinds) in _UNARY.items():
    globals()[_name] = _unary(_name, _fn, _doc, _kinds)
for _name, (_fn, _doc) in _BINARY.items():
    globals()[_name] = _binary(_name, _fn, _doc)


@marked
def clip(x: Array, /, min: Any = None, max: Any = None) -> Array:  # noqa: A002
    """x clamped to [min, max] (either may be None, an array or a Python scalar); the result has x's dtype."""
    check_array(x, "clip")
    result = x.clone()
    if min is None and max is None:
        return result
    if x.dtype in _core.COMPLEX:
        raise TypeError("clip: not defined for complex arrays")
    bounds = []
    for bound in (min, max):
        if bound is None:
            bounds.append(None)
        elif isinstance(bound, Tensor):
            bounds.append(bound.to(x.dtype) if bound.dtype != x.dtype else bound)
        else:
            if x.dtype in _core.INTEGRAL and isinstance(bound, builtins.float):
                bounds.append(_C.full([], bound, dtype=float64, device=x.device))
            else:
                bounds.append(_C.full([], bound, dtype=x.dtype, device=x.device))
    lo, hi = bounds
    if lo is not None:
        result = _C.where(result < lo, lo, result)
    if hi is not None:
        result = _C.where(result > hi, hi, result)
    return result.to(x.dtype)  # a float bound of an integer array compared exactly, the result rounded back


# ----------------------------------------------------------------------------------------------- statistics


def _reduce_args(x: Tensor, axis: Any, name: str) -> list[int]:
    check_array(x, name)
    return axes_arg(axis, x.ndim, name)


def _sum_dtype(x: Tensor, dtype: Any) -> Any:
    """The accumulation dtype of sum, prod and the cumulative functions, as the standard gives it: the default
    integer (int64) for booleans and signed integers, uint64 for unsigned ones, the array's own dtype otherwise."""
    if dtype is not None:
        return dtype
    if x.dtype == bool or x.dtype in _core.SIGNED:
        return int64
    if x.dtype in _core.UNSIGNED:
        return uint64
    return x.dtype


@marked
def sum(x: Array, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False) -> Array:  # noqa: A001
    dims = _reduce_args(x, axis, "sum")
    accumulate = _sum_dtype(x, dtype)
    return _C.sum(x, dims, keepdims, dtype=accumulate) if dims else x.to(accumulate, copy=True)


@marked
def prod(x: Array, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False) -> Array:
    dims = _reduce_args(x, axis, "prod")
    accumulate = _sum_dtype(x, dtype)
    result = x.to(accumulate, copy=True)
    for d in sorted(dims, reverse=True):
        result = _C.prod(result, d, keepdims, dtype=accumulate)
    return result


def _extreme(name: str, fn: Any) -> Any:
    def function(x: Array, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Array:
        dims = _reduce_args(x, axis, name)
        if builtins.any(x.shape[d] == 0 for d in dims) or (x.numel() == 0 and not dims and x.ndim):
            raise ValueError(f"{name}: reduction over a zero-size axis has no identity")
        if not dims:
            return _C._mark_array_api(x.clone())
        return _C._mark_array_api(fn(x, dims, keepdims))

    return named(function, name, __name__)


max = _extreme("max", _C.amax)  # noqa: A001
min = _extreme("min", _C.amin)  # noqa: A001


@marked
def mean(x: Array, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Array:
    dims = _reduce_args(x, axis, "mean")
    if x.dtype not in _core.FLOATING:
        raise TypeError(f"mean: not defined for {x.dtype}")
    return _C.mean(x, dims, keepdims) if dims else x.clone()


def _moment(name: str, fn: Any) -> Any:
    def function(x: Array, /, *, axis: Any = None, correction: builtins.int | builtins.float = 0.0,
                 keepdims: builtins.bool = False) -> Array:
        dims = _reduce_args(x, axis, name)
        if x.dtype not in _core.FLOATING:
            raise TypeError(f"{name}: not defined for {x.dtype}")
        if not dims:  # over no axes: each element is its own mean, n = 1
            deviation = _C.abs(x - x)  # 0, or NaN where x is NaN or infinite
            return _C._mark_array_api(deviation / builtins.max(1 - correction, 0))
        return _C._mark_array_api(fn(x, dims, correction=correction, keepdim=keepdims))

    return named(function, name, __name__)


std = _moment("std", _C.std)
var = _moment("var", _C.var)


def _cumulative(name: str, fn: Any, identity: builtins.int) -> Any:
    def function(x: Array, /, *, axis: builtins.int | None = None, dtype: Any = None,
                 include_initial: builtins.bool = False) -> Array:
        check_array(x, name)
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"{name}: axis is required for an array of more than one dimension")
            axis = 0
        if x.ndim == 0:
            raise ValueError(f"{name}: not defined for a zero-dimensional array")
        axis = normalize_axis(axis, x.ndim, name)
        dtype = _sum_dtype(x, dtype)
        result = fn(x, axis, dtype=dtype)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            result = _C.cat([_C.full(shape, identity, dtype=dtype, device=x.device), result], axis)
        return _C._mark_array_api(result)

    return named(function, name, __name__)


cumulative_sum = _cumulative("cumulative_sum", _C.cumsum, 0)
cumulative_prod = _cumulative("cumulative_prod", _C.cumprod, 1)


# ----------------------------------------------------------------------------------------------- utility, searching

@marked
def all(x: Array, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Array:  # noqa: A001
    dims = _reduce_args(x, axis, "all")
    return _C.all(x, dims, keepdims).to(bool) if dims else (x != 0)  # torch's all of uint8 is uint8


@marked
def any(x: Array, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Array:  # noqa: A001
    dims = _reduce_args(x, axis, "any")
    return _C.any(x, dims, keepdims).to(bool) if dims else (x != 0)


@marked
def diff(x: Array, /, *, axis: builtins.int = -1, n: builtins.int = 1, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    """The n-th discrete difference along axis (with prepend/append joined first)."""
    check_array(x, "diff")
    if x.ndim == 0:
        raise ValueError("diff: not defined for a zero-dimensional array")
    axis = normalize_axis(axis, x.ndim, "diff")
    if n < 0:
        raise ValueError("diff: n must be non-negative")
    parts = [p for p in (prepend, x, append) if p is not None]
    values = _C.cat(list(operands_all(parts)), axis) if len(parts) > 1 else x
    return _torch_diff(values, n, axis) if n > 0 else values.clone()


def operands_all(arrays: list[Tensor]) -> list[Tensor]:
    dtype = result_type(*arrays)
    return [a if a.dtype == dtype else a.to(dtype) for a in arrays]


@marked
def argmax(x: Array, /, *, axis: builtins.int | None = None, keepdims: builtins.bool = False) -> Array:
    return _arg_extreme(x, axis, keepdims, "argmax", _C.argmax)


@marked
def argmin(x: Array, /, *, axis: builtins.int | None = None, keepdims: builtins.bool = False) -> Array:
    return _arg_extreme(x, axis, keepdims, "argmin", _C.argmin)


def _arg_extreme(x: Tensor, axis: Any, keepdims: builtins.bool, name: str, fn: Any) -> Tensor:
    check_array(x, name)
    if axis is None:
        result = fn(x.reshape(-1), 0, False) if x.ndim else _C.zeros([], dtype=int64, device=x.device)
        return result.reshape([1] * x.ndim) if keepdims else result
    return fn(x, normalize_axis(axis, x.ndim, name), keepdims)


@marked
def count_nonzero(x: Array, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Array:
    dims = _reduce_args(x, axis, "count_nonzero")
    nonzero_ = x != 0
    return _C.sum(nonzero_, dims, keepdims, dtype=int64) if dims else nonzero_.to(int64)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """The indices of the nonzero elements, one 1-D array per dimension."""
    check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: not defined for a zero-dimensional array")
    found = _C.nonzero(x)
    return out(tuple(found[:, d].clone() for d in range(x.ndim)))


@marked
def searchsorted(x1: Array, x2: Any, /, *, side: str = "left", sorter: Array | None = None) -> Array:
    """For each value of x2, where it would go in the sorted 1-D array x1 to keep it sorted."""
    check_array(x1, "searchsorted")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if x1.ndim != 1:
        raise ValueError("searchsorted: x1 must be one-dimensional")
    if not isinstance(x2, Tensor):
        x2 = _core.as_operand(x2, x1)
    if x1.dtype != x2.dtype:
        common = _C.promote_types(x1.dtype, x2.dtype)
        x1, x2 = x1.to(common), x2.to(common)
    return _C.searchsorted(x1, x2, side=side, sorter=sorter)


@marked
def where(condition: Array, x1: Any, x2: Any, /) -> Array:
    """x1 where condition holds, x2 elsewhere (arrays or Python scalars, promoted as the standard says)."""
    check_array(condition, "where")
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        raise TypeError("where: at least one of x1 and x2 must be an array")
    a, b = operands("where", x1, x2)
    return _C.where(condition.to(bool) if condition.dtype != bool else condition, a, b)


# ----------------------------------------------------------------------------------------------- sets, sorting

class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _unique(x: Tensor, name: str) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The distinct values (NaNs each distinct, as the standard says), the first index of each, the inverse indices
    in x's shape and the counts."""
    check_array(x, name)
    flat = x.reshape(-1)
    n = flat.shape[0]
    if n == 0:
        empty_ = _C.empty([0], dtype=int64, device=x.device)
        return flat.clone(), empty_, _C.empty(list(x.shape), dtype=int64, device=x.device), empty_.clone()
    if flat.dtype in _core.COMPLEX:  # by real part, then imaginary part
        order = _C.argsort(_C.imag(flat), stable=True)
        order = order[_C.argsort(_C.real(flat)[order], stable=True)]
    else:
        order = _C.argsort(flat, stable=True)
    ordered = _take(flat, order)
    if ordered.dtype in _core.FLOATING:
        is_nan = _C.isnan(ordered)
        starts = _C.cat([_C.ones([1], dtype=bool, device=x.device),
                         (ordered[1:] != ordered[:-1]) | is_nan[1:]])
    else:
        starts = _C.cat([_C.ones([1], dtype=bool, device=x.device), ordered[1:] != ordered[:-1]])
    group = _C.cumsum(starts.to(int64), 0) - 1
    start_positions = _C.nonzero(starts).reshape(-1)
    values = _take(ordered, start_positions)
    ends = _C.cat([start_positions[1:], _C.full([1], n, dtype=int64, device=x.device)])
    counts = ends - start_positions
    first = order[start_positions]
    inverse = _C.empty([n], dtype=int64, device=x.device)
    inverse[order] = group
    return values, first, inverse.reshape(list(x.shape)), counts


def _take(x: Tensor, index: Tensor) -> Tensor:
    """x[index] for a 1-D x of any dtype (index_select has complex kernels)."""
    return _C.index_select(x, 0, index)


def unique_all(x: Array, /) -> UniqueAllResult:
    values, first, inverse, counts = _unique(x, "unique_all")
    return UniqueAllResult(*out((values, first, inverse, counts)))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    values, _, _, counts = _unique(x, "unique_counts")
    return UniqueCountsResult(*out((values, counts)))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    values, _, inverse, _ = _unique(x, "unique_inverse")
    return UniqueInverseResult(*out((values, inverse)))


@marked
def unique_values(x: Array, /) -> Array:
    return _unique(x, "unique_values")[0]


@marked
def isin(x1: Any, x2: Any, /, *, invert: builtins.bool = False) -> Array:
    """Whether each element of x1 is in x2 (value equality)."""
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        raise TypeError("isin: at least one of x1 and x2 must be an array")
    a, b = operands("isin", x1, x2)
    from .._torch_functions import isin as _isin

    return _isin(a, b, invert=invert)


@marked
def sort(x: Array, /, *, axis: builtins.int = -1, descending: builtins.bool = False,
         stable: builtins.bool = True) -> Array:
    check_array(x, "sort")
    if x.ndim == 0:
        return x.clone()
    return _C.sort(x, stable=True, dim=normalize_axis(axis, x.ndim, "sort"), descending=descending)[0]


@marked
def argsort(x: Array, /, *, axis: builtins.int = -1, descending: builtins.bool = False,
            stable: builtins.bool = True) -> Array:
    check_array(x, "argsort")
    if x.ndim == 0:
        return _C.zeros([], dtype=int64, device=x.device)
    axis = normalize_axis(axis, x.ndim, "argsort")
    if descending:
        # stable descending: equal elements keep their order. Sorting the flipped array ascending (stably) and
        # reading the result backwards gives that order; the indices are then mapped back through the flip.
        ascending = _C.argsort(_C.flip(x, [axis]), stable=True, dim=axis, descending=False)
        return (x.shape[axis] - 1) - _C.flip(ascending, [axis])
    return _C.argsort(x, stable=True, dim=axis, descending=False)


# ----------------------------------------------------------------------------------------------- manipulation


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    return out(tuple(_C.broadcast_tensors(list(arrays))))


def broadcast_shapes(*shapes: tuple[builtins.int | None, ...]) -> tuple[builtins.int | None, ...]:
    """The shape that arrays of these shapes broadcast to (ValueError when they do not)."""
    ndim = builtins.max((len(s) for s in shapes), default=0)
    result: list[builtins.int | None] = []
    for i in range(ndim):
        size: builtins.int | None = 1
        for s in shapes:
            d = s[len(s) - ndim + i] if i >= ndim - len(s) else 1
            if d == 1:
                continue
            if size == 1 or size is None:
                size = d if size == 1 else None
            elif d is not None and d != size:
                raise ValueError(f"broadcast_shapes: shapes {shapes} do not broadcast")
        result.append(size)
    return tuple(result)


@marked
def broadcast_to(x: Array, /, shape: tuple[builtins.int, ...]) -> Array:
    check_array(x, "broadcast_to")
    shape = tuple(shape)
    if len(shape) < x.ndim or broadcast_shapes(tuple(x.shape), shape) != shape:
        raise ValueError(f"broadcast_to: cannot broadcast an array of shape {tuple(x.shape)} to {shape}")
    return x.expand(list(shape))


@marked
def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: builtins.int | None = 0) -> Array:
    arrays = operands_all(list(arrays))
    if axis is None:
        return _C.cat([a.reshape(-1) for a in arrays], 0)
    return _C.cat(arrays, normalize_axis(axis, arrays[0].ndim, "concat"))


@marked
def expand_dims(x: Array, /, axis: builtins.int | tuple[builtins.int, ...] = 0) -> Array:
    check_array(x, "expand_dims")
    items = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(items)
    positions = sorted(normalize_axis(a, ndim, "expand_dims") for a in items)
    if len(set(positions)) != len(positions):
        raise ValueError("expand_dims: repeated axis")
    result = x
    for p in positions:
        result = result.unsqueeze(p)
    return result if result is not x else x.view_as(x)


@marked
def flip(x: Array, /, *, axis: Any = None) -> Array:
    dims = _reduce_args(x, axis, "flip")
    return _C.flip(x, dims) if dims else x.clone()


@marked
def moveaxis(x: Array, source: Any, destination: Any, /) -> Array:
    check_array(x, "moveaxis")
    src = list(source) if isinstance(source, tuple) else [source]
    dst = list(destination) if isinstance(destination, tuple) else [destination]
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    return _C.movedim(x, [normalize_axis(s, x.ndim, "moveaxis") for s in src],
                      [normalize_axis(d, x.ndim, "moveaxis") for d in dst])


@marked
def permute_dims(x: Array, /, axes: tuple[builtins.int, ...]) -> Array:
    check_array(x, "permute_dims")
    return x.permute(list(axes))


@marked
def repeat(x: Array, repeats: Any, /, *, axis: builtins.int | None = None) -> Array:
    """Each element (each slice along axis) repeated `repeats` times, the repeats side by side (np.repeat)."""
    check_array(x, "repeat")
    if axis is None:
        x, axis = x.reshape(-1), 0
    else:
        axis = normalize_axis(axis, x.ndim, "repeat")
    if isinstance(repeats, Tensor):
        if repeats.dtype not in _core.INTEGRAL:
            raise TypeError("repeat: repeats must have an integer dtype")
        return _C.repeat_interleave(x, repeats.to(int64), axis)
    return _C.repeat_interleave(x, repeats, axis)


@marked
def reshape(x: Array, /, shape: tuple[builtins.int, ...], *, copy: builtins.bool | None = None) -> Array:
    check_array(x, "reshape")
    shape = list(shape)
    if copy:
        return x.reshape(shape).clone()
    if copy is False:
        try:
            return x.view(shape)
        except RuntimeError as error:
            raise ValueError(f"reshape: copy=False, but the array cannot be viewed in shape {tuple(shape)}") \
                from error
    return x.reshape(shape)


@marked
def roll(x: Array, /, shift: Any, *, axis: Any = None) -> Array:
    check_array(x, "roll")
    shifts = list(shift) if isinstance(shift, tuple) else [shift]
    if axis is None:
        return _C.roll(x.reshape(-1), shifts[:1], [0]).reshape(list(x.shape))
    axes = list(axis) if isinstance(axis, tuple) else [axis]
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    return _C.roll(x, shifts, [normalize_axis(a, x.ndim, "roll") for a in axes])


@marked
def squeeze(x: Array, /, axis: builtins.int | tuple[builtins.int, ...]) -> Array:
    dims = axes_arg(axis, x.ndim, "squeeze") if not (isinstance(axis, tuple) and not axis) else []
    for d in dims:
        if x.shape[d] != 1:
            raise ValueError(f"squeeze: axis {d} has size {x.shape[d]}, not 1")
    return _C.squeeze(x, dims) if dims else x.view_as(x)


@marked
def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: builtins.int = 0) -> Array:
    arrays = operands_all(list(arrays))
    return _C.stack(arrays, normalize_axis(axis, arrays[0].ndim + 1, "stack"))


@marked
def tile(x: Array, repetitions: tuple[builtins.int, ...], /) -> Array:
    check_array(x, "tile")
    return _C.tile(x, list(repetitions))


def unstack(x: Array, /, *, axis: builtins.int = 0) -> tuple[Array, ...]:
    check_array(x, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack: not defined for a zero-dimensional array")
    return out(tuple(x.unbind(normalize_axis(axis, x.ndim, "unstack"))))


# ----------------------------------------------------------------------------------------------- indexing

@marked
def take(x: Array, indices: Array, /, *, axis: builtins.int | None = None) -> Array:
    check_array(x, "take")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis is required for an array of more than one dimension")
        axis = 0
    axis = normalize_axis(axis, x.ndim, "take")
    index = indices if isinstance(indices, Tensor) else _C.tensor(indices, dtype=int64)
    index = index.to(int64)
    index = _C.where(index < 0, index + x.shape[axis], index)
    return _C.index_select(x, axis, index)


@marked
def take_along_axis(x: Array, indices: Array, /, *, axis: builtins.int = -1) -> Array:
    check_array(x, "take_along_axis")
    return _take_along_dim(x, indices.to(int64), normalize_axis(axis, x.ndim, "take_along_axis"))


# ----------------------------------------------------------------------------------------------- linear algebra

@marked
def matmul(x1: Array, x2: Array, /) -> Array:
    a, b = operands("matmul", check_array(x1, "matmul"), check_array(x2, "matmul"))
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    return _C.matmul(a, b)


@marked
def matrix_transpose(x: Array, /) -> Array:
    check_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError("matrix_transpose: the array must have at least two dimensions")
    return x.transpose(-1, -2)


@marked
def tensordot(x1: Array, x2: Array, /, *, axes: Any = 2) -> Array:
    from .._namespace import tensordot as _tensordot

    a, b = operands("tensordot", check_array(x1, "tensordot"), check_array(x2, "tensordot"))
    if isinstance(axes, builtins.int):
        if axes < 0:
            raise ValueError("tensordot: axes must be non-negative")
        return _tensordot(a, b, axes)
    first, second = axes
    return _tensordot(a, b, ([normalize_axis(i, a.ndim, "tensordot") for i in first],
                             [normalize_axis(i, b.ndim, "tensordot") for i in second]))


@marked
def vecdot(x1: Array, x2: Array, /, *, axis: builtins.int = -1) -> Array:
    """sum(conj(x1) * x2) along axis, after broadcasting."""
    a, b = operands("vecdot", check_array(x1, "vecdot"), check_array(x2, "vecdot"))
    ndim = builtins.max(a.ndim, b.ndim)
    if not -builtins.min(a.ndim, b.ndim) <= axis < builtins.min(a.ndim, b.ndim):
        raise IndexError(f"vecdot: axis {axis} is out of bounds")
    if axis >= 0:
        axis -= ndim
    if a.shape[axis] != b.shape[axis]:
        raise ValueError("vecdot: the arrays' sizes along axis differ")
    product = (_C.conj_physical(a) if a.dtype in _core.COMPLEX else a) * b
    return _C.sum(product, [axis], False, dtype=a.dtype)


# ----------------------------------------------------------------------------------------------- inspection


class _Info:
    """What __array_namespace_info__() returns: the namespace's capabilities, devices and dtypes."""

    __module__ = "yaten.array_api"

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Any:
        return _device_class("cpu")

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        float_dtype = _C.get_default_dtype()
        return {"real floating": float_dtype, "complex floating": _core.default_complex(), "integral": int64,
                "indexing": int64}

    def devices(self) -> tuple[Any, ...]:
        from .. import cuda

        found = [_device_class("cpu")]
        if cuda.is_available():
            found += [_device_class("cuda", i) for i in range(cuda.device_count())]
        return tuple(found)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                 "float64", "complex64", "complex128"]
        table = {n: getattr(_C, n) for n in names}
        if kind is None:
            return table
        return {n: d for n, d in table.items() if isdtype(d, kind)}


def __array_namespace_info__() -> _Info:
    return _Info()


from . import fft, linalg  # noqa: E402

__all__ = sorted(n for n in globals() if not n.startswith("_") and n not in (
    "annotations", "builtins", "math", "Any", "NamedTuple", "Tensor", "Array", "marked", "named", "out", "operands",
    "axes_arg", "check_array", "device_arg", "normalize_axis", "operands_all", "UniqueAllResult",
    "UniqueCountsResult", "UniqueInverseResult")) + ["__array_namespace_info__"]
