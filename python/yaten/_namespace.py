"""The body of `import yaten`: the compiled core (`yaten._C`), which holds the Tensor type, the dtypes and every
generated op, and the Python-level pieces around it (printing, conversions, devices, nn, optim, ...). yaten/__init__.py
re-exports all of it (Note [The generator needs no build] there says why it is a module of its own).
"""

from __future__ import annotations

import builtins as _builtins  # `int` below is yaten.int32, as in torch
from pathlib import Path
from typing import Any

from . import _C
from ._C import *  # noqa: F401,F403  (every generated op, the dtypes, Tensor)
from ._C import (  # noqa: F401
    Tensor, can_cast, dtype, empty_cache, get_default_dtype, get_num_threads, memory_stats, promote_types, set_default_dtype,
    set_num_threads,
)
from ._device import device, get_default_device, set_default_device  # noqa: F401
from ._size import Size
from ._torch_functions import (  # noqa: F401
    aminmax, bartlett_window, bincount, frexp, renorm, unique_consecutive, blackman_window, block_diag, combinations, corrcoef, cov, cumulative_trapezoid, dist,
    gcd, hamming_window, hann_window, kaiser_window, lcm, trapezoid, trapz, unravel_index, vander,
    argwhere, atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, cartesian_prod, column_stack, diff, dsplit, dstack,
    finfo, fliplr, flipud, float_power, hsplit, iinfo, inner, is_complex, is_floating_point, is_nonzero,
    is_same_size, is_signed, isin, isneginf, isposinf, isreal, kron, masked_select, ravel, rot90, row_stack,
    take_along_dim, tensor_split, tril_indices, triu_indices, vsplit)
from . import _torch_functions
from ._torch_functions import tensors_arg as _tensors_arg
from ._torch_functions import VIEW_COPIES as _VIEW_COPIES

# torch's underscore ops that programs and optimizers call by name (torch._foreach_add_, torch._fused_adamw_,
# torch._amp_update_scale_), which `import *` skips: yaten/__init__.py imports these too
_PUBLIC_UNDERSCORE_OPS = {name: getattr(_C, name) for name in dir(_C)
                          if name.startswith(("_foreach_", "_fused_", "_amp_"))}
globals().update(_PUBLIC_UNDERSCORE_OPS)
globals().update(_VIEW_COPIES)  # torch.transpose_copy(x, 0, 1), ...

_C._set_size_type(Size)
from . import _tensor  # noqa: F401  (installs Python-level Tensor methods)
from . import _tensor_methods

_tensor_methods.install()
from ._tensor_methods import (  # noqa: E402,F401
    channels_last, channels_last_3d, contiguous_format, layout, memory_format, preserve_format)
from ._torch_functions import (  # noqa: E402,F401
    addbmm, addr, as_strided_scatter, asarray, detach, diagflat, diagonal_scatter, empty_permuted, fill,
    fill_diagonal_, frobenius_norm, frombuffer, get_device, gradient, histogram, histogramdd, index_add, index_copy,
    hash_tensor, index_put, index_put_, index_reduce, is_inference, is_neg, is_storage, lu, nanquantile, nonzero_static,
    norm_except_dim, nuclear_norm, put, quantile, randint_like, resolve_neg, rsub, segment_reduce, to_dlpack, typename,
    unsafe_chunk, unsafe_split, unsafe_split_with_sizes)
from ._torch_functions import REMOVED as _REMOVED  # noqa: E402

strided = _tensor_methods._strided
globals().update(_REMOVED)  # torch.solve, torch.eig, ...: removed in torch 1.9, raising with the replacement named
globals().update(_torch_functions.in_place_functions())  # torch.abs_(x), torch.clamp_(x, 0, 1), ...
adjoint = Tensor.adjoint
from ._torch_functions import (  # noqa: E402,F401
    are_deterministic_algorithms_enabled, binomial, cond, get_deterministic_debug_mode, get_device_module, istft,
    is_deterministic_algorithms_warn_only_enabled, ormqr, pca_lowrank, poisson, set_deterministic_debug_mode,
    set_printoptions, stft, svd_lowrank, use_deterministic_algorithms, while_loop)
from ._torch_functions import from_file, thread_safe_generator  # noqa: E402,F401
from . import _blas

_blas.load()
from . import autograd, backends, cuda, fft, library, linalg, nn, profiler, special, utils  # noqa: F401
from . import amp, array_api, func, optim, safetensors, serialization  # noqa: F401
from .func import vmap  # noqa: F401
from .amp import autocast  # noqa: F401
from . import _torch_nn_functions as _nn_spellings  # noqa: E402

globals().update({name: getattr(_nn_spellings, name) for name in _nn_spellings.NAMES if name not in globals()})
from .nn.modules.rnn import (  # noqa: E402,F401  (torch's functional recurrent layers and cells)
    gru, gru_cell, lstm, lstm_cell, rnn_relu, rnn_relu_cell, rnn_tanh, rnn_tanh_cell)

import sys as _sys
import types as _types

