"""Dropout, Dropout1d/2d/3d, AlphaDropout."""

from __future__ import annotations

from ... import _C
from .. import functional as F
from .module import Module

Tensor = _C.Tensor


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training, zeroes each element with probability p and scales the rest by 1/(1-p); identity in eval()."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, image_dims: int, name: str) -> Tensor:
    """Zeroes whole channels: one Bernoulli draw per (sample, channel), broadcast over the image dims."""
    if input.dim() not in (image_dims + 1, image_dims + 2):
        raise ValueError(f"{name}: Expected {image_dims + 1}D or {image_dims + 2}D input, but received a "
                         f"{input.dim()}D input")
    if not training or p == 0.0:
        return input
    unbatched = input.dim() == image_dims + 1
    batched = input.unsqueeze(0) if unbatched else input
    mask_shape = list(batched.shape[:2]) + [1] * image_dims
    if p == 1.0:
        mask = _C.zeros(mask_shape, dtype=input.dtype, device=input.device)
    else:
        mask = _C.empty(mask_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p).div_(1 - p)
    if unbatched:
        mask = mask.squeeze(0)
    return input.mul_(mask) if inplace else input * mask


class Dropout1d(_DropoutNd):
    def forward(self, input: Tensor) -> Tensor:
        return _channel_dropout(input, self.p, self.training, self.inplace, 1, "dropout1d")


class Dropout2d(_DropoutNd):
    def forward(self, input: Tensor) -> Tensor:
        return _channel_dropout(input, self.p, self.training, self.inplace, 2, "dropout2d")


class Dropout3d(_DropoutNd):
    def forward(self, input: Tensor) -> Tensor:
        return _channel_dropout(input, self.p, self.training, self.inplace, 3, "dropout3d")
