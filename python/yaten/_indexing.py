"""Tensor.__getitem__ and __setitem__, torch's rules, built on the view ops and a few indexing kernels.

Basic indices (ints, slices with positive steps, None, Ellipsis, zero-dim bools) give views. Advanced indices
(integer or bool tensors, lists) are broadcast together and read with _index_front (a copy) or written with
_index_put_front_; bool masks become their nonzero() coordinates. As in torch, advanced indices next to each other put their
dimensions in place, otherwise first.
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
            converted.append(_ZeroDimMask(item))
            continue
        tensor = _as_index_tensor(item)
        if tensor is not None and tensor.dtype == _C.bool and tensor.dim() == 0:
            converted.append(_ZeroDimMask(bool(tensor.item())))
            continue
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


class _ZeroDimMask:
    """A zero-dim bool index (a bool tensor or a Python bool): a new dimension of size 1 (True) or 0 (False),
    as torch and NumPy have it. A view, so that assignment through it writes (or, for False, writes nothing)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _clamp64(value: int) -> int:
    return min(max(value, _INT64_MIN), _INT64_MAX)


def _apply_basic(t: Tensor, items: list[Any], flipped: list[int] | None = None
                 ) -> tuple[Tensor, list[tuple[int, Tensor]]]:
    """Applies the basic items as views; returns the view and (dim in it, tensor) for each advanced item. With a
    `flipped` list (arrays of yaten.array_api, whose standard allows negative steps), a slice with a negative step
    is applied as the positive-step slice of the same elements and its dim is appended to `flipped`: the caller
    reverses those dims (reading) or the values written (assigning)."""
    result, dim, advanced = t, 0, []
    source_dim = 0  # in t, which the messages name as torch's do
    for item in items:
        if item is not None and not isinstance(item, _ZeroDimMask):
            source_dim += 1
        if item is None:
            result = result.unsqueeze(dim)
            dim += 1
        elif isinstance(item, _ZeroDimMask):
            result = result.unsqueeze(dim)
            if not item.value:
                result = result.narrow(dim, 0, 0)
            dim += 1
        elif isinstance(item, int):
            size = result.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {source_dim - 1} with size {size}")
            result = result.select(dim, item)
        elif isinstance(item, slice):
            # Bounds past int64 clamp as NumPy's and torch's do; they are past every size anyway.
            step = 1 if item.step is None else _clamp64(operator.index(item.step))
            if step < 0 and flipped is not None and step != 0:
                chosen = range(result.shape[dim])[item]  # Python's own reading of the slice
                if len(chosen) == 0:
                    result = result.narrow(dim, 0, 0)
                else:
                    result = _C.slice(result, dim, chosen[-1], chosen[0] + 1, -step)
                    flipped.append(dim)
                dim += 1
                continue
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = None if item.start is None else _clamp64(operator.index(item.start))
            stop = None if item.stop is None else _clamp64(operator.index(item.stop))
            result = _C.slice(result, dim, start, stop, step)
            dim += 1
        else:
            advanced.append((dim, item))
            spanned = max(item.dim(), 1) if item.dtype == _C.bool else 1
            dim += spanned
            source_dim += spanned - 1
    return result, advanced


def _mask_indices(target: Tensor, dim: int, mask: Tensor, array_api: bool = False) -> Tensor:
    """The [n, k] coordinates of the True elements of a k-dim mask indexing target's dims dim .. dim+k-1."""
    _check_mask_shape(target, dim, mask, array_api)
    return mask.nonzero()


def _check_mask_shape(target: Tensor, dim: int, mask: Tensor, array_api: bool = False) -> None:
    """A k-dim mask indexing target's dims dim .. dim+k-1 has their shape. An array of yaten.array_api also takes an
    empty mask whose empty dims stand for any size (NumPy's and the standard's tests' reading); torch requires the
    shapes to match."""
    k = mask.dim()
    shape = tuple(target.shape[dim:dim + k])
    lenient = array_api and len(shape) == k and all(m in (s, 0) for m, s in zip(mask.shape, shape))
    if tuple(mask.shape) != shape and not lenient:
        raise IndexError(f"The shape of the mask {list(mask.shape)} at index {dim} does not match the shape of the "
                         f"indexed tensor {list(shape)} at index {dim}")


