"""yaten.array_api.fft: the standard's FFT extension, on yaten.fft (pocketfft-style kernels on the CPU, cuFFT on
CUDA)."""

from __future__ import annotations

import builtins
from typing import Any, Sequence

from .. import _C
from .. import fft as _fft
from . import _core
from ._core import Tensor, check_array, device_arg, marked, named

_NORMS = ("backward", "ortho", "forward")


def _norm(norm: str, name: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}: norm must be one of {_NORMS}, got {norm!r}")
    return norm


def _one(name: str, fn: Any, kinds: tuple[Any, ...]) -> Any:
    def function(x: Tensor, /, *, n: builtins.int | None = None, axis: builtins.int = -1,
                 norm: str = "backward") -> Tensor:
        check_array(x, "fft." + name)
        if x.dtype not in kinds:
            raise TypeError(f"fft.{name}: not defined for {x.dtype}")
        if n is not None and n < 1:
            raise ValueError(f"fft.{name}: n must be positive, got {n}")
        return _C._mark_array_api(fn(x, n, axis, _norm(norm, name)))

    return named(function, name, __name__)


def _many(name: str, fn: Any, kinds: tuple[Any, ...]) -> Any:
    def function(x: Tensor, /, *, s: Sequence[builtins.int] | None = None,
                 axes: Sequence[builtins.int] | None = None, norm: str = "backward") -> Tensor:
        check_array(x, "fft." + name)
        if x.dtype not in kinds:
            raise TypeError(f"fft.{name}: not defined for {x.dtype}")
        s_list = None if s is None else [x.shape[a] if v == -1 else v for v, a in zip(
            s, axes if axes is not None else range(x.ndim - len(s), x.ndim))]
        return _C._mark_array_api(fn(x, s_list, None if axes is None else list(axes), _norm(norm, name)))

    return named(function, name, __name__)


fft = _one("fft", _fft.fft, _core.COMPLEX)
ifft = _one("ifft", _fft.ifft, _core.COMPLEX)
rfft = _one("rfft", _fft.rfft, _core.REAL_FLOATING)
irfft = _one("irfft", _fft.irfft, _core.COMPLEX)
hfft = _one("hfft", _fft.hfft, _core.COMPLEX)
ihfft = _one("ihfft", _fft.ihfft, _core.REAL_FLOATING)
fftn = _many("fftn", _fft.fftn, _core.COMPLEX)
ifftn = _many("ifftn", _fft.ifftn, _core.COMPLEX)
rfftn = _many("rfftn", _fft.rfftn, _core.REAL_FLOATING)
irfftn = _many("irfftn", _fft.irfftn, _core.COMPLEX)


@marked
def fftfreq(n: builtins.int, /, *, d: builtins.float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    if dtype is not None and dtype not in _core.REAL_FLOATING:
        raise TypeError(f"fft.fftfreq: dtype must be real floating, got {dtype}")
    return _fft.fftfreq(n, d, dtype=dtype, device=device_arg(device))


@marked
def rfftfreq(n: builtins.int, /, *, d: builtins.float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    if dtype is not None and dtype not in _core.REAL_FLOATING:
        raise TypeError(f"fft.rfftfreq: dtype must be real floating, got {dtype}")
    return _fft.rfftfreq(n, d, dtype=dtype, device=device_arg(device))


@marked
def fftshift(x: Tensor, /, *, axes: Any = None) -> Tensor:
    check_array(x, "fft.fftshift")
    return _fft.fftshift(x, None if axes is None else ([axes] if isinstance(axes, builtins.int) else list(axes)))


@marked
def ifftshift(x: Tensor, /, *, axes: Any = None) -> Tensor:
    check_array(x, "fft.ifftshift")
    return _fft.ifftshift(x, None if axes is None else ([axes] if isinstance(axes, builtins.int) else list(axes)))


__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]
