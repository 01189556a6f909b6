"""torch's functions that yaten writes in Python over its ops (isin, diff, take_along_dim, broadcast_shapes, finfo,
iinfo, the shape helpers, cov, gcd, the windows, the top-level in-place and *_copy spellings, ...). Each takes
torch's arguments and raises torch's errors; tests/test_torch_functions.py compares each with torch, and
yaten/_namespace.py exports them."""

from __future__ import annotations

import builtins
import math
from collections import namedtuple
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


_IN_PLACE += ["addmv_", "as_strided_", "clip_", "conj_physical_", "gcd_", "lcm_", "resize_as_", "square_"]


def in_place_functions() -> dict[str, Any]:
    """The spellings above whose method exists: called once the Python-level methods are installed."""
    return {name: _in_place_function(name) for name in _IN_PLACE if hasattr(Tensor, name)}


# ------------------------------------------------------------------------------------------------ shapes
def tensors_arg(tensors: tuple[Any, ...]) -> list[Tensor]:
    """f(a, b, c) and f([a, b, c]) alike, as torch's varargs tensor functions accept."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def _atleast(rank: int, tensors: tuple[Any, ...]) -> Any:
    results = []
    for t in tensors_arg(tensors):
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
    tensors = tensors_arg(tensors)
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


# ------------------------------------------------------------------------------------------------ statistics, misc
# torch.return_types.aminmax and .frexp: pairs whose parts also have names
_AminmaxResult = namedtuple("aminmax", ["min", "max"])
_FrexpResult = namedtuple("frexp", ["mantissa", "exponent"])


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: builtins.bool = False) -> Any:
    """The minimum and the maximum, over everything or along dim, as (min, max)."""
    if input.numel() == 0 and (dim is None or input.shape[dim] == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    dims = [] if dim is None else [dim]
    low = _C.amin(input, dims, keepdim) if dims else _C.amin(input.reshape(-1), [0], False)
    high = _C.amax(input, dims, keepdim) if dims else _C.amax(input.reshape(-1), [0], False)
    if dim is None and keepdim:
        low, high = low.reshape([1] * input.dim()), high.reshape([1] * input.dim())
    return _AminmaxResult(low, high)


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in input's rows (observations in columns), with frequency and
    analytic weights, as torch.cov (numpy.cov's rules)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape([1, -1]) if input.dim() < 2 else input
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_C.get_default_dtype())
    n = x.shape[1]
    weights = None  # the weights take part in type promotion, as torch's (bfloat16 data, float32 weights: float32)
    if fweights is not None:
        weights = fweights
    if aweights is not None:
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        total = _C.scalar_tensor(float(n), dtype=x.dtype if not x.dtype.is_complex else _C.float64)
        mean = x.mean(1, True)
        norm = total - correction
    else:
        total = weights.sum()
        mean = (x * weights).sum(1, True) / total
        if aweights is None or correction == 0:
            norm = total - correction
        else:
            norm = total - correction * (weights * aweights).sum() / total
    centered = x - mean
    right = centered * weights if weights is not None else centered
    product = _C.matmul(right, centered.t().conj() if x.dtype.is_complex else centered.t())
    result = product / _C.clamp(norm, min=0) if isinstance(norm, Tensor) else product / max(norm, 0)
    return result.squeeze()  # one variable: a zero-dim tensor, as torch's


def corrcoef(input: Tensor) -> Tensor:
    """The Pearson correlation coefficients of the variables in input's rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = _C.diagonal(c, 0, 0, 1)
    if c.dtype.is_complex:
        d = _C.real(d)
    std = _C.sqrt(d)
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    if c.dtype.is_complex:
        return _C.complex(_C.clamp(_C.real(c), -1, 1), _C.clamp(_C.imag(c), -1, 1))
    return _C.clamp(c, -1, 1)


def _check_integral(name: str, *tensors: Tensor) -> None:
    for t in tensors:
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == _C.bool:
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{str(t.dtype).split(".")[-1]}\'')


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor of integer tensors, elementwise (non-negative; gcd(0, 0) = 0)."""
    _check_integral("gcd", input, other)
    a, b = _C.broadcast_tensors([input.abs(), other.abs()])
    dtype = _C._result_type(input, other)
    a, b = a.to(dtype), b.to(dtype)
    while bool((b != 0).any()):  # Euclid's algorithm on every pair at once; at most ~92 rounds for int64
        nonzero = b != 0
        safe = _C.where(nonzero, b, _C.ones_like(b))
        a, b = _C.where(nonzero, b, a), _C.where(nonzero, _C.remainder(a, safe), b)
    return a


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of integer tensors, elementwise (non-negative; 0 when either is 0)."""
    _check_integral("lcm", input, other)
    g = gcd(input, other)
    safe = _C.where(g == 0, _C.ones_like(g), g)
    return _C.where(g == 0, g, (input // safe * other).abs())


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of `shape` of each flat index, one tensor per dimension."""
    if not isinstance(indices, Tensor):
        indices = _C.tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    total = 1
    for s in shape:
        total *= s
    wide = indices.to(_C.int64)
    if bool(((wide < -total) | (wide >= total)).any()):
        raise ValueError("'indices' must be in range [-prod(shape), prod(shape) - 1]")
    flat = indices.to(_C.int64)
    flat = _C.where(flat < 0, flat + total, flat)
    coordinates = []
    for s in reversed(shape):
        coordinates.append(_C.remainder(flat, s))
        flat = _C.floor_divide(flat, s)
    return tuple(reversed(coordinates))


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The integral of y along dim by the trapezoidal rule, at spacing dx (default 1) or sample points x."""
    n = y.shape[dim]
    if n == 0:
        return _C.sum(y, [dim], False)
    upper, lower = y.narrow(dim, 1, n - 1), y.narrow(dim, 0, n - 1)
    if isinstance(x, Tensor):
        spacing = diff(x, dim=-1 if x.dim() == 1 else dim)
        if x.dim() == 1:
            spacing = spacing.reshape([-1] + [1] * (y.dim() - (dim % y.dim()) - 1))
        return _C.sum((upper + lower) * spacing, [dim], False) / 2
    step = dx if dx is not None else (x if x is not None else 1)
    return _C.sum(upper + lower, [dim], False) * (step / 2)


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """trapezoid's older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral of y along dim (one element fewer than y along dim)."""
    n = y.shape[dim]
    upper, lower = y.narrow(dim, 1, max(n - 1, 0)), y.narrow(dim, 0, max(n - 1, 0))
    if isinstance(x, Tensor):
        spacing = diff(x, dim=-1 if x.dim() == 1 else dim)
        if x.dim() == 1:
            spacing = spacing.reshape([-1] + [1] * (y.dim() - (dim % y.dim()) - 1))
        return _C.cumsum((upper + lower) * spacing / 2, dim)
    step = dx if dx is not None else (x if x is not None else 1)
    return _C.cumsum((upper + lower) * (step / 2), dim)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-D) as blocks on the diagonal of one matrix, zeros elsewhere."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        blocks.append(t.reshape([1, -1]) if t.dim() == 1 else t.reshape([1, 1]) if t.dim() == 0 else t)
    if not blocks:
        return _C.empty([1, 0])
    dtype = _C._result_type(*blocks) if len(blocks) > 1 else blocks[0].dtype
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = _C.zeros([rows, cols], dtype=dtype, device=str(blocks[0].device))
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def combinations(input: Tensor, r: int = 2, with_replacement: builtins.bool = False) -> Tensor:
    """The r-element combinations of a 1-D tensor's elements, one per row, in itertools' order."""
    import itertools

    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty([0], dtype=input.dtype, device=str(input.device))
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(make(range(input.shape[0]), r))
    if not rows:
        return _C.empty([0, r], dtype=input.dtype, device=str(input.device))
    index = _C.tensor(rows, dtype=_C.int64, device=input.device)
    return _C.index_select(input, 0, index.reshape(-1)).reshape([len(rows), r])


def vander(x: Tensor, N: int | None = None, increasing: builtins.bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D x: columns x**(N-1) .. x**0 (increasing=True: x**0 .. x**(N-1))."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = _C.int64 if not (x.dtype.is_floating_point or x.dtype.is_complex) else x.dtype
    powers = _C.arange(n, dtype=_C.int64, device=str(x.device))
    if not increasing:
        powers = powers.flip([0])
    return _C.pow(x.to(dtype).unsqueeze(1), powers.unsqueeze(0)) if n else _C.empty(
        [x.shape[0], 0], dtype=dtype, device=str(x.device))


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other."""
    return _C._linalg.vector_norm(input - other, p)


def _window(name: str, window_length: int, periodic: builtins.bool, dtype: Any, device: Any,
            values: Any) -> Tensor:
    dtype = dtype or _C.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length == 0:
        return _C.empty([0], dtype=dtype, device=device)
    if window_length == 1:
        return _C.ones([1], dtype=dtype, device=device)
    n = window_length + 1 if periodic else window_length
    k = _C.arange(n, dtype=_C.float64, device=device)
    return values(k, n)[:window_length].to(dtype)


def hann_window(window_length: int, periodic: builtins.bool = True, *, dtype: Any = None, layout: Any = None,
                device: Any = None, pin_memory: builtins.bool = False, requires_grad: builtins.bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi k / (N - 1))."""
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device)


def hamming_window(window_length: int, periodic: builtins.bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: builtins.bool = False,
                   requires_grad: builtins.bool = False) -> Tensor:
    """alpha - beta cos(2 pi k / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, device,
                   lambda k, n: alpha - beta * _C.cos(k * (2 * math.pi / (n - 1))))


def bartlett_window(window_length: int, periodic: builtins.bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: builtins.bool = False,
                    requires_grad: builtins.bool = False) -> Tensor:
    """The triangular window 1 - |2k / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, device,
                   lambda k, n: 1 - _C.abs(k * (2 / (n - 1)) - 1))