def _broadcast_shape(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        sizes = {s[i - (ndim - len(s))] for s in shapes if i - (ndim - len(s)) >= 0} - {1}
        if len(sizes) > 1:
            raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                             f"{[list(s) for s in shapes]}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _advanced_plan(target: Tensor, advanced: list[tuple[int, Tensor]], array_api: bool = False
                   ) -> tuple[list[Tensor], list[int], tuple]:
    """int64 index tensors of one broadcast shape B, the dims of `target` they index, and B."""
    indices, dims = [], []
    for dim, index in advanced:
        if index.dtype == _C.bool:
            coords = _mask_indices(target, dim, index, array_api)
            for k in range(index.dim()):
                indices.append(coords.select(1, k))
                dims.append(dim + k)
        else:
            if index.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            indices.append(index)
            dims.append(dim)
    shape = _broadcast_shape([tuple(i.shape) for i in indices])
    return [i.expand(list(shape)) for i in indices], dims, shape


def _placement(dims: list[int], n_index_dims: int, n_rest: int) -> list[int] | None:
    """torch's rule: index dims that are next to each other replace them in place; otherwise they go first. The
    permutation from the front layout (B + rest) to the result's, or None when the front layout is the result."""
    adjacent = all(b == a + 1 for a, b in zip(dims, dims[1:]))
    if not adjacent or dims[0] == 0:
        return None
    before = dims[0]
    return (list(range(n_index_dims, n_index_dims + before)) + list(range(n_index_dims))
            + list(range(n_index_dims + before, n_index_dims + n_rest)))


def getitem(self: Tensor, index: Any) -> Tensor:
    # an array of yaten.array_api takes negative steps and indexes into one (Note [Two conventions, one tensor type])
    array_api = _C._is_array_api(self)
    result = _getitem(self, index, array_api)
    return _C._mark_array_api(result) if array_api else result


def _getitem(self: Tensor, index: Any, array_api: bool) -> Tensor:
    items, _ = _parse(self, index)
    flipped: list[int] | None = [] if array_api else None
    result, advanced = _apply_basic(self, items, flipped)
    if flipped:
        result = result.flip(flipped)  # a copy: yaten's strides are never negative
    if not advanced:
        return result
    indices, dims, shape = _advanced_plan(result, advanced, array_api)
    front = _C._index_front(result, indices, dims)
    order = _placement(dims, len(shape), result.dim() - len(dims))
    return front if order is None else front.permute(order)


def setitem(self: Tensor, index: Any, value: Any) -> None:
    if not isinstance(value, Tensor) and not _C._is_number(value):
        raise TypeError(f"can't assign a {type(value).__name__} to a yaten.Tensor")
    if isinstance(value, Tensor) and value.requires_grad and not self.requires_grad:
        _C._track_views(self)  # self gets the history of what is written into it (torch's CopySlices)
    items, _ = _parse(self, index)
    flipped: list[int] | None = [] if _C._is_array_api(self) else None
    target, advanced = _apply_basic(self, items, flipped)
    if flipped:
        if advanced:
            raise NotImplementedError("assignment through negative steps and array indices at once")
        if isinstance(value, Tensor):
            value = value.expand(list(target.shape)).flip(flipped)
    if not advanced:
        if isinstance(value, Tensor):
            target.copy_(value)
        else:
            target.fill_(value)
        return
    if len(advanced) == 1 and advanced[0][1].dtype == _C.bool and not isinstance(value, Tensor):
        dim, mask = advanced[0]  # a mask and a number: one masked_fill_ through the view
        _check_mask_shape(target, dim, mask, flipped is not None)
        if mask.numel() == 0:
            return
        trailing = target.dim() - dim - mask.dim()
        target.masked_fill_(mask.reshape(list(mask.shape) + [1] * trailing), value)
        return
    indices, dims, shape = _advanced_plan(target, advanced, flipped is not None)
    rest = [target.shape[d] for d in range(target.dim()) if d not in dims]
    order = _placement(dims, len(shape), len(rest))
    result_shape = list(shape) + rest if order is None else [(list(shape) + rest)[i] for i in order]
    if isinstance(value, Tensor):
        values = value.expand(result_shape)
    else:
        values = _C.full(result_shape, value, dtype=target.dtype, device=str(target.device))
    if order is not None:  # back to the front layout the kernel reads
        values = values.permute([order.index(i) for i in range(len(order))])
    _C._index_put_front_(target, indices, dims, values.contiguous())
