"""yaten.backends.cudnn: how convolutions on CUDA use cuDNN, with torch.backends.cudnn's names and defaults.

- `enabled` (True): a convolution on CUDA goes to cuDNN (opened at run time from the nvidia-cudnn-cu13 wheel, as
  cuBLAS is) where cuDNN takes it; otherwise, and where no libcudnn opens, yaten's own im2col kernels and cuBLAS
  compute it. `is_available()` says whether a libcudnn opens.
- `allow_tf32` (True, as torch's; float32 *matmul* defaults to False, also as torch): float32 convolutions may round
  their inputs to TF32 on tensor cores: ~1e-3 relative error, and torch's cuDNN conv2d of a ResNet layer (N=32,
  C=64, 56x56, 3x3) took 85 us with it on an H200 against 260 us without. Set it to False for float32 accuracy
  (what the CUDA tests compare against the CPU with).
- `deterministic` (False): only algorithms that give the same bits on every run.
- `benchmark` (False): a shape's first convolution times every cuDNN algorithm on its tensors and keeps the fastest
  for that shape; otherwise cuDNN's own ranking chooses.

`flags(enabled=..., allow_tf32=..., deterministic=..., benchmark=...)` sets them for a `with` block. Setting any other
attribute of this module raises AttributeError rather than being ignored.
"""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Iterator, Optional

from ... import _C

enabled: bool
allow_tf32: bool
deterministic: bool
benchmark: bool

_SWITCHES = ("enabled", "allow_tf32", "deterministic", "benchmark")


def is_available() -> bool:
    """Whether this build has CUDA and a libcudnn (9 or later) opens: $YATEN_CUDNN, the nvidia-cudnn-cu13 wheel,
    the CUDA toolkit, the system loader's path."""
    return bool(_C._build_config["cuda"]) and bool(_C._cudnn_is_available())


def version() -> Optional[int]:
    """cuDNN's version as torch gives it (e.g. 92801 for 9.28.1), or None where it is not available."""
    return int(_C._cudnn_version()) if is_available() else None


def _settings() -> dict[str, bool]:
    return dict(zip(_SWITCHES, _C._get_cudnn_settings()))


@contextlib.contextmanager
def flags(enabled: Optional[bool] = None, allow_tf32: Optional[bool] = None, deterministic: Optional[bool] = None,
          benchmark: Optional[bool] = None) -> Iterator[None]:
    """Sets the switches given (None leaves one as it is) for a `with` block, then restores them all."""
    before = _settings()
    after = dict(before)
    for name, value in zip(_SWITCHES, (enabled, allow_tf32, deterministic, benchmark)):
        if value is not None:
            after[name] = bool(value)
    _C._set_cudnn_settings(*after.values())
    try:
        yield
    finally:
        _C._set_cudnn_settings(*before.values())


class _CudnnModule(types.ModuleType):
    def __getattr__(self, name: str) -> bool:
        if name in _SWITCHES:
            return _settings()[name]
        raise AttributeError(f"module 'yaten.backends.cudnn' has no attribute '{name}'")

    def __setattr__(self, name: str, value: object) -> None:
        if name in _SWITCHES:
            settings = _settings()
            settings[name] = bool(value)
            _C._set_cudnn_settings(*settings.values())
            return
        if name.startswith("__") or name in globals():  # the import machinery's own attributes, this module's names
            super().__setattr__(name, value)
            return
        raise AttributeError(f"yaten.backends.cudnn has no switch '{name}' (it has {', '.join(_SWITCHES)})")


sys.modules[__name__].__class__ = _CudnnModule