def blackman_window(window_length: int, periodic: builtins.bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, pin_memory: builtins.bool = False,
                    requires_grad: builtins.bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, device,
                   lambda k, n: 0.42 - 0.5 * _C.cos(k * (2 * math.pi / (n - 1))) +
                   0.08 * _C.cos(k * (4 * math.pi / (n - 1))))


def kaiser_window(window_length: int, periodic: builtins.bool = True, beta: float = 12.0, *, dtype: Any = None,
                  layout: Any = None, device: Any = None, pin_memory: builtins.bool = False,
                  requires_grad: builtins.bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)."""
    return _window("kaiser_window", window_length, periodic, dtype, device,
                   lambda k, n: _C.i0(beta * _C.sqrt(_C.clamp(1 - (k * (2 / (n - 1)) - 1) ** 2, min=0))) /
                   _C.i0(_C.scalar_tensor(beta, dtype=_C.float64)))


# ------------------------------------------------------------------------------------------------ view copies
# torch's `*_copy` functions: the view op's result as a new contiguous tensor (what torch's functionalization
# passes produce), for programs that call them by name.
def _copy_of(name: str, view: Any) -> Any:
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        result = view(input, *args, **kwargs)
        if isinstance(result, (tuple, list)):
            return tuple(r.clone() for r in result)
        return result.clone()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}: {name[:-5]}'s result as a new contiguous tensor (not a view)."
    return function


VIEW_COPIES = {
    name + "_copy": _copy_of(name + "_copy", view) for name, view in [
        ("alias", lambda t: t.view_as(t)),
        ("as_strided", lambda t, size, stride, storage_offset=None: t.as_strided(size, stride, storage_offset)),
        ("detach", lambda t: t.detach()),
        ("diagonal", lambda t, offset=0, dim1=0, dim2=1: t.diagonal(offset, dim1, dim2)),
        ("expand", lambda t, size, *, implicit=False: t.expand(list(size))),
        ("permute", lambda t, dims: t.permute(list(dims))),
        ("select", lambda t, dim, index: t.select(dim, index)),
        ("slice", lambda t, dim=0, start=None, end=None, step=1: _C.slice(t, dim, start, end, step)),
        ("split", lambda t, split_size, dim=0: t.split(split_size, dim)),
        ("split_with_sizes", lambda t, split_sizes, dim=0: t.split_with_sizes(list(split_sizes), dim)),
        ("squeeze", lambda t, dim=None: t.squeeze() if dim is None else t.squeeze(dim)),
        ("t", lambda t: t.t()),
        ("transpose", lambda t, dim0, dim1: t.transpose(dim0, dim1)),
        ("unbind", lambda t, dim=0: t.unbind(dim)),
        ("unsqueeze", lambda t, dim: t.unsqueeze(dim)),
        ("view_as_complex", lambda t: _C.view_as_complex(t)),
        ("view_as_real", lambda t: _C.view_as_real(t)),
        ("view", lambda t, *size: t.view(*size)),
        ("narrow", lambda t, dim, start, length: t.narrow(dim, start, length)),
        ("unfold", lambda t, dimension, size, step: t.unfold(dimension, size, step)),
    ]
}


# ------------------------------------------------------------------------------------------------ more of torch.*


def frexp(input: Tensor) -> Any:
    """input = mantissa * 2**exponent with |mantissa| in [0.5, 1) (0, inf and NaN: themselves and exponent 0); the
    exponent is int32. Computed in float64, where every float32 and float64 value (subnormals too) is exact."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = input.to(_C.float64)
    regular = _C.isfinite(x) & (x != 0)
    safe = _C.where(regular, _C.abs(x), _C.ones_like(x))
    exponent = _C.floor(_C.log2(safe)) + 1
    mantissa = x / _C.exp2(exponent)
    # log2 can land one off near powers of two: bring |mantissa| into [0.5, 1)
    high = _C.abs(mantissa) >= 1
    exponent, mantissa = _C.where(high, exponent + 1, exponent), _C.where(high, mantissa / 2, mantissa)
    low = regular & (_C.abs(mantissa) < 0.5)
    exponent, mantissa = _C.where(low, exponent - 1, exponent), _C.where(low, mantissa * 2, mantissa)
    mantissa = _C.where(regular, mantissa, x)
    exponent = _C.where(regular, exponent, _C.zeros_like(exponent))
    return _FrexpResult(mantissa.to(input.dtype), exponent.to(_C.int32))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0..max occurs in a 1-D non-negative integer tensor (the sum of the weights there, with
    weights), at least minlength long."""
    if input.dim() != 1 or input.dtype.is_floating_point or input.dtype.is_complex or input.dtype == _C.bool:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None and input.device.type == "cpu":  # one kernel (kernels/cpu/indexing/bincount.h)
        return _C._bincount_counts(input, minlength)
    low, high = (input.min(), input.max()) if input.numel() else (None, None)
    if low is not None and int(low.item()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = max(int(high.item()) + 1 if high is not None else 0, minlength)
    index = input.to(_C.int64)
    if weights is None:  # the ones as one expanded element, not an array of them
        counts = _C.zeros([length], dtype=_C.int64, device=str(input.device))
        return counts.scatter_add_(0, index, _C.ones([1], dtype=_C.int64, device=str(input.device)).expand(index.shape))
    dtype = weights.dtype if weights.dtype.is_floating_point else _C.float64
    total = _C.zeros([length], dtype=dtype, device=str(input.device))
    return total.scatter_add(0, index, weights.to(dtype))


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """input with each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    axis = dim % input.dim()
    others = [d for d in range(input.dim()) if d != axis]
    norms = _C._linalg.vector_norm(input, p, others, True)
    scale = _C.where(norms > maxnorm, maxnorm / (norms + 1e-7), _C.ones_like(norms))  # torch's 1e-7
    return input * scale


def unique_consecutive(input: Tensor, return_inverse: builtins.bool = False, return_counts: builtins.bool = False,
                       dim: int | None = None) -> Any:
    """The tensor with each run of equal consecutive elements (slices along dim) reduced to one; with the index
    of each element's run (return_inverse) and each run's length (return_counts)."""
    if dim is None and input.device.type == "cpu":  # one kernel, two passes (kernels/cpu/sort/unique_consecutive.h)
        values, inverse, counts = _C._unique_consecutive(input, return_inverse, return_counts)
        out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
        return out[0] if len(out) == 1 else out
    if dim is None:
        flat = input.reshape(-1)
        n = flat.shape[0]
        change = _C.ones([n], dtype=_C.bool, device=str(input.device))
        if n > 1:
            change[1:] = flat[1:] != flat[:-1]
        values = flat[change]
        shape = list(input.shape)
    else:
        axis = dim % input.dim()
        moved = input.movedim(axis, 0)
        n = moved.shape[0]
        rows = moved.reshape([n, math.prod(moved.shape[1:])])
        change = _C.ones([n], dtype=_C.bool, device=str(input.device))
        if n > 1:
            change[1:] = (rows[1:] != rows[:-1]).any(1) if rows.shape[1] else change[1:] & False
        values = moved[change].movedim(0, axis)
        shape = [n]
    out: tuple[Tensor, ...] = (values,)
    if return_inverse:  # only what is asked for (computing all three took 3.8x torch's time for the values alone)
        out += ((_C.cumsum(change.to(_C.int64), 0) - 1).reshape(shape),)
    if return_counts:
        starts = _C.nonzero(change).reshape(-1)
        out += (_C.cat([starts[1:], _C.full([1], n, dtype=_C.int64, device=str(input.device))]) - starts,)
    return out[0] if len(out) == 1 else out


# ------------------------------------------------------------------------------------------------ indexed updates
# index_add / index_copy / index_reduce / index_put / put: torch's indexed writes, composed from scatter_add_,
# scatter_reduce_, index_copy_ and advanced-index assignment (each with CPU and CUDA kernels and derivatives).
def _index_dim_checks(name: str, input: Tensor, dim: int, index: Tensor, source: Tensor) -> tuple[int, Tensor]:
    if not isinstance(index, Tensor) or index.dtype not in (_C.int64, _C.int32):
        raise TypeError(f"{name}: Expected dtype int32/int64 for index")
    if index.dim() > 1:
        raise IndexError(f"{name}: Index is supposed to be a vector")
    ndim = max(input.dim(), 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"{name}: Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
                         f"{dim})")
    dim %= ndim
    if source.dtype != input.dtype:
        raise RuntimeError(f"{name}: self ({input.dtype}) and source ({source.dtype}) must have the same scalar type")
    in_shape = list(input.shape) or [1]
    src_shape = list(source.shape) or [1]
    count = index.numel()
    if len(src_shape) != len(in_shape) or src_shape[dim] != count or any(
            a != b for d, (a, b) in enumerate(zip(in_shape, src_shape)) if d != dim):
        raise RuntimeError(f"{name}: source of shape {list(source.shape)} does not match self of shape "
                           f"{list(input.shape)} with {count} indices along dim {dim}")
    view = [1] * len(src_shape)
    view[dim] = count
    expanded = index.to(_C.int64).reshape(view).expand(src_shape)
    return dim, expanded


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """input with alpha * source[..., i, ...] added at input[..., index[i], ...] along dim (repeats accumulate)."""
    dim, expanded = _index_dim_checks("index_add", input, dim, index, source)
    src = source if alpha == 1 else source * alpha
    if input.dim() == 0:
        return input.reshape([1]).scatter_add(0, expanded.reshape([-1]), src.reshape([-1])).reshape([])
    return input.scatter_add(dim, expanded, src)


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim, expanded = _index_dim_checks("index_add_", input, dim, index, source)
    src = source if alpha == 1 else source * alpha
    if input.dim() == 0:
        input.view([1]).scatter_add_(0, expanded.reshape([-1]), src.reshape([-1]))
        return input
    return input.scatter_add_(dim, expanded, src)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """input with source[..., i, ...] written to input[..., index[i], ...] along dim (out of place)."""
    return input.clone().index_copy_(dim, index, source)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: builtins.bool = True) -> Tensor:
    """input[..., index[i], ...] reduced ('prod', 'mean', 'amax' or 'amin') with source[..., i, ...] along dim;
    include_self=False leaves input's own value out of the reduction where an index lands."""
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim, expanded = _index_dim_checks("index_reduce", input, dim, index, source)
    return input.scatter_reduce(dim, expanded, source, reduce, include_self=include_self)


