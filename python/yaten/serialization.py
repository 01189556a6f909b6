"""yaten.save / yaten.load in torch's checkpoint format, so that torch.load reads what yaten wrote and the other way.

The format (torch/serialization.py, "zipfile" since torch 1.6): a zip archive whose records sit under one folder,
  <name>/data.pkl       the object, pickled (protocol 2); each tensor is a call of
                        torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks), and
                        each storage a persistent id ('storage', torch.<Type>Storage, key, location, numel)
  <name>/data/<key>     the storage's bytes, little-endian, aligned to 64 bytes in the file
  <name>/byteorder, <name>/version, <name>/.format_version, <name>/.storage_alignment
Tensors that share memory (views) share one storage record, so they share memory again when loaded.

Loading unpickles with an allow-list by default (weights_only=True, as torch 2.6+): tensors, parameters, plain
containers, numbers, strings, torch.Size, devices and dtypes. A pickle that names any other global (a class, or
os.system) is refused before anything it names is looked up, so a malicious file cannot run code.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import sys
import zipfile
from typing import Any, Callable

from . import _C
from ._device import device as _device_class

Tensor = _C.Tensor

# yaten dtype name -> torch's legacy storage class name (what torch pickles as the storage's type)
_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage", "bfloat16": "BFloat16Storage",
    "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage",
    "uint8": "ByteStorage", "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
_DTYPE_OF_STORAGE = {v: k for k, v in _STORAGE_NAMES.items()}
# torch has no typed storage class for these: it pickles their tensors as _rebuild_tensor_v3 over an UntypedStorage
# (bytes), with the dtype as an argument
_UNTYPED_DTYPES = {"uint16", "uint32", "uint64"}
# the NumPy dtype that holds each yaten dtype's bytes (bfloat16 travels as its 16 bits)
_NUMPY_BITS = {"bfloat16": "int16"}
_ALIGNMENT = 64


def _dtype_name(dtype: Any) -> str:
    return repr(dtype).split(".", 1)[1]


class _Global:
    """A global that the pickle names (module.name) without importing it: the writer needs torch's names whether or
    not torch is installed."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:  # pickle's save_reduce asks that the function be callable
        raise RuntimeError(f"{self.module}.{self.name} is only a name for the pickle writer")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_UNTYPED_STORAGE = _Global("torch.storage", "UntypedStorage")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = _Global("collections", "OrderedDict")


class _Call:
    """An object that pickles as func(*args) with func a _Global."""

    __slots__ = ("func", "args")

    def __init__(self, func: _Global, args: tuple) -> None:
        self.func = func
        self.args = args


