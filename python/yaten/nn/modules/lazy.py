"""Lazy modules (Note [Lazy modules] in nn/parameter.py): LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d take every argument of their module but the input's size, which
their first forward call reads from the input; they then materialize their parameters and buffers, initialize them
as the module would, and become that module (`cls_to_become`), as torch's do. A state_dict loaded before the first
call materializes them at the saved shapes; the first call still records the input's size (torch's lazy convolutions
and norms keep 0 there, so their repr says Conv2d(0, ...) after such a load)."""

from __future__ import annotations

import itertools
from typing import Any

from ... import _C
from ..parameter import Buffer, UninitializedBuffer, UninitializedParameter, _Uninitialized
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d)

Tensor = _C.Tensor


class LazyModuleMixin:
    """The first forward call sizes the module from its input (initialize_parameters), then the module becomes
    cls_to_become."""

    cls_to_become: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(t, _Uninitialized)
                   for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list,
                              assign: bool = False) -> None:
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if isinstance(value, _Uninitialized) and key in state_dict:
                value.materialize(state_dict[key].shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs, assign)


def _infer_parameters(module: Any, args: tuple, kwargs: dict | None = None) -> None:
    module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    for name, buffer in list(module._buffers.items()):
        if type(buffer) is Buffer:  # a materialized UninitializedBuffer: a plain tensor, as the module's own are
            module._buffers[name] = buffer.detach()
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


def _uninitialized(device: Any, dtype: Any) -> UninitializedParameter:
    return UninitializedParameter(device=device, dtype=dtype)


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.out_features = out_features
        self.weight = _uninitialized(device, dtype)
        if bias:
            self.bias = _uninitialized(device, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        self.in_features = input.shape[-1]  # also after a state_dict materialized the parameters
        if self.has_uninitialized_params():
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    def _lazy_setup(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        self.out_channels = out_channels
        self.weight = _uninitialized(device, dtype)
        if bias:
            self.bias = _uninitialized(device, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        spatial = len(self.kernel_size)
        if input.dim() not in (spatial + 1, spatial + 2):
            raise ValueError(f"{type(self).__name__}: expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) "
                             f"input, got {input.dim()}D")
        self.in_channels = input.shape[0] if input.dim() == spatial + 1 else input.shape[1]
        if not self.has_uninitialized_params():  # a state_dict materialized them
            return
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv(base: Any) -> Any:
    class LazyConv(_LazyConvMixin, base):
        cls_to_become = base

        def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                     dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                     device: Any = None, dtype: Any = None) -> None:
            if out_channels % groups != 0:
                raise ValueError("out_channels must be divisible by groups")
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
            self._lazy_setup(out_channels, bias, device, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = f"Lazy{base.__name__}"
    LazyConv.__doc__ = f"{base.__name__} whose in_channels is the channel dim of the first input."
    return LazyConv


def _lazy_conv_transpose(base: Any) -> Any:
    class LazyConvTranspose(_LazyConvMixin, base):
        cls_to_become = base

        def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                     padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
            if out_channels % groups != 0:
                raise ValueError("out_channels must be divisible by groups")
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode)
            self._lazy_setup(out_channels, bias, device, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = f"Lazy{base.__name__}"
    LazyConvTranspose.__doc__ = f"{base.__name__} whose in_channels is the channel dim of the first input."
    return LazyConvTranspose


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)


class _LazyNormMixin(LazyModuleMixin):
    def _lazy_setup(self, affine: bool, track_running_stats: bool, device: Any, dtype: Any) -> None:
        if affine:
            self.weight = _uninitialized(device, dtype)
            self.bias = _uninitialized(device, dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _C.tensor(0, dtype=_C.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        self.num_features = input.shape[1]
        if not self.has_uninitialized_params():  # a state_dict materialized them
            return
        for name in ("weight", "bias", "running_mean", "running_var"):
            value = getattr(self, name, None)
            if isinstance(value, _Uninitialized):
                value.materialize((self.num_features,))
        self.reset_parameters()


def _lazy_norm(base: Any, affine_default: bool, track_default: bool) -> Any:
    class LazyNorm(_LazyNormMixin, base):
        cls_to_become = base

        def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = affine_default,
                     track_running_stats: bool = track_default, device: Any = None, dtype: Any = None) -> None:
            super().__init__(0, eps, momentum, False, False)
            self.affine, self.track_running_stats = affine, track_running_stats
            self.use_bias = affine
            self._lazy_setup(affine, track_running_stats, device, dtype)

    LazyNorm.__name__ = LazyNorm.__qualname__ = f"Lazy{base.__name__}"
    LazyNorm.__doc__ = f"{base.__name__} whose num_features is the channel dim (dim 1) of the first input."
    return LazyNorm


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, True, True)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, True, True)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, True, True)
# torch's lazy instance norms default to affine=True, track_running_stats=True (its InstanceNorms to False, False)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, True, True)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, True, True)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, True, True)