def index_reduce_(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: builtins.bool = True) -> Tensor:
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce_(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim, expanded = _index_dim_checks("index_reduce_", input, dim, index, source)
    return input.scatter_reduce_(dim, expanded, source, reduce, include_self=include_self)


def _index_key(name: str, indices: Any) -> tuple[Any, ...]:
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}: indices must be a tuple of tensors (None for a whole dimension)")
    return tuple(slice(None) if i is None else i for i in indices)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: builtins.bool = False) -> Tensor:
    """input[indices] = values (torch's advanced indexing; None in indices stands for a whole dimension); with
    accumulate=True, values at repeated positions are all added (input[indices] += values would keep one)."""
    key = _index_key("index_put_", indices)
    if values.dtype != input.dtype:
        raise RuntimeError(f"index_put_: Index put requires the source and destination dtypes match, got "
                           f"{input.dtype} for the destination and {values.dtype} for the source.")
    if not accumulate:
        input[key] = values
        return input
    shape = list(input.shape)
    device = input.device
    # The flat position of every element input[key] selects: each dimension's coordinate, gathered by the same key
    # from an expanded (memory-free) view of arange along it, times the row-major stride.
    linear = None
    stride = 1
    for d in reversed(range(len(shape))):
        axis = [1] * len(shape)
        axis[d] = shape[d]
        coordinate = _C.arange(shape[d], device=device).view(axis).expand(shape)[key]
        term = coordinate * stride if stride != 1 else coordinate
        linear = term if linear is None else linear + term
        stride *= shape[d]
    if linear is None:  # a 0-dim input
        return input.add_(values.sum()) if values.numel() else input
    flat_values = values.expand(list(linear.shape)).reshape([-1])
    target = input if input.is_contiguous() else input.contiguous()
    target.view([-1]).index_add_(0, linear.reshape([-1]), flat_values)
    if target is not input:
        input.copy_(target)
    return input


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: builtins.bool = False) -> Tensor:
    """index_put_ on a copy of input."""
    return index_put_(input.clone(), indices, values, accumulate)


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: builtins.bool = False) -> Tensor:
    """input as if flattened (row-major), source's elements written (or with accumulate=True added) at index."""
    if index.dtype != _C.int64:
        raise TypeError(f"put_: Expected a long tensor for index, but got {index.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_: self ({input.dtype}) and source ({source.dtype}) must have the same scalar type")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_: Expected source and index to have the same number of elements, but got "
                           f"{source.numel()} for source and {index.numel()} for index")
    n = input.numel()
    flat_index = index.reshape([-1])
    if flat_index.numel():
        if n == 0 or builtins.bool(((flat_index < -n) | (flat_index >= n)).any()):
            raise IndexError(f"put_: index out of range for tensor of size {list(input.shape)}")
        flat_index = _C.where(flat_index < 0, flat_index + n, flat_index)
    target = input if input.is_contiguous() else input.contiguous()
    flat = target.view([-1])
    if accumulate:
        flat.index_add_(0, flat_index, source.reshape([-1]))
    else:
        flat.index_copy_(0, flat_index, source.reshape([-1]))
    if target is not input:
        input.copy_(target)
    return input


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: builtins.bool = False) -> Tensor:
    """put_ on a copy of input."""
    return put_(input.clone(), index, source, accumulate)


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: builtins.bool = False) -> Tensor:
    """The main diagonal set to fill_value (all indices equal, for a tensor whose dims are all one length); a tall
    matrix's diagonal starts again below the square with wrap=True."""
    if input.dim() < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    shape = list(input.shape)
    device = input.device
    if input.dim() > 2 and any(n != shape[0] for n in shape):
        raise RuntimeError("fill_diagonal_: all dimensions of input must be of equal length")
    if input.dim() == 2:
        rows_n, cols_n = shape
        if wrap and rows_n > cols_n + 1:
            k = _C.arange(0, rows_n * cols_n, cols_n + 1, device=device)
            rows, cols = k // cols_n, k % cols_n
        else:
            rows = cols = _C.arange(min(rows_n, cols_n), device=device)
        input[rows, cols] = fill_value
        return input
    diagonal = _C.arange(shape[0], device=device)
    input[(diagonal,) * input.dim()] = fill_value
    return input


# ------------------------------------------------------------------------------------------------ more composites
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i]), as one matrix product."""
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError(f"addbmm: batch1 must be a 3D tensor, batch2 must be a 3D tensor (got {batch1.dim()}-D "
                           f"and {batch2.dim()}-D)")
    b, n, m = batch1.shape
    if batch2.shape[0] != b or batch2.shape[1] != m:
        raise RuntimeError(f"addbmm: batch1 and batch2 shapes cannot be multiplied ({list(batch1.shape)} and "
                           f"{list(batch2.shape)})")
    left = batch1.transpose(0, 1).reshape([n, b * m])
    right = batch2.reshape([b * m, batch2.shape[2]])
    dtype = _C.promote_types(input.dtype, _C.promote_types(batch1.dtype, batch2.dtype))
    if dtype in (_C.float16, _C.bfloat16):  # one float32 product, rounded once (torch rounds after each batch)
        return _C.addmm(input.float(), left.float(), right.float(), beta=beta, alpha=alpha).to(dtype)
    return _C.addmm(input, left, right, beta=beta, alpha=alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2) (input is ignored, NaNs too, when beta is 0)."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1 and vec2, but got {vec1.dim()}-D and {vec2.dim()}-D")
    product = _C.outer(vec1, vec2)
    dtype = _C.promote_types(input.dtype, product.dtype)
    shape = list(broadcast_shapes(input.shape, product.shape))
    if list(shape) != list(product.shape):
        raise RuntimeError(f"addr: the size of input {list(input.shape)} does not broadcast to the outer product's "
                           f"{list(product.shape)}")
    if dtype == _C.bool:  # logical: and for the product, or for the sum; beta and alpha count as truth values
        product = product & builtins.bool(alpha)
        return product if not beta else product | input.to(_C.bool)
    for name, value in (("beta", beta), ("alpha", alpha)):
        if isinstance(value, builtins.bool):
            raise RuntimeError(f"addr: Boolean {name} only supported for Boolean results.")
    # float16 and bfloat16 computed in float32 and rounded once, as torch's kernel does
    compute = _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype
    product = _C.outer(vec1.to(compute), vec2.to(compute))
    if alpha != 1:
        product = product * alpha
    if beta != 0:
        product = product + (input.to(compute) if beta == 1 else input.to(compute) * beta)
    return product.to(dtype)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened input on its offset-th diagonal."""
    return _C.diag(input.reshape([-1]), offset)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of input with src written into its diagonal(offset, dim1, dim2)."""
    out = input.clone()
    target = out.diagonal(offset, dim1, dim2)
    if list(target.shape) != list(src.shape):
        raise RuntimeError(f"diagonal_scatter: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(target.shape)}")
    target.copy_(src)
    return out


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A copy of input with src written where input.as_strided(size, stride, storage_offset) reaches."""
    out = input.clone() if input.is_contiguous() else input.contiguous()
    target = out.as_strided(list(size), list(stride), storage_offset)
    if list(target.shape) != list(src.shape):
        raise RuntimeError(f"as_strided_scatter: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(target.shape)}")
    target.copy_(src)
    return out


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """other - alpha * input."""
    if isinstance(other, Tensor):
        return _C.sub(other, input, alpha=alpha)
    return (input if alpha == 1 else input * alpha).__rsub__(other)


def square_(input: Tensor) -> Tensor:
    return input.mul_(input)