class _Writer(pickle._Pickler):  # type: ignore[name-defined,misc]
    """The pure-Python pickler, taught to write torch's globals by name and tensors as torch writes them."""

    def __init__(self, file: Any, storages: dict) -> None:
        super().__init__(file, protocol=2)
        self.storages = storages  # storage key -> (tensor over the whole storage, dtype name)
        self.storage_keys: dict[tuple, str] = {}
        self.tensor_calls: dict[int, tuple] = {}

    def save_global(self, obj: Any, name: Any = None) -> None:
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + obj.module.encode("utf-8") + b"\n" + obj.name.encode("utf-8") + b"\n")
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, _StorageRef):
            if obj.dtype in _UNTYPED_DTYPES:  # counted in bytes, as torch counts an UntypedStorage
                return ("storage", _UNTYPED_STORAGE, obj.key, obj.location, obj.numel * getattr(_C, obj.dtype).itemsize)
            return ("storage", _Global("torch", _STORAGE_NAMES[obj.dtype]), obj.key, obj.location, obj.numel)
        return None

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        memoized = self.memo.get(id(obj))
        if memoized is not None and not isinstance(obj, Tensor):
            self.write(self.get(memoized[0]))
            return
        if isinstance(obj, Tensor):  # one _Call per tensor object, so the same tensor twice loads as one object
            seen = self.tensor_calls.get(id(obj))
            if seen is None:
                seen = self.tensor_calls[id(obj)] = (obj, self._tensor_call(obj))
            obj = seen[1]
        if isinstance(obj, _Call):
            self.save_reduce(obj.func, obj.args, obj=obj)
            return
        elif isinstance(obj, _Global):
            self.save_global(obj)
            return
        elif type(obj) is collections.OrderedDict:
            self._save_ordered_dict(obj)
            return
        elif isinstance(obj, _C.dtype):
            self.save_global(_Global("torch", _dtype_name(obj)))
            return
        elif isinstance(obj, _device_class):
            self.save_reduce(_Global("torch", "device"), (str(obj),), obj=obj)
            return
        super().save(obj, save_persistent_id)

    def _save_ordered_dict(self, obj: collections.OrderedDict) -> None:
        # OrderedDict() then its items, as pickle writes it; by name so the reader's allow-list sees it
        self.save_reduce(_ORDERED_DICT, (), obj=obj, dictitems=iter(obj.items()))

    def _tensor_call(self, tensor: Tensor) -> _Call:
        from .nn.parameter import Parameter

        data_ptr, nbytes, device, _, _ = _C._storage_info(tensor)
        dtype = _dtype_name(tensor.dtype)
        if dtype not in _STORAGE_NAMES and dtype not in _UNTYPED_DTYPES:
            raise TypeError(f"save: tensors of dtype {tensor.dtype} cannot be written in torch's format")
        itemsize = tensor.element_size()
        location = str(device) if str(device) != "cuda" else "cuda:0"
        identity = (data_ptr, location)
        key = self.storage_keys.get(identity)
        if key is None:
            key = str(len(self.storages))
            self.storage_keys[identity] = key
            whole = tensor.detach().as_strided([nbytes // itemsize], [1], 0)
            self.storages[key] = (whole, dtype)
        elif self.storages[key][1] != dtype:
            raise RuntimeError(f"save: two tensors view one storage as {self.storages[key][1]} and {dtype}; torch's "
                               "format gives a storage one dtype (save a copy of one of them)")
        ref = _StorageRef(dtype, key, location, nbytes // itemsize)
        args = (ref, tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()),
                tensor.requires_grad and not isinstance(tensor, Parameter), _Call(_ORDERED_DICT, ()))
        if dtype in _UNTYPED_DTYPES:
            rebuilt = _Call(_REBUILD_TENSOR_V3, args + (tensor.dtype,))
        else:
            rebuilt = _Call(_REBUILD_TENSOR, args)
        if isinstance(tensor, Parameter):
            return _Call(_REBUILD_PARAMETER, (rebuilt, tensor.requires_grad, _Call(_ORDERED_DICT, ())))
        return rebuilt


class _StorageRef:
    __slots__ = ("dtype", "key", "location", "numel")

    def __init__(self, dtype: str, key: str, location: str, numel: int) -> None:
        self.dtype = dtype
        self.key = key
        self.location = location
        self.numel = numel


def _storage_bytes(whole: Tensor, dtype: str) -> bytes:
    host = whole.cpu() if whole.is_cuda else whole
    if dtype in _NUMPY_BITS:
        host = host.view(getattr(_C, _NUMPY_BITS[dtype]))
    data = host.numpy()
    if sys.byteorder != "little":
        data = data.byteswap()
    return data.tobytes()


def _write_aligned(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    """A stored (uncompressed) record whose data starts at a multiple of 64 bytes in the file, as torch writes
    them (its reader can then map them): the local header's extra field pads it."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    offset = archive.fp.tell()  # type: ignore[union-attr]
    header = 30 + len(name.encode("utf-8"))
    pad = (-(offset + header + 4)) % _ALIGNMENT
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # "FB": torch's padding field id
    archive.writestr(info, data)


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Writes obj (tensors, state dicts of modules and optimizers, nested dicts, lists and tuples of tensors,
    numbers and strings) to f, a path or a binary file, in torch's zip checkpoint format."""
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("save: only the standard pickle module is supported")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("save: yaten writes only torch's zip format (_use_new_zipfile_serialization=True)")
    storages: dict[str, tuple[Tensor, str]] = {}
    buffer = io.BytesIO()
    _Writer(buffer, storages).dump(obj)
    if isinstance(f, (str, os.PathLike)):
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with open(f, "wb") as out:
            _write_archive(out, name, buffer.getvalue(), storages)
    else:
        _write_archive(f, "archive", buffer.getvalue(), storages)


def _write_archive(out: Any, name: str, pickled: bytes, storages: dict) -> None:
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in name) or "archive"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        _write_aligned(archive, f"{name}/data.pkl", pickled)
        _write_aligned(archive, f"{name}/.format_version", b"1")
        _write_aligned(archive, f"{name}/.storage_alignment", str(_ALIGNMENT).encode())
        _write_aligned(archive, f"{name}/byteorder", b"little")
        for key, (whole, dtype) in storages.items():
            _write_aligned(archive, f"{name}/data/{key}", _storage_bytes(whole, dtype))
        _write_aligned(archive, f"{name}/version", b"3\n")


# ---------------------------------------------------------------------------------------------------- load

_TORCH_DTYPES = {"float32", "float", "float64", "double", "float16", "half", "bfloat16", "int64", "long", "int32",
                 "int", "int16", "short", "int8", "uint8", "bool", "complex64", "cfloat", "complex128", "cdouble",
                 "uint16", "uint32", "uint64"}
_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
                  "short": "int16", "cfloat": "complex64", "cdouble": "complex128"}
_SAFE_BUILTINS = {"set", "frozenset", "complex", "slice", "range", "bytearray", "tuple", "list", "dict", "int",
                  "float", "bool", "str", "bytes"}


class UnpicklingError(pickle.UnpicklingError):
    pass


def _rebuild_tensor_v2(storage: Tensor, storage_offset: int, size: Any, stride: Any, requires_grad: bool = False,
                       backward_hooks: Any = None, metadata: Any = None) -> Tensor:
    t = storage.as_strided(list(size), list(stride), storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage: Tensor, storage_offset: int, size: Any, stride: Any, requires_grad: bool,
                       backward_hooks: Any, dtype: Any, metadata: Any = None) -> Tensor:
    """torch's rebuild over an UntypedStorage (`storage`: its bytes, as uint8) for a dtype that has no typed storage
    class; offset and strides count elements of `dtype`."""
    itemsize = dtype.itemsize
    if storage.numel() % itemsize:
        raise RuntimeError(f"load: a storage of {storage.numel()} bytes cannot hold elements of {dtype}")
    return _rebuild_tensor_v2(storage.view(dtype), storage_offset, size, stride, requires_grad)


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any = None) -> Any:
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any) -> Any:
    param = _rebuild_parameter(data, requires_grad)
    if state:
        for k, v in state.items():
            setattr(param, k, v)
    return param


