"""Tensor methods written in Python: printing, device and dtype conversion, NumPy.

They are installed onto the compiled yaten.Tensor type (a heap type, so it accepts them), the way torch adds
Python methods in torch/_tensor.py, while keeping the object itself a plain C struct (Design rule [Python layer]).
"""

from __future__ import annotations

from typing import Any

from . import _C, _indexing
from ._device import device as _device_class
from ._tensor_str import tensor_repr

Tensor = _C.Tensor


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """to(dtype) / to(device) / to(device, dtype) / to(other_tensor), with non_blocking= and copy=: self if
    nothing changes, else a copy. non_blocking=True returns before a copy between pinned host memory and a GPU ends
    (synchronize before reading the result on the host)."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to(): unexpected keyword argument '{next(iter(kwargs))}'")
    if memory_format is not None and int(memory_format) != 1:  # a layout other than preserve_format's
        converted = _to(self, *args, dtype=dtype, device=device, non_blocking=non_blocking, copy=copy)
        # as torch: no copy when the tensor already suggests that layout (channels-last ordered strides, or not)
        if converted is self and self._suggests_channels_last() == (int(memory_format) in (2, 3)):
            return self
        return converted.contiguous(memory_format=memory_format)
    flags = []
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (str, int, _device_class)) and not isinstance(a, bool):
            device = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, bool):
            flags.append(a)
        else:
            raise TypeError(f"to(): expected a dtype, a device or a Tensor, got {type(a).__name__}")
    if flags:  # to(dtype, non_blocking, copy), as in torch
        non_blocking = flags[0]
        copy = flags[1] if len(flags) > 1 else copy
    if isinstance(device, int):
        device = f"cuda:{device}"
    target_device = _device_class(device) if device is not None else None
    if target_device is not None and target_device.type == "cuda" and target_device.index is None:
        from . import cuda

        target_device = _device_class("cuda", cuda.current_device())
    same_dtype = dtype is None or dtype == self.dtype
    same_device = target_device is None or target_device == self.device
    if same_dtype and same_device and not copy:
        return self
    return _C._to_copy(self, dtype=dtype, device=None if target_device is None else str(target_device),
                       non_blocking=bool(non_blocking))


def _cpu(self: Tensor) -> Tensor:
    return _to(self, "cpu")


def _cuda(self: Tensor, device: int | str | None = None, non_blocking: bool = False) -> Tensor:
    return _to(self, "cuda" if device is None else device, non_blocking=non_blocking)


def _pin_memory(self: Tensor) -> Tensor:
    """A copy of this CPU tensor in page-locked memory: copies from it to a GPU are faster, and can be
    non_blocking."""
    return _C._pin_memory(self)


def _is_pinned(self: Tensor) -> bool:
    return _C._is_pinned(self)


def _record_stream(self: Tensor, stream: Any) -> None:
    """Marks this CUDA tensor's memory as in use by `stream`: when the tensor is freed, its memory is not reused
    until the work queued on `stream` by then has finished."""
    _C._cuda_record_stream(self, stream.cuda_stream)


def _numpy(self: Tensor) -> Any:
    """A NumPy array sharing this tensor's memory (CPU tensors only)."""
    import numpy as np

    return np.asarray(self)


def _array(self: Tensor, dtype: Any = None, copy: Any = None) -> Any:
    import numpy as np

    array = np.asarray(_ArrayView(self))
    return array.astype(dtype) if dtype is not None else array


class _ArrayView:
    """Presents a tensor's __array_interface__ and keeps the tensor alive as the array's base."""

    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor
        self.__array_interface__ = tensor.__array_interface__


def _conversion(dtype_name: str):
    def convert(self: Tensor) -> Tensor:
        return _to(self, getattr(_C, dtype_name))

    convert.__name__ = dtype_name
    convert.__doc__ = f"self converted to {dtype_name} (self if it already is)."
    return convert


