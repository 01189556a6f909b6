"""yaten.amp: mixed precision as torch.amp has it: `autocast` regions and the `GradScaler`.

Inside `with yaten.autocast("cpu")` (bfloat16) or `yaten.autocast("cuda")` (float16, or dtype=yaten.bfloat16), the
ops whose ops.yaml entry declares an `autocast:` policy cast their floating arguments first: matmuls and
convolutions to the region's dtype, precision-sensitive ops (losses, softmax, exp, norms on CUDA) to float32, and
ops of several inputs (cat, stack, addcmul) to the widest of them; every other op runs in the dtypes it is given.
The casting happens in the ops' Autocast kernels, a dispatch key above Autograd (Note [Autocast],
csrc/dispatch/autocast.h), so backward runs in the dtypes the forward ran in.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from .. import _C
from .grad_scaler import GradScaler, OptState  # noqa: F401

_DEVICE_TYPES = ("cpu", "cuda")


class autocast:
    """torch.autocast: a context manager (or decorator) in which ops run in mixed precision on `device_type`.

    dtype defaults to the device type's autocast dtype (bfloat16 on the CPU, float16 on CUDA); enabled=False
    turns autocast off inside an enclosing region; cache_enabled keeps each parameter's cast for the whole outermost
    region (on by default)."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEVICE_TYPES:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = _C.get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = _C.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        self._enabled = bool(enabled)
        if self.fast_dtype not in (_C.bfloat16, _C.float16):
            if self._enabled:
                warnings.warn(f"In {device_type.upper()} autocast, but the target dtype is not supported. Disabling "
                              "autocast.\n" f"{device_type.upper()} Autocast only supports dtype of torch.bfloat16, "
                              "torch.float16 currently.", stacklevel=2)
            self._enabled = False

    def __enter__(self) -> "autocast":
        self.prev_cache_enabled = _C.is_autocast_cache_enabled()
        self.prev = _C.is_autocast_enabled(self.device)
        self.prev_fastdtype = _C.get_autocast_dtype(self.device)
        _C.set_autocast_enabled(self.device, self._enabled)
        if self.fast_dtype in (_C.bfloat16, _C.float16):
            _C.set_autocast_dtype(self.device, self.fast_dtype)
        _C.autocast_increment_nesting()
        _C.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc: Any) -> None:
        if _C.autocast_decrement_nesting() == 0:
            _C.clear_autocast_cache()
        _C.set_autocast_enabled(self.device, self.prev)
        _C.set_autocast_dtype(self.device, self.prev_fastdtype)
        _C.set_autocast_cache_enabled(self.prev_cache_enabled)

    def __call__(self, func: Any) -> Any:
        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self.__class__(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)

        return decorated


class _DeviceAutocast(autocast):
    """The older spellings torch.cuda.amp.autocast(...) and torch.cpu.amp.autocast(...): the device type fixed."""

    _device_type = "cuda"

    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> None:
        default = _C.float16 if self._device_type == "cuda" else _C.bfloat16
        super().__init__(self._device_type, dtype=default if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class cuda_autocast(_DeviceAutocast):
    _device_type = "cuda"


class cpu_autocast(_DeviceAutocast):
    _device_type = "cpu"


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast works on the device type: the CPU always, CUDA where a GPU is usable."""
    if device_type == "cpu":
        return True
    from .. import cuda

    return device_type == "cuda" and cuda.is_available()