def _torch_global(module: str, name: str) -> Any:
    """The yaten object standing for a torch global that checkpoints name, or None."""
    if module == "torch._utils":
        return {"_rebuild_tensor_v2": _rebuild_tensor_v2, "_rebuild_tensor_v3": _rebuild_tensor_v3,
                "_rebuild_parameter": _rebuild_parameter,
                "_rebuild_parameter_with_state": _rebuild_parameter_with_state}.get(name)
    if module == "torch":
        if name in _DTYPE_OF_STORAGE:
            return _StorageType(_DTYPE_OF_STORAGE[name])
        if name in _TORCH_DTYPES:
            return getattr(_C, _DTYPE_ALIASES.get(name, name))
        if name == "Size":
            from ._size import Size

            return Size
        if name == "device":
            return _device_class
    if module == "torch.storage" and name == "UntypedStorage":
        return _StorageType("uint8")
    if module == "torch.nn.parameter" and name == "Parameter":
        from .nn.parameter import Parameter

        return Parameter
    return None


class _StorageType:
    __slots__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype


class _Reader(pickle.Unpickler):
    def __init__(self, file: Any, load_storage: Callable, weights_only: bool) -> None:
        super().__init__(file, encoding="utf-8")
        self.load_storage = load_storage
        self.weights_only = weights_only

    def find_class(self, module: str, name: str) -> Any:
        found = _torch_global(module, name)
        if found is not None:
            return found
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        if module == "builtins" and name in _SAFE_BUILTINS:
            return getattr(__import__("builtins"), name)
        if module == "yaten._size" and name == "Size":
            from ._size import Size

            return Size
        if module == "yaten.nn.parameter" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if self.weights_only:
            raise UnpicklingError(
                f"Weights only load failed: the file asks for the global {module}.{name}, which is not a tensor, "
                "a parameter or a plain container, so it was refused without being looked up. Load with "
                "weights_only=False only if you trust where the file came from.")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise UnpicklingError(f"load: unknown persistent id {pid!r} (expected a torch storage)")
        _, storage_type, key, location, numel = pid[:5]
        dtype = storage_type.dtype if isinstance(storage_type, _StorageType) else None
        if dtype is None:
            raise UnpicklingError(f"load: storage {key} has an unknown type {storage_type!r}")
        return self.load_storage(dtype, str(key), str(location), int(numel))


