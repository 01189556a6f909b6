"""safetensors in and out: yaten.safetensors.save_file / load_file / save / load, the format of the `safetensors`
package (and of most published model weights).

The format: an 8-byte little-endian header length N, N bytes of JSON ({name: {"dtype", "shape", "data_offsets"}},
"__metadata__": {str: str}), padded with spaces to a multiple of 8, then the tensors' bytes, little-endian and
row-major, each at its offsets. Reading checks the header against the file before touching a byte of data, so a
truncated or corrupt file is a clear error.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Any

from . import _C

Tensor = _C.Tensor

_CODES = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "float16": "F16", "bfloat16": "BF16",
          "int32": "I32", "float32": "F32", "float64": "F64", "int64": "I64", "complex64": "C64",
          "uint16": "U16", "uint32": "U32", "uint64": "U64"}
_DTYPES = {v: k for k, v in _CODES.items()}
_NUMPY_BITS = {"bfloat16": "int16", "complex64": "complex64"}


def _dtype_name(dtype: Any) -> str:
    return repr(dtype).split(".", 1)[1]


def _tensor_bytes(tensor: Tensor, name: str) -> bytes:
    dtype = _dtype_name(tensor.dtype)
    if dtype not in _CODES:
        raise TypeError(f"safetensors: tensor {name!r} has dtype {tensor.dtype}, which the safetensors format has "
                        f"no code for")
    host = tensor.detach()
    host = (host.cpu() if host.is_cuda else host).contiguous()
    if dtype == "bfloat16":
        host = host.view(_C.int16)
    data = host.numpy()
    if sys.byteorder != "little":
        data = data.byteswap()
    return data.tobytes()


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of a dict of tensors (each written contiguous, in its own bytes)."""
    if not isinstance(tensors, dict):
        raise TypeError(f"safetensors.save: expected a dict of tensors, got {type(tensors).__name__}")
    header: dict[str, Any] = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("safetensors.save: metadata must map str to str")
        header["__metadata__"] = dict(metadata)
    # the safetensors package's order: larger elements first (keeps each tensor aligned), then by name
    order = sorted(tensors.items(), key=lambda kv: (-kv[1].element_size(), kv[0]))
    chunks = []
    offset = 0
    for name, tensor in order:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"safetensors.save: {name!r} is a {type(tensor).__name__}, not a Tensor")
        raw = _tensor_bytes(tensor, name)
        header[name] = {"dtype": _CODES[_dtype_name(tensor.dtype)], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save_file(tensors: dict[str, Tensor], filename: str | os.PathLike, metadata: dict[str, str] | None = None
              ) -> None:
    data = save(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(data)


def _parse(data: bytes | bytearray | memoryview) -> tuple[dict, int]:
    if len(data) < 8:
        raise ValueError(f"safetensors: the data is {len(data)} bytes, too short for a header (truncated?)")
    (n,) = struct.unpack("<Q", bytes(data[:8]))
    if n > len(data) - 8:
        raise ValueError(f"safetensors: the header claims {n} bytes but only {len(data) - 8} follow "
                         "(a truncated or corrupt file)")
    try:
        header = json.loads(bytes(data[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"safetensors: the header is not valid JSON ({exc})") from None
    if not isinstance(header, dict):
        raise ValueError("safetensors: the header is not a JSON object")
    return header, 8 + n


def _tensors_from(data: bytes | bytearray | memoryview, device: Any = "cpu") -> dict[str, Tensor]:
    import numpy as np

    from . import from_numpy

    header, start = _parse(data)
    body = len(data) - start
    out: dict[str, Tensor] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            code, shape, (begin, end) = info["dtype"], [int(s) for s in info["shape"]], info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"safetensors: the header entry of {name!r} is malformed: {info!r}") from None
        if code not in _DTYPES:
            raise ValueError(f"safetensors: tensor {name!r} has dtype {code}, which yaten does not have")
        dtype = _DTYPES[code]
        bits = _NUMPY_BITS.get(dtype, dtype)
        itemsize = np.dtype(bits).itemsize
        numel = 1
        for s in shape:
            if s < 0:
                raise ValueError(f"safetensors: tensor {name!r} has a negative size in {shape}")
            numel *= s
        if not (0 <= begin <= end <= body) or end - begin != numel * itemsize:
            raise ValueError(f"safetensors: tensor {name!r} of shape {shape} and dtype {code} needs "
                             f"{numel * itemsize} bytes but its offsets are [{begin}, {end}] in a body of {body} "
                             "bytes (a truncated or corrupt file)")
        array = np.frombuffer(bytearray(data[start + begin:start + end]), dtype=np.dtype(bits).newbyteorder("<"))
        t = from_numpy(array.astype(array.dtype.newbyteorder("="), copy=False).reshape(shape))
        if dtype == "bfloat16":
            t = t.view(_C.bfloat16)
        if str(device) != "cpu":
            t = t.to(device)
        out[name] = t
    return out


def load(data: bytes) -> dict[str, Tensor]:
    """The tensors in safetensors bytes."""
    return _tensors_from(data)


def load_file(filename: str | os.PathLike, device: Any = "cpu") -> dict[str, Tensor]:
    with open(filename, "rb") as f:
        data = f.read()
    return _tensors_from(data, device)


def load_metadata(filename: str | os.PathLike) -> dict[str, str] | None:
    """The file's __metadata__ (or None)."""
    with open(filename, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError("safetensors: file too short for a header")
        (n,) = struct.unpack("<Q", head)
        header, _ = _parse(head + f.read(n))
    return header.get("__metadata__")