# ------------------------------------------------------------------------------------------------ quantiles
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, input: Tensor, q: Any, dim: int | None, keepdim: builtins.bool, interpolation: str,
              ignore_nan: builtins.bool) -> Tensor:
    if input.dtype not in (_C.float32, _C.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
                         f"{interpolation}")
    scalar_q = not isinstance(q, Tensor) or q.dim() == 0
    if isinstance(q, Tensor):
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        qs = q.reshape([-1]).to(input.device)
    else:
        qs = _C.tensor([float(q)], dtype=input.dtype, device=input.device)
    if qs.numel() and builtins.bool(((qs < 0) | (qs > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        rows = input.reshape([1, -1])
        out_shape = [1] * input.dim() if keepdim else []
    else:
        ndim = max(input.dim(), 1)
        if not -ndim <= dim < ndim:
            raise IndexError(f"{name}(): Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                             f"but got {dim})")
        d = dim % ndim
        moved = input.reshape([1]) if input.dim() == 0 else input.movedim(d, -1)
        out_shape = list(input.shape)
        if input.dim():
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
        rows = moved.reshape([-1, moved.shape[-1]])
    n = rows.shape[-1]
    ordered = rows.sort(dim=-1).values  # NaN sorts last
    nan = rows.isnan()
    if ignore_nan:
        valid = (~nan).sum(-1, keepdim=True).to(input.dtype)
        ranks = qs.view([1, -1]) * (valid - 1)
        ranks = _C.where(valid > 0, ranks, _C.full_like(ranks, n - 1))  # an all-NaN row gives NaN
    else:
        ranks = qs.view([1, -1]) * (n - 1)
        ranks = _C.where(nan.any(-1, keepdim=True), _C.full_like(ranks, n - 1), ranks)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.floor().to(_C.int64).clamp(0, n - 1)
    above = ranks.ceil().to(_C.int64).clamp(0, n - 1)
    low = ordered.gather(-1, below)
    high = ordered.gather(-1, above)
    if interpolation == "midpoint":
        weight = _C.full_like(ranks, 0.5)
    else:
        weight = ranks - below.to(input.dtype)
    values = _C.lerp(low, high, weight)  # rows x len(q)
    result = values.transpose(0, 1).reshape([qs.numel()] + out_shape)
    return result.reshape(out_shape) if scalar_q else result


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: builtins.bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles of input (all of it, or along dim), between the two nearest order statistics as
    interpolation says; a row holding a NaN gives NaN. A 1-D q adds a first dimension."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: builtins.bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """quantile over the values that are not NaN (NaN where a row has none)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)


# ------------------------------------------------------------------------------------------------ histograms
_histogram_result = namedtuple("histogram", ["hist", "bin_edges"])
_histogramdd_result = namedtuple("histogramdd", ["hist", "bin_edges"])


def _bin_edges(name: str, values: Tensor, bins: Any, lo_hi: Any) -> Tensor:
    if isinstance(bins, Tensor):
        if bins.dim() != 1 or bins.numel() < 2:
            raise RuntimeError(f"{name}(): bins tensor should have one dimension and at least 2 elements")
        return bins.to(values.dtype)
    count = int(bins)
    if count <= 0:
        raise RuntimeError(f"{name}(): bins must be > 0, but got {count}")
    if lo_hi is not None:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
        if lo > hi:
            raise RuntimeError(f"{name}(): max must be larger than min")
    elif values.numel():
        lo, hi = float(values.min()), float(values.max())
    else:
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"{name}(): range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _C.linspace(lo, hi, count + 1, dtype=values.dtype, device=values.device)


def _bin_positions(values: Tensor, edges: Tensor) -> tuple[Tensor, Tensor]:
    """Each value's bin (the last bin closed on the right) and whether it lies inside the edges."""
    nbins = edges.numel() - 1
    position = _C.searchsorted(edges, values.contiguous(), right=True) - 1
    position = _C.where(values == edges[-1], _C.full_like(position, nbins - 1), position)
    inside = (values >= edges[0]) & (values <= edges[-1])
    return position.clamp(0, nbins - 1), inside


def _histogramdd(name: str, points: Tensor, bins: Any, lo_hi: Any, weight: Tensor | None,
                 density: builtins.bool) -> tuple[Tensor, list[Tensor]]:
    if not points.dtype.is_floating_point:
        raise NotImplementedError(f"{name}(): not implemented for {points.dtype} (a floating point input is needed)")
    if points.device.type != "cpu":
        raise NotImplementedError(f"{name}(): not implemented for CUDA tensors (as in torch)")
    dims = points.shape[-1]
    flat = points.reshape([-1, dims])
    if weight is not None and weight.numel() != flat.shape[0]:
        raise RuntimeError(f"{name}(): weight should have the same shape as input excluding its innermost dimension")
    per_dim_bins = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    if len(per_dim_bins) != dims:
        raise RuntimeError(f"{name}(): expected {dims} sequences of bin edges for each dimension, but got "
                           f"{len(per_dim_bins)}")
    ranges = [None] * dims
    if lo_hi is not None:
        lo_hi = list(lo_hi)
        if len(lo_hi) != 2 * dims:
            raise RuntimeError(f"{name}(): expected {2 * dims} values in range, but got {len(lo_hi)}")
        ranges = [(lo_hi[2 * d], lo_hi[2 * d + 1]) for d in range(dims)]
    edges = [_bin_edges(name, flat[:, d], per_dim_bins[d], ranges[d]) for d in range(dims)]
    counts = [e.numel() - 1 for e in edges]
    linear = _C.zeros([flat.shape[0]], dtype=_C.int64, device=points.device)
    inside = _C.ones([flat.shape[0]], dtype=_C.bool, device=points.device)
    for d in range(dims):
        position, ok = _bin_positions(flat[:, d], edges[d])
        linear = linear * counts[d] + position
        inside = inside & ok
    w = weight.reshape([-1]).to(points.dtype) if weight is not None else \
        _C.ones([flat.shape[0]], dtype=points.dtype, device=points.device)
    hist = _C.zeros([math.prod(counts)], dtype=points.dtype, device=points.device)
    hist.index_add_(0, linear[inside], w[inside])
    hist = hist.reshape(counts)
    if density:
        total = hist.sum()
        volume = None
        for d in range(dims):
            width = (edges[d][1:] - edges[d][:-1]).reshape([-1 if k == d else 1 for k in range(dims)])
            volume = width if volume is None else volume * width
        hist = hist / (total * volume)
    return hist, edges


def histogram(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
              density: builtins.bool = False) -> Any:
    """The histogram of input's values: bins equal bins over range (input's min to max when None) or the given
    edges, each closed on the left (the last on both sides); weight= sums weights instead of counting; density=
    divides by the total and the bin widths. Returns (hist, bin_edges)."""
    hist, edges = _histogramdd("histogram", input.reshape([-1, 1]), [bins], range, weight, density)
    return _histogram_result(hist, edges[0])


def histogramdd(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
                density: builtins.bool = False) -> Any:
    """The D-dimensional histogram of the points in input's last dimension (size D): bins per dimension (one int
    for all, a list of ints, or a list of edge tensors). Returns (hist, [bin_edges per dimension])."""
    hist, edges = _histogramdd("histogramdd", input, bins, range, weight, density)
    return _histogramdd_result(hist, edges)


# ------------------------------------------------------------------------------------------------ gradient
def _gradient_spacing(spacing: Any, dims: list[int], input: Tensor) -> list[Any]:
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, (int, float)) and not isinstance(spacing, builtins.bool):
        return [float(spacing)] * len(dims)
    if isinstance(spacing, Tensor) and spacing.dim() == 0:
        return [float(spacing)] * len(dims)
    items = list(spacing)
    if len(items) == 1 and len(dims) > 1 and not isinstance(items[0], Tensor):
        return [float(items[0])] * len(dims)
    if len(items) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or its length to match the "
                           f"number of dimensions being differentiated ({len(dims)}), but got {len(items)}")
    out: list[Any] = []
    for item, d in zip(items, dims):
        if isinstance(item, Tensor) and item.dim() > 0:
            if item.dim() != 1 or item.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor in spacing to be 1-D with the size of "
                                   f"dimension {d} ({input.shape[d]}), but got {list(item.shape)}")
            out.append(item)
        else:
            out.append(float(item))
    return out


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative of the sampled function input along each of dim (all when None), NumPy's np.gradient:
    second-order central differences inside (for uneven coordinates too), one-sided differences of order edge_order
    (1 or 2) at the ends. spacing: one step for all, a step per dim, or each dim's coordinates as a 1-D tensor."""
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}")
    ndim = input.dim()
    dims = list(range(ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    for d in dims:
        if not -ndim <= d < ndim:
            raise IndexError(f"gradient: Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                             f"but got {d})")
    dims = [d % ndim for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError("torch.gradient: dim must not contain a dimension twice")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least edge_order+1, got "
                               f"{input.shape[d]} along dimension {d}")
    f = input if input.dtype.is_floating_point or input.dtype.is_complex else input.to(_C.get_default_dtype())
    steps = _gradient_spacing(spacing, dims, input)
    results = []
    for d, h in zip(dims, steps):
        n = f.shape[d]

        def part(start: int, stop: int) -> Tensor:
            return f.narrow(d, start, stop - start)

        def shaped(t: Tensor) -> Tensor:
            view = [1] * ndim
            view[d] = t.shape[0]
            return t.to(f.dtype).view(view)

        if isinstance(h, Tensor):
            dx = diff(h.to(f.dtype))
            dx1, dx2 = shaped(dx[:-1]), shaped(dx[1:])
            a = -dx2 / (dx1 * (dx1 + dx2))
            b = (dx2 - dx1) / (dx1 * dx2)
            c = dx1 / (dx2 * (dx1 + dx2))
            inside = a * part(0, n - 2) + b * part(1, n - 1) + c * part(2, n)
            if edge_order == 1:
                first = (part(1, 2) - part(0, 1)) / dx[0]
                last = (part(n - 1, n) - part(n - 2, n - 1)) / dx[-1]
            else:
                e1, e2 = dx[0], dx[1]
                first = (-(2 * e1 + e2) / (e1 * (e1 + e2)) * part(0, 1) + (e1 + e2) / (e1 * e2) * part(1, 2)
                         - e1 / (e2 * (e1 + e2)) * part(2, 3))
                e1, e2 = dx[-2], dx[-1]
                last = (e2 / (e1 * (e1 + e2)) * part(n - 3, n - 2) - (e2 + e1) / (e1 * e2) * part(n - 2, n - 1)
                        + (2 * e2 + e1) / (e2 * (e1 + e2)) * part(n - 1, n))
        else:
            inside = (part(2, n) - part(0, n - 2)) / (2 * h)
            if edge_order == 1:
                first = (part(1, 2) - part(0, 1)) / h
                last = (part(n - 1, n) - part(n - 2, n - 1)) / h
            else:
                first = (-1.5 * part(0, 1) + 2 * part(1, 2) - 0.5 * part(2, 3)) / h
                last = (0.5 * part(n - 3, n - 2) - 2 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / h
        results.append(_C.cat([first, inside, last], d))
    return tuple(results)


# ------------------------------------------------------------------------------------------------ small functions
def torch_range(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None, layout: Any = None,
                device: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """torch.range (deprecated in torch for arange): start to end *inclusive*, step apart, in the default float
    dtype unless dtype= says."""
    import warnings

    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("range: upper bound and larger bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    values = _C.arange(count, dtype=_C.float64, device=device) * step + start
    result = values.to(dtype or _C.get_default_dtype())
    return result.requires_grad_() if requires_grad else result


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, generator: Any = None, dtype: Any = None,
                 layout: Any = None, device: Any = None, requires_grad: builtins.bool = False,
                 memory_format: Any = None) -> Tensor:
    """Integers uniform in [low, high) with input's shape (and its dtype and device unless given);
    randint_like(input, high) draws from [0, high)."""
    if high is None:
        low, high = 0, low
    return _C.randint(low, high, list(input.shape), generator=generator, dtype=dtype or input.dtype,
                      device=device or input.device)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: builtins.bool | None = None,
            requires_grad: builtins.bool = False) -> Tensor:
    """obj as a tensor: a tensor, an array (DLPack, the buffer or array interface) or nested sequences of numbers.
    copy=None shares obj's memory when dtype and device allow, copy=True always copies, copy=False refuses to."""
    from ._namespace import as_tensor

    if copy:
        result = _C.tensor(obj, dtype=dtype, device=device) if not isinstance(obj, Tensor) else \
            obj.to(dtype=dtype or obj.dtype, device=device or obj.device, copy=True)
    else:
        result = as_tensor(obj, dtype=dtype, device=device)
        if copy is False:
            shares = isinstance(obj, Tensor) and result.data_ptr() == obj.data_ptr()
            if not shares and not isinstance(obj, Tensor) and hasattr(obj, "__array_interface__"):
                shares = result.data_ptr() == obj.__array_interface__["data"][0]
            if not shares:
                raise ValueError("asarray: can't alias obj with copy=False (its dtype, device or kind needs a copy)")
    if requires_grad:
        result = result.detach().requires_grad_() if result is obj else result.requires_grad_()
    return result


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0,
               requires_grad: builtins.bool = False) -> Tensor:
    """A 1-D tensor over the memory of an object with the buffer protocol (bytes, bytearray, memoryview, array):
    count elements (all when -1) of dtype from byte offset, no copy (writes through when the buffer is writable)."""
    try:
        import numpy as np
    except ImportError as exc:  # pragma: no cover - numpy is in every test environment
        raise RuntimeError("frombuffer needs NumPy to read the buffer protocol") from exc
    view = memoryview(buffer)
    size = _C.empty([0], dtype=dtype, device="cpu").element_size()
    available = view.nbytes - offset
    if offset < 0 or offset >= view.nbytes and view.nbytes:
        raise ValueError(f"frombuffer: both buffer length ({view.nbytes}) and offset ({offset}) must be positive, "
                         f"and offset must be less than the buffer length")
    if count <= 0 and count != -1:
        raise ValueError(f"frombuffer: count must be positive or -1, got {count}")
    if count == -1:
        if available % size:
            raise ValueError(f"frombuffer: buffer length ({available} bytes after offset {offset}) must be a multiple "
                             f"of element size ({size})")
        count = available // size
    elif count * size > available:
        raise ValueError(f"frombuffer: requested buffer length ({count} * {size} bytes) after offset ({offset}) must "
                         f"not be greater than the actual buffer length ({view.nbytes})")
    name = str(dtype).split(".")[-1]
    # NumPy has no bfloat16: its bytes are read as int16 and reinterpreted
    array = np.frombuffer(buffer, dtype=np.int16 if name == "bfloat16" else name, count=count, offset=offset)
    if not view.readonly:
        array.flags.writeable = True
    from ._namespace import from_numpy

    result = from_numpy(array)
    if name == "bfloat16":
        result = result.view(_C.bfloat16)
    return result.requires_grad_() if requires_grad else result


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor of input's shape, dtype and device, every element value (torch.fill, the functional fill_)."""
    return input.clone().fill_(value)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                   requires_grad: builtins.bool = False, pin_memory: builtins.bool = False) -> Tensor:
    """An uninitialized tensor of `size` whose dims lie in memory in the order physical_layout gives (outermost
    first): empty_permuted((2, 3, 4), (0, 2, 1)) has strides (12, 1, 3)."""
    shape, order = list(size), list(physical_layout)
    if sorted(order) != list(range(len(shape))):
        raise RuntimeError(f"empty_permuted: physical_layout {order} is not a permutation of the {len(shape)} dims")
    physical = _C.empty([shape[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in range(len(shape))]
    result = physical.permute(inverse)
    return result.requires_grad_() if requires_grad else result


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero(input) with exactly `size` rows: cut to its first size rows, or padded with fill_value."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    found = _C.nonzero(input)
    if found.shape[0] >= size:
        return found[:size].clone()
    pad = _C.full([size - found.shape[0], found.shape[1]], fill_value, dtype=found.dtype, device=found.device)
    return _C.cat([found, pad], 0)


def hash_tensor(input: Tensor, dim: Any = None, *, keepdim: builtins.bool = False, mode: int = 0) -> Tensor:
    """torch.hash_tensor: the elements widened to float64 (floating dtypes) or int64 (integers and bool), their bits
    read as uint64 and reduced by xor over `dim` (all dims when None), a uint64 tensor. mode 0 is the only mode."""
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input.is_complex():
        raise NotImplementedError("hash_tensor: not implemented for complex dtypes (as torch's xor_sum)")
    if dim is None and input.numel() == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    if input.ndim == 0:  # a dim of a zero-dim tensor is 0 or -1; the hash is the element's, zero-dim
        for d in [] if dim is None else ([dim] if isinstance(dim, builtins.int) else list(dim)):
            if d not in (0, -1):
                raise IndexError("hash_tensor: Dimension out of range (expected to be in range of [-1, 0], but got "
                                 f"{d})")
        return hash_tensor(input.reshape(1), mode=mode).reshape([])
    wide = _C.float64 if input.is_floating_point() else (_C.uint64 if input.dtype == _C.uint64 else _C.int64)
    bits = input.to(wide).contiguous().view(_C.uint64)
    dims = list(range(input.ndim)) if dim is None or dim == [] or dim == () else (
        [dim] if isinstance(dim, builtins.int) else list(dim))
    dims = sorted({d % builtins.max(input.ndim, 1) for d in dims})
    kept = [d for d in range(input.ndim) if d not in dims]
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    reduced = math.prod(input.shape[d] for d in dims)
    rows = bits.permute(kept + dims).reshape([input.shape[d] for d in kept] + [reduced])
    n = n_reduced = rows.shape[-1]
    while n > 1:  # xor the halves together: log2(n) passes, each over the whole tensor
        half = n // 2
        head = rows[..., :half] ^ rows[..., half:2 * half]
        rows = _C.cat([head, rows[..., 2 * half:]], -1) if n % 2 else head
        n = rows.shape[-1]
    folded = rows[..., 0]
    if keepdim:
        for d in dims:
            folded = folded.unsqueeze(d)
    # a reduction over one element xored nothing: its result still views the input's (or its copy's) memory
    return folded.clone() if n_reduced == 1 else folded


_SEGMENT_REDUCTIONS = {"sum": "sum", "mean": "sum", "prod": "prod", "max": "amax", "amax": "amax", "min": "amin",
                       "amin": "amin"}
_SEGMENT_EMPTY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "amax": -math.inf, "amin": math.inf}


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None, indices: Tensor | None = None,
                   offsets: Tensor | None = None, axis: int = 0, unsafe: builtins.bool = False,
                   initial: Any = None) -> Tensor:
    """torch.segment_reduce: `data` cut along `axis` into consecutive segments of the given `lengths` (or between
    `offsets`), each reduced by sum, mean, prod, max or min; `initial` joins every segment (an empty segment is
    `initial`, or 0, 1, -inf, inf, NaN without it). lengths has data's leading dims before axis, then the segments.
    One scatter_reduce over segment ids found by searchsorted, so gradients flow (max/min ties share evenly)."""
    if reduce not in _SEGMENT_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    if not (data.is_floating_point()):
        raise NotImplementedError(f"segment_reduce: not implemented for {data.dtype} (floating dtypes only, as torch)")
    if offsets is not None and lengths is None:
        lengths = offsets[..., 1:] - offsets[..., :-1]
    assert lengths is not None
    axis = axis % builtins.max(data.ndim, 1)
    if lengths.ndim - 1 != axis or tuple(lengths.shape[:-1]) != tuple(data.shape[:axis]):
        raise RuntimeError(f"segment_reduce(): lengths of shape {tuple(lengths.shape)} do not match data of shape "
                           f"{tuple(data.shape)} along axis {axis} (expected data's dims before axis, then segments)")
    lead, n, rest = list(data.shape[:axis]), data.shape[axis], list(data.shape[axis + 1:])
    batch, segments, width = math.prod(lead), lengths.shape[-1], math.prod(rest)
    counts = lengths.reshape(batch, segments).to(_C.int64)
    if not unsafe:
        if builtins.bool((counts < 0).any()):
            raise RuntimeError("segment_reduce(): lengths cannot be negative")
        if batch and builtins.bool((counts.sum(-1) != n).any()):
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe.")
    ends = counts.cumsum(-1) if segments else counts
    positions = _C.arange(n, device=data.device).expand(batch, n).contiguous()
    ids = _C.searchsorted(ends.contiguous(), positions, right=True) if segments else positions * 0
    kind = _SEGMENT_REDUCTIONS[reduce]
    if kind == "prod":  # scatter_reduce's prod has no derivative: lay the segments out padded with ones, then prod
        widest = builtins.int(counts.max()) if counts.numel() else 0
        starts = ends - counts
        offset = positions - _C.gather(starts, 1, ids.clamp(max=builtins.max(segments - 1, 0)))
        dense = _C.ones([batch, segments + 1, builtins.max(widest, 1), width], dtype=data.dtype, device=data.device)
        rows = _C.arange(batch, device=data.device).reshape(batch, 1).expand(batch, n)
        keep = ids < segments  # unsafe lengths that stop short leave the rest of the row out
        dense = dense.index_put((rows[keep], ids[keep], offset[keep]), data.reshape(batch, n, width)[keep])
        out = dense[:, :segments].prod(2)
        if initial is not None:
            out = out * initial
        return out.reshape(lead + [segments] + rest)
    fill = _SEGMENT_EMPTY[kind] if initial is None else initial
    base = _C.full([batch, segments + 1, width], fill, dtype=data.dtype, device=data.device)  # + 1: past the ends
    index = ids.reshape(batch, n, 1).expand(batch, n, width)
    out = base.scatter_reduce(1, index, data.reshape(batch, n, width), kind, include_self=initial is not None)
    out = out[:, :segments]
    if reduce == "mean":
        size = counts.to(data.dtype).unsqueeze(-1)
        out = out / size if initial is None else _C.where(size > 0, out / size, out)
    return out.reshape(lead + [segments] + rest)


def unsafe_split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """split (torch's unsafe_ spelling skips view checks it does not need here)."""
    return tuple(tensor.split(split_size_or_sections, dim))


def unsafe_split_with_sizes(tensor: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(tensor.split_with_sizes(list(split_sizes), dim))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(input.chunk(chunks, dim))


def is_neg(input: Tensor) -> builtins.bool:
    """False: yaten keeps no lazy negation bit (negation is computed when asked)."""
    return False


def resolve_neg(input: Tensor) -> Tensor:
    """input itself: no lazy negation to resolve."""
    return input


def is_inference(input: Tensor) -> builtins.bool:
    """False: yaten's inference_mode is no_grad and makes ordinary tensors."""
    return False


def get_device(input: Tensor) -> int:
    return input.get_device()


_LEGACY_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "bfloat16": "BFloat16Tensor", "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor",
                 "int32": "IntTensor", "int64": "LongTensor", "bool": "BoolTensor",
                 "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor", "uint16": "UInt16Tensor",
                 "uint32": "UInt32Tensor", "uint64": "UInt64Tensor"}


def typename(obj: Any, /) -> str:
    """The type's name torch prints: 'yaten.FloatTensor' (yaten.cuda.... on a GPU) for a tensor, the qualified
    class name otherwise."""
    if isinstance(obj, Tensor):
        legacy = _LEGACY_NAMES.get(str(obj.dtype).split(".")[-1], "Tensor")
        return f"yaten.cuda.{legacy}" if obj.is_cuda else f"yaten.{legacy}"
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if not isinstance(obj, type) and not callable(obj):
        module, qualname = type(obj).__module__, type(obj).__qualname__
    return qualname if module in ("builtins", "") else f"{module}.{qualname}"


def is_storage(obj: Any, /) -> builtins.bool:
    from ._tensor import UntypedStorage

    return isinstance(obj, UntypedStorage)


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule (unversioned, as torch's) lending tensor's memory."""
    return tensor.__dlpack__()


def frobenius_norm(input: Tensor, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
    """sqrt(sum |x|^2) over dim (every dim when empty); torch keeps it for TorchScript, yaten for programs that
    call it: linalg.vector_norm(input, 2, dim, keepdim) is the current spelling."""
    from . import linalg

    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    return linalg.vector_norm(input, 2, dims or None, keepdim)


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
    """The sum of the singular values of a matrix (over dim, two dims; the last two when not given)."""
    from . import linalg

    if isinstance(dim, builtins.bool):
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", tuple(dim) if dim is not None else (-2, -1), keepdim)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002 (torch's name)
    """The pow-norm over every dim but dim, kept as size-1 dims (weight normalization's g); dim=-1: one norm of all."""
    if dim == -1:
        return v.norm(pow)
    others = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, others, keepdim=True) if others else v.abs()


def _removed(name: str, advice: str) -> Any:
    def function(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed (as in torch). "
                           f"{advice}")

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name} was removed in torch 1.9 and raises there too: {advice}"
    return function


REMOVED = {
    "solve": _removed("solve", "Use yaten.linalg.solve(A, B), whose arguments are reversed; the LU factors come from "
                               "yaten.linalg.lu_factor."),
    "eig": _removed("eig", "Use yaten.linalg.eig(A) (complex eigenvalues and vectors) or yaten.linalg.eigvals(A)."),
    "lstsq": _removed("lstsq", "Use yaten.linalg.lstsq(A, B), whose arguments are reversed."),
    "symeig": _removed("symeig", "Use yaten.linalg.eigh(A, UPLO='U' or 'L') or yaten.linalg.eigvalsh."),
    "matrix_rank": _removed("matrix_rank", "Use yaten.linalg.matrix_rank(A, hermitian=...)."),
}


def lu(A: Tensor, pivot: builtins.bool = True, get_infos: builtins.bool = False) -> Any:
    """torch.lu: (LU, pivots) of A's partially pivoted LU factorization, (LU, pivots, infos) with get_infos=True
    (linalg.lu_factor_ex's results; a singular matrix is reported in infos, not raised)."""
    from . import linalg

    LU, pivots, infos = linalg.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return LU, pivots, infos
    return LU, pivots


# ------------------------------------------------------------------------------------------------ control flow
def cond(pred: Any, true_fn: Any, false_fn: Any, operands: Any = ()) -> Any:
    """true_fn(*operands) if pred else false_fn(*operands): torch's higher-order cond, which in eager mode (the only
    mode yaten has) runs the branch the predicate (a bool or a one-element tensor) picks."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"cond: expected pred to be a bool or a tensor with a single element, got shape "
                               f"{list(pred.shape)}")
        pred = builtins.bool(pred.item())
    elif not isinstance(pred, (builtins.bool, int)):
        raise RuntimeError(f"cond: expected pred to be a bool or a tensor, got {type(pred).__name__}")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError("cond: expected operands to be a tuple or list of tensors")
    return true_fn(*operands) if pred else false_fn(*operands)


def while_loop(cond_fn: Any, body_fn: Any, carried_inputs: Any) -> Any:
    """Runs body_fn on the carried values while cond_fn of them is true (a bool or a one-element tensor); returns
    the last carried values, a tuple like carried_inputs (torch's higher-order while_loop, in eager mode)."""
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError("while_loop: carried_inputs must be a tuple or list")
    carried = tuple(carried_inputs)
    while True:
        go = cond_fn(*carried)
        if isinstance(go, Tensor):
            if go.numel() != 1:
                raise RuntimeError("while_loop: cond_fn must return a bool or a one-element tensor")
            go = go.item()
        if not go:
            return carried
        out = body_fn(*carried)
        out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(out) != len(carried):
            raise RuntimeError(f"while_loop: body_fn returned {len(out)} values for {len(carried)} carried inputs")
        carried = out


def get_device_module(device: Any = None) -> Any:
    """The module of a device type: yaten.cuda for 'cuda' (or a CUDA device), yaten.cpu for 'cpu'."""
    import importlib

    name = device.type if hasattr(device, "type") else str(device or "cuda").split(":")[0]
    if name not in ("cpu", "cuda"):
        raise RuntimeError(f"get_device_module: device type {name!r} is not one yaten has (cpu, cuda)")
    return importlib.import_module(f"yaten.{name}")


def set_printoptions(precision: int | None = None, threshold: int | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None,
                     sci_mode: builtins.bool | None = None) -> None:
    """How tensors print: digits after the point, the element count above which a tensor is summarized, items kept
    at each edge when summarized, the line width; profile 'default', 'short' or 'full' sets all four; sci_mode
    forces scientific notation on (True) or off (False), None lets the values decide."""
    from . import _tensor_str as s

    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}
        if profile not in presets:
            raise ValueError(f"set_printoptions: profile must be 'default', 'short' or 'full', got {profile!r}")
        s.PRECISION, s.THRESHOLD, s.EDGE_ITEMS, s.LINE_WIDTH = presets[profile]
    if precision is not None:
        s.PRECISION = int(precision)
    if threshold is not None:
        s.THRESHOLD = threshold
    if edgeitems is not None:
        s.EDGE_ITEMS = int(edgeitems)
    if linewidth is not None:
        s.LINE_WIDTH = int(linewidth)
    s.SCI_MODE = sci_mode


# ------------------------------------------------------------------------------------------------ stft / istft
def _stft_window(name: str, window: Tensor | None, n_fft: int, win_length: int, like: Tensor) -> Tensor:
    """The window padded with zeros on both sides to n_fft (a rectangle of win_length when None)."""
    real = _C.float64 if like.dtype in (_C.float64, _C.complex128) else _C.float32
    if window is None:
        window = _C.ones([win_length], dtype=real, device=like.device)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{name}: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _C.cat([_C.zeros([left], dtype=window.dtype, device=window.device), window,
                         _C.zeros([n_fft - win_length - left], dtype=window.dtype, device=window.device)])
    return window


def stft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Tensor | None = None, center: builtins.bool = True, pad_mode: str = "reflect",
         normalized: builtins.bool = False, onesided: builtins.bool | None = None,
         return_complex: builtins.bool | None = None, align_to_window: builtins.bool | None = None) -> Tensor:
    """The short-time Fourier transform: the FFT of each frame of n_fft samples, hop_length apart, times the window
    (win_length long, centred in the frame), as (freq, frames) per signal; center=True pads the signal by n_fft // 2
    at both ends (pad_mode) so frame t is centred on sample t * hop_length. onesided keeps the n_fft // 2 + 1
    non-negative frequencies of a real signal; normalized divides by sqrt(n_fft)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    complex_input = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_input:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    signal = input if input.dim() == 2 else input.unsqueeze(0)
    if center:
        from .nn import functional as F

        pad = n_fft // 2
        signal = F.pad(signal.unsqueeze(1), [pad, pad], mode=pad_mode).squeeze(1)
    length = signal.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    w = _stft_window("stft", window, n_fft, win, signal)
    if align_to_window and win < n_fft:
        # frame t is the window over samples [t * hop, t * hop + win_length), centred in n_fft with zeros
        left = (n_fft - win) // 2
        frames = signal.unfold(-1, win, hop) * w[left:left + win]
        zeros = list(frames.shape[:-1])
        frames = _C.cat([_C.zeros(zeros + [left], dtype=frames.dtype, device=frames.device), frames,
                         _C.zeros(zeros + [n_fft - win - left], dtype=frames.dtype, device=frames.device)], -1)
    else:
        frames = signal.unfold(-1, n_fft, hop) * w
    if onesided is None:
        onesided = not complex_input
    if onesided and complex_input:
        raise RuntimeError("stft: Cannot have onesided output if window or input is complex")
    from . import fft as _fft

    spectrum = _fft.rfft(frames, dim=-1) if onesided else _fft.fft(frames, dim=-1)
    if normalized:
        spectrum = spectrum * (1.0 / math.sqrt(n_fft))
    spectrum = spectrum.transpose(-1, -2)
    if input.dim() == 1:
        spectrum = spectrum.squeeze(0)
    return spectrum if return_complex else _C.view_as_real(spectrum.contiguous())


def istft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
          window: Tensor | None = None, center: builtins.bool = True, normalized: builtins.bool = False,
          onesided: builtins.bool | None = None, length: int | None = None,
          return_complex: builtins.bool = False) -> Tensor:
    """The inverse of stft: the inverse FFT of each frame, times the window, overlapped and added hop_length apart,
    divided by the overlapped squared window (which must not vanish anywhere: the window's NOLA condition); the
    centre padding cut off, and the result cut or zero-padded to `length` when given."""
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex dtype, but got "
                           f"{input.dim()}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0 or not 0 < win <= n_fft:
        raise RuntimeError(f"istft: expected hop_length > 0 and 0 < win_length <= n_fft, got hop_length={hop}, "
                           f"win_length={win}")
    spectrum = input if input.dim() == 3 else input.unsqueeze(0)
    freqs, n_frames = spectrum.shape[-2], spectrum.shape[-1]
    if onesided is None:
        onesided = freqs != n_fft
    if onesided:
        if freqs != n_fft // 2 + 1:
            raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to "
                               f"match n_fft / 2 + 1 when onesided=True, but got {freqs}")
        if return_complex:
            raise RuntimeError("istft: cannot have onesided output if window or input is complex")
    elif freqs != n_fft:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {freqs}")
    from . import fft as _fft

    columns = spectrum.transpose(-1, -2)
    if normalized:
        columns = columns * math.sqrt(n_fft)
    if onesided or not return_complex:  # a real signal: the non-negative frequencies, as torch reads them
        frames = _fft.irfft(columns[..., :n_fft // 2 + 1], n=n_fft, dim=-1)
    else:
        frames = _fft.ifft(columns, dim=-1)
    w = _stft_window("istft", window, n_fft, win, frames)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    positions = (_C.arange(n_frames, device=frames.device).view([-1, 1]) * hop
                 + _C.arange(n_fft, device=frames.device).view([1, -1])).reshape([-1])
    batch = frames.shape[0]
    signal = _C.zeros([batch, total], dtype=frames.dtype, device=frames.device)
    signal = index_add(signal, 1, positions, frames.reshape([batch, -1]))
    square = w * w  # a complex window's square, not its squared magnitude, as torch divides by
    envelope = _C.zeros([total], dtype=square.dtype, device=square.device)
    envelope = index_add(envelope, 0, positions, square.expand([n_frames, n_fft]).reshape([-1]))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else min(start + length, total)
    signal = signal[:, start:end]
    envelope = envelope[start:end]
    if envelope.numel() and float(envelope.abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: the window's squares overlapped and added vanish "
                           "somewhere (the window fails the NOLA condition)")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        signal = _C.cat([signal, _C.zeros([batch, length - signal.shape[-1]], dtype=signal.dtype,
                                          device=signal.device)], -1)
    return signal if input.dim() == 3 else signal.squeeze(0)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: builtins.bool = True,
          transpose: builtins.bool = False) -> Tensor:
    """other multiplied by Q (on the left or the right; its conjugate transpose with transpose=True), where Q is the
    m x m product of the Householder reflectors that geqrf left below input's diagonal and in tau."""
    from . import linalg

    if input.dim() < 2 or other.dim() < 2:
        raise RuntimeError(f"ormqr: input and other must have at least 2 dimensions, got {input.dim()}-D and "
                           f"{other.dim()}-D")
    m, k = input.shape[-2], tau.shape[-1]
    if k > min(m, input.shape[-1]):
        raise RuntimeError(f"ormqr: tau.shape[-1] ({k}) must be at most min(input.shape[-2], input.shape[-1])")
    if (other.shape[-2] if left else other.shape[-1]) != m:
        raise RuntimeError(f"ormqr: other.shape[{-2 if left else -1}] must equal input.shape[-2] ({m}), got "
                           f"{list(other.shape)}")
    reflectors = input[..., :k]
    if k < m:  # the m - k further columns: reflectors of tau 0, the identity
        reflectors = _C.cat([reflectors, _C.zeros(list(input.shape[:-2]) + [m, m - k], dtype=input.dtype,
                                                  device=input.device)], -1)
    q = linalg.householder_product(reflectors, tau)
    if transpose:
        q = q.mH
    return _C.matmul(q, other) if left else _C.matmul(other, q)


# ------------------------------------------------------------------------------------------------ poisson, binomial
# Note [Sampling by vectorized rejection]: each sampler draws for every element at once and repeats only for the
# elements not yet accepted, so one composition of yaten's ops (uniform_, lgamma, ...) runs on the CPU and CUDA and
# draws from yaten's generator. Small means use the exact inversion methods (Knuth's product of uniforms for
# Poisson, waiting times for binomial), which loop about mean + 1 times; large ones Hormann's transformed rejection
# with squeeze (PTRS for Poisson, BTRS for binomial; W. Hormann, 1993), which accepts over 90% of draws per round.
_SMALL_MEAN = 10.0


def _uniforms(like: Tensor, generator: Any) -> Tensor:
    return _C.empty(list(like.shape), dtype=_C.float64, device=like.device).uniform_(0.0, 1.0, generator=generator)


def _poisson_small(lam: Tensor, generator: Any) -> Tensor:
    limit = _C.exp(-lam)
    product = _C.ones_like(lam)
    count = _C.zeros_like(lam)
    active = lam > 0
    while builtins.bool(active.any()):
        product = _C.where(active, product * _uniforms(lam, generator), product)
        active = active & (product > limit)
        count = count + active.to(count.dtype)
    return count


def _transformed_rejection(like: Tensor, generator: Any, propose: Any) -> Tensor:
    """Hormann's loop: each round draws u (centred on 0) and v uniformly for every element, propose(u, v, us) gives a
    candidate k and whether it is accepted (us = 0.5 - |u|), and the elements still pending keep accepted ones."""
    result = _C.zeros_like(like)
    pending = _C.ones(list(like.shape), dtype=_C.bool, device=like.device)
    while builtins.bool(pending.any()):
        u = _uniforms(like, generator) - 0.5
        v = _uniforms(like, generator)
        k, accept = propose(u, v, 0.5 - u.abs())
        accept = pending & accept
        result = _C.where(accept, k, result)
        pending = pending & ~accept
    return result


def _poisson_large(lam: Tensor, generator: Any) -> Tensor:
    slam = lam.sqrt()
    loglam = lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def propose(u: Tensor, v: Tensor, us: Tensor) -> tuple[Tensor, Tensor]:
        k = ((2 * a / us + b) * u + lam + 0.43).floor()
        quick = (us >= 0.07) & (v <= v_r)
        possible = (k >= 0) & ~((us < 0.013) & (v > us))
        k_safe = k.clamp(min=0)
        exact = (v.log() + inv_alpha.log() - (a / (us * us) + b).log()
                 <= -lam + k_safe * loglam - _C.lgamma(k_safe + 1))
        return k, quick | (possible & exact)

    return _transformed_rejection(lam, generator, propose)


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """A sample of the Poisson distribution for each rate in input (same shape and dtype); Note [Sampling by
    vectorized rejection]."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"poisson: not implemented for {input.dtype} (the rates must be floating point)")
    lam = input.detach().to(_C.float64)
    if lam.numel() and not builtins.bool(((lam >= 0) & ~lam.isinf()).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    small = lam < _SMALL_MEAN
    result = _C.zeros_like(lam)
    if builtins.bool(small.any()):
        result = _C.where(small, _poisson_small(_C.where(small, lam, _C.zeros_like(lam)), generator), result)
    if builtins.bool((~small).any()):
        result = _C.where(~small, _poisson_large(_C.where(small, _C.full_like(lam, _SMALL_MEAN), lam), generator),
                          result)
    return result.to(input.dtype)


def _binomial_small(n: Tensor, p: Tensor, generator: Any) -> Tensor:
    """Successes counted by waiting times: geometric jumps (trials to the next success) until past n (p <= 1/2)."""
    log_q = _C.log1p(-p)
    position = _C.zeros_like(n)
    successes = _C.zeros_like(n)
    active = (n > 0) & (p > 0)
    while builtins.bool(active.any()):
        jump = (_C.log(1.0 - _uniforms(n, generator)) / log_q).ceil().clamp(min=1)
        position = _C.where(active, position + jump, position)
        active = active & (position <= n)
        successes = successes + active.to(successes.dtype)
    return successes


def _binomial_large(n: Tensor, p: Tensor, generator: Any) -> Tensor:
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = (p / q).log()
    m = ((n + 1) * p).floor()
    h = _C.lgamma(m + 1) + _C.lgamma(n - m + 1)

    def propose(u: Tensor, v: Tensor, us: Tensor) -> tuple[Tensor, Tensor]:
        k = ((2 * a / us + b) * u + c).floor()
        inside = (k >= 0) & (k <= n)
        quick = inside & (us >= 0.07) & (v <= v_r)
        k_safe = _C.minimum(k.clamp(min=0), n)
        exact = inside & ((v * alpha / (a / (us * us) + b)).log()
                          <= h - _C.lgamma(k_safe + 1) - _C.lgamma(n - k_safe + 1) + (k_safe - m) * lpq)
        return k, quick | exact

    return _transformed_rejection(n, generator, propose)


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """A sample of Binomial(count, prob) for each pair (broadcast), in their dtype; Note [Sampling by vectorized
    rejection]."""
    if not count.dtype.is_floating_point or not prob.dtype.is_floating_point:
        raise NotImplementedError(f"binomial: not implemented for {count.dtype} and {prob.dtype} (count and prob "
                                  f"must be floating point)")
    shape = list(broadcast_shapes(count.shape, prob.shape))
    n = count.detach().to(_C.float64).expand(shape)
    p = prob.detach().to(_C.float64).expand(shape)
    if n.numel():
        if not builtins.bool(((p >= 0) & (p <= 1)).all()):
            raise ValueError("binomial: prob must be in [0, 1]")
        if not builtins.bool(((n >= 0) & (n == n.floor()) & ~n.isinf()).all()):
            raise ValueError("binomial: count must be a non-negative whole number")
    flip = p > 0.5
    p_low = _C.where(flip, 1 - p, p)
    small = n * p_low < _SMALL_MEAN
    result = _C.zeros_like(n)
    if builtins.bool(small.any()):
        drawn = _binomial_small(_C.where(small, n, _C.zeros_like(n)), p_low, generator)
        result = _C.where(small, drawn, result)
    if builtins.bool((~small).any()):
        safe_n = _C.where(small, _C.full_like(n, 100.0), n)
        safe_p = _C.where(small, _C.full_like(p, 0.5), p_low)
        result = _C.where(~small, _binomial_large(safe_n, safe_p, generator), result)
    result = _C.where(flip, n - result, result)
    return result.to(_C.promote_types(count.dtype, prob.dtype))


# ------------------------------------------------------------------------------------------------ randomized SVD
def _approximate_basis(A: Tensor, q: int, niter: int, generator: Any = None) -> Tensor:
    """An orthonormal basis Q (m x q) of A's dominant column space: a Gaussian sketch A R, then niter rounds of
    subspace iteration, re-orthonormalized by QR each half step (Halko, Martinsson and Tropp, 2011, Algorithm 4.4)."""
    from . import linalg

    R = _C.randn(list(A.shape[:-2]) + [A.shape[-1], q], dtype=A.dtype, device=A.device, generator=generator)
    Q = linalg.qr(_C.matmul(A, R)).Q
    for _ in range(niter):
        Q = linalg.qr(_C.matmul(A.mH, Q)).Q
        Q = linalg.qr(_C.matmul(A, Q)).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int = 2, M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """The leading q singular triplets of A - M, approximately, by randomized subspace iteration: (U, S, V) with
    A - M ~ U diag(S) V^H (U m x q, V n x q). Exact for a matrix of rank <= q, in floating point."""
    from . import linalg

    q = 6 if q is None else q
    if A.dim() < 2:
        raise RuntimeError(f"svd_lowrank: expected a matrix or a batch of matrices, got {A.dim()}-D")
    m, n = A.shape[-2], A.shape[-1]
    if not 0 < q <= min(m, n):
        raise ValueError(f"svd_lowrank: q(={q}) must be positive and at most min(m, n)(={min(m, n)})")
    if niter < 0:
        raise ValueError(f"svd_lowrank: niter(={niter}) must be non-negative")
    matrix = A if M is None else A - M
    if not (matrix.dtype.is_floating_point or matrix.dtype.is_complex):
        matrix = matrix.to(_C.get_default_dtype())
    wide = m < n
    if wide:
        matrix = matrix.mH
    Q = _approximate_basis(matrix, q, niter)
    B = _C.matmul(Q.mH, matrix)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U = _C.matmul(Q, U)
    V = Vh.mH
    return (V, S, U) if wide else (U, S, V)


def pca_lowrank(A: Tensor, q: int | None = None, center: builtins.bool = True,
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components of the rows of A (m samples x n features): svd_lowrank of A with its column means
    subtracted (center=True); V's columns are the principal directions, S**2 / (m - 1) their variances."""
    if A.dim() < 2:
        raise RuntimeError(f"pca_lowrank: expected a matrix or a batch of matrices, got {A.dim()}-D")
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"pca_lowrank: q(={q}) must be non-negative integer and not greater than min(m, n)="
                         f"{min(m, n)}")
    if niter < 0:
        raise ValueError(f"pca_lowrank: niter(={niter}) must be non-negative integer")
    return svd_lowrank(A, q, niter, A.mean(-2, keepdim=True) if center else None)


