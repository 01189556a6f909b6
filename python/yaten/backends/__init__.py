"""yaten.backends: switches for how the backends compute, with torch.backends's names."""

from . import cuda, cudnn, mps  # noqa: F401
