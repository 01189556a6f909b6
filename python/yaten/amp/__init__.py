"""yaten.amp: GradScaler (dynamic loss scaling, as torch.amp.GradScaler) and the autocast names torch scripts use.

Autocast itself (ops run in lower precision inside a region, decided per op) is not in yaten yet: `autocast(...,
enabled=False)` is the plain context a script passes when mixed precision is off, and an enabled autocast raises
NotImplementedError rather than silently running everything in float32.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .grad_scaler import GradScaler, OptState  # noqa: F401


class autocast(contextlib.ContextDecorator):
    """torch.autocast's signature. Only enabled=False works in this yaten (see the module's doc)."""

    def __init__(self, device_type: str = "cuda", dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if enabled:
            raise NotImplementedError(f"autocast(device_type={device_type!r}, enabled=True): yaten has no autocast "
                                      "yet (the mixed-precision issue's dispatch key); run in one dtype (model.to("
                                      "dtype)) or pass enabled=False")
        self.device_type = device_type
        self.fast_dtype = dtype
        self._enabled = False

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *args: Any) -> None:
        return None


def is_autocast_available(device_type: str) -> bool:
    return False
