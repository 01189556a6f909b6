"""torch's Tensor methods that are compositions of yaten's ops (issue 51): the method spellings of functions yaten
already has, the in-place forms torch gives many of them (`x.eq_(y)`, `x.addmm_(a, b)`, `x.tril_()`), the in-place
view ops that change a tensor's shape (`t_`, `squeeze_`, `resize_`, `set_`), the in-place random fills
(`exponential_`, `geometric_`, `cauchy_`, `log_normal_`), and the queries and small conveniences (`is_cpu`, `mH`,
`ndimension`, `sum_to_size`, `unfold`, `where`, ...).

Note [In-place forms by composition]: each in-place form computes the functional result and copies it into self,
after torch's two checks of an in-place result: it must have self's shape (a broadcast may not grow self) and its
dtype must cast to self's under torch's rules (`long.mul_(1.5)` raises, `float.eq_(x)` stores 1.0 and 0.0). The copy
is an op autograd records, so gradients flow as through torch's in-place kernels, and a leaf that requires grad
refuses it as torch's do.
"""

from __future__ import annotations

import math
from typing import Any

from . import _C
from . import _torch_functions as _tf
from ._size import Size

Tensor = _C.Tensor


def _write_back(name: str, self: Tensor, result: Tensor) -> Tensor:
    """Note [In-place forms by composition]."""
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"{name}: output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(result.shape)}")
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"{name}: result type {result.dtype} can't be cast to the desired output type "
                           f"{self.dtype}")
    return self.copy_(result)


