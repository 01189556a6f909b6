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


# ------------------------------------------------------------------------------------------------ torch.f_(x)
# torch's in-place functions at the top level (torch.abs_(x), torch.clamp_(x, 0, 1), ...) are its Tensor methods
# called on their first argument.
_IN_PLACE = ["abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
             "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "cos_", "cosh_", "detach_",
             "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "i0_", "log10_", "log1p_",
             "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "reciprocal_", "relu_", "round_",
             "rsqrt_", "selu_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "tan_", "tanh_", "trunc_", "xlogy_"]


def _in_place_function(name: str) -> Any:
    method = getattr(Tensor, name)

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return method(input, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}(input, ...): input.{name}(...), in place; returns input."
    return function


IN_PLACE_FUNCTIONS = {name: _in_place_function(name) for name in _IN_PLACE if hasattr(Tensor, name)}


# ------------------------------------------------------------------------------------------------ shapes
def _as_tensors(tensors: tuple[Any, ...]) -> list[Tensor]:
    return list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else list(tensors)


def _atleast(rank: int, tensors: tuple[Any, ...]) -> Any:
    results = []
    for t in _as_tensors(tensors):
        if t.dim() == 0:
            t = t.reshape([1] * rank)
        elif t.dim() == 1 and rank >= 2:
            t = t.unsqueeze(0) if rank == 2 else t.reshape([1, t.shape[0], 1])
        elif t.dim() == 2 and rank == 3:
            t = t.unsqueeze(-1)
        results.append(t)
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        return results[0]
    return tuple(results)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dimension (a zero-dim one becomes [x]); views."""
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dimensions (1-D ones become rows); views."""
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions (as NumPy: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)); views."""
    return _atleast(3, tensors)


def column_stack(tensors: Any) -> Tensor:
    """The tensors side by side as columns (1-D and 0-dim ones become columns first)."""
    columns = [t.reshape([t.numel(), 1]) if t.dim() <= 1 else t for t in tensors]
    return _C.cat(columns, 1)


def row_stack(tensors: Any) -> Tensor:
    """vstack: the tensors stacked as rows."""
    return _C.cat([t.reshape([1, -1]) if t.dim() <= 1 else t for t in tensors], 0)


def dstack(tensors: Any) -> Tensor:
    """The tensors stacked along a third dimension (made at least 3-D first)."""
    return _C.cat(list(atleast_3d(list(tensors))), 2)


def _split_along(name: str, dim: int, least: int, input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    if input.dim() < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    if isinstance(indices_or_sections, int) and input.shape[dim] % indices_or_sections != 0:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """tensor_split along the columns (dim 1; dim 0 of a 1-D tensor)."""
    return _split_along("hsplit", 1 if input.dim() > 1 else 0, 1, input, indices_or_sections)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """tensor_split along the rows (dim 0) of a tensor of two or more dims."""
    return _split_along("vsplit", 0, 2, input, indices_or_sections)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """tensor_split along dim 2 of a tensor of three or more dims."""
    return _split_along("dsplit", 2, 3, input, indices_or_sections)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of input split along dim: into n nearly equal parts (the first size % n one longer), or at the
    given indices."""
    size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds = [0]
        for i in range(n):
            bounds.append(bounds[-1] + base + (1 if i < extra else 0))
    else:
        bounds = [0] + [min(max(i if i >= 0 else i + size, 0), size) for i in indices_or_sections] + [size]
    return tuple(input.narrow(dim, start, max(stop - start, 0)) for start, stop in zip(bounds[:-1], bounds[1:]))


def fliplr(input: Tensor) -> Tensor:
    """input with its columns (dim 1) reversed."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip([1])


def flipud(input: Tensor) -> Tensor:
    """input with its rows (dim 0) reversed."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip([0])


