"""yaten.utils: tools around the library (benchmark: timing that synchronizes CUDA)."""

from . import benchmark  # noqa: F401