def _in_place(name: str, functional: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _write_back(name, self, functional(self, *args, **kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place {name[:-1]}: self = self.{name[:-1]}(...), with torch's shape and dtype checks."
    return method


# ------------------------------------------------------------------------------------------------ methods of functions
# Functions yaten has at the top level that torch also offers as methods, called on their first argument.
_FUNCTION_METHODS = [
    "aminmax", "argwhere", "bincount", "corrcoef", "cov", "dist", "dsplit", "fliplr", "flipud", "float_power", "frexp",
    "gcd", "hsplit", "inner", "is_nonzero", "is_same_size", "is_signed", "isneginf", "isposinf", "isreal", "kron",
    "lcm", "masked_select", "ravel", "renorm", "rot90", "tensor_split", "unique_consecutive", "vsplit",
]


def _method_of(function: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return function(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def _install_function_methods() -> None:
    for name in _FUNCTION_METHODS:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _method_of(getattr(_tf, name)))


# ------------------------------------------------------------------------------------------------ in-place forms
def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    wanted = _C.complex128 if self.dtype.is_complex or (isinstance(exponent, Tensor) and exponent.dtype.is_complex) \
        or isinstance(exponent, complex) else _C.float64
    if self.dtype != wanted:
        raise RuntimeError(f"float_power_: the base given to float_power_ has dtype {self.dtype} but the operation's "
                           f"result requires dtype {wanted}")
    return _write_back("float_power_", self, _tf.float_power(self, exponent))


def _cumulative_(name: str) -> Any:
    def method(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        result = getattr(_C, name)(self, dim, dtype=dtype)
        return _write_back(name + "_", self, result)

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In-place {name} along dim (dtype=: the dtype the running values are computed in)."
    return method


def _matrix_update_(name: str, functional: Any) -> Any:
    def method(self: Tensor, a: Tensor, b: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _write_back(name, self, functional(self, a, b, beta=beta, alpha=alpha))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place {name[:-1]}: self = beta * self + alpha * (product of the two operands)."
    return method


_COMPARISONS_AND_LOGIC = ["eq", "ne", "ge", "gt", "le", "lt", "greater", "greater_equal", "less", "less_equal",
                          "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not"]


def _install_in_place_forms() -> None:
    for name in _COMPARISONS_AND_LOGIC:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _in_place(name + "_", getattr(Tensor, name)))
    for name in ("cumsum", "cumprod"):
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _cumulative_(name))
    simple = {
        "tril_": Tensor.tril, "triu_": Tensor.triu, "square_": _C.square, "gcd_": _tf.gcd, "lcm_": _tf.lcm,
        "mvlgamma_": _C.mvlgamma, "renorm_": _tf.renorm, "conj_physical_": _C.conj_physical,
        "masked_scatter_": _C.masked_scatter, "put_": _tf.put,
    }
    for name, functional in simple.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _in_place(name, functional))
    # written in place by their own functions (scatter_add_, scatter_reduce_ on self): out of place and then copied
    # back, index_add_ of 1024 x 1024 float32 took 2.7x torch's time
    for name, function in {"index_add_": _tf.index_add_, "index_reduce_": _tf.index_reduce_}.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _method_of(function))
    for name, functional in {"addmm_": _C.addmm, "addmv_": _C.addmv, "addbmm_": _tf.addbmm,
                             "baddbmm_": _C.baddbmm, "addr_": _tf.addr}.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _matrix_update_(name, functional))
    Tensor.float_power_ = _float_power_
    if not hasattr(Tensor, "clip_"):
        Tensor.clip_ = Tensor.clamp_


# ------------------------------------------------------------------------------------------------ in-place view ops
def _records_history(self: Tensor) -> bool:
    return self.requires_grad and _C._is_grad_enabled()


def _become(name: str, self: Tensor, other: Tensor) -> Tensor:
    """self takes other's memory, shape and strides in place. Where autograd records self's history, self becomes
    other (a view of self's old value, with its grad_fn), as torch's in-place view ops do; a leaf that requires grad
    refuses, as in torch."""
    if _records_history(self) and self.is_leaf:
        raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in an in-place operation.")
    if self.requires_grad and not self.is_leaf:  # (under no_grad, the view is made without history)
        _C._assign_tensor(self, other)
    else:
        _C._set_data(self, other)
    return self


def _view_in_place(name: str, view: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _become(name, self, view(self, *args, **kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place {name[:-1]}: self itself takes the view's shape and strides (no copy)."
    return method


def _contiguous_strides(size: list[int]) -> list[int]:
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


def _size_arg(size: tuple[Any, ...]) -> list[int]:
    return [int(n) for n in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size)]


def _resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
    """torch's resize_: self takes `size` with contiguous strides over its storage, which grows (keeping what it
    held) when it is too small; the values of new elements are unspecified."""
    shape = _size_arg(size)
    if any(n < 0 for n in shape):
        raise RuntimeError(f"resize_: Trying to create tensor with negative dimension: {shape}")
    if self.requires_grad:
        raise RuntimeError("resize_: cannot resize variables that require grad")
    if tuple(shape) == tuple(self.shape) and self.is_contiguous():
        return self
    numel = math.prod(shape)
    offset = self.storage_offset()
    held = self.untyped_storage().nbytes() // self.element_size()
    if offset + numel <= held:
        base = self
    else:
        base = _C.empty([offset + numel], dtype=self.dtype, device=self.device)
        if held:
            base[:held].copy_(self.as_strided([held], [1], 0))
    _C._set_data(self, base.as_strided(shape, _contiguous_strides(shape), offset))
    return self


def _set_(self: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None, stride: Any = None) -> Tensor:
    """self.set_(source): self shares source's memory, shape and strides; set_(source, offset, size, stride): the
    given geometry over source's memory; set_(): an empty tensor."""
    if source is None:
        return _become("set_", self, _C.empty([0], dtype=self.dtype, device=self.device))
    if not isinstance(source, Tensor):
        raise TypeError(f"set_: expected a Tensor as source, got {type(source).__name__}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"set_: Expected source to have the same dtype as self ({self.dtype}), got {source.dtype}")
    if size is None:
        if stride is not None:
            raise TypeError("set_: stride given without size")
        return _become("set_", self, source.as_strided(list(source.shape), list(source.stride()),
                                                       source.storage_offset()) if storage_offset == 0
                       else source.as_strided(list(source.shape), list(source.stride()), storage_offset))
    shape = list(size)
    strides = list(stride) if stride is not None else _contiguous_strides(shape)
    return _become("set_", self, source.as_strided(shape, strides, storage_offset))


def _is_set_to(self: Tensor, other: Tensor) -> bool:
    return (self.device == other.device and self.untyped_storage().data_ptr() == other.untyped_storage().data_ptr()
            and self.storage_offset() == other.storage_offset() and tuple(self.shape) == tuple(other.shape)
            and tuple(self.stride()) == tuple(other.stride()))


def _squeeze_view(self: Tensor, dim: Any = None) -> Tensor:
    return self.squeeze() if dim is None else self.squeeze(dim)


def _install_view_in_place() -> None:
    views = {
        "t_": lambda t: t.t(),
        "transpose_": lambda t, dim0, dim1: t.transpose(dim0, dim1),
        "swapaxes_": lambda t, axis0, axis1: t.transpose(axis0, axis1),
        "swapdims_": lambda t, dim0, dim1: t.transpose(dim0, dim1),
        "squeeze_": _squeeze_view,
        "unsqueeze_": lambda t, dim: t.unsqueeze(dim),
        "as_strided_": lambda t, size, stride, storage_offset=None: t.as_strided(list(size), list(stride),
                                                                                 storage_offset),
    }
    for name, view in views.items():
        setattr(Tensor, name, _view_in_place(name, view))
    Tensor.resize_ = _resize_
    Tensor.resize_as_ = lambda self, other, memory_format=None: _resize_(self, list(other.shape))
    Tensor.set_ = _set_
    Tensor.is_set_to = _is_set_to


# ------------------------------------------------------------------------------------------------ random fills
def _check_float(name: str, self: Tensor) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{name}: expects a floating point tensor, got {self.dtype}")


def _uniform_like(self: Tensor, generator: Any, dtype: Any = None) -> Tensor:
    return _C.empty(list(self.shape), dtype=dtype or self.dtype, device=self.device).uniform_(0.0, 1.0,
                                                                                               generator=generator)


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Samples of the exponential distribution of rate lambd: -log(1 - u) / lambd for u uniform in [0, 1)."""
    _check_float("exponential_", self)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _uniform_like(self, generator)
    return self.copy_(_C.log1p(-u).mul_(-1.0 / lambd))


def _geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """The number of Bernoulli(p) trials to the first success (1, 2, ...): ceil(log(u) / log(1 - p)), u in (0, 1]."""
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self.dtype == _C.bool:
        raise RuntimeError("geometric_: not implemented for 'Bool'")
    u = 1.0 - _uniform_like(self, generator, _C.float64)
    return self.copy_(_C.ceil(_C.log(u) / math.log1p(-p)).clamp_(min=1.0))


def _cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Samples of the Cauchy distribution: median + sigma * tan(pi * (u - 1/2))."""
    _check_float("cauchy_", self)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = _uniform_like(self, generator)
    return self.copy_(_C.tan((u - 0.5) * math.pi).mul_(sigma).add_(median))


def _log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Samples whose logarithm is normal(mean, std)."""
    _check_float("log_normal_", self)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return self.normal_(mean, std, generator=generator).exp_()


# ------------------------------------------------------------------------------------------------ queries and small ops
def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """self summed down to `size`, which must broadcast to self's shape (the inverse of expand)."""
    shape = _size_arg(size)
    ok = len(shape) <= self.dim() and all(
        n == 1 or n == m for n, m in zip(shape, list(self.shape)[self.dim() - len(shape):]))
    if not ok:
        raise RuntimeError(f"sum_to_size: size {{{', '.join(map(str, shape))}}} is not expandable to size "
                           f"{{{', '.join(map(str, self.shape))}}}.")
    if not shape:  # torch's sum_to with an empty size: the sum of everything (integers in int64)
        return self.sum()
    lead = self.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1 and self.shape[lead + i] != 1]
    result = self.sum(dims, keepdim=True) if dims else self
    return result.view(shape) if lead else result


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """A view of every slice of length `size` along `dimension`, `step` apart, in a new last dimension."""
    ndim = max(self.dim(), 1)
    if not -ndim <= dimension < ndim:
        raise IndexError(f"unfold: Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
                         f"got {dimension})")
    dim = dimension % ndim
    length = self.shape[dim] if self.dim() else 1
    if size > length:
        raise RuntimeError(f"unfold: maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"unfold: size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"unfold: step is {step} but must be > 0")
    shape, strides = list(self.shape), list(self.stride())
    if not shape:
        return self.as_strided([size], [1], self.storage_offset())
    count = (length - size) // step + 1
    new_shape = shape[:dim] + [count] + shape[dim + 1:] + [size]
    new_strides = strides[:dim] + [strides[dim] * step] + strides[dim + 1:] + [strides[dim]]
    return self.as_strided(new_shape, new_strides, self.storage_offset())


def _dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple[int, ...]:
    """The dims from outermost to innermost in memory (the order of decreasing strides; ties keep their order)."""
    strides = list(self.stride())
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


def _apply_(self: Tensor, callable: Any) -> Tensor:  # noqa: A002 (torch's name)
    """callable(x) for each element, written back in place (CPU tensors only, as in torch: Python per element)."""
    if self.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    return self.copy_(_C.tensor(values, dtype=self.dtype).view(list(self.shape)))


def _map_(self: Tensor, tensor: Tensor, callable: Any) -> Tensor:  # noqa: A002
    """callable(a, b) for each element a of self and b of tensor (broadcast to self), written back in place."""
    if self.device.type != "cpu" or tensor.device.type != "cpu":
        raise TypeError("map_ is only implemented on CPU tensors")
    other = tensor.expand(list(self.shape)).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    return self.copy_(_C.tensor(values, dtype=self.dtype).view(list(self.shape)))


def _map2_(self: Tensor, x: Tensor, y: Tensor, callable: Any) -> Tensor:  # noqa: A002
    if any(t.device.type != "cpu" for t in (self, x, y)):
        raise TypeError("map2_ is only implemented on CPU tensors")
    xs = x.expand(list(self.shape)).reshape(-1).tolist()
    ys = y.expand(list(self.shape)).reshape(-1).tolist()
    values = [callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)]
    return self.copy_(_C.tensor(values, dtype=self.dtype).view(list(self.shape)))


def _adjoint(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("adjoint: tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1).conj()


def _H(self: Tensor) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError(f"H: tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
    return self.t().conj() if self.dim() == 2 else self.conj()


def _new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    result = _C.empty_strided(list(size), list(stride), dtype=dtype or self.dtype, device=device or self.device)
    return result.requires_grad_() if requires_grad else result


def _install_queries() -> None:
    Tensor.is_cpu = property(lambda self: self.device.type == "cpu", doc="Whether the tensor is in host memory.")
    for name in ("is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_xla",
                 "is_xpu", "is_mps", "is_ipu", "is_maia", "is_mtia", "is_vulkan"):
        setattr(Tensor, name, property(lambda self: False, doc=f"torch's {name}: always False (yaten tensors are "
                                                                "dense, strided, on the CPU or CUDA)."))
    Tensor.is_inference = lambda self: False
    Tensor.is_neg = lambda self: False
    Tensor.resolve_neg = lambda self: self
    Tensor.ndimension = lambda self: self.dim()
    Tensor.retains_grad = property(_C._retains_grad, doc="Whether retain_grad() was called on this non-leaf.")
    Tensor.output_nr = property(_C._output_nr, doc="Which output of its grad_fn this tensor is (0 for a leaf).")
    Tensor.grad_dtype = property(_C._grad_dtype, _C._set_grad_dtype, doc=(
        "The dtype a leaf's .grad takes: its own by default; set a dtype and incoming gradients are cast to it, "
        "None and they keep theirs (torch's grad_dtype)."))
    Tensor.layout = property(lambda self: _strided, doc="Always yaten.strided.")
    Tensor.mH = property(_adjoint, doc="The conjugate transpose of the last two dimensions (a view).")
    Tensor.H = property(_H, doc="The conjugate transpose of a matrix (a view).")
    Tensor.adjoint = _adjoint
    Tensor.cdouble = lambda self, memory_format=None: self.to(_C.complex128)
    Tensor.cfloat = lambda self, memory_format=None: self.to(_C.complex64)
    Tensor.new_empty_strided = _new_empty_strided
    Tensor.sum_to_size = _sum_to_size
    Tensor.narrow_copy = lambda self, dim, start, length: self.narrow(dim, start, length).clone()
    Tensor.dim_order = _dim_order
    Tensor.to_dense = lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype)
    Tensor.const_data_ptr = lambda self: self.data_ptr()
    Tensor.where = lambda self, condition, y: _C.where(condition, self, y)
    Tensor.unfold = _unfold
    Tensor.apply_ = _apply_
    Tensor.map_ = _map_
    Tensor.map2_ = _map2_
    Tensor.exponential_ = _exponential_
    Tensor.geometric_ = _geometric_
    Tensor.cauchy_ = _cauchy_
    Tensor.log_normal_ = _log_normal_
    Tensor.fill_diagonal_ = _tf.fill_diagonal_
    Tensor.is_distributed = lambda self: False
    Tensor.as_subclass = lambda self, cls: _C._as_subclass(self, cls)
    Tensor.module_load = _module_load
    Tensor.new = _new_legacy
    Tensor.hardshrink = lambda self, lambd=0.5: _nn_functional().hardshrink(self, lambd)
    Tensor.prelu = lambda self, weight: _nn_functional().prelu(self, weight)
    for name, function in _tf.REMOVED.items():
        setattr(Tensor, name, function)
    for name in ("index_add", "index_copy", "index_put", "index_put_", "index_reduce", "put", "diagflat",
                 "diagonal_scatter", "as_strided_scatter", "select_scatter", "slice_scatter",
                 "quantile", "nanquantile", "histogram", "ormqr", "stft", "istft", "logcumsumexp", "addbmm", "addr", "lu", "nonzero_static",
                 "hash_tensor",
                 "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _method_of(getattr(_tf, name, None) or getattr(_C, name)))


def _module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What load_state_dict makes of the saved value `other` for this parameter or buffer: other itself, detached,
    with assign=True; else self with other's values copied in, detached (a new tensor object either way)."""
    if assign:
        return other.detach()
    with _no_grad():
        return self.copy_(other).detach()


def _no_grad() -> Any:
    from .autograd import no_grad

    return no_grad()


def _nn_functional() -> Any:
    from .nn import functional

    return functional


def _new_legacy(self: Tensor, *args: Any, device: Any = None) -> Tensor:
    """torch's legacy constructor on a tensor: x.new() (empty), x.new(2, 3) or x.new(size) (uninitialized),
    x.new(data) (a copy of nested sequences or a tensor), in x's dtype and device."""
    device = device or self.device
    if not args:
        return _C.empty([0], dtype=self.dtype, device=device)
    if len(args) == 1 and not isinstance(args[0], int):
        data = args[0]
        if isinstance(data, Size):
            return _C.empty(list(data), dtype=self.dtype, device=device)
        if isinstance(data, Tensor):
            return data.to(dtype=self.dtype, device=device, copy=True)
        return _C.tensor(data, dtype=self.dtype, device=device)
    return _C.empty([int(n) for n in args], dtype=self.dtype, device=device)


class layout:  # noqa: N801 (torch's name)
    """torch.layout: yaten has one, yaten.strided (dense tensors addressed by strides)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"yaten.{self._name}"

    def __reduce__(self) -> str:
        return self._name


_strided = layout("strided")


class memory_format:  # noqa: N801 (torch's name)
    """torch.memory_format: how a new tensor's dims are laid out in memory. yaten.contiguous_format (row-major),
    yaten.preserve_format (the source's own strides where they are dense), yaten.channels_last (NHWC) and
    yaten.channels_last_3d (NDHWC). Ops take them as `memory_format=` (an int to ops.yaml, through __index__)."""

    def __init__(self, name: str, code: int) -> None:
        self._name, self._code = name, code

    def __index__(self) -> int:
        return self._code

    def __repr__(self) -> str:
        return f"yaten.{self._name}"

    def __reduce__(self) -> str:
        return self._name


contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)
_FORMAT_OF_CODE = {f._code: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)}



def install() -> None:
    _install_function_methods()
    _install_in_place_forms()
    _install_view_in_place()
    _install_queries()

