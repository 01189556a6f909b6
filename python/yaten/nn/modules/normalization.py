"""LayerNorm, RMSNorm, GroupNorm, the batch and instance norms (BatchNorm1d/2d/3d, SyncBatchNorm,
InstanceNorm1d/2d/3d), LocalResponseNorm and the legacy CrossMapLRN2d."""

from __future__ import annotations

import numbers
from typing import Any

from ... import _C
from ...autograd import Function, no_grad as _no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _C.Tensor


def _shape(normalized_shape: Any) -> tuple[int, ...]:
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


def _affine_parameters(module: Module, shape: list[int], affine: bool, bias: bool, factory: dict) -> None:
    """A norm's weight and bias (each None when not affine, bias also when bias=False), as torch registers them."""
    module.register_parameter("weight", Parameter(_C.empty(shape, **factory)) if affine else None)
    module.register_parameter("bias", Parameter(_C.empty(shape, **factory)) if affine and bias else None)


def _reset_affine(module: Module) -> None:
    """The identity transform: weight 1, bias 0."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, list(self.normalized_shape), elementwise_affine, bias,
                           {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_C.empty(list(self.normalized_shape), device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        self.use_bias = affine and bias
        _affine_parameters(self, [num_channels], affine, bias, {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.use_bias}"


class _NormBase(Module):
    """The state batch and instance norms share: weight, bias, running_mean, running_var, num_batches_tracked."""

    _version = 2
    _expected_dims: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self.use_bias = affine and bias
        _affine_parameters(self, [num_features], affine, bias, factory)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros([num_features], **factory))
            self.register_buffer("running_var", _C.ones([num_features], **factory))
            self.register_buffer("num_batches_tracked", _C.tensor(0, dtype=_C.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._expected_dims:
            expected = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(f"expected {expected} input (got {input.dim()}D input)")

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list,
                              assign: bool = False) -> None:
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = _C.tensor(0, dtype=_C.int64)  # checkpoints from before the counter existed
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs, assign)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.use_bias}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                exponential_average_factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias, bn_training,
                            exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    _expected_dims = (5,)


class _SyncBatchNormFunction(Function):
    """Batch statistics over every rank of the group: each rank's count, mean and sum of squared deviations are
    gathered and combined exactly (Chan's parallel formula); backward all-reduces the two per-channel sums the input
    gradient needs. The weight and bias gradients stay local, as torch's (DDP then averages them)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                running_var: Tensor | None, eps: float, momentum: float, group: Any, world_size: int) -> Tensor:
        from ... import distributed as dist

        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        compute = _C.float32 if input.dtype in (_C.float16, _C.bfloat16) else input.dtype
        x = input.to(compute)
        count = input.numel() // max(channels, 1)
        mean = x.mean(dims) if count else _C.zeros([channels], dtype=compute, device=input.device)
        centered = x - mean.view([1, channels] + [1] * (input.dim() - 2))
        m2 = (centered * centered).sum(dims)
        local = _C.stack([_C.full([channels], float(count), dtype=compute, device=input.device), mean, m2])
        gathered = _C.empty([world_size, 3, channels], dtype=compute, device=input.device)
        dist.all_gather_into_tensor(gathered, local.contiguous(), group=group)
        counts, means, m2s = gathered[:, 0], gathered[:, 1], gathered[:, 2]
        total = counts.sum(0)
        if float(total.min()) == 0:
            raise ValueError("SyncBatchNorm: no element to normalize over on any rank (expected more than 1 value "
                             "per channel when training)")
        global_mean = (counts * means).sum(0) / total
        global_m2 = m2s.sum(0) + (counts * (means - global_mean) ** 2).sum(0)
        variance = global_m2 / total
        invstd = (variance + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(global_mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            unbiased = global_m2 / (total - 1).clamp(min=1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
        shape = [1, channels] + [1] * (input.dim() - 2)
        x_hat = (x - global_mean.view(shape)) * invstd.view(shape)
        out = x_hat
        if weight is not None:
            out = out * weight.to(compute).view(shape)
        if bias is not None:
            out = out + bias.to(compute).view(shape)
        ctx.save_for_backward(input, weight, global_mean, invstd)
        ctx.group, ctx.total = group, total
        return out.to(input.dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        from ... import distributed as dist

        input, weight, mean, invstd = ctx.saved_tensors
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        shape = [1, channels] + [1] * (input.dim() - 2)
        compute = mean.dtype
        g = grad.to(compute)
        x_hat = (input.to(compute) - mean.view(shape)) * invstd.view(shape)
        sum_dy = g.sum(dims)
        sum_dy_xhat = (g * x_hat).sum(dims)
        grad_weight = sum_dy_xhat.to(weight.dtype) if weight is not None and ctx.needs_input_grad[1] else None
        grad_bias = sum_dy.to(weight.dtype) if weight is not None and ctx.needs_input_grad[2] else None
        grad_input = None
        if ctx.needs_input_grad[0]:
            sums = _C.stack([sum_dy, sum_dy_xhat]).contiguous()
            dist.all_reduce(sums, group=ctx.group)
            scale = invstd if weight is None else invstd * weight.to(compute)
            grad_input = ((g - (sums[0] / ctx.total).view(shape) - x_hat * (sums[1] / ctx.total).view(shape))
                          * scale.view(shape)).to(input.dtype)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose training statistics are those of the whole batch across the ranks of a process group
    (yaten.distributed: MPI on the CPU, NCCL on CUDA); outside training, or without an initialized process group of
    more than one rank, it is BatchNorm. Inputs of 2 or more dims, channels in dim 1."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any = None, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        from ... import distributed as dist

        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise ValueError(f"SyncBatchNorm: expected input's size at dim=1 to match num_features "
                             f"({self.num_features}), but got: {input.shape[1]}.")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_running else None
        running_var = self.running_var if use_running else None
        world = 1
        group = self.process_group
        if bn_training and self.training and dist.is_initialized():
            group = group if group is not None else dist.group.WORLD
            world = dist.get_world_size(group)
        if world <= 1:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias, bn_training, factor,
                                self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean, running_var, self.eps,
                                            factor, group, world)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """module with every BatchNorm*d in it replaced by a SyncBatchNorm holding the same parameters and buffers."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group)
            if module.affine:
                with _no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted

class _InstanceNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        image_dims = self._expected_dims[-1] - 2
        if input.dim() not in (image_dims + 1, image_dims + 2):
            raise ValueError(f"expected {image_dims + 1}D or {image_dims + 2}D input (got {input.dim()}D input)")
        unbatched = input.dim() == image_dims + 1
        if unbatched:
            input = input.unsqueeze(0)
        channel_size = input.size(1)
        if channel_size != self.num_features and self.affine:
            raise ValueError(f"expected input's size at dim=1 to match num_features ({self.num_features}), but got: "
                             f"{channel_size}.")
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _expected_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _expected_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    _expected_dims = (4, 5)


class LocalResponseNorm(Module):
    """Each element divided by (k + alpha/size * the sum of squares over `size` neighbouring channels)^beta."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _window_sums(values: Tensor, lower: list[int], upper: list[int]) -> Tensor:
    """For each channel c, the sum of values[:, lower[c]:upper[c] + 1] (dim 1), by differences of a cumulative sum."""
    cumulative = _C.cat([_C.zeros_like(values[:, :1]), _C.cumsum(values, 1)], 1)
    device = values.device
    hi = _C.index_select(cumulative, 1, _C.tensor([u + 1 for u in upper], dtype=_C.int64, device=device))
    lo = _C.index_select(cumulative, 1, _C.tensor(lower, dtype=_C.int64, device=device))
    return hi - lo


class _CrossMapLRN2dFunction(Function):
    """torch's legacy cross-channel LRN (torch.nn.CrossMapLRN2d's function), its forward and backward as torch computes
    them. Its forward sums squares over a running window that keeps channel 0 once it has entered (torch's running
    sum never takes it out), and its backward assumes the symmetric window, as torch's does; so the gradient is
    torch's, not the exact one."""

    @staticmethod
    def forward(ctx, input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
        channels = input.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        upper = [min(c + pre_pad - 1, channels - 1) for c in range(channels)]
        lower = [0 if c <= pre_pad else c - pre_pad + 1 for c in range(channels)]
        square = input * input
        scale = _window_sums(square, lower, upper)
        kept = _C.tensor([1.0 if lo > 0 else 0.0 for lo in lower], dtype=input.dtype, device=input.device)
        scale = scale + square[:, :1] * kept.view(1, channels, 1, 1)  # channel 0, never taken out
        scale = scale * (alpha / size) + k
        output = _C.pow(scale, -beta) * input
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        # channel c gathers the ratios of channels c - inverse_pre_pad .. c - inverse_pre_pad + size - 1
        lower = [min(max(c - inverse_pre_pad, 0), channels) for c in range(channels)]
        upper = [min(max(c - inverse_pre_pad + size - 1, -1), channels - 1) for c in range(channels)]
        gathered = _window_sums(ratio, lower, [max(u, lo - 1) for u, lo in zip(upper, lower)])
        grad = _C.pow(scale, -ctx.beta) * grad_output - (2 * ctx.alpha * ctx.beta / size) * input * gathered
        return grad, None, None, None, None


class CrossMapLRN2d(Module):
    """torch's legacy cross-channel local response normalization of 4-D inputs (LocalResponseNorm's older form, with
    its own running-sum window and backward)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
