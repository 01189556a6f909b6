"""AdaptiveLogSoftmaxWithLoss (Grave et al., "Efficient softmax approximation for GPUs", 2017) and
LinearCrossEntropyLoss, torch's two losses that own a projection to the classes."""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from ... import _C
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

Tensor = _C.Tensor

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """The classes split by `cutoffs` into a frequent head (the first cutoffs[0] classes, plus one entry per tail
    cluster) and tail clusters, each reached through a narrower projection (in_features // div_value**(i + 1)).
    forward(input, target) gives each target's log-probability and the mean negative of them; log_prob and predict
    give every class's log-probability and the most likely class. Parameters and their names are torch's."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        factory = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for cluster in self.tail:
            for layer in cluster:
                layer.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> Any:
        batched = input.dim() == 2
        if input.dim() not in (1, 2) or target.dim() != input.dim() - 1:
            raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size "
                               f"{list(input.shape)}" if target.dim() == 1 else
                               "0D target tensor expects 1D input tensors, but found inputs with size "
                               f"{list(input.shape)}")
        if batched and input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        x = input if batched else input.unsqueeze(0)
        t = target if batched else target.unsqueeze(0)
        batch = x.shape[0]
        if batch and not bool(((t >= 0) & (t < self.n_classes)).all()):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{int(t.min())}, {int(t.max())}] were found. ")
        head_logprob = F.log_softmax(self.head(x), 1)
        # the head entry each row reads: its class in the shortlist, or its cluster's entry
        head_index = t.clone()
        output = _C.zeros([batch], dtype=head_logprob.dtype, device=x.device)
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            rows = _C.nonzero((t >= low) & (t < high)).reshape(-1)
            if rows.numel() == 0:
                continue
            head_index = head_index.index_fill(0, rows, self.shortlist_size + i)
            cluster_logprob = F.log_softmax(self.tail[i](x.index_select(0, rows)), 1)
            local = cluster_logprob.gather(1, (t.index_select(0, rows) - low).unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows, local)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, x: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, 1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](x), 1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _C.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """log-probabilities of every class, (N, n_classes) (or (n_classes,) for one input)."""
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each input."""
        return self.log_prob(input).argmax(-1)


@dataclass
class LinearCrossEntropyOptions:
    """torch's knobs for its chunked linear_cross_entropy: how memory is spent, not what is computed. yaten's
    linear_cross_entropy computes the full logits either way, so the options are accepted and kept, and change
    nothing (the loss and its gradients are the same)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None


class LinearCrossEntropyLoss(Module):
    """cross_entropy(linear(input), target) with the linear layer owned by the loss (`self.linear`, weight of
    num_classes * prod(out_features) rows); F.linear_cross_entropy does the work."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple[int, ...] = (), bias: bool = False,
                 device: Any = None, dtype: Any = None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        super().__init__()
        self.register_buffer("weight", weight)
        self.in_features, self.num_classes = in_features, num_classes
        self.out_features = tuple(out_features)
        self.bias = bias
        self.reduction, self.ignore_index, self.label_smoothing = reduction, ignore_index, label_smoothing
        self.options = options
        self.linear = Linear(in_features, num_classes * math.prod(self.out_features), bias=bias, device=device,
                             dtype=dtype)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, num_classes={self.num_classes}, out_features={self.out_features}, "
                f"bias={self.bias}, reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        weight = self.linear.weight.reshape([self.num_classes, *self.out_features, self.in_features])
        bias = self.linear.bias.reshape([self.num_classes, *self.out_features]) if self.linear.bias is not None \
            else None
        return F.linear_cross_entropy(input, weight, target, linear_bias=bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)
