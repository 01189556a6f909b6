"""yaten.library: define operators and register kernels from Python, like torch.library.

    yaten.library.define("mylib::scale(Tensor x, float s) -> Tensor")

    @yaten.library.impl("mylib::scale", "CPU")
    def scale(x, s):
        return x * s

    yaten.ops.mylib.scale(t, 2.0)

The schema uses the ops.yaml grammar. `impl` on a built-in op (e.g. "yaten::add.Tensor", "CPU") overrides that
kernel until `.remove()`; registering for the "Python" key wraps every call of the op, and the ops the kernel
calls run the kernels below it.
"""

from __future__ import annotations

import difflib
import sys
from typing import Any, Callable

from . import _C

KEYS = ("CPU", "CUDA", "Autograd", "Autocast", "Python")


def _caller_site(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _qualified(name: str) -> str:
    return name if "::" in name else f"yaten::{name}"


def _check_known(name: str, where: str) -> str:
    qualified = _qualified(name)
    names = _C._operator_names()
    if qualified not in names:
        close = difflib.get_close_matches(qualified, names, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else "; define it first with yaten.library.define"
        raise ValueError(f"{where}: no operator named '{qualified}'{hint}")
    return qualified


def define(schema: str) -> None:
    """Defines the operator `namespace::name[.overload](args) -> returns`."""
    ns, sep, rest = schema.partition("::")
    if not sep or not ns.isidentifier():
        raise ValueError(f"define: expected 'namespace::name(arguments) -> returns', got {schema!r}")
    if ns == "yaten":
        raise ValueError("define: the yaten namespace belongs to ops.yaml; define ops in a namespace of your own")
    from .codegen.parse import _SchemaSyntaxError, parse_schema  # the ops.yaml grammar (imports PyYAML: lazily)

    try:
        parsed = parse_schema(rest)
    except _SchemaSyntaxError as e:
        raise ValueError(f"define: {e} (column {e.offset + len(ns) + 3} of {schema!r})") from None
    _C._library_define(f"{ns}::{parsed.full_name}", str(parsed), _caller_site())


class impl:  # noqa: N801  (torch's name)
    """Registers a Python function as the kernel of an op for one dispatch key.

    Use it as a decorator. `.remove()` (or the end of a `with` block) takes the registration back and the kernel
    it replaced, if any, runs again.
    """

    def __init__(self, name: str, key: str) -> None:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f" (expected one of {', '.join(KEYS)})"
            raise ValueError(f"impl: unknown dispatch key '{key}'{hint}")
        self.name = _check_known(name, "impl")
        self.key = key
        self.token: int | None = None
        self.fn: Callable[..., Any] | None = None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        if self.token is not None:
            raise RuntimeError(f"impl: this registration for {self.name} ({self.key}) is already in use")
        self.token = _C._library_impl(self.name, self.key, fn, _caller_site())
        self.fn = fn
        return fn

    def remove(self) -> None:
        if self.token is None:
            raise RuntimeError(f"impl: nothing registered for {self.name} ({self.key}) to remove")
        _C._library_remove(self.name, self.key, self.token)
        self.token = None

    def __enter__(self) -> impl:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            self.remove()


class exclude_key:  # noqa: N801
    """Within the block, calls on this thread skip the kernels of `key` (e.g. "Python")."""

    def __init__(self, key: str) -> None:
        self.bit = _C._dispatch_key_bit(key)

    def __enter__(self) -> None:
        self.saved = _C._excluded_keys()
        _C._set_excluded_keys(self.saved | self.bit)

    def __exit__(self, *exc: object) -> None:
        _C._set_excluded_keys(self.saved)
