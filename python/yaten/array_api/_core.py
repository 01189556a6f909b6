"""What the array API namespace's functions share: marking results, dtypes and devices, Python scalars as operands.

Every array this namespace returns is marked (yaten._C._mark_array_api) so that operators on it follow the
standard's promotion of zero-dim operands (Note [Two conventions, one tensor type], csrc/python/tensor_type.cpp).
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

from .. import _C

Tensor = _C.Tensor
_mark = _C._mark_array_api

BOOL = _C.bool
SIGNED = (_C.int8, _C.int16, _C.int32, _C.int64)
UNSIGNED = (_C.uint8, _C.uint16, _C.uint32, _C.uint64)
INTEGRAL = SIGNED + UNSIGNED
REAL_FLOATING = (_C.float32, _C.float64)
COMPLEX = (_C.complex64, _C.complex128)
FLOATING = REAL_FLOATING + COMPLEX
NUMERIC = INTEGRAL + FLOATING
ALL = (BOOL,) + NUMERIC


class ArraySize(int):
    """`x.size` of an array of this namespace: the standard's attribute, the number of elements, and still callable
    as torch's `x.size()` / `x.size(dim)` (csrc/python/tensor_type.cpp's get_size makes it)."""

    def __new__(cls, size_method: Callable[..., Any]) -> "ArraySize":
        shape = size_method()
        count = 1
        for n in shape:
            count *= n
        value = super().__new__(cls, count)
        value._size_method = size_method  # type: ignore[attr-defined]
        return value

    def __call__(self, *args: Any) -> Any:
        return self._size_method(*args)  # type: ignore[attr-defined]


def out(result: Any) -> Any:
    """Marks a result (a tensor, or each tensor of a tuple) as an array of this namespace."""
    if isinstance(result, Tensor):
        return _mark(result)
    if isinstance(result, tuple):
        for r in result:
            if isinstance(r, Tensor):
                _mark(r)
    return result


def named(function: Callable[..., Any], name: str, module: str, doc: str | None = None) -> Callable[..., Any]:
    """function, made by a factory, under its public name (for help(), signatures and tracebacks)."""
    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    if doc is not None:
        function.__doc__ = doc
    return function


def marked(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn, with its results marked."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return out(fn(*args, **kwargs))

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]  (inspect.signature reads the original's)
    return named(wrapper, fn.__name__, "yaten.array_api", fn.__doc__)


def check_array(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: expected an array, got {type(x).__name__}")
    return x


def kind_of(dtype: Any) -> str:
    if dtype == BOOL:
        return "bool"
    if dtype in INTEGRAL:
        return "int"
    if dtype in REAL_FLOATING:
        return "float"
    return "complex"


def scalar_kind(value: Any) -> str:
    if isinstance(value, builtins.bool):
        return "bool"
    if isinstance(value, builtins.int):
        return "int"
    if isinstance(value, builtins.float):
        return "float"
    if isinstance(value, builtins.complex):
        return "complex"
    raise TypeError(f"expected an array or a Python scalar, got {type(value).__name__}")


_KIND_ORDER = {"bool": 0, "int": 1, "float": 2, "complex": 3}


def scalar_dtype(value: Any, like: Tensor) -> Any:
    """The dtype a Python scalar takes beside the array `like` (the standard: the array's own dtype when the
    scalar's kind fits it; a float or complex with an integer array takes the default floating dtype, as torch)."""
    kind = scalar_kind(value)
    if _KIND_ORDER[kind] <= _KIND_ORDER[kind_of(like.dtype)]:
        return like.dtype
    if kind == "bool":
        return like.dtype
    if kind == "int":
        return _C.int64
    if kind == "float":
        return _C.get_default_dtype() if like.dtype not in COMPLEX else like.dtype
    return default_complex() if like.dtype not in COMPLEX else like.dtype


def default_complex() -> Any:
    return _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64


def as_operand(value: Any, like: Tensor) -> Tensor:
    """A Python scalar as a zero-dim array beside `like`, or an array unchanged."""
    if isinstance(value, Tensor):
        return value
    dtype = scalar_dtype(value, like)
    if dtype in FLOATING and not isinstance(value, builtins.bool):
        # rounded to the dtype as IEEE 754 does (a float past float32's range is inf), not refused
        wide = _C.complex128 if dtype in COMPLEX else _C.float64
        return _C.full([], value, dtype=wide, device=like.device).to(dtype)
    return _C.full([], value, dtype=dtype, device=like.device)


def operands(name: str, x1: Any, x2: Any) -> tuple[Tensor, Tensor]:
    """Two operands of an element function, promoted as the standard says: arrays by the promotion table (zero-dim
    ones too), a Python scalar to the other operand's dtype."""
    a, b = isinstance(x1, Tensor), isinstance(x2, Tensor)
    if not (a or b):
        raise TypeError(f"{name}: at least one operand must be an array")
    if not a:
        x1 = as_operand(x1, x2)
    elif not b:
        x2 = as_operand(x2, x1)
    elif x1.dtype != x2.dtype:
        common = _C.promote_types(x1.dtype, x2.dtype)
        x1 = x1 if x1.dtype == common else x1.to(common)
        x2 = x2 if x2.dtype == common else x2.to(common)
    return x1, x2


def device_arg(device: Any) -> Any:
    if device is None:
        return None
    return str(device)


def normalize_axis(axis: int, ndim: int, name: str) -> int:
    if not isinstance(axis, builtins.int) or isinstance(axis, builtins.bool):
        raise TypeError(f"{name}: axis must be an int, got {type(axis).__name__}")
    if not -ndim <= axis < builtins.max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise IndexError(f"{name}: axis {axis} is out of bounds for an array of {ndim} dimensions")
    return axis % builtins.max(ndim, 1)


def axes_arg(axis: Any, ndim: int, name: str) -> list[int]:
    """axis=None | int | tuple of ints as a sorted list of distinct non-negative axes."""
    if axis is None:
        return list(range(ndim))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    result = []
    for a in items:
        if not isinstance(a, builtins.int) or isinstance(a, builtins.bool):
            raise TypeError(f"{name}: axis must be an int or a tuple of ints, got {type(a).__name__}")
        if not -ndim <= a < ndim:
            raise IndexError(f"{name}: axis {a} is out of bounds for an array of {ndim} dimensions")
        a %= ndim
        if a in result:
            raise ValueError(f"{name}: repeated axis {a}")
        result.append(a)
    return sorted(result)
