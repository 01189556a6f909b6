"""yaten.cuda: whether the CUDA backend is built and a GPU is present."""

from __future__ import annotations

from . import _C


def is_built() -> bool:
    """Whether this build of yaten includes the CUDA backend."""
    return bool(_C._build_config["cuda"])


def device_count() -> int:
    """The number of CUDA devices (0 without a GPU or driver, or in a build without CUDA)."""
    return _C._cuda_device_count()


def is_available() -> bool:
    """Whether CUDA tensors can be created: the backend is built and a GPU is present."""
    return is_built() and device_count() > 0
