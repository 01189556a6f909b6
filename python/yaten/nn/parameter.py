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


class _Uninitialized:
    """Note [Lazy modules]: a placeholder that a lazy module (LazyLinear, LazyConv2d, ...) holds until its first
    forward call shows the input's size; materialize(shape) then gives it memory of that shape and makes it an
    ordinary Parameter (or buffer). Its shape is unknown until then, and asking for it is an error, as in torch."""

    cls_to_become: Any = None

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Gives the placeholder uninitialized memory of `shape` (on its device, in its dtype, unless given)."""
        made = _C.empty([int(n) for n in shape], device=device or Tensor.device.__get__(self),
                        dtype=dtype or Tensor.dtype.__get__(self))
        _C._set_data(self, made)
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __deepcopy__(self, memo: dict) -> Any:
        if id(self) in memo:
            return memo[id(self)]
        made = type(self)(self.requires_grad, Tensor.device.__get__(self), Tensor.dtype.__get__(self))
        memo[id(self)] = made
        return made


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter of a lazy module whose shape is not known yet (Note [Lazy modules])."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        return _C._make_subclass(cls, _C.empty([0], device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer of a lazy module whose shape is not known yet (Note [Lazy modules]); materialized, it is a Buffer,
    which the module's first forward call replaces with a plain tensor."""

    cls_to_become = Buffer

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> "UninitializedBuffer":
        return _C._make_subclass(cls, _C.empty([0], device=device, dtype=dtype), requires_grad)