# ------------------------------------------------------------------------------------------------ determinism
def use_deterministic_algorithms(mode: builtins.bool, *, warn_only: builtins.bool = False) -> None:
    """With True, an op whose result can vary from run to run raises RuntimeError (a warning with warn_only=True)
    instead of running, and cuDNN chooses among its deterministic algorithms only. yaten's CPU kernels are all
    deterministic; on CUDA the floating-point scatter_add/index_add/index_put(accumulate=True) family (atomic adds)
    is not (core/deterministic.h)."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"use_deterministic_algorithms: expected a bool, got {type(mode).__name__}")
    _C._set_deterministic_mode(0 if not mode else (1 if warn_only else 2))


def are_deterministic_algorithms_enabled() -> builtins.bool:
    return _C._deterministic_mode() != 0


def is_deterministic_algorithms_warn_only_enabled() -> builtins.bool:
    return _C._deterministic_mode() == 1


def set_deterministic_debug_mode(debug_mode: Any) -> None:
    """"default" (0): nondeterministic ops run; "warn" (1): they warn; "error" (2): they raise."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    if not isinstance(debug_mode, int) or debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    _C._set_deterministic_mode(debug_mode)


def get_deterministic_debug_mode() -> int:
    return _C._deterministic_mode()


def from_file(filename: str, shared: builtins.bool | None = None, size: int = 0, *, dtype: Any = None,
              layout: Any = None, device: Any = None, pin_memory: builtins.bool = False) -> Tensor:
    """A 1-D CPU tensor of `size` elements over a memory-mapped file: shared=True maps it shared (writes reach the
    file, which is created or extended as needed), otherwise privately (copy-on-write: the file must hold the
    elements and never changes)."""
    import os

    import numpy as np

    if device is not None and str(device).split(":")[0] != "cpu":
        raise RuntimeError("from_file: only CPU tensors can be mapped to files")
    if pin_memory:
        raise RuntimeError("from_file: tensors over a memory-mapped file cannot be in pinned memory")
    dtype = dtype or _C.get_default_dtype()
    name = str(dtype).split(".")[-1]
    itemsize = _C.empty([0], dtype=dtype, device="cpu").element_size()
    nbytes = int(size) * itemsize
    if shared:
        if not os.path.exists(filename) or os.path.getsize(filename) < nbytes:
            with open(filename, "ab") as f:
                f.truncate(nbytes)
    elif not os.path.exists(filename) or os.path.getsize(filename) < nbytes:
        have = os.path.getsize(filename) if os.path.exists(filename) else 0
        raise RuntimeError(f"from_file: the file {filename!r} holds {have} bytes, fewer than the {nbytes} that "
                           f"{size} elements of {name} need")
    if size == 0:
        return _C.empty([0], dtype=dtype, device="cpu")
    array = np.memmap(filename, dtype=np.int16 if name == "bfloat16" else name, mode="r+" if shared else "c",
                      shape=(int(size),))
    from ._namespace import from_numpy

    result = from_numpy(array)
    return result.view(_C.bfloat16) if name == "bfloat16" else result


def thread_safe_generator() -> Any:
    """The generator a DataLoader thread worker should draw from: None (the default generator), since yaten's
    DataLoader workers are processes, which each have their own default generator."""
    return None
