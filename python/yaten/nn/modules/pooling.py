"""MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, LPPool1d/2d/3d, MaxUnpool1d/2d/3d."""

from __future__ import annotations

from typing import Any

from ... import _C
from .. import functional as F
from .module import Module

Tensor = _C.Tensor


class _MaxPoolNd(Module):
    _fn: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _fn = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class _AvgPoolNd(Module):
    _fn: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    _fn = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _fn: Any = None

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _fn = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _fn = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _fn: Any = None

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Any:
        return type(self)._fn(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _fn = staticmethod(F.adaptive_max_pool3d)


class _FractionalMaxPoolNd(Module):
    _dims = 0

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        self.kernel_size, self.output_size, self.return_indices = kernel_size, output_size, return_indices
        self.output_ratio = output_ratio
        self.register_buffer("_random_samples", _random_samples)
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self._dims}d requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if output_ratio is not None:
            ratios = output_ratio if isinstance(output_ratio, (list, tuple)) else [output_ratio] * self._dims
            if not all(0 < r < 1 for r in ratios):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        fn = F.fractional_max_pool2d if self._dims == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _dims = 3


class _LPPoolNd(Module):
    _dims = 0

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        fn = [F.lp_pool1d, F.lp_pool2d, F.lp_pool3d][self._dims - 1]
        return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    _dims = 1


class LPPool2d(_LPPoolNd):
    _dims = 2


class LPPool3d(_LPPoolNd):
    _dims = 3


class _MaxUnpoolNd(Module):
    _dims = 0

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        fn = [F.max_unpool1d, F.max_unpool2d, F.max_unpool3d][self._dims - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _dims = 3
