"""torch's functions that yaten writes in Python over its ops: isin, diff, take_along_dim, broadcast_shapes, finfo
and iinfo. Each takes torch's arguments and raises torch's errors; yaten/_namespace.py exports them."""

from __future__ import annotations

import builtins
import math
from typing import Any

from . import _C
from ._size import Size

Tensor = _C.Tensor


def isin(elements: Any, test_elements: Any, *, assume_unique: builtins.bool = False,
         invert: builtins.bool = False) -> Tensor:
    """Whether each element of `elements` is in `test_elements` (either may be a number), as a bool tensor of
    elements' shape: a sort of test_elements and one binary search per element."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin: at least one of elements and test_elements must be a Tensor")
    if not isinstance(elements, Tensor):
        elements = _C.scalar_tensor(elements, dtype=_C._result_type(test_elements, elements),
                                    device=str(test_elements.device))
    if not isinstance(test_elements, Tensor):
        test_elements = _C.scalar_tensor(test_elements, dtype=_C._result_type(elements, test_elements),
                                         device=str(elements.device))
    common = _C._result_type(elements, test_elements)
    if elements.dtype.is_complex or test_elements.dtype.is_complex:
        raise NotImplementedError("isin: complex tensors are not supported (torch's neither)")
    values, tests = elements.to(common), test_elements.to(common).reshape(-1)
    if tests.numel() == 0:
        found = _C.zeros(list(values.shape), dtype=_C.bool, device=str(values.device))
    else:
        ordered = _C.sort(tests)[0]
        position = _C.searchsorted(ordered, values.contiguous()).clamp(max=ordered.numel() - 1)
        found = ordered[position] == values
    return _C.logical_not(found) if invert else found


def diff(input: Tensor, n: builtins.int = 1, dim: builtins.int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along dim (out[i] = x[i + 1] - x[i], or xor for bool), after prepending and
    appending the given tensors along dim."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:
        return input  # torch's: n=0 leaves input as it is, prepend and append unused
    parts = [p for p in (prepend, input, append) if p is not None]
    values = _C.cat(parts, dim) if len(parts) > 1 else input
    axis = dim % values.dim()
    for _ in range(n):
        length = values.shape[axis]
        if length == 0:
            break
        upper, lower = values.narrow(axis, 1, length - 1), values.narrow(axis, 0, length - 1)
        values = _C.logical_xor(upper, lower) if values.dtype == _C.bool else _C.sub(upper, lower)
    return values


def take_along_dim(input: Tensor, indices: Tensor, dim: builtins.int | None = None) -> Tensor:
    """Values of input at indices along dim (input and indices broadcast in the other dims); with dim=None, of the
    flattened input at the flattened indices."""
    if indices.dtype != _C.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype}")
    if dim is None:
        flat = input.reshape(-1)
        index = indices.reshape(-1)
        return _C.gather(flat, 0, _C.where(index < 0, index + flat.numel(), index))  # negative indices count back
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    axis = dim % input.dim()
    indices = _C.where(indices < 0, indices + input.shape[axis], indices)  # negative indices count back, as torch
    shape = list(input.shape)
    index_shape = list(indices.shape)
    shape[axis] = index_shape[axis] = 1
    common = list(broadcast_shapes(shape, index_shape))
    return _C.gather(input.expand(common[:axis] + [input.shape[axis]] + common[axis + 1:]), axis,
                     indices.expand(common[:axis] + [indices.shape[axis]] + common[axis + 1:]))


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape tensors of these shapes broadcast to (ints count as 1-D shapes), without making tensors."""
    result: list[builtins.int] = []
    for shape in shapes:
        dims = [shape] if isinstance(shape, builtins.int) else list(shape)
        if len(dims) > len(result):
            result = [1] * (len(dims) - len(result)) + result
        for i, size in enumerate(dims):
            j = len(result) - len(dims) + i
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(dims)}")
            if size == 1 or size == result[j]:
                continue
            if result[j] != 1:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                                   f"between {result[j]} and {size} at dimension {i}")
            result[j] = size
    return Size(result)


_FLOATS = {  # bits, eps, max, tiny (smallest normal)
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14),
    "bfloat16": (16, 2.0**-7, 3.3895313892515355e38, 2.0**-126),
    "float32": (32, 2.0**-23, 3.4028234663852886e38, 2.0**-126),
    "float64": (64, 2.0**-52, 1.7976931348623157e308, 2.0**-1022),
}


class finfo:
    """Machine limits of a floating dtype (of a complex dtype: of its parts), as torch.finfo: bits, eps, max, min,
    tiny (= smallest_normal), resolution and dtype (the name)."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002
        dtype = _C.get_default_dtype() if type is None else type
        name = str(dtype).replace("yaten.", "")
        name = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        if name not in _FLOATS:
            raise TypeError(f"torch.finfo() requires a floating point input type, got {dtype}")
        self.bits, self.eps, self.max, self.tiny = _FLOATS[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The range of an integer dtype, as torch.iinfo: bits, max, min and dtype (the name)."""

    def __init__(self, type: Any) -> None:  # noqa: A002
        name = str(type).replace("yaten.", "")
        if not name.startswith(("int", "uint")) or name == "bool":
            raise TypeError(f"torch.iinfo() requires an integer input type, got {type}")
        self.bits = builtins.int(name[4:] if name.startswith("uint") else name[3:])
        signed = not name.startswith("uint")
        self.max = 2 ** (self.bits - signed) - 1
        self.min = -(2 ** (self.bits - 1)) if signed else 0
        self.dtype = name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


Tensor.diff = diff  # type: ignore[attr-defined]
Tensor.take_along_dim = take_along_dim  # type: ignore[attr-defined]
