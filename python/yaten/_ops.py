"""yaten.ops: every operator by name, `yaten.ops.NS.NAME.OVERLOAD(...)` or `yaten.ops.NS.NAME(...)`.

Calls go through the dispatcher's boxed path, so they reach kernels written in C++ (generated or registered with
YATEN_LIBRARY_IMPL) and in Python (yaten.library.impl) alike. Arguments are bound in Python against the op's schema,
parsed with the ops.yaml grammar.
"""

from __future__ import annotations

import ast
from functools import cached_property
from typing import Any

from . import _C
from .codegen.model import Argument, Schema


def _type_text(a: Argument) -> str:
    t = a.type
    text = t.base + ("" if t.list_size is None else f"[{t.list_size or ''}]")
    return text + ("?" if t.optional else "")


def _default(a: Argument) -> Any:
    text = a.default
    if text is None or text == "None":
        return None
    if a.type.base == "int" and a.type.list_size is not None and not text.startswith("["):
        return [int(text)] * max(a.type.list_size or 1, 1)
    return ast.literal_eval(text)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number_tensor(value: Any, integral: bool) -> bool:
    """Note [Numbers given as tensors] (arg_parser.h): a 0-dim tensor, not requiring grad, stands for a number."""
    return (isinstance(value, _C.Tensor) and value.dim() == 0 and not value.requires_grad
            and (not integral or not (value.dtype.is_floating_point or value.dtype == _C.bool)))


def _matches(a: Argument, value: Any, tensors: bool = False) -> bool:
    """A cheap check used to pick an overload; the C++ side checks each argument exactly. With `tensors`, a 0-dim
    tensor stands for a number (tried only after every overload failed without)."""
    if value is None:
        return a.type.optional
    base, is_list = a.type.base, a.type.list_size is not None
    if tensors and base in ("int", "float", "Scalar"):
        if is_list and isinstance(value, (list, tuple)):
            if all(_is_int(v) or _is_number_tensor(v, True) for v in value):
                return True
        elif _is_number_tensor(value, base == "int"):
            return True
    if base == "Tensor":
        if is_list:
            return isinstance(value, (list, tuple)) and all(isinstance(v, _C.Tensor) for v in value)
        return isinstance(value, _C.Tensor)
    if base == "int":  # bool is an int subclass that the generated bindings refuse for int, as torch does
        if is_list and isinstance(value, (list, tuple)):
            return all(_is_int(v) for v in value)
        return _is_int(value)
    if base in ("float", "Scalar"):
        if is_list:  # Scalar[]: a list or tuple of numbers
            return isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, complex)) for v in value)
        return isinstance(value, (int, float)) and not isinstance(value, _C.Tensor)
    if base == "bool":
        if is_list:  # bool[N]: exactly N bools
            return (isinstance(value, (list, tuple)) and len(value) == a.type.list_size
                    and all(isinstance(v, bool) for v in value))
        return isinstance(value, bool)
    if base == "str":
        return isinstance(value, str)
    if base == "ScalarType":
        return isinstance(value, _C.dtype)
    return True


_MISSING = object()


class _Binder:
    """An overload's parameters, prepared once: names, schema types and defaults (parsed from the schema text)."""

    def __init__(self, schema: Schema, name: str) -> None:
        self.name = name
        self.arguments = schema.arguments
        self.positional = [a.name for a in schema.arguments if not a.keyword_only]
        self.types = [_type_text(a) for a in schema.arguments]
        self.defaults = [_default(a) if a.default is not None else _MISSING for a in schema.arguments]
        self.known = {a.name for a in schema.arguments}

    def bind(self, args: tuple, kwargs: dict, tensors: bool = False) -> list[tuple[str, str, Any]]:
        name = self.name
        if len(args) > len(self.positional):
            raise TypeError(f"{name}(): takes {len(self.positional)} positional arguments but {len(args)} were given")
        values: dict[str, Any] = dict(zip(self.positional, args))
        for key, value in kwargs.items():
            key = "self" if key == "input" else key
            if key not in self.known:
                raise TypeError(f"{name}(): got an unexpected keyword argument '{key}'")
            if key in values:
                raise TypeError(f"{name}(): got multiple values for argument '{key}'")
            values[key] = value
        bound = []
        for a, type_text, default in zip(self.arguments, self.types, self.defaults):
            value = values.get(a.name, default)
            if value is None and default is not _MISSING and a.type.base == "int" and a.type.list_size is not None:
                value = default  # None for an int list with a default is the default (arg_parser.cpp)
            if value is _MISSING:
                raise TypeError(f"{name}(): missing required argument '{a.name}'")
            if not _matches(a, value, tensors):
                raise TypeError(f"{name}(): argument '{a.name}' must be {type_text}, not {type(value).__name__}")
            bound.append((type_text, a.name, value))
        return bound


