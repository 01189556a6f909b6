"""repr(tensor), following torch's printing rules.

Floats print in one of three modes chosen over all shown values, like torch: integral values as `1.`, fixed with
4 decimals, or scientific with 4 decimals when magnitudes span more than 1e3 or pass 1e8 or fall under 1e-4.
Tensors of more than 1000 elements show 3 items at each edge of each dimension. The dtype is named when it is not
the one the values would be given by default (the default float dtype, int64 or bool).
"""

from __future__ import annotations

import math
from typing import Any

from . import _C

THRESHOLD = 1000
EDGE_ITEMS = 3
PRECISION = 4
LINE_WIDTH = 80
SCI_MODE: bool | None = None  # set_printoptions(sci_mode=): None lets the values decide


def _summarize(values: Any, shape: tuple[int, ...], dim: int) -> Any:
    """Keeps EDGE_ITEMS at each end of every dimension; None marks the elided middle."""
    if dim == len(shape):
        return values
    if shape[dim] > 2 * EDGE_ITEMS:
        kept = values[:EDGE_ITEMS] + [None] + values[-EDGE_ITEMS:]
    else:
        kept = values
    return [v if v is None else _summarize(v, shape, dim + 1) for v in kept]


def _flatten(values: Any, out: list) -> list:
    if isinstance(values, list):
        for v in values:
            _flatten(v, out)
    elif values is not None:
        out.append(values)
    return out


class _Formatter:
    """torch's rules: the mode and the column width come from the nonzero finite values only."""

    def __init__(self, values: list, floating: bool):
        self.floating = floating
        self.sci = False
        self.int_mode = True
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        finite = [v for v in values if math.isfinite(v) and v != 0]
        if not finite:
            return
        magnitudes = [abs(v) for v in finite]
        lo, hi = min(magnitudes), max(magnitudes)
        self.int_mode = all(float(v).is_integer() for v in finite)
        self.sci = hi / lo > 1000.0 or hi > 1e8 or lo < 1e-4 if SCI_MODE is None else SCI_MODE
        if self.int_mode and not self.sci:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.width = max(len(self.plain(v)) for v in finite)

    def plain(self, v: Any) -> str:
        if not self.floating:
            return str(v)
        if self.sci:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            text = f"{v:.0f}"
            return text if math.isinf(v) or math.isnan(v) else text + "."
        return f"{v:.{PRECISION}f}"

    def format(self, v: Any) -> str:
        return self.plain(v).rjust(self.width)


class _ComplexFormatter:
    """torch's rules for complex values: the real parts and the imaginary parts each get a _Formatter of their own,
    and a value prints as `real+imagj` (`1.+2.j`, `0.5000-1.2500j`)."""

    def __init__(self, values: list):
        self.real = _Formatter([v.real for v in values], True)
        self.imag = _Formatter([v.imag for v in values], True)
        self.width = self.real.width + self.imag.width + 2

    def format(self, v: Any) -> str:
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return self.real.format(v.real) + (imag if imag[0] in "+-" else "+" + imag)


def _format_nested(values: Any, fmt: _Formatter | _ComplexFormatter, ndim: int, dim: int, indent: int) -> str:
    if ndim == 0:
        return fmt.format(values)
    if dim == ndim - 1:
        items = [" ..." if v is None else fmt.format(v) for v in values]
        per_line = max(1, (LINE_WIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    separator = "," + "\n" * (ndim - dim - 1) + " " * (indent + 1)
    parts = ["..." if v is None else _format_nested(v, fmt, ndim, dim + 1, indent + 1) for v in values]
    return "[" + separator.join(parts) + "]"


def tensor_repr(t: Any) -> str:
    prefix = "tensor("
    dtype = t.dtype
    shape = tuple(t.shape)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    values = t.tolist()
    if t.numel() == 0:
        body = "[]"
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
    else:
        if t.numel() > THRESHOLD and len(shape) > 0:
            values = _summarize(values, shape, 0)
        fmt: _Formatter | _ComplexFormatter
        if dtype.is_complex:
            fmt = _ComplexFormatter(_flatten(values, []))
        else:
            fmt = _Formatter(_flatten(values, []), dtype.is_floating_point)
        body = _format_nested(values, fmt, len(shape), 0, len(prefix))
    # An empty tensor has no values to tell its dtype by, so only the default float dtype goes unnamed.
    default_complex = _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64
    default_for_values = ((_C.get_default_dtype(),) if t.numel() == 0 else
                          (_C.get_default_dtype(), _C.int64, _C.bool, default_complex))
    if dtype not in default_for_values:
        suffixes.append(f"dtype={dtype!r}")
    grad_fn = t.grad_fn  # autograd's part, as torch writes it
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + ", ".join([body] + suffixes) + ")"
