"""Tensor.__getitem__ and __setitem__, torch's rules, built on the view ops and a few indexing kernels.

Basic indices (ints, slices with positive steps, None, Ellipsis) give views; one advanced index (an integer or
bool tensor, or a list) gives a copy for reads and writes through index_copy_/masked_fill_ for writes. Several
advanced indices in one subscript are not supported yet (NotImplementedError says so).
"""

from __future__ import annotations

import operator
from typing import Any

from . import _C

Tensor = _C.Tensor


def _as_index_tensor(item: Any) -> Tensor | None:
    if isinstance(item, Tensor):
        return item
    if isinstance(item, (list, tuple)):
        return _C.tensor(item) if item else _C.tensor([], dtype=_C.int64)
    if type(item).__module__ == "numpy" and hasattr(item, "ndim") and item.ndim > 0:
        return _C.tensor(item.tolist())
    return None


def _parse(t: Tensor, index: Any) -> tuple[list[Any], int]:
    """The subscript as a list of items with Ellipsis expanded to full slices; and the count of advanced ones."""
    items = list(index) if isinstance(index, tuple) else [index]
    converted, consumed, ellipses, advanced = [], 0, 0, 0
    for item in items:
        if item is None or item is Ellipsis:
            ellipses += item is Ellipsis
            converted.append(item)
            continue
        if isinstance(item, bool):
            raise NotImplementedError("indexing with a Python bool is not supported yet")
        tensor = _as_index_tensor(item)
        if tensor is not None:
            advanced += 1
            consumed += max(tensor.dim(), 1) if tensor.dtype == _C.bool else 1
            converted.append(tensor)
            continue
        if not isinstance(item, slice):
            try:
                item = operator.index(item)
            except TypeError:
                raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte tensors are "
                                 f"valid indices (got {type(item).__name__})") from None
        consumed += 1
        converted.append(item)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    out = []
    for item in converted:
        if item is Ellipsis:
            out.extend([slice(None)] * (t.dim() - consumed))
        else:
            out.append(item)
    return out, advanced


def _apply_basic(t: Tensor, items: list[Any]) -> tuple[Tensor, tuple[int, Tensor] | None]:
    """Applies the basic items as views; returns the view and (dim in it, tensor) of the advanced item, if any."""
    result, dim, advanced = t, 0, None
    for item in items:
        if item is None:
            result = result.unsqueeze(dim)
            dim += 1
        elif isinstance(item, int):
            result = result.select(dim, item)
        elif isinstance(item, slice):
            step = 1 if item.step is None else operator.index(item.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = None if item.start is None else operator.index(item.start)
            stop = None if item.stop is None else operator.index(item.stop)
            result = _C.slice(result, dim, start, stop, step)
            dim += 1
        else:
            advanced = (dim, item)
            dim += max(item.dim(), 1) if item.dtype == _C.bool else 1
    return result, advanced


def _mask_indices(target: Tensor, dim: int, mask: Tensor) -> Tensor:
    k = mask.dim()
    shape = tuple(target.shape[dim:dim + k])
    if tuple(mask.shape) != shape:
        raise IndexError(f"The shape of the mask {list(mask.shape)} at index {dim} does not match the shape of the "
                         f"indexed tensor {list(shape)} at index {dim}")
    return mask.reshape(-1).nonzero().reshape(-1)


def getitem(self: Tensor, index: Any) -> Tensor:
    items, advanced_count = _parse(self, index)
    if advanced_count > 1:
        raise NotImplementedError("indexing with more than one tensor index is not supported yet")
    result, advanced = _apply_basic(self, items)
    if advanced is None:
        return result
    dim, index_tensor = advanced
    if index_tensor.dtype == _C.bool:
        if index_tensor.dim() == 0:
            raise NotImplementedError("indexing with a 0-d bool tensor is not supported yet")
        indices = _mask_indices(result, dim, index_tensor)
        flat = result.flatten(dim, dim + index_tensor.dim() - 1)
        return flat.index_select(dim, indices)
    if index_tensor.dim() == 0:
        return result.index_select(dim, index_tensor.reshape(1)).squeeze(dim)
    picked = result.index_select(dim, index_tensor.reshape(-1))
    return picked.unflatten(dim, list(index_tensor.shape)) if index_tensor.dim() > 1 else picked


def setitem(self: Tensor, index: Any, value: Any) -> None:
    if not isinstance(value, Tensor) and not _C._is_number(value):
        raise TypeError(f"can't assign a {type(value).__name__} to a yaten.Tensor")
    items, advanced_count = _parse(self, index)
    if advanced_count > 1:
        raise NotImplementedError("assigning with more than one tensor index is not supported yet")
    target, advanced = _apply_basic(self, items)
    if advanced is None:
        if isinstance(value, Tensor):
            target.copy_(value)
        else:
            target.fill_(value)
        return
    dim, index_tensor = advanced
    if index_tensor.dtype == _C.bool:
        k = index_tensor.dim()
        if not isinstance(value, Tensor):
            _mask_indices(target, dim, index_tensor)  # checks the shape
            trailing = target.dim() - dim - k
            target.masked_fill_(index_tensor.reshape(list(index_tensor.shape) + [1] * trailing), value)
            return
        if k != 1:
            raise NotImplementedError("assigning a tensor through a multi-dimensional bool mask is not supported yet")
        index_tensor = _mask_indices(target, dim, index_tensor)
    elif index_tensor.dim() > 1:
        raise NotImplementedError("assigning through a multi-dimensional index tensor is not supported yet")
    indices = index_tensor.reshape(-1)
    shape = list(target.shape)
    shape[dim] = indices.numel()
    if isinstance(value, Tensor):
        source = value.expand(shape).contiguous()
    else:
        source = _C.full(shape, value, dtype=target.dtype, device=str(target.device))
    target.index_copy_(dim, indices, source)
