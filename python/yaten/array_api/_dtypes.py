"""The array API's data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from .. import _C
from .._torch_functions import finfo as _torch_finfo
from .._torch_functions import iinfo as _torch_iinfo
from . import _core
from ._core import Tensor, marked


@marked
def astype(x: Tensor, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> Tensor:
    """x converted to dtype (and moved to device); copy=False returns x itself when nothing changes."""
    _core.check_array(x, "astype")
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"astype: expected a dtype, got {type(dtype).__name__}")
    if x.dtype in _core.COMPLEX and dtype not in _core.COMPLEX and dtype != _C.bool:
        raise TypeError(f"astype: a complex array cannot be cast to {dtype}; take its real or imag part first")
    target_device = None if device is None else _core.device_arg(device)
    if not copy and dtype == x.dtype and (target_device is None or str(x.device) == target_device):
        return x
    return x.to(dtype=dtype, device=target_device, copy=True)


def _promotes(a: Any, b: Any) -> Any:
    """The standard's promotion of two dtypes, or None where the standard defines none (mixed kinds)."""
    ka, kb = _core.kind_of(a), _core.kind_of(b)
    if a == b:
        return a
    if "bool" in (ka, kb):
        return None
    if ka == kb or {ka, kb} == {"float", "complex"}:
        try:
            return _C.promote_types(a, b)
        except TypeError:  # uint64 with a signed integer: no integer holds both, and the standard defines none
            return None
    return None


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether the standard's promotion rules allow a `from_` value to become `to` (int8 -> int16, not back)."""
    if isinstance(from_, Tensor):
        from_ = from_.dtype
    if not isinstance(from_, _C.dtype) or not isinstance(to, _C.dtype):
        raise TypeError("can_cast: expected dtypes or an array and a dtype")
    return _promotes(from_, to) == to


def result_type(*arrays_and_dtypes: Any) -> Any:
    """The dtype the standard's promotion gives for these arrays, dtypes and Python scalars (at least one array
    or dtype); a TypeError for mixed kinds the standard leaves undefined."""
    dtypes = [a.dtype if isinstance(a, Tensor) else a for a in arrays_and_dtypes
              if isinstance(a, (Tensor, _C.dtype))]
    scalars = [a for a in arrays_and_dtypes if not isinstance(a, (Tensor, _C.dtype))]
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is required")
    result = dtypes[0]
    for d in dtypes[1:]:
        promoted = _promotes(result, d)
        if promoted is None:
            raise TypeError(f"result_type: {result} and {d} have no promotion in the array API standard")
        result = promoted
    for s in scalars:
        kind = _core.scalar_kind(s)
        have = _core.kind_of(result)
        order = {"bool": 0, "int": 1, "float": 2, "complex": 3}
        if order[kind] <= order[have] and not (kind != "bool" and have == "bool"):
            continue
        if have in ("int",) and kind in ("float", "complex") or have == "bool":
            raise TypeError(f"result_type: a Python {type(s).__name__} and {result} have no promotion")
        if have == "float" and kind == "complex":
            result = _C.complex128 if result == _C.float64 else _C.complex64
    return result


@dataclass(frozen=True)
class finfo_object:
    bits: builtins.int
    eps: builtins.float
    max: builtins.float
    min: builtins.float
    smallest_normal: builtins.float
    dtype: Any


@dataclass(frozen=True)
class iinfo_object:
    bits: builtins.int
    max: builtins.int
    min: builtins.int
    dtype: Any


def finfo(type: Any, /) -> finfo_object:  # noqa: A002
    """The machine limits of a floating dtype (of a complex one: of its real parts), as the standard's object."""
    dtype = type.dtype if isinstance(type, Tensor) else type
    real = {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(dtype, dtype)
    if not isinstance(real, _C.dtype) or not real.is_floating_point:
        raise TypeError(f"finfo: {dtype} is not a floating dtype")
    limits = _torch_finfo(real)
    return finfo_object(limits.bits, limits.eps, limits.max, limits.min, limits.smallest_normal, real)


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002
    """The range of an integer dtype, as the standard's object."""
    dtype = type.dtype if isinstance(type, Tensor) else type
    if dtype not in _core.INTEGRAL:
        raise TypeError(f"iinfo: {dtype} is not an integer dtype")
    limits = _torch_iinfo(dtype)
    return iinfo_object(limits.bits, limits.max, limits.min, dtype)


_KINDS = {
    "bool": lambda d: d == _C.bool,
    "signed integer": lambda d: d in _core.SIGNED,
    "unsigned integer": lambda d: d in _core.UNSIGNED,
    "integral": lambda d: d in _core.INTEGRAL,
    "real floating": lambda d: d in _core.REAL_FLOATING,
    "complex floating": lambda d: d in _core.COMPLEX,
    "numeric": lambda d: d in _core.NUMERIC,
}


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether dtype is of `kind`: a dtype, one of the standard's kind names, or a tuple of either."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"isdtype: expected a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _C.dtype):
        return dtype == kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r} (one of {', '.join(_KINDS)})")
        return _KINDS[kind](dtype)
    raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple of them, got {type(kind).__name__}")