for _name, _dtype in (("float", "float32"), ("double", "float64"), ("half", "float16"), ("bfloat16", "bfloat16"),
                      ("int", "int32"), ("long", "int64"), ("short", "int16"), ("bool", "bool"),
                      ("byte", "uint8"), ("char", "int8")):
    setattr(Tensor, _name, _conversion(_dtype))

def _dlpack(self: Tensor, *, stream: Any = None, max_version: tuple[int, int] | None = None,
            dl_device: Any = None, copy: bool | None = None) -> Any:
    """A DLPack capsule sharing this tensor's memory: versioned (DLPack 1.x) when the consumer passes
    max_version >= (1, 0), the legacy one otherwise. Kernels are synchronous, so no stream needs to wait."""
    if dl_device is not None and tuple(dl_device) != _dlpack_device(self):
        raise BufferError(f"__dlpack__: the tensor is on {self.device}; copy it there first")
    source = self.clone() if copy else self
    versioned = max_version is not None and max_version[0] >= 1
    return _C._to_dlpack(source, versioned)


def _dlpack_device(self: Tensor) -> tuple[int, int]:
    device = self.device
    return (2, device.index or 0) if device.type == "cuda" else (1, 0)


class UntypedStorage:
    """torch.UntypedStorage: bytes on a device, shared by every tensor that views them. UntypedStorage(n, device=)
    allocates n bytes (uninitialized, as torch's), UntypedStorage(sequence of ints) holds those bytes, and
    tensor.untyped_storage() is the storage under a tensor (all its views share it). Indexing reads and writes bytes;
    a slice is a storage over the same bytes."""

    __slots__ = ("_bytes",)

    def __init__(self, *args: Any, device: Any = None) -> None:
        if len(args) > 1:
            raise TypeError(f"UntypedStorage(): expected at most one argument (a size or a sequence), got {len(args)}")
        source = args[0] if args else 0
        if isinstance(source, int) and not isinstance(source, bool):
            if source < 0:
                raise RuntimeError(f"UntypedStorage(): size must be non-negative, got {source}")
            self._bytes = _C.empty((source,), dtype=_C.uint8, device=device)
        elif isinstance(source, (list, tuple)):
            self._bytes = _C.tensor(list(source), dtype=_C.uint8, device=device)
        else:
            raise TypeError(f"UntypedStorage(): expected a size or a sequence of ints, got {type(source).__name__}")

    @classmethod
    def _over(cls, bytes_: Tensor) -> UntypedStorage:
        storage = cls.__new__(cls)
        storage._bytes = bytes_
        return storage

    @classmethod
    def _of_tensor(cls, tensor: Tensor) -> UntypedStorage:
        """The whole storage under `tensor`, as a uint8 tensor from its first byte (not the tensor's offset)."""
        nbytes = _C._storage_info(tensor)[1]
        flat = tensor.detach().as_strided((nbytes // tensor.element_size(),), (1,), 0)
        return cls._over(flat if flat.dtype == _C.uint8 else flat.view(_C.uint8))

    @classmethod
    def from_buffer(cls, buffer: Any, byte_order: str = "native", count: int = -1, offset: int = 0,
                    dtype: Any = None) -> UntypedStorage:
        """The bytes of a Python buffer (bytes, bytearray, memoryview, array), copied."""
        data = bytes(memoryview(buffer).cast("B"))[offset:]
        if count >= 0:
            data = data[:count * (1 if dtype is None else _C.empty((0,), dtype=dtype).element_size())]
        return cls(list(data))

    # sizes and places
    def nbytes(self) -> int:
        return self._bytes.numel()

    def size(self) -> int:
        return self._bytes.numel()

    def __len__(self) -> int:
        return self._bytes.numel()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._bytes.data_ptr()

    @property
    def device(self) -> Any:
        return self._bytes.device

    @property
    def is_cuda(self) -> bool:
        return self._bytes.device.type == "cuda"

    def is_shared(self) -> bool:
        return _C._storage_info(self._bytes)[3]

    def share_memory_(self) -> UntypedStorage:
        _C._share_memory(self._bytes)
        return self

    # bytes
    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return UntypedStorage._over(self._bytes[index])
        return int(self._bytes[index].item())

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(value, UntypedStorage):
            value = value._bytes
        elif isinstance(value, (list, tuple)):
            value = _C.tensor(list(value), dtype=_C.uint8)
        self._bytes[index] = value

    def tolist(self) -> list[int]:
        return self._bytes.tolist()

    def fill_(self, value: int) -> UntypedStorage:
        self._bytes.fill_(value)
        return self

    def copy_(self, source: UntypedStorage, non_blocking: bool = False) -> UntypedStorage:
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"copy_: the storages differ in size ({source.nbytes()} bytes into {self.nbytes()})")
        self._bytes.copy_(source._bytes)
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage._over(self._bytes.clone())

    def to(self, *, device: Any = None, non_blocking: bool = False) -> UntypedStorage:
        return self if device is None else UntypedStorage._over(self._bytes.to(device))

    def cpu(self) -> UntypedStorage:
        return self.to(device="cpu")

    def cuda(self, device: Any = None, non_blocking: bool = False) -> UntypedStorage:
        return self.to(device="cuda" if device is None else device)

    def untyped(self) -> UntypedStorage:
        return self

    def resize_(self, size: int) -> UntypedStorage:
        """The storage's bytes reallocated to `size` (the first min(old, new) kept). Tensors made before keep the old
        bytes: only a storage not taken from a tensor can be resized."""
        grown = _C.empty((size,), dtype=_C.uint8, device=self.device)
        keep = min(size, self.nbytes())
        grown[:keep] = self._bytes[:keep]
        self._bytes = grown
        return self

    def __repr__(self) -> str:
        body = "\n".join(f" {b}" for b in self.tolist()) if self.nbytes() else ""
        footer = f"[yaten.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"
        return f"{body}\n{footer}" if body else footer


def _share_memory_(self: Tensor) -> Tensor:
    """Moves the storage into shared memory, in place (every view follows); returns self."""
    _C._share_memory(self)
    return self


def _iter(self: Tensor) -> Any:
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


Tensor.__repr__ = tensor_repr
# Tensor.__getitem__ is the compiled type's own: basic subscripts in C++, the rest through _indexing.getitem
# (Note [Basic indexing in C++], csrc/python/tensor_type.cpp).
Tensor.__setitem__ = _indexing.setitem
Tensor.__iter__ = _iter
Tensor.untyped_storage = lambda self: UntypedStorage._of_tensor(self)
Tensor.share_memory_ = _share_memory_
Tensor.is_shared = lambda self: _C._storage_info(self)[3]
Tensor.__dlpack__ = _dlpack


def _array_namespace(self: Tensor, /, *, api_version: str | None = None) -> Any:
    """The Python array API standard's namespace for this tensor: yaten.array_api (docs/array-api.md)."""
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        raise ValueError(f"__array_namespace__: unsupported api_version {api_version!r}")
    from . import array_api

    return array_api


def _to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """The array on `device` (itself when it is there already), as an array of yaten.array_api."""
    moved = _to(self, str(device))
    return _C._mark_array_api(moved if moved is not self or _C._is_array_api(self) else self.view_as(self))


def _complex(self: Tensor) -> complex:
    """complex(t): the one element as a Python complex number."""
    return complex(self.item())


Tensor.__complex__ = _complex
Tensor.__array_namespace__ = _array_namespace
Tensor.to_device = _to_device
Tensor.__dlpack_device__ = _dlpack_device


def _mT(self: Tensor) -> Tensor:
    result = self.transpose(-2, -1)
    return _C._mark_array_api(result) if _C._is_array_api(self) else result


def _T(self: Tensor) -> Tensor:
    result = self.permute(list(range(self.dim() - 1, -1, -1)))
    return _C._mark_array_api(result) if _C._is_array_api(self) else result


Tensor.mT = property(_mT, doc="The last two dimensions swapped (a view).")
Tensor.T = property(_T, doc="The tensor with its dimensions reversed (a view).")
Tensor.real = property(lambda self: _C.real(self), lambda self, value: _C.real(self).copy_(value),
                       doc="The real parts (a view; a real tensor itself). Assigning copies into them, as torch.")
Tensor.imag = property(lambda self: _C.imag(self), lambda self, value: _C.imag(self).copy_(value),
                       doc="The imaginary parts of a complex tensor (a view). Assigning copies into them, as torch.")
Tensor.nbytes = property(lambda self: self.numel() * self.element_size(), doc="Bytes the elements occupy.")
Tensor.itemsize = property(lambda self: self.element_size(), doc="Bytes per element.")
Tensor.is_floating_point = lambda self: self.dtype.is_floating_point
Tensor.is_complex = lambda self: self.dtype.is_complex
Tensor.nelement = lambda self: self.numel()
Tensor.get_device = lambda self: self.device.index if self.is_cuda else -1


# ------------------------------------------------------------------------------------------------ torch habits

def _size_arg(size: tuple[Any, ...]) -> list[int]:
    return list(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else list(size)


def _new(factory: str):
    def new(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        return getattr(_C, factory)(_size_arg(size), dtype=dtype or self.dtype, device=device or self.device,
                                    requires_grad=requires_grad)
    new.__name__ = new.__qualname__ = "new_" + factory
    new.__doc__ = f"A tensor of {factory} of the given size, with self's dtype and device unless given."
    return new


def _new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """A tensor of `size` filled with `fill_value`, with self's dtype and device unless given."""
    return _C.full(list(size), fill_value, dtype=dtype or self.dtype, device=device or self.device,
                   requires_grad=requires_grad)


def _new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    """A tensor copied from `data`, with self's dtype and device unless given."""
    made = _C.tensor(data, dtype=dtype or self.dtype, device=device or self.device)
    return made.requires_grad_() if requires_grad else made


def _contains(self: Tensor, element: Any) -> bool:
    """`value in t`: whether any element equals it (torch's rule)."""
    if not isinstance(element, (Tensor, int, float, bool)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element).__name__}.")
    return bool((self == element).any().item())


def _format(self: Tensor, spec: str) -> str:
    """f"{t:.3f}" formats a 0-dim tensor's value, as torch does; other tensors take no format spec."""
    if self.dim() == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec)


def _get_data(self: Tensor) -> Tensor:
    return _C._detach(self)


def _set_data(self: Tensor, value: Tensor) -> None:
    """t.data = v: writes v's values into t's memory without recording it (torch swaps t's storage instead; yaten
    keeps it, so the shape, dtype and device must match)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"data: expected a Tensor, got {type(value).__name__}")
    if value.shape != self.shape or value.dtype != self.dtype or value.device != self.device:
        raise RuntimeError(f"data: yaten copies into the tensor's own memory, so the new data must have its shape, "
                           f"dtype and device ({tuple(self.shape)}, {self.dtype}, {self.device}); got "
                           f"({tuple(value.shape)}, {value.dtype}, {value.device})")
    if value.data_ptr() != self.data_ptr() or value.stride() != self.stride():
        _C._detach(self).copy_(value)


Tensor.new_zeros = _new("zeros")
Tensor.new_ones = _new("ones")
Tensor.new_empty = _new("empty")
Tensor.new_full = _new_full
Tensor.new_tensor = _new_tensor
Tensor.type_as = lambda self, other: self.to(other.dtype)
Tensor.view_as = lambda self, other: self.view(list(other.shape))
Tensor.reshape_as = lambda self, other: self.reshape(list(other.shape))
Tensor.__contains__ = _contains
Tensor.__format__ = _format
Tensor.data = property(_get_data, _set_data, doc=(
    "The tensor's values without its autograd history (a view, as detach()). Unlike torch, whose .data has a "
    "version counter of its own, yaten counts versions per storage: writing through .data after a graph saved the "
    "tensor makes that graph's backward raise instead of silently using the new values."))
Tensor.to = _to
Tensor.cpu = _cpu
Tensor.cuda = _cuda
Tensor.pin_memory = _pin_memory
Tensor.is_pinned = _is_pinned
Tensor.record_stream = _record_stream
Tensor.numpy = _numpy
Tensor.__array__ = _array


# ------------------------------------------------------------------------------------------------ autograd

def _backward(self: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None,
              create_graph: bool = False, inputs: Any = None) -> None:
    from . import autograd

    autograd.backward(self, gradient, retain_graph, create_graph, inputs)


def _requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    _C._set_requires_grad(self, requires_grad)
    return self


def _detach_(self: Tensor) -> Tensor:
    _C._detach_(self)
    return self


def _detach(self: Tensor) -> Tensor:
    return _C._detach(self)


def _retain_grad(self: Tensor) -> None:
    _C._retain_grad(self)


def _register_hook(self: Tensor, hook: Any) -> Any:
    _C._register_hook(self, hook)
    return hook


class _PostAccumulateGradHookHandle:
    """What Tensor.register_post_accumulate_grad_hook returns: remove() takes the hook off the tensor."""

    def __init__(self, tensor: Tensor, hook_id: int) -> None:
        import weakref

        self._tensor = weakref.ref(tensor) if hasattr(type(tensor), "__weakref__") else (lambda t=tensor: t)
        self.id = hook_id

    def remove(self) -> None:
        tensor = self._tensor()
        if tensor is not None:
            _C._remove_post_accumulate_grad_hook(tensor, self.id)

    def __enter__(self) -> "_PostAccumulateGradHookHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def _register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> _PostAccumulateGradHookHandle:
    """hook(tensor) runs in backward after this leaf's .grad was accumulated (torch's name and contract)."""
    return _PostAccumulateGradHookHandle(self, _C._register_post_accumulate_grad_hook(self, hook))


Tensor.requires_grad = property(_C._requires_grad, _C._set_requires_grad)
Tensor.grad = property(_C._grad, _C._set_grad)
Tensor.grad_fn = property(_C._grad_fn)
Tensor.is_leaf = property(_C._is_leaf)
Tensor._version = property(_C._version)
Tensor.backward = _backward
Tensor.requires_grad_ = _requires_grad_
Tensor.detach = _detach
Tensor.detach_ = _detach_
Tensor.retain_grad = _retain_grad
Tensor.register_hook = _register_hook
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook


# ------------------------------------------------------------------------------------------------ copying and pickling

def _deepcopy(self: Tensor, memo: dict) -> Tensor:
    """copy.deepcopy: a leaf's copy with its own memory, requires_grad and (a copy of) its grad, as torch."""
    if id(self) in memo:
        return memo[id(self)]
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                           "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
                           "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    copied = _C._detach(self).clone()
    if self.requires_grad:
        copied.requires_grad_(True)
    grad = self.grad
    if grad is not None:
        copied.grad = _C._detach(grad).clone()
    memo[id(self)] = copied
    return copied