def ravel(input: Tensor) -> Tensor:
    """input flattened to one dimension (a view when it can be)."""
    return input.reshape(-1)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """input rotated by 90 degrees k times in the plane of dims, from the first dim toward the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    a, b = dims[0] % input.dim(), dims[1] % input.dim()
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    k %= 4
    if k == 1:
        return input.flip([b]).transpose(a, b)
    if k == 2:
        return input.flip([a, b])
    if k == 3:
        return input.flip([a]).transpose(a, b)
    return input.clone()


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: blocks input[i] * other, laid out as input's elements are."""
    nd = max(input.dim(), other.dim())
    a = input.reshape([1] * (nd - input.dim()) + list(input.shape))
    b = other.reshape([1] * (nd - other.dim()) + list(other.shape))
    interleaved_a = a.reshape([s for n in a.shape for s in (n, 1)])
    interleaved_b = b.reshape([s for n in b.shape for s in (1, n)])
    product = interleaved_a * interleaved_b
    return product.reshape([p * q for p, q in zip(a.shape, b.shape)])


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The inner product over the last dimension of each (a product when either is zero-dim)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    return _C.tensordot(input, other, [input.dim() - 1], [other.dim() - 1])


def cartesian_prod(*tensors: Any) -> Tensor:
    """Every combination of one element from each 1-D tensor, one row each (itertools.product's order)."""
    tensors = _as_tensors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = _C.meshgrid(tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def _triangle_indices(row: int, col: int, offset: int, lower: bool, dtype: Any, device: Any) -> Tensor:
    r = _C.arange(row, dtype=_C.int64, device=device).unsqueeze(1)
    c = _C.arange(col, dtype=_C.int64, device=device).unsqueeze(0)
    keep = (c - r <= offset) if lower else (c - r >= offset)
    found = _C.nonzero(keep)
    return found.t().contiguous().to(dtype)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The [2, n] coordinates of the lower triangle (on and below diagonal `offset`) of a row x col matrix, row by
    row."""
    return _triangle_indices(row, col, offset, True, dtype or _C.int64, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The [2, n] coordinates of the upper triangle (on and above diagonal `offset`) of a row x col matrix, row by
    row."""
    return _triangle_indices(row, col, offset, False, dtype or _C.int64, device)


def isposinf(input: Tensor) -> Tensor:
    """Whether each element is +inf."""
    return input == float("inf") if input.dtype.is_floating_point else _C.zeros_like(input, dtype=_C.bool)


def isneginf(input: Tensor) -> Tensor:
    """Whether each element is -inf."""
    return input == float("-inf") if input.dtype.is_floating_point else _C.zeros_like(input, dtype=_C.bool)


def isreal(input: Tensor) -> Tensor:
    """Whether each element is real: always for real dtypes, imag == 0 for complex ones."""
    if input.dtype.is_complex:
        return _C.imag(input) == 0
    return _C.ones_like(input, dtype=_C.bool)


def argwhere(input: Tensor) -> Tensor:
    """The coordinates of the nonzero elements, one row each (nonzero())."""
    return _C.nonzero(input)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of input (broadcast with mask) where mask is True, as a 1-D tensor."""
    if mask.dtype != _C.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    values, flags = _C.broadcast_tensors([input, mask])
    return values.reshape(-1)[flags.reshape(-1)]


def float_power(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in double precision (complex128 if either is complex)."""
    complex_ = any(isinstance(v, complex) or (isinstance(v, Tensor) and v.dtype.is_complex)
                   for v in (input, exponent))
    dtype = _C.complex128 if complex_ else _C.float64
    base = input.to(dtype) if isinstance(input, Tensor) else input
    power = exponent.to(dtype) if isinstance(exponent, Tensor) else exponent
    if not isinstance(base, Tensor):
        return _C.pow(_C.scalar_tensor(base, dtype=dtype, device=str(power.device)), power)
    return _C.pow(base, power)


def is_complex(input: Tensor) -> bool:
    return input.dtype.is_complex


def is_floating_point(input: Tensor) -> bool:
    return input.dtype.is_floating_point


def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor (RuntimeError for any other size)."""
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with " + ("no values" if input.numel() == 0 else
                                                               "more than one value") + " is ambiguous")
    return bool(input.item())


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input: Tensor) -> bool:
    """Whether the dtype holds negative values (every dtype but uint8 and bool)."""
    return input.dtype not in (_C.uint8, _C.bool)