# torch.cuda.amp.GradScaler / autocast and torch.cpu.amp.autocast, the older spellings (the device type fixed)
cuda.amp = _types.ModuleType("yaten.cuda.amp", "torch.cuda.amp's names: autocast (CUDA, float16) and GradScaler.")
cuda.amp.autocast = amp.cuda_autocast
cuda.amp.GradScaler = amp.GradScaler
cpu = _types.ModuleType("yaten.cpu", "torch.cpu's names that programs use: yaten.cpu.amp.autocast.")
cpu.amp = _types.ModuleType("yaten.cpu.amp", "torch.cpu.amp's names: autocast (CPU, bfloat16).")
cpu.amp.autocast = amp.cpu_autocast
_sys.modules.update({"yaten.cuda.amp": cuda.amp, "yaten.cpu": cpu, "yaten.cpu.amp": cpu.amp})
from ._C import (  # noqa: F401,E402  (torch's autocast state functions, at the top level as in torch)
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_dtype,
    is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype,
    set_autocast_enabled)
from .serialization import load, save  # noqa: F401
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .autograd import (  # noqa: F401
    is_anomaly_check_nan_enabled, is_anomaly_enabled, is_inference_mode_enabled, set_anomaly_enabled)
from .amp import GradScaler  # noqa: F401  (torch.GradScaler, torch.amp.GradScaler's top-level name)
from .cuda import OutOfMemoryError  # noqa: F401
from ._streams import Event, Stream  # noqa: F401,E402
from ._lobpcg import lobpcg  # noqa: F401,E402
from ._tensor import UntypedStorage  # noqa: F401,E402
from .nn import ModuleDict, ParameterDict  # noqa: F401  (torch re-exports these two at its top level)


def is_distributed(input: Tensor) -> _builtins.bool:
    """False: a yaten tensor lives on one device (torch's deprecated predicate)."""
    return False


def compiled_with_cxx11_abi() -> _builtins.bool:
    """Whether libyaten was built with the C++11 ABI of libstdc++ (_GLIBCXX_USE_CXX11_ABI=1), for extensions."""
    return True


# torch's older spellings of the autocast state functions, one device type each
def get_autocast_cpu_dtype() -> Any:
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> Any:
    return get_autocast_dtype("cuda")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype: Any) -> None:
    set_autocast_dtype("cuda", dtype)


def is_autocast_cpu_enabled() -> _builtins.bool:
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: _builtins.bool) -> None:
    set_autocast_enabled("cpu", enabled)
from ._C import return_types  # noqa: F401
# torch's top-level names for the convolution family and cdist (yaten.nn.functional holds them)
from .nn.functional import (  # noqa: F401
    cdist, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d)
from ._ops import Ops

ops = Ops()  # yaten.ops.list(), yaten.ops.yaten.add.Tensor(...), yaten.ops.mylib.scale(...)

__version__ = "0.1.0"

# Aliases torch users reach for.
float = _C.float32  # noqa: A001
double = _C.float64
half = _C.float16
long = _C.int64
int = _C.int32  # noqa: A001
short = _C.int16
bool = _C.bool  # noqa: A001
cfloat = _C.complex64
cdouble = _C.complex128


def from_numpy(array: Any) -> Tensor:
    """A tensor sharing `array`'s memory (a write on either side shows on the other); the tensor keeps the array
    alive. Negative strides are an error, as in torch; so is data that starts off its element size's alignment
    (torch shares it; yaten's kernels read aligned elements: Note [Unaligned foreign memory])."""
    import numpy as np

    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected np.ndarray (got {type(array).__name__})")
    return _C._from_array_interface(array, array.__array_interface__)


def _is_ndarray(data: Any) -> bool:
    return type(data).__module__ == "numpy" and type(data).__name__ == "ndarray"


def _aligned(array: Any) -> Any:
    """`array`, or a copy of it when its data starts off its element size (from_numpy refuses those)."""
    return array if array.size == 0 or array.ctypes.data % array.itemsize == 0 else array.copy()


def _tensor_from_ndarray(data: Any, dtype: dtype | None, device: Any) -> Tensor:
    """yaten.tensor (C++, tensor_type.cpp) of a NumPy array: shared, then copied to the dtype and device asked for."""
    return _C._to_copy(from_numpy(_aligned(data)), dtype=dtype, device=None if device is None else str(device))


def as_tensor(data: Any, dtype: dtype | None = None, device: Any = None) -> Tensor:
    """`data` as a tensor, sharing memory when it can (a tensor or NumPy array already of that dtype and device)."""
    if isinstance(data, Tensor):
        target = data
    elif _is_ndarray(data):
        target = from_numpy(_aligned(data))  # unaligned memory is copied
    else:
        return tensor(data, dtype=dtype, device=device)
    return target.to(*(a for a in (dtype, device) if a is not None))