def _resolve_location(location: str, map_location: Any) -> Any:
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif callable(map_location):
        return map_location  # applied to the storage by the caller
    else:
        target = str(map_location)
    return target


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = True,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Reads what yaten.save or torch.save wrote (torch's zip format). map_location moves the tensors (a device, a
    string, a dict from saved location to location, or a function (storage, location) -> storage).
    weights_only=True (the default) admits only tensors, parameters, plain containers and numbers."""
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("load: only the standard pickle module is supported")
    if weights_only is None:
        weights_only = True
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as opened:
            return _load_archive(opened, map_location, weights_only)
    return _load_archive(f, map_location, weights_only)


def _load_archive(f: Any, map_location: Any, weights_only: bool) -> Any:
    import numpy as np

    try:
        archive = zipfile.ZipFile(f)
    except zipfile.BadZipFile as exc:
        raise RuntimeError("load: the file is not a torch/yaten checkpoint (not a zip archive: it is truncated, "
                           "corrupt, or in torch's legacy pre-1.6 format, which yaten does not read; re-save it "
                           f"with torch.save in a current torch) ({exc})") from None
    with archive:
        names = archive.namelist()
        pickles = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
        if not pickles:
            raise RuntimeError("load: the archive holds no data.pkl record: not a torch/yaten checkpoint")
        prefix = pickles[0][: -len("data.pkl")]
        cache: dict[str, Tensor] = {}

        def load_storage(dtype: str, key: str, location: str, numel: int) -> Tensor:
            if key in cache:
                return cache[key]
            record = f"{prefix}data/{key}"
            try:
                raw = archive.read(record)
            except KeyError:
                raise RuntimeError(f"load: the checkpoint is missing the record {record}") from None
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise RuntimeError(f"load: the record {record} is corrupt ({exc})") from None
            itemsize = _C.empty(0, dtype=getattr(_C, dtype)).element_size()
            if len(raw) != numel * itemsize:
                raise RuntimeError(f"load: storage {key} holds {len(raw)} bytes where {numel} elements of {dtype} "
                                   f"need {numel * itemsize}: the file is truncated or corrupt")
            bits = _NUMPY_BITS.get(dtype, dtype)
            array = np.frombuffer(bytearray(raw), dtype=np.dtype(bits).newbyteorder("<"))
            from . import from_numpy

            storage = from_numpy(array.astype(array.dtype.newbyteorder("="), copy=False))
            if bits != dtype:
                storage = storage.view(getattr(_C, dtype))
            if callable(map_location) and not isinstance(map_location, (str, dict, _device_class)):
                storage = map_location(storage, location)
            else:
                target = _resolve_location(location, map_location)
                target_device = _device_class(target) if not isinstance(target, _device_class) else target
                if target_device.type == "cuda":
                    from . import cuda

                    if not cuda.is_available():
                        raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                                           "yaten.cuda.is_available() is False. If you are running on a CPU-only "
                                           "machine, please use yaten.load with map_location='cpu' to map your "
                                           "storages to the CPU.")
                if target_device.type != "cpu":
                    storage = storage.to(target_device)
            cache[key] = storage
            return storage

        try:
            data = archive.read(pickles[0])
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise RuntimeError(f"load: the record {pickles[0]} is corrupt ({exc})") from None
        try:
            return _Reader(io.BytesIO(data), load_storage, weights_only).load()
        except UnpicklingError:
            raise
        except (pickle.UnpicklingError, EOFError, ValueError, struct.error, IndexError) as exc:
            raise RuntimeError(f"load: the pickle in {pickles[0]} is corrupt or truncated ({exc})") from None


def _tensor_reduce(t: Tensor) -> Any:
    """Plain pickle.dumps of a yaten tensor (outside save): its values, dtype and requires_grad, copied."""
    return (_rebuild_from_bytes, (_storage_bytes(t.detach().contiguous(), _dtype_name(t.dtype)),
                                  _dtype_name(t.dtype), tuple(t.shape), t.requires_grad, str(t.device)))


def _rebuild_from_bytes(raw: bytes, dtype: str, shape: tuple, requires_grad: bool, device: str) -> Tensor:
    import numpy as np

    from . import from_numpy

    bits = _NUMPY_BITS.get(dtype, dtype)
    t = from_numpy(np.frombuffer(bytearray(raw), dtype=bits).reshape(shape))
    if bits != dtype:
        t = t.view(getattr(_C, dtype))
    if device != "cpu":
        t = t.to(device)
    return t.requires_grad_(requires_grad) if requires_grad else t
