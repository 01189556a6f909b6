"""The operators of yaten.array_api's arrays (Note [Two conventions, one tensor type], csrc/python/tensor_type.cpp):
the C++ operator slots of yaten.Tensor call `operator(name, a, b)` when an operand is marked as an array of the
namespace, so `x + y` is `add(x, y)` with the standard's promotion and special cases, and `x += y` writes the
standard's result into x."""

from __future__ import annotations

from typing import Any, Callable

_UNARY = ("abs", "negative", "positive", "bitwise_invert")
_BINARY = ("add", "subtract", "multiply", "divide", "remainder", "floor_divide", "pow", "matmul", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "less", "less_equal", "equal",
           "not_equal", "greater", "greater_equal")
_INPLACE = {
    "iadd": "add", "isubtract": "subtract", "imultiply": "multiply", "idivide": "divide",
    "iremainder": "remainder", "ifloor_divide": "floor_divide", "ipow": "pow", "imatmul": "matmul",
    "ibitwise_and": "bitwise_and", "ibitwise_or": "bitwise_or", "ibitwise_xor": "bitwise_xor",
    "ibitwise_left_shift": "bitwise_left_shift", "ibitwise_right_shift": "bitwise_right_shift",
}
_functions: dict[str, Callable[..., Any]] = {}


def _load() -> None:
    from .. import array_api as xp

    for name in _UNARY + _BINARY:
        _functions[name] = getattr(xp, name)
    for name, function in _INPLACE.items():
        _functions[name] = _in_place(name[1:], getattr(xp, function))


def _in_place(symbol: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """x1 op= x2: the standard's result, which must keep x1's dtype and shape, written into x1."""

    def apply(a: Any, b: Any) -> Any:
        result = function(a, b)
        if result.dtype != a.dtype:
            raise TypeError(f"{symbol}: the result's dtype {result.dtype} differs from the array's {a.dtype}; an "
                            "in-place operator cannot change it")
        if tuple(result.shape) != tuple(a.shape):
            raise ValueError(f"{symbol}: the result's shape {tuple(result.shape)} differs from the array's "
                             f"{tuple(a.shape)}")
        a.copy_(result)
        return a

    return apply


def operator(name: str, a: Any, b: Any) -> Any:
    if not _functions:
        _load()
    function = _functions[name]
    return function(a) if name in _UNARY else function(a, b)