def from_dlpack(x: Any) -> Tensor:
    """A tensor sharing the memory of `x`: anything with __dlpack__ (NumPy arrays, torch tensors, ...) or a DLPack
    capsule. Zero-copy; the producer's memory is released when the last tensor using it goes away."""
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "__dlpack__"):
        try:
            capsule = x.__dlpack__(max_version=(1, 1))
        except TypeError:  # producers older than DLPack 1.0 take no max_version
            capsule = x.__dlpack__()
    else:
        capsule = x
    return _C._from_dlpack(capsule)


def result_type(*operands: Any) -> dtype:
    """torch.result_type: the dtype an op computes in for these tensors and Python numbers."""
    return _C._result_type(*operands)


def generated_dir() -> Path:
    """Where the generated sources that this build compiled are installed."""
    return Path(_C.__file__).resolve().parent / "generated"


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """torch.unique: the sorted distinct elements (with dim=, the distinct slices along dim), with each element's
    (slice's) index among them (return_inverse) and how often each occurs (return_counts); a tensor, or a tuple when
    either is asked for."""
    if dim is not None:
        values, inverse, counts = _C.unique_dim(input, dim, sorted, return_inverse, return_counts)
    else:
        values, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts)
    if not (return_inverse or return_counts):
        return values
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out


Tensor.unique = unique  # type: ignore[attr-defined]


_nonzero = _C.nonzero


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """torch.nonzero: the indices of the nonzero elements, one row each; with as_tuple=True one 1-D index tensor
    per dim (for a 0-dim input, one tensor holding 0 when it is nonzero), as x[x.nonzero(as_tuple=True)] wants."""
    found = _nonzero(input)
    if not as_tuple:
        return found
    if input.dim() == 0:
        return (zeros(found.shape[0], dtype=int64, device=input.device),)
    return tuple(found[:, d] for d in _builtins.range(input.dim()))


Tensor.nonzero = nonzero  # type: ignore[method-assign]


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """Tensor.polygamma(n): polygamma(n, self), torch's method with the order first in the function."""
    return _C.polygamma(n, self)


Tensor.polygamma = _polygamma_method  # type: ignore[attr-defined]


_where = _C.where


def where(condition: Tensor, *args: Any, **kwargs: Any) -> Any:
    """torch.where: elements of `input` where `condition` is True and of `other` elsewhere (broadcast), or, with the
    condition alone, the indices of its nonzero elements as one tensor per dim (nonzero(as_tuple=True), which
    gives a 0-dim condition torch's one index)."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")
    if not args and not kwargs:
        return nonzero(condition, as_tuple=True)
    return _where(condition, *args, **kwargs)



def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors: 'ij' (matrix) or 'xy' (Cartesian) indexing; views of the inputs."""
    return tuple(_C.meshgrid(_tensors_arg(tensors), indexing=indexing))


def chain_matmul(*matrices: Any) -> Tensor:
    """The product of 2-D matrices in the cheapest order (linalg.multi_dot); torch's varargs form."""
    return _C.chain_matmul(_tensors_arg(matrices))


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape (views)."""
    return tuple(_C.broadcast_tensors(_tensors_arg(tensors)))


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation over the operands (given as arguments or one list), e.g. einsum('ij,jk->ik', a, b)."""
    return _C.einsum(equation, _tensors_arg(operands))


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """The sum of products over the last `dims` dims of a and the first of b, or over the dims listed in
    dims = (dims_a, dims_b)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, _builtins.int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return _C.tensordot(a, b, list(_builtins.range(a.dim() - dims, a.dim())), list(_builtins.range(dims)))
    dims_a, dims_b = dims
    as_list = (lambda d: [d] if isinstance(d, _builtins.int) else list(d))
    return _C.tensordot(a, b, as_list(dims_a), as_list(dims_b))


_MATMUL_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    """"highest" (the default: float32 matmul in full float32), "high" or "medium" (CUDA float32 matmul may use TF32
    tensor cores), as torch.set_float32_matmul_precision. The CPU's BLAS always computes in float32."""
    if precision not in _MATMUL_PRECISIONS:
        raise ValueError(f"set_float32_matmul_precision: expected one of {_MATMUL_PRECISIONS}, got {precision!r}")
    _C._set_float32_matmul_precision(_MATMUL_PRECISIONS.index(precision))


def get_float32_matmul_precision() -> str:
    return _MATMUL_PRECISIONS[_C._get_float32_matmul_precision()]


def is_tensor(obj: Any) -> _builtins.bool:
    """Whether obj is a yaten tensor (a Parameter too)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> _builtins.int:
    """The number of elements of input."""
    return input.numel()


def compile(model: Any = None, *, fullgraph: _builtins.bool = False, dynamic: Any = None, backend: Any = "inductor",
            mode: Any = None, options: Any = None, disable: _builtins.bool = False) -> Any:
    """torch.compile's signature: yaten runs eagerly, so the model or function comes back as it is and computes what
    it computed (torch's own backend="eager" does the same). Usable as a decorator, with or without arguments."""
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise TypeError(f"compile: expected a module or a callable, got {type(model).__name__}")
    return model


range = _torch_functions.torch_range  # noqa: A001 (torch.range; this module calls _builtins.range)
