"""yaten.func: torch.func's vmap, by running the function once per batch element and stacking the results."""

from __future__ import annotations

import functools
from typing import Any, Callable

from . import _C

Tensor = _C.Tensor

__all__ = ["vmap"]


def _flatten(tree: Any) -> tuple[list[Any], Any]:
    """The leaves of nested tuples, lists and dicts, and how to rebuild them."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = _flatten(item)
            leaves += sub
            specs.append((len(sub), spec))
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, spec = _flatten([tree[k] for k in keys])
        return leaves, (dict, keys, spec)
    return [tree], None


def _unflatten(leaves: list[Any], spec: Any) -> Any:
    if spec is None:
        return leaves[0]
    if spec[0] is dict:
        _, keys, inner = spec
        return dict(zip(keys, _unflatten(leaves, inner)))
    kind, specs = spec
    out, start = [], 0
    for count, sub in specs:
        out.append(_unflatten(leaves[start:start + count], sub))
        start += count
    return tuple(out) if kind is tuple else kind(out) if kind is not list else out


def _broadcast_dims(dims: Any, tree: Any, what: str) -> list[Any]:
    """in_dims (an int or None for all, or a structure matching the arguments) as one entry per leaf."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(_flatten(tree)[0])
    if isinstance(tree, (tuple, list)) and isinstance(dims, (tuple, list)):
        if len(dims) != len(tree):
            raise ValueError(f"vmap: {what} is not compatible with the structure of the inputs: expected "
                             f"{len(tree)} entries, got {len(dims)}")
        out: list[Any] = []
        for d, t in zip(dims, tree):
            out += _broadcast_dims(d, t, what)
        return out
    if isinstance(tree, dict) and isinstance(dims, dict):
        return _broadcast_dims([dims.get(k) for k in tree], [tree[k] for k in tree], what)
    raise ValueError(f"vmap: {what} must be an int, None, or a structure matching the inputs, got {dims!r}")


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """func mapped over a dimension of its inputs (in_dims: per argument an int, None for an argument that is not
    mapped, or a nested structure), the results stacked along out_dims. It runs func once per batch element and
    stacks, so any func works (data-dependent control flow, .item(), nested vmap) at the cost of one call per
    element. randomness: 'error' raises if func draws from the default generator, 'different' lets each element
    draw its own numbers, 'same' gives every element the same numbers."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def mapped(*args: Any, **kwargs: Any) -> Any:
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if isinstance(in_dims, (tuple, list)) and len(in_dims) != len(args):
            raise ValueError(f"vmap(func, in_dims={in_dims!r})(<inputs>): in_dims is not compatible with the "
                             f"structure of `inputs`: {len(in_dims)} entries for {len(args)} arguments")
        leaves, spec = _flatten(list(args))
        leaf_dims = _broadcast_dims(list(dims), list(args), "in_dims")
        sizes = set()
        for leaf, d in zip(leaves, leaf_dims):
            if d is None:
                continue
            if not isinstance(leaf, Tensor):
                raise ValueError(f"vmap: got in_dim={d} for an input, but the input is of type {type(leaf).__name__}."
                                 " We cannot vmap over non-Tensor arguments, please use None as the respective "
                                 "in_dim")
            if not -leaf.dim() <= d < max(leaf.dim(), 1) or leaf.dim() == 0:
                raise ValueError(f"vmap: got in_dim={d} for some input, but that input is a Tensor of "
                                 f"dimensionality {leaf.dim()} so expected in_dim to satisfy "
                                 f"-{leaf.dim()} <= in_dim < {leaf.dim()}.")
            sizes.add(leaf.shape[d])
        if not sizes:
            raise ValueError("vmap: at least one input must be a Tensor mapped over (in_dims not all None)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)} for the mapped dimension")
        batch = sizes.pop()
        if batch == 0:
            raise ValueError("vmap: the mapped dimension has size 0, so there is no result to stack")
        generator = _C.default_generator
        start_state = generator.get_state()
        results = []
        for i in range(batch):
            if randomness == "same":
                generator.set_state(start_state)
            sliced = [leaf.select(d, i) if d is not None else leaf for leaf, d in zip(leaves, leaf_dims)]
            results.append(func(*_unflatten(sliced, spec), **kwargs))
            if randomness == "error" and i == 0:
                if not _C.equal(generator.get_state(), start_state):
                    raise RuntimeError("vmap: called random operation while in randomness error mode. Please either "
                                       "use the 'same' or 'different' randomness flags on vmap or perform the "
                                       "randomness operation out of vmap")
        out_leaves_per = [_flatten(r)[0] for r in results]
        out_spec = _flatten(results[0])[1]
        count = len(out_leaves_per[0])
        out_dim_list = _broadcast_dims(out_dims, results[0], "out_dims")
        stacked = []
        for k in range(count):
            column = [leaves_i[k] for leaves_i in out_leaves_per]
            if not all(isinstance(c, Tensor) for c in column):
                raise ValueError(f"vmap: `{getattr(func, '__name__', 'func')}` must only return Tensors, got type "
                                 f"{type(column[0]).__name__}")
            d = out_dim_list[k]
            if d is None:
                stacked.append(column[0])
            else:
                rank = column[0].dim() + 1
                if not -rank <= d < rank:
                    raise ValueError(f"vmap: out_dims={d} is out of range for outputs of {column[0].dim()} dims")
                stacked.append(_C.stack(column, d % rank))
        return _unflatten(stacked, out_spec)

    return mapped