def _reduce_ex(self: Tensor, protocol: Any) -> Any:
    from . import serialization

    return serialization._tensor_reduce(self)


Tensor.__deepcopy__ = _deepcopy
Tensor.__reduce_ex__ = _reduce_ex


_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
               "uint64": "UInt64"}


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """t.type(): the legacy type name ('yaten.FloatTensor', 'yaten.cuda.LongTensor'); t.type(dtype) or
    t.type('torch.LongTensor'): self converted to that dtype (and device, for a cuda name), as torch's."""
    if dtype is None:
        kind = _TYPE_NAMES[repr(self.dtype).split(".")[1]]
        return f"yaten.{'cuda.' if self.is_cuda else ''}{kind}Tensor"
    if isinstance(dtype, str):
        parts = dtype.split(".")
        kinds = {v + "Tensor": k for k, v in _TYPE_NAMES.items()}
        if len(parts) < 2 or parts[0] not in ("torch", "yaten") or parts[-1] not in kinds:
            raise ValueError(f"invalid type: '{dtype}'")
        target = getattr(_C, kinds[parts[-1]])
        device = "cuda" if "cuda" in parts[1:-1] else "cpu"
        return _to(self, device, target, non_blocking=non_blocking)
    return _to(self, dtype, non_blocking=non_blocking)


Tensor.type = _type
