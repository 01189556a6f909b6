"""torch's top-level spellings of nn functions (torch.celu, torch.layer_norm, torch.max_pool2d, ...): the ATen
signatures torch exposes at the top level, which differ from torch.nn.functional's in places (batch_norm's and
instance_norm's argument order, `stride=[]` meaning the kernel size, the `cudnn_enable(d)` flags), mapped onto
yaten.nn.functional."""

from __future__ import annotations

from typing import Any

from . import _C
from .nn import functional as F

Tensor = _C.Tensor


def _stride(stride: Any) -> Any:
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha, inplace=True)


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    return F.prelu(input, weight)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return F.hardshrink(input, lambd)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002 (torch's name)
    return F.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    return F.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    return F.rrelu(input, lower, upper, training, inplace=True)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return F.channel_shuffle(input, groups)


native_channel_shuffle = channel_shuffle


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    return F.rms_norm(input, normalized_shape, weight, eps)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, return_indices=True)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """ATen's adaptive_max_pool1d: the values and their indices."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    return F.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    return F.pixel_unshuffle(input, downscale_factor)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    return F.pdist(input, p)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    return F.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return F.bilinear(input1, input2, weight, bias)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return F.dropout1d(input, p, train) if input.dim() in (2, 3) else F.dropout2d(input, p, train)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    result = feature_dropout(input, p, train)
    return input.copy_(result) if result is not input else input


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool = True) -> Tensor:
    """ATen's order (weight and bias before the running statistics), not nn.functional's."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool = True) -> Tensor:
    """ATen's order (weight and bias before the running statistics), not nn.functional's."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


# ATen's losses take the reduction as an int: 0 'none', 1 'mean', 2 'sum'.
_REDUCTIONS = ("none", "mean", "sum")


def _reduction(reduction: Any) -> str:
    if isinstance(reduction, str):
        return reduction
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction: expected 0 (none), 1 (mean) or 2 (sum), got {reduction}")
    return _REDUCTIONS[reduction]


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """ATen's order (weight first); padding_idx -1 means none."""
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported (yaten has no sparse tensors)")
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescales, in place, the rows of input that indices name whose norm_type-norm exceeds max_norm to that norm
    (each row once, as torch's max_norm= embedding does)."""
    from ._namespace import unique

    rows = unique(indices.reshape(-1))
    with _no_grad():
        selected = input.index_select(0, rows)
        norms = selected.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
        input.index_copy_(0, rows, selected * scale)
    return input


def _no_grad() -> Any:
    from .autograd import no_grad

    return no_grad()


def kl_div(input: Tensor, target: Tensor, reduction: Any = 1, *, log_target: bool = False) -> Tensor:
    """ATen's kl_div: reduction 'mean' (1) averages over every element, as torch's top-level function does."""
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: Any = 1) -> Tensor:
    """ATen's order: pos_weight before reduction (an int)."""
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: Any = 1) -> Tensor:
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: Any = 1) -> Tensor:
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: Any = 1) -> Tensor:
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: Any = 1) -> Tensor:
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: Any) -> Tensor:
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """ATen's embedding_bag: mode as an int (0 sum, 1 mean, 2 max); (output, offset2bag, bag_size, max_indices)."""
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported (yaten has no sparse tensors)")
    return _C._embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, False, per_sample_weights,
                             include_last_offset, -1 if padding_idx is None else padding_idx)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: Any = 1, zero_infinity: bool = False) -> Tensor:
    """ATen's ctc_loss: the lengths as int lists or tensors, the reduction as an int."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


_INTERPOLATION_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """ATen's grid_sampler: the modes as ints (0 bilinear, 1 nearest, 2 bicubic; 0 zeros, 1 border, 2 reflection)."""
    if interpolation_mode not in (0, 1, 2) or padding_mode not in (0, 1, 2):
        raise ValueError(f"grid_sampler: interpolation_mode and padding_mode must be 0, 1 or 2, got "
                         f"{interpolation_mode} and {padding_mode}")
    return F.grid_sample(input, grid, _INTERPOLATION_MODES[interpolation_mode], _PADDING_MODES[padding_mode],
                         align_corners)


def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    return F.affine_grid(theta, list(size), align_corners)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-D convolution over (time, batch, channels) input with a (kernel width, in, out) weight, pad steps of
    zeros at each end of time."""
    if input.dim() != 3 or weight.dim() != 3 or bias.dim() != 1:
        raise RuntimeError(f"conv_tbc: input and weight must be 3-D and bias 1-D, got {input.dim()}-D, "
                           f"{weight.dim()}-D and {bias.dim()}-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError(f"conv_tbc: input has {input.shape[2]} channels, weight expects {weight.shape[1]}")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError(f"conv_tbc: bias has {bias.shape[0]} elements, weight makes {weight.shape[2]} channels")
    out = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


NAMES = [n for n in dir() if not n.startswith("_") and n not in ("Any", "F", "Tensor", "annotations", "NAMES")]
