"""yaten.array_api.linalg: the standard's linear algebra extension, on yaten.linalg (LAPACK on the CPU)."""

from __future__ import annotations

import builtins
from typing import Any, NamedTuple

from .. import _C
from .. import linalg as _linalg
from . import _core
from ._core import Tensor, check_array, marked, operands
from . import matmul, matrix_transpose, tensordot, vecdot  # noqa: F401  (the extension repeats these four)


def _floating(x: Tensor, name: str) -> Tensor:
    check_array(x, name)
    if x.dtype not in _core.FLOATING:
        raise TypeError(f"linalg.{name}: expected a floating array, got {x.dtype}")
    return x


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


@marked
def cholesky(x: Tensor, /, *, upper: builtins.bool = False) -> Tensor:
    return _linalg.cholesky(_floating(x, "cholesky"), upper=upper)


@marked
def cross(x1: Tensor, x2: Tensor, /, *, axis: builtins.int = -1) -> Tensor:
    a, b = operands("linalg.cross", check_array(x1, "cross"), check_array(x2, "cross"))
    if not -builtins.min(a.ndim, b.ndim) <= axis < builtins.min(a.ndim, b.ndim):
        raise IndexError(f"linalg.cross: axis {axis} is out of bounds")
    if axis >= 0:  # counted from the end, so that broadcasting (which prepends dims) keeps it
        axis -= builtins.min(a.ndim, b.ndim)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("linalg.cross: the arrays must have size 3 along axis")
    a, b = _C.broadcast_tensors([a, b])
    return _linalg.cross(a, b, dim=axis)


@marked
def det(x: Tensor, /) -> Tensor:
    return _linalg.det(_floating(x, "det"))


@marked
def diagonal(x: Tensor, /, *, offset: builtins.int = 0) -> Tensor:
    return _linalg.diagonal(check_array(x, "diagonal"), offset=offset)


def eigh(x: Tensor, /) -> EighResult:
    return EighResult(*_core.out(tuple(_linalg.eigh(_floating(x, "eigh")))))


def eig(x: Tensor, /) -> EigResult:
    return EigResult(*_core.out(tuple(_linalg.eig(_floating(x, "eig")))))


@marked
def eigvals(x: Tensor, /) -> Tensor:
    return _linalg.eigvals(_floating(x, "eigvals"))


@marked
def eigvalsh(x: Tensor, /) -> Tensor:
    return _linalg.eigvalsh(_floating(x, "eigvalsh"))


@marked
def inv(x: Tensor, /) -> Tensor:
    return _linalg.inv(_floating(x, "inv"))


@marked
def matrix_norm(x: Tensor, /, *, keepdims: builtins.bool = False, ord: Any = "fro") -> Tensor:  # noqa: A002
    return _linalg.matrix_norm(_floating(x, "matrix_norm"), ord, [-2, -1], keepdims)


@marked
def matrix_power(x: Tensor, n: builtins.int, /) -> Tensor:
    check_array(x, "matrix_power")
    if n < 0:
        _floating(x, "matrix_power")
    return _linalg.matrix_power(x, n)


@marked
def matrix_rank(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    _floating(x, "matrix_rank")
    if isinstance(rtol, Tensor):
        return _linalg.matrix_rank(x, rtol=rtol.to(_C.float64))
    return _linalg.matrix_rank(x, rtol=rtol)


@marked
def outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = operands("linalg.outer", check_array(x1, "outer"), check_array(x2, "outer"))
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("linalg.outer: both arrays must be one-dimensional")
    return _C.outer(a, b)


@marked
def pinv(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    _floating(x, "pinv")
    if isinstance(rtol, Tensor):
        return _linalg.pinv(x, rtol=rtol.to(_C.float64))
    return _linalg.pinv(x, rtol=rtol)


def qr(x: Tensor, /, *, mode: str = "reduced") -> QRResult:
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return QRResult(*_core.out(tuple(_linalg.qr(_floating(x, "qr"), mode))))


def slogdet(x: Tensor, /) -> SlogdetResult:
    return SlogdetResult(*_core.out(tuple(_linalg.slogdet(_floating(x, "slogdet")))))


@marked
def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = operands("linalg.solve", _floating(x1, "solve"), _floating(x2, "solve"))
    if b.ndim == 1:  # a vector right-hand side, even beside a batch of matrices (the standard's rule)
        return _linalg.solve(a, b.expand(list(a.shape[:-1])).unsqueeze(-1)).squeeze(-1)
    return _linalg.solve(a, b)


def svd(x: Tensor, /, *, full_matrices: builtins.bool = True) -> SVDResult:
    return SVDResult(*_core.out(tuple(_linalg.svd(_floating(x, "svd"), full_matrices))))


@marked
def svdvals(x: Tensor, /) -> Tensor:
    return _linalg.svdvals(_floating(x, "svdvals"))


@marked
def trace(x: Tensor, /, *, offset: builtins.int = 0, dtype: Any = None) -> Tensor:
    check_array(x, "trace")
    if x.ndim < 2:
        raise ValueError("linalg.trace: the array must have at least two dimensions")
    diagonal_ = _linalg.diagonal(x, offset=offset)
    from . import sum as _sum

    return _sum(diagonal_, axis=-1, dtype=dtype)


@marked
def vector_norm(x: Tensor, /, *, axis: Any = None, keepdims: builtins.bool = False,
                ord: Any = 2) -> Tensor:  # noqa: A002
    _floating(x, "vector_norm")
    dims = _core.axes_arg(axis, x.ndim, "linalg.vector_norm") if axis is not None else None
    if dims == []:
        return _C.abs(x)
    result = _linalg.vector_norm(x, ord, dims, keepdims)
    return result.to(_C.real(x[...]).dtype if x.dtype in _core.COMPLEX else x.dtype)
