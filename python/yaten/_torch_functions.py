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


IN_PLACE_FUNCTIONS = {name: _in_place_function(name) for name in _IN_PLACE if hasattr(Tensor, name)}


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
    index = _C.tensor(rows, dtype=_C.int64)
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
    if input.numel() and bool((input < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = max(int(input.max().item()) + 1 if input.numel() else 0, minlength)
    index = input.to(_C.int64)
    if weights is None:
        counts = _C.zeros([length], dtype=_C.int64, device=str(input.device))
        return counts.scatter_add(0, index, _C.ones_like(index))
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
    inverse = (_C.cumsum(change.to(_C.int64), 0) - 1).reshape(shape)
    starts = _C.nonzero(change).reshape(-1)
    counts = _C.cat([starts[1:], _C.full([1], n, dtype=_C.int64, device=str(input.device))]) - starts
    out: tuple[Tensor, ...] = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out
