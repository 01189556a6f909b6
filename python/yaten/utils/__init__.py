"""yaten.utils: tools around the library (benchmark: timing that synchronizes CUDA; data: datasets and DataLoader)."""

from . import benchmark, data  # noqa: F401
