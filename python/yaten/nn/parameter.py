"""nn.Parameter and nn.Buffer: tensors that a Module registers when they are assigned as its attributes."""

from __future__ import annotations

from typing import Any

from .. import _C

Tensor = _C.Tensor


class Parameter(Tensor):
    """A tensor that is a module's parameter: assigning one to a Module attribute registers it, so it shows in
    parameters() and state_dict(). It shares `data`'s memory and is a leaf requiring grad unless told otherwise.
    Ops on it return plain tensors, as in torch."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter: expected a Tensor as data, got {type(data).__name__}")
        return _C._make_subclass(cls, data, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """torch.nn.Buffer: a tensor that, assigned to a Module attribute, registers as a buffer (persistent= says
    whether state_dict() holds it). Ops on it return plain tensors."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> "Buffer":
        if data is None:
            data = _C.empty(0)
        made = _C._make_subclass(cls, data, data.requires_grad)
        made.persistent = persistent
        return made


class UninitializedParameter(Parameter):
    """A placeholder for lazy modules, which yaten does not have: constructing one is an error."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "UninitializedParameter":
        raise NotImplementedError("UninitializedParameter: yaten has no lazy modules (LazyLinear, ...); give the "
                                  "sizes when constructing the module")
