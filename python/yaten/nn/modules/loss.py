"""The loss modules: each holds its options and calls its nn.functional op."""

from __future__ import annotations

from typing import Any

from ... import _C
from .. import functional as F
from .module import Module

Tensor = _C.Tensor


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """torch's deprecated size_average/reduce arguments as a reduction."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Class indices or class probabilities as the target, with ignore_index, label_smoothing and class weights."""

    def __init__(self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean", pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