def _check_result(schema: Schema, name: str, result: Any) -> Any:
    """The kernel's result against the schema's returns (kernels registered from Python can return anything)."""
    values = result if len(schema.returns) > 1 else (result,)
    if len(schema.returns) > 1 and (not isinstance(result, tuple) or len(result) != len(schema.returns)):
        raise TypeError(f"{name}: the kernel returned {type(result).__name__}, expected a tuple of "
                        f"{len(schema.returns)}")
    for r, value in zip(schema.returns, values):
        # None is the undefined tensor, as the backward ops return for what their output_mask did not ask for
        if r.type.base == "Tensor" and r.type.list_size is None and not isinstance(value, (_C.Tensor, type(None))):
            raise TypeError(f"{name}: the kernel returned {type(value).__name__}, expected a Tensor")
    return result


class OpOverload:
    """One overload: yaten.ops.yaten.add.Tensor."""

    def __init__(self, qualified: str) -> None:
        self.name = qualified

    @cached_property
    def schema(self) -> Schema:
        from .codegen.parse import parse_schema  # imports PyYAML: only when an op is first called by name

        return parse_schema(_C._dispatch_schema(self.name))

    @cached_property
    def binder(self) -> _Binder:
        return _Binder(self.schema, self.name)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:  # `/`: an argument may be named self
        try:
            bound = self.binder.bind(args, kwargs)
        except TypeError as strict:
            try:  # Note [Numbers given as tensors]
                bound = self.binder.bind(args, kwargs, tensors=True)
            except TypeError:
                raise strict from None
        result = _check_result(self.schema, self.name, _C._call_boxed(self.name, bound))
        return self._mutated_arguments(bound, result)

    def _mutated_arguments(self, bound: list, result: Any) -> Any:
        """A return the schema marks as a mutated argument (`Tensor(a!)`: in-place and out= forms) is that argument's
        Python object, as torch returns it, so `add.out(a, b, out=o) is o`."""
        returns = self.schema.returns
        if not any(r.type.is_mutable for r in returns):
            return result
        values = list(result) if len(returns) > 1 else [result]
        by_alias = {a.type.alias: value for a, (_, _, value) in zip(self.binder.arguments, bound)
                    if a.type.is_mutable and isinstance(value, _C.Tensor)}
        values = [by_alias.get(r.type.alias, v) if r.type.is_mutable else v for r, v in zip(returns, values)]
        return tuple(values) if len(returns) > 1 else values[0]

    def __repr__(self) -> str:
        return f"<OpOverload {self.name}>"


class OpPacket:
    """All overloads of one name: yaten.ops.yaten.add (calls pick the first overload whose arguments fit)."""

    def __init__(self, qualified: str, overloads: list[str]) -> None:
        self.name = qualified
        self._overloads = {o.split(".", 1)[1] if "." in o.split("::", 1)[1] else "default": OpOverload(o)
                           for o in overloads}

    def overloads(self) -> list[str]:
        return list(self._overloads)

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__") or overload == "_overloads":
            raise AttributeError(overload)
        if overload not in self._overloads:  # an overload defined after this packet was made
            qualified = f"{self.name}.{overload}"
            if qualified in _C._operator_names():
                self._overloads[overload] = OpOverload(qualified)
            else:
                raise AttributeError(f"{self.name} has no overload '{overload}' (has {', '.join(self._overloads)})")
        return self._overloads[overload]

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:  # `/`: an argument may be named self
        reasons = []
        for tensors in (False, True):  # Note [Numbers given as tensors]: as the generated bindings try them
            for overload in self._overloads.values():
                try:
                    bound = overload.binder.bind(args, kwargs, tensors)
                except TypeError as e:
                    if not tensors:
                        reasons.append(f"  {overload.schema}: {e}")
                    continue
                return _check_result(overload.schema, overload.name, _C._call_boxed(overload.name, bound))
        raise TypeError(f"{self.name}(): arguments did not match any overload:\n" + "\n".join(reasons))

    def __repr__(self) -> str:
        return f"<OpPacket {self.name}>"


class OpNamespace:
    """yaten.ops.NS. Packets are cached as attributes on first use, so later lookups cost an attribute read."""

    def __init__(self, ns: str) -> None:
        self._ns = ns

    def __getattr__(self, name: str) -> OpPacket:
        if name.startswith("__"):
            raise AttributeError(name)
        prefix = f"{self._ns}::{name}"
        overloads = [n for n in _C._operator_names() if n == prefix or n.startswith(prefix + ".")]
        if not overloads:
            raise AttributeError(f"yaten.ops.{self._ns} has no operator '{name}'")
        packet = OpPacket(prefix, overloads)
        setattr(self, name, packet)
        return packet


class Ops:
    """yaten.ops: `yaten.ops.list()` names every operator; `yaten.ops.NS` is a namespace of them."""

    def __getattr__(self, ns: str) -> OpNamespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        namespace = OpNamespace(ns)
        setattr(self, ns, namespace)
        return namespace

    def list(self) -> list[str]:
        return sorted(_C._operator_names())
