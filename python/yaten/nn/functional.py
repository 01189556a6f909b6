"""yaten.nn.functional: the ops whose ops.yaml entry says `python_module: nn.functional`, plus torch's `inplace=`
spelling of their in-place forms and the activations that live in yaten itself (relu, sigmoid, tanh)."""

from __future__ import annotations

import math as _math
import operator as _operator
from typing import Any

from .. import _C
from ..autograd import no_grad as _no_grad
# The generated functions; the wrappers below replace a few of them (adding torch's inplace=, or Python-side
# arguments), hence their `type: ignore[no-redef]` for mypy, which reads this module as source.
from .._C._nn_functional import *  # noqa: F401,F403
from .._C._nn_functional import embedding as _embedding, elu as _elu, hardtanh as _hardtanh, leaky_relu as _leaky_relu
from .._C._nn_functional import hardshrink as _hardshrink, softshrink as _softshrink, threshold as _threshold

Tensor = _C.Tensor


def _inplace(input: Any, name: str) -> Any:
    """`input`'s in-place method `name`, or torch's TypeError when `input` is not a tensor (inplace=True)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return getattr(input, name)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _inplace(input, "relu_")() if inplace else _C.relu(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "relu6_")() if inplace else _C._nn_functional.relu6(input)


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "selu_")() if inplace else _C._nn_functional.selu(input)


def hardtanh(input: Tensor, min_val: Any = -1.0, max_val: Any = 1.0,  # type: ignore[no-redef]
             inplace: bool = False) -> Tensor:
    return _inplace(input, "hardtanh_")(min_val, max_val) if inplace else _hardtanh(input, min_val, max_val)


def leaky_relu(input: Tensor, negative_slope: Any = 0.01, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "leaky_relu_")(negative_slope) if inplace else _leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: Any = 1.0, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "elu_")(alpha) if inplace else _elu(input, alpha)


def sigmoid(input: Tensor) -> Tensor:
    return _C.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _C.tanh(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "silu_")() if inplace else _C._nn_functional.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "mish_")() if inplace else _C._nn_functional.mish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "hardsigmoid_")() if inplace else _C._nn_functional.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # type: ignore[no-redef]
    return _inplace(input, "hardswish_")() if inplace else _C._nn_functional.hardswish(input)


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _C.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _C.log_softmax(input, dim, dtype=dtype)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability `p` while training and scales the rest by 1/(1-p); input itself
    otherwise."""
    if not training:
        _C.dropout(input, p, False)  # checks p
        return input
    return _C.dropout_(input, p, training) if inplace else _C.dropout(input, p, training)


def _renorm_rows(input: Tensor, weight: Tensor, max_norm: float, norm_type: float) -> None:
    """torch's max_norm: each row of `weight` that `input` names and whose norm_type-norm exceeds max_norm becomes
    max_norm / (norm + 1e-7) of itself, in place and outside the graph."""
    import yaten

    with yaten.no_grad():
        rows = yaten.unique(input.reshape(-1))
        picked = weight.index_select(0, rows)
        norms = yaten.linalg.vector_norm(picked, norm_type, dim=[1], keepdim=True)
        scale = yaten.where(norms > max_norm, max_norm / (norms + 1e-7), yaten.ones_like(norms))
        weight.index_copy_(0, rows, picked * scale)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # type: ignore[no-redef]
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """The rows of `weight` at the indices in `input`. As in torch: max_norm renormalizes, in place and outside the
    graph, each row that `input` names whose norm_type-norm exceeds it (to max_norm / (norm + 1e-7) of itself);
    scale_grad_by_freq divides each row's gradient by how often `input` names it."""
    import yaten

    if sparse:
        raise NotImplementedError("embedding(): sparse=True needs sparse gradients, which yaten does not have")
    if max_norm is not None:
        _renorm_rows(input, weight, max_norm, norm_type)
    if scale_grad_by_freq and weight.requires_grad:
        # the same values (w + 0 * s is w), with the gradient of each row scaled by 1 / its count in `input`
        counts = yaten.zeros(weight.shape[0], dtype=weight.dtype, device=weight.device)
        counts.scatter_add_(0, input.reshape(-1), yaten.ones(input.numel(), dtype=weight.dtype, device=weight.device))
        scale = 1.0 / yaten.where(counts > 0, counts, yaten.ones_like(counts))
        detached = weight.detach()
        weight = detached + (weight - detached) * scale.unsqueeze(1)
    return _embedding(input, weight, padding_idx)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sums, means or maxima of bags of `weight`'s rows, as torch's F.embedding_bag: a 2-D `input` is one bag
    per row; a 1-D `input` is cut into bags where `offsets` say each starts (`include_last_offset`: offsets also
    holds the end). Indices equal to `padding_idx` count for nothing; `per_sample_weights` scales each row (sum)."""
    import yaten

    if weight.dim() != 2:
        raise ValueError(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("embedding_bag: if input is 2D, then offsets has to be None, as input is treated as a "
                             "mini-batch of fixed length sequences.")
        bags, length = input.shape
        offsets = yaten.arange(0, input.numel(), length if length > 0 else 1, dtype=input.dtype,
                               device=input.device)[:bags]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("embedding_bag: offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("embedding_bag: offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request")
    if padding_idx is not None:
        rows = weight.shape[0]
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + rows if padding_idx < 0 else padding_idx
    if max_norm is not None:
        _renorm_rows(input, weight, max_norm, norm_type)
    out = _C._embedding_bag(weight, input, offsets, scale_grad_by_freq, modes[mode], sparse, per_sample_weights,
                            include_last_offset, -1 if padding_idx is None else padding_idx)
    return out[0]


# ------------------------------------------------------------------------------------------------ convolution
# conv1d/2d/3d and conv_transpose1d/2d/3d call the `convolution` op (ops.yaml) as torch's call aten.convolution:
# numbers become one value per spatial dim, padding may be 'valid' or 'same', and an unbatched (C, *image) input
# gains and loses its batch dim here.

def _ntuple(value: Any, n: int, name: str) -> list[int]:
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and n > 1:  # one value for every dim, as torch takes [1] for (1, 1)
            value = list(value) * n
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                               f"convolution dimensions, but got {name}={list(value)}")
        try:
            return [_operator.index(v) for v in value]
        except TypeError:
            raise TypeError(f"{name} must be an int or a tuple of ints, got {list(value)}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or a tuple of ints, not {type(value).__name__}")
    return [value] * n


def _batched(input: Tensor, dims: int, op: str) -> tuple[Tensor, bool]:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() == dims + 1:
        return input.unsqueeze(0), True
    if input.dim() != dims + 2:
        raise RuntimeError(f"{op}: Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {op}, but got "
                           f"input of size: {list(input.shape)}")
    return input, False


def _conv(dims: int, op: str, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
          dilation: Any, groups: int) -> Tensor:
    x, unbatched = _batched(input, dims, op)
    stride_ = _ntuple(stride, dims, "stride")
    dilation_ = _ntuple(dilation, dims, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding_ = [0] * dims
        elif padding == "same":
            if any(s != 1 for s in stride_):
                raise ValueError(f"{op}: padding='same' is not supported for strided convolutions")
            if weight.dim() != dims + 2:
                raise RuntimeError(f"{op}: expected a {dims + 2}-D weight, but got weight of size {list(weight.shape)}")
            totals = [d * (k - 1) for d, k in zip(dilation_, weight.shape[2:])]
            padding_ = [t // 2 for t in totals]
            extra = [t - 2 * p for t, p in zip(totals, padding_)]
            if any(extra):  # an odd total: the extra row or column goes after the input, as torch
                pad_: list[int] = []
                for e in reversed(extra):
                    pad_ += [0, e]
                x = _C._nn_functional.pad(x, pad_)
        else:
            raise ValueError(f"{op}: Invalid padding string '{padding}', should be one of ['valid', 'same']")
    else:
        padding_ = _ntuple(padding, dims, "padding")
    out = _convolution(x, weight, bias, stride_, padding_, dilation_, False, [0] * dims, groups)
    return out.squeeze(0) if unbatched else out


def _convolution(x: Tensor, weight: Tensor, bias: Tensor | None, *args: Any) -> Tensor:
    """The `convolution` op; for complex input and weight, torch's complex convolution: three real ones (Gauss's
    trick, in torch's order, so the values round as torch's do), a = conv(xr, wr, br), b = conv(xi, wi),
    c = conv(xr + xi, wr + wi, br + bi), and a - b + i(c - a - b). Their gradients follow through the real ops."""
    if not (x.is_complex() and weight.is_complex() and x.dtype == weight.dtype and
            (bias is None or bias.dtype == x.dtype)):
        return _C.convolution(x, weight, bias, *args)
    xr, xi, wr, wi = x.real, x.imag, weight.real, weight.imag
    a = _C.convolution(xr, wr, None if bias is None else bias.real, *args)
    b = _C.convolution(xi, wi, None, *args)
    c = _C.convolution(xr + xi, wr + wi, None if bias is None else bias.real + bias.imag, *args)
    return _C.complex(a - b, c - a - b)


def _conv_transpose(dims: int, op: str, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                    padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    x, unbatched = _batched(input, dims, op)
    if isinstance(padding, str):
        raise ValueError(f"{op}: padding must be an int or a tuple of ints (no 'same' or 'valid' for a transposed "
                         "convolution, as torch)")
    out = _convolution(x, weight, bias, _ntuple(stride, dims, "stride"), _ntuple(padding, dims, "padding"),
                       _ntuple(dilation, dims, "dilation"), True, _ntuple(output_padding, dims, "output_padding"),
                       groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution of (N, C_in, L) or (C_in, L) with weight (C_out, C_in/groups, k); padding may be 'same'."""
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution of (N, C_in, H, W) or (C_in, H, W) with weight (C_out, C_in/groups, kH, kW)."""
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution of (N, C_in, D, H, W) or (C_in, D, H, W) with weight (C_out, C_in/groups, kD, kH, kW)."""
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """1-D transposed convolution with weight (C_in, C_out/groups, k)."""
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """2-D transposed convolution with weight (C_in, C_out/groups, kH, kW)."""
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """3-D transposed convolution with weight (C_in, C_out/groups, kD, kH, kW)."""
    return _conv_transpose(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """The sliding (kH, kW) blocks of (N, C, H, W) or (C, H, W) as columns: (N, C * kH * kW, L)."""
    if not isinstance(input, Tensor) or input.dim() not in (3, 4):
        raise RuntimeError("unfold: Input Error: Only 3D or 4D input Tensors are supported (got "
                           f"{input.dim() if isinstance(input, Tensor) else type(input).__name__}D)")
    return _C.im2col(input, _ntuple(kernel_size, 2, "kernel_size"), _ntuple(dilation, 2, "dilation"),
                     _ntuple(padding, 2, "padding"), _ntuple(stride, 2, "stride"))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """The adjoint of unfold: (N, C * kH * kW, L) columns summed into (N, C, H, W) images."""
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        raise RuntimeError("fold: Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                           f"{input.dim() if isinstance(input, Tensor) else type(input).__name__}D)")
    return _C.col2im(input, _ntuple(output_size, 2, "output_size"), _ntuple(kernel_size, 2, "kernel_size"),
                     _ntuple(dilation, 2, "dilation"), _ntuple(padding, 2, "padding"), _ntuple(stride, 2, "stride"))


# ------------------------------------------------------------------------------------------------ pooling
# max/avg pooling over 1 to 3 dims: the 2-D and 3-D ops of ops.yaml; 1-D pools a height-1 image, as torch does.

def _pool_args(dims: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any = 1
               ) -> tuple[list[int], list[int], list[int], list[int]]:
    kernel = _ntuple(kernel_size, dims, "kernel_size")
    strides = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        _ntuple(stride, dims, "stride")
    return kernel, strides, _ntuple(padding, dims, "padding"), _ntuple(dilation, dims, "dilation")


def _max_pool(dims: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
              return_indices: bool) -> Any:
    k, s, p, d = _pool_args(dims, kernel_size, stride, padding, dilation)
    if dims == 1:
        if not isinstance(input, Tensor) or input.dim() not in (2, 3):
            raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor for input, but got "
                               f"{input.dim() if isinstance(input, Tensor) else type(input).__name__}D")
        out, indices = _C.max_pool2d_with_indices(input.unsqueeze(-2), [1] + k, [1] + s, [0] + p, [1] + d, ceil_mode)
        out, indices = out.squeeze(-2), indices.squeeze(-2)
    else:
        op = _C.max_pool2d_with_indices if dims == 2 else _C.max_pool3d_with_indices
        out, indices = op(input, k, s, p, d, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The largest value of each window along the last dim of (N, C, L) or (C, L)."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The largest value of each window over the last two dims of (N, C, H, W) or (C, H, W)."""
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The largest value of each window over the last three dims of (N, C, D, H, W) or (C, D, H, W)."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window along the last dim of (N, C, L) or (C, L)."""
    k, s, p, _ = _pool_args(1, kernel_size, stride, padding)
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        raise RuntimeError("avg_pool1d: Expected 2D or 3D (batch mode) tensor for input, but got "
                           f"{input.dim() if isinstance(input, Tensor) else type(input).__name__}D")
    return _C.avg_pool2d(input.unsqueeze(-2), [1] + k, [1] + s, [0] + p, ceil_mode, count_include_pad).squeeze(-2)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window over the last two dims of (N, C, H, W) or (C, H, W)."""
    k, s, p, _ = _pool_args(2, kernel_size, stride, padding)
    return _C.avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window over the last three dims of (N, C, D, H, W) or (C, D, H, W)."""
    k, s, p, _ = _pool_args(3, kernel_size, stride, padding)
    return _C.avg_pool3d(input, k, s, p, ceil_mode, count_include_pad, divisor_override)


def _adaptive_size(input: Tensor, output_size: Any, dims: int) -> list[int]:
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * dims
    if len(sizes) != dims:
        raise ValueError(f"adaptive_avg_pool{dims}d: output_size must be an int or {dims} ints, got {output_size}")
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_avg_pool{dims}d(): argument 'input' must be Tensor, not {type(input).__name__}")
    image = list(input.shape)[-dims:]
    return [image[i] if s is None else _operator.index(s) for i, s in enumerate(sizes)]


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """The mean over the windows that divide the last dim of (N, C, L) or (C, L) into output_size."""
    size = _adaptive_size(input, output_size, 1)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d: Expected 2D or 3D tensor for input, but got {input.dim()}D")
    return _C._adaptive_avg_pool2d(input.unsqueeze(-2), [1] + size).squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean over the windows that divide the last two dims into output_size (None keeps a size)."""
    size = _adaptive_size(input, output_size, 2)
    if size == [1, 1] and input.dim() in (3, 4) and input.numel() > 0:  # global pooling is a mean, as in torch
        return input.mean((-2, -1), keepdim=True)
    return _C._adaptive_avg_pool2d(input, size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """The mean over the windows that divide the last three dims into output_size (None keeps a size)."""
    return _C._adaptive_avg_pool3d(input, _adaptive_size(input, output_size, 3))


def _adaptive_max_pool(dims: int, input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """Note [Adaptive max pooling by gathering windows]: output element i of a dim of size n pooled to m covers
    [floor(i n / m), ceil((i + 1) n / m)). Every window is gathered at the size of the longest (its last element
    repeated, which never wins over the first it copies), flattened in row-major order, and reduced: the first
    maximum, or the last NaN when the window holds one (torch's scan), as a flat index into the pooled plane.
    Gradients reach the input through the gather; one composition serves the CPU and CUDA."""
    name = f"adaptive_max_pool{dims}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {input.dim()}D")
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * dims
    if len(sizes) != dims:
        raise ValueError(f"{name}: output_size must be an int or {dims} ints, got {output_size}")
    spatial = list(input.shape[-dims:])
    out = [spatial[i] if s is None else _operator.index(s) for i, s in enumerate(sizes)]
    if any(n <= 0 for n in spatial[:dims]) or any(o <= 0 for o in out):
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions and a "
                           f"positive output_size, but input has sizes {list(input.shape)} and output_size {out}")
    device = input.device
    tables = []
    for n, m in zip(spatial, out):
        bounds = [((i * n) // m, -((-(i + 1) * n) // m)) for i in range(m)]
        longest = max(end - start for start, end in bounds)
        tables.append(_C.tensor([[min(start + j, end - 1) for j in range(longest)] for start, end in bounds],
                                dtype=_C.int64, device=device))
    key: list[Any] = [slice(None)] * (input.dim() - dims)
    flat_index = _C.zeros([1] * (2 * dims), dtype=_C.int64, device=device)
    stride = 1
    for d in reversed(range(dims)):
        view = [1] * (2 * dims)
        view[2 * d], view[2 * d + 1] = tables[d].shape
        flat_index = flat_index + tables[d].view(view) * stride
        stride *= spatial[d]
    for d in range(dims):
        view = [1] * (2 * dims)
        view[2 * d], view[2 * d + 1] = tables[d].shape
        key.append(tables[d].view(view))
    windows = input[tuple(key)]  # lead dims, then (out_1, window_1, out_2, window_2, ...)
    lead = input.dim() - dims
    order = list(range(lead)) + [lead + 2 * d for d in range(dims)] + [lead + 2 * d + 1 for d in range(dims)]
    windows = windows.permute(order)
    windows = windows.reshape(list(windows.shape[:lead + dims]) + [-1])
    flat_index = flat_index.permute([2 * d for d in range(dims)] + [2 * d + 1 for d in range(dims)])
    flat_index = flat_index.reshape(out + [-1])
    flat_index = flat_index.expand(list(windows.shape[:lead]) + list(flat_index.shape))
    return _window_max(windows, flat_index)


def _window_max(windows: Tensor, flat_index: Tensor) -> tuple[Tensor, Tensor]:
    """The maximum over the last dim of gathered windows, and its flat index in the pooled plane: the first maximum,
    or the last NaN when a window holds one (torch's scan keeps `val > max || isnan(val)`)."""
    local = windows.max(-1).indices
    if windows.dtype.is_floating_point:
        nan = windows.isnan()
        if bool(nan.any()):
            width = windows.shape[-1]
            last_nan = (width - 1) - nan.flip([-1]).to(_C.int64).argmax(-1)
            local = _C.where(nan.any(-1), last_nan, local)
    values = windows.gather(-1, local.unsqueeze(-1)).squeeze(-1)
    return values, flat_index.gather(-1, local.unsqueeze(-1)).squeeze(-1)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over the windows that divide the last dim of (N, C, L) or (C, L) into output_size; with
    return_indices, also where each was found (Note [Adaptive max pooling by gathering windows])."""
    values, indices = _adaptive_max_pool(1, input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over the windows that divide the last two dims into output_size (None keeps a size); with
    return_indices, also the flat index (h * W + w) of each in its plane."""
    values, indices = _adaptive_max_pool(2, input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over the windows that divide the last three dims into output_size (None keeps a size); with
    return_indices, also the flat index (d * H * W + h * W + w) of each in its volume."""
    values, indices = _adaptive_max_pool(3, input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max_pool(1, input, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max_pool(2, input, output_size)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max_pool(3, input, output_size)


# ------------------------------------------------------------------------------------------------ normalization

def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Normalizes each channel (dim 1) by the batch's statistics while training, updating running_mean and
    running_var in place, or by the running statistics in evaluation. An empty input gives an empty copy of it (no
    statistics to take; the parameters are not checked), as torch's."""
    if isinstance(input, Tensor) and input.numel() == 0:
        out = input.clone()  # not a view, so the result stays on the graph
        if weight is not None and weight.numel() > 0:
            out = out * weight[0]
        if bias is not None and bias.numel() > 0:
            out = out + bias[0]
        return out
    return _C.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalizes each channel of each sample over its positions: batch_norm of the (1, N * C, ...) view, the
    running statistics (when given) updated with the mean over the batch."""
    if not isinstance(input, Tensor) or input.dim() < 3:
        raise ValueError("instance_norm: expected an input of at least 3 dims (N, C, ...), got "
                         f"{input.dim() if isinstance(input, Tensor) else type(input).__name__}")
    n, c = input.shape[0], input.shape[1]
    folded = input.reshape((1, n * c) + tuple(input.shape[2:]))
    repeat = (lambda t: None if t is None else t.repeat(n))  # noqa: E731
    rm, rv = repeat(running_mean), repeat(running_var)
    out = _C.native_batch_norm(folded, repeat(weight), repeat(bias), rm, rv, use_input_stats, momentum, eps)[0]
    if use_input_stats:
        from .. import no_grad

        with no_grad():
            if running_mean is not None and rm is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None and rv is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(input.shape)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalizes each of num_groups groups of channels of each sample, then weight and bias per channel."""
    if not isinstance(input, Tensor) or input.dim() < 2:
        raise RuntimeError("group_norm: Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim() if isinstance(input, Tensor) else type(input).__name__}")
    n, c = input.shape[0], input.shape[1]
    hxw = 1
    for s in input.shape[2:]:
        hxw *= s
    return _C.native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


# ------------------------------------------------------------------------------------------------ padding

_pad_constant = _C._nn_functional.pad


def pad(input: Tensor, pad: Any, mode: str = "constant",  # type: ignore[no-redef]
        value: float | None = None) -> Tensor:
    """Pads the last len(pad) / 2 dims, pad = (left, right, top, bottom, ...) from the last dim backwards: with
    `value` (mode 'constant', where negative pads crop), by reflection ('reflect'), by repeating the edge
    ('replicate') or by wrapping around ('circular')."""
    if mode == "constant":
        return _pad_constant(input, pad, mode, value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: Unrecognised padding mode {mode} (use 'constant', 'reflect', 'replicate' "
                                  "or 'circular')")
    if value is not None and value != 0:
        raise RuntimeError(f'pad: Padding mode "{mode}" doesn\'t take in value argument')
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' must be Tensor, not {type(input).__name__}")
    pads = [_operator.index(p) for p in pad]
    if len(pads) % 2:
        raise RuntimeError(f"pad: Padding length must be divisible by 2, but got {len(pads)}")
    dims = len(pads) // 2
    if mode == "circular":
        if dims > input.dim():
            raise RuntimeError("pad: Padding length should be less than or equal to two times the input dimension "
                               f"but got padding length {len(pads)} and input of dimension {input.dim()}")
        return _C._pad_circular(input, pads)
    if dims not in (1, 2, 3) or input.dim() not in (dims + 1, dims + 2):
        raise NotImplementedError(f"pad: Padding size {len(pads)} is not supported for {input.dim()}D input tensor "
                                  f"in mode '{mode}': a {2 * dims}-value padding takes a {dims + 1}D or {dims + 2}D "
                                  "input")
    op = getattr(_C, f"{'reflection' if mode == 'reflect' else 'replication'}_pad{dims}d")
    return op(input, pads)


# ------------------------------------------------------------------------------------------------ resampling

def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resizes the spatial dims of (N, C, *spatial) to `size`, or by `scale_factor`, with mode 'nearest',
    'nearest-exact', 'linear' (3-D input), 'bilinear' (4-D), 'bicubic' (4-D), 'trilinear' (5-D) or 'area'
    (adaptive average pooling), as torch; antialias=True (bilinear and bicubic) filters as Pillow does when
    shrinking."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}")
    dims = input.dim() - 2
    if dims not in (1, 2, 3):
        raise NotImplementedError(f"interpolate: input of {input.dim()} dims is not supported (3-D, 4-D or 5-D)")
    if align_corners is not None and mode not in ("linear", "bilinear", "bicubic", "trilinear"):
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and not (mode in ("bilinear", "bicubic") and dims == 2):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
                         "as input")
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None
                         else "only one of size or scale_factor should be defined")
    image = list(input.shape)[2:]
    if size is not None:
        sizes = _ntuple(size, dims, "size")
        scales: list[float | None] = [None] * dims
    else:
        factors = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * dims
        if len(factors) != dims:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {image} and scale_factor of shape {list(factors)}")
        sizes = [int(_math.floor(float(n) * float(f))) for n, f in zip(image, factors)]
        scales = [None] * dims if recompute_scale_factor else [float(f) for f in factors]
    if mode == "nearest":
        nearest: Any = [_C.upsample_nearest1d, _C.upsample_nearest2d, _C.upsample_nearest3d][dims - 1]
        return nearest(input, sizes, *scales)
    if mode == "nearest-exact":
        if dims == 1:
            return _C._upsample_nearest_exact2d(input.unsqueeze(-2), [1] + sizes, None, scales[0]).squeeze(-2)
        if dims == 2:
            return _C._upsample_nearest_exact2d(input, sizes, *scales)
        # 3 dims: nearest is separable: (H, W) first, then D against the flattened (H', W') left as it is
        n, c, d, h, w = input.shape
        x = _C._upsample_nearest_exact2d(input.reshape(n, c * d, h, w), sizes[1:], scales[1], scales[2])
        x = _C._upsample_nearest_exact2d(x.reshape(n, c, d, sizes[1] * sizes[2]), [sizes[0], sizes[1] * sizes[2]],
                                         scales[0], None)
        return x.reshape(n, c, *sizes)
    linear = {"linear": 1, "bilinear": 2, "trilinear": 3}
    if mode in linear:
        if linear[mode] != dims:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {linear[mode] + 2}D input")
        op: Any = [_C.upsample_linear1d, _C.upsample_bilinear2d, _C.upsample_trilinear3d][dims - 1]
        if antialias:
            op = _C._upsample_bilinear2d_aa
        return op(input, sizes, bool(align_corners), *scales)
    if mode == "bicubic":
        if dims != 2:
            raise NotImplementedError(f"Got {input.dim()}D input, but bicubic mode needs 4D input")
        return (_C._upsample_bicubic2d_aa if antialias else _C.upsample_bicubic2d)(input, sizes, bool(align_corners),
                                                                                   *scales)
    if mode == "area":
        return [adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d][dims - 1](input, sizes)
    raise NotImplementedError(f"interpolate: mode '{mode}' is not supported (nearest, nearest-exact, linear, "
                              "bilinear, bicubic, trilinear, area)")


# ------------------------------------------------------------------------------------------------ distances

def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between every pair of rows i < j of (N, M), in row-major order."""
    return _C._pdist_forward(input, p)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
          ) -> Tensor:
    """The p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R). As torch: for p = 2
    with more than 25 rows on a side (or compute_mode="use_mm_for_euclid_dist"), through one product,
    sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0)); otherwise from the differences (256 x 64 rows against 256: 12x torch's time
    that way)."""
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if (p == 2 and isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dim() >= 2 and x2.dim() >= 2
            and x1.shape[-1] == x2.shape[-1] and x1.dtype == x2.dtype and x1.dtype.is_floating_point
            and (compute_mode == modes[1] or (compute_mode == modes[0] and (x1.shape[-2] > 25 or x2.shape[-2] > 25)))):
        return _euclidean_dist(x1, x2)
    return _C._cdist_forward(x1, x2, p, None)


def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """torch's _euclidean_dist: [-2 a, |a|^2, 1] . [b, 1, |b|^2] for every pair of rows, clamped at 0, square root."""
    x1_norm = x1.pow(2).sum(-1, keepdim=True)
    x2_norm = x2.pow(2).sum(-1, keepdim=True)
    x1_ = _C.cat([x1 * -2, x1_norm, _C.ones_like(x1_norm)], -1)
    x2_ = _C.cat([x2, _C.ones_like(x2_norm), x2_norm], -1)
    return x1_.matmul(x2_.mT).clamp_min_(0).sqrt_()


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Samples the (N, C, H, W) input at the grid's (x, y) points in [-1, 1], (N, H_out, W_out, 2), by bilinear
    interpolation, the nearest pixel or bicubic convolution; points outside read zeros, the border, or a
    reflection. A 5-D input (N, C, D, H, W) is sampled at (x, y, z) points, (N, D_out, H_out, W_out, 3), trilinearly
    ('bilinear') or at the nearest voxel."""
    modes = {"bilinear": 0, "nearest": 1, "bicubic": 2}
    paddings = {"zeros": 0, "border": 1, "reflection": 2}
    if mode not in modes:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in paddings:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if isinstance(input, Tensor) and input.dim() == 5:
        if mode == "bicubic":
            raise ValueError("nn.functional.grid_sample(): bicubic interpolation only supports 4D input")
        return _C.grid_sampler_3d(input, grid, modes[mode], paddings[padding_mode], bool(align_corners))
    return _C.grid_sampler_2d(input, grid, modes[mode], paddings[padding_mode], bool(align_corners))


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The (N, H, W, 2) sampling grid of the affine maps theta (N, 2, 3) over an image of size (N, C, H, W)."""
    if not isinstance(theta, Tensor) or theta.dim() != 3 or tuple(theta.shape[1:]) != (2, 3):
        raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                         f"{list(size)}. Got {list(theta.shape) if isinstance(theta, Tensor) else theta}.")
    n, _, h, w = (int(s) for s in size)

    def axis(steps: int) -> Tensor:
        if steps <= 1:
            return _C.zeros([steps], dtype=theta.dtype, device=theta.device)
        line = _C.linspace(-1.0, 1.0, steps, dtype=theta.dtype, device=theta.device)
        return line if align_corners else line * ((steps - 1) / steps)

    ys, xs = axis(h), axis(w)
    base = _C.stack([xs.reshape(1, w).expand(h, w), ys.reshape(h, 1).expand(h, w),
                     _C.ones([h, w], dtype=theta.dtype, device=theta.device)], -1)  # (H, W, 3)
    return (base.reshape(1, h * w, 3) @ theta.transpose(1, 2)).reshape(n, h, w, 2)


# ---------------------------------------------------------------------- the rest of torch.nn.functional's names
# Compositions of yaten's ops, as torch writes these in Python (torch/nn/functional.py): autograd, devices and dtypes
# follow from the ops they call.

def _reduce(loss: Tensor, reduction: str, op: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{op}: {reduction} is not a valid value for reduction")


def _check_tensor(value: Any, op: str, name: str = "input") -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """softmax(-x) along dim."""
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1  # torch's legacy choice of dim
    return _C.softmax(-input, dim, dtype=dtype)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without the overflow of exp(-x)."""
    _check_tensor(input, "logsigmoid")
    return -_C._nn_functional.softplus(-input)


def _check_lambd(lambd: Any, op: str) -> float:
    lambd = float(lambd)
    if lambd < 0:
        raise RuntimeError(f"{op}: lambda must be greater or equal to 0, but found to be {lambd}.")
    return lambd


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # type: ignore[no-redef]
    """x where |x| > lambd, else 0."""
    _check_tensor(input, "hardshrink")
    return _hardshrink(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # type: ignore[no-redef]
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    _check_tensor(input, "softshrink")
    return _softshrink(input, _check_lambd(lambd, "softshrink"))


def threshold(input: Tensor, threshold: float, value: float,  # type: ignore[no-redef]
              inplace: bool = False) -> Tensor:
    """x where x > threshold, else value."""
    _check_tensor(input, "threshold")
    return input.threshold_(threshold, value) if inplace else _threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return globals()["threshold"](input, threshold, value, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""
    _check_tensor(input, "celu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu's alpha must not be 0")
    # elu with input_scale 1/alpha, as torch computes celu: one pass, and elu's gradient
    return input.elu_(alpha, 1.0, 1.0 / alpha) if inplace else _elu(input, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def relu_(input: Tensor) -> Tensor:
    return _inplace(input, "relu_")()


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _inplace(input, "elu_")(alpha)


def selu_(input: Tensor) -> Tensor:
    return _inplace(input, "selu_")()


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _inplace(input, "leaky_relu_")(negative_slope)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _inplace(input, "hardtanh_")(min_val, max_val)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: while training, each negative element is scaled by a slope drawn uniformly from
    [lower, upper]; otherwise by their mean."""
    _check_tensor(input, "rrelu")
    if not training:  # leaky_relu with the mean slope, as torch
        slope = (lower + upper) / 2
        return _inplace(input, "leaky_relu_")(slope) if inplace else _leaky_relu(input, slope)
    with _no_grad():  # the slope of each element: a constant for autograd (the derivative where x != 0)
        slopes = _C.empty_like(input).uniform_(lower, upper)
        factor = _C.where(input >= 0, _C.ones_like(input), slopes)
    return input.mul_(factor) if inplace else input * factor


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit a * sigmoid(b), a and b the two halves of input along dim."""
    _check_tensor(input, "glu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    a, b = input.chunk(2, dim)
    return _C._glu_halves(a, b)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x >= 0, else weight * x, weight of one element or one per channel (dim 1)."""
    _check_tensor(input, "prelu")
    _check_tensor(weight, "prelu", "weight")
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if weight.numel() == 1:
        weight = weight.reshape(())  # the result keeps input's shape, a 0-dim input's too
    elif input.dim() >= 2:
        weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _C.where(input >= 0, input, weight * input)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p along dim, eps)."""
    _check_tensor(input, "normalize")
    denom = _C._linalg.vector_norm(input, p, dim, True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _C.div(input, denom, out=out)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(||x1||, eps) max(||x2||, eps)) along dim, x1 and x2 broadcast together."""
    _check_tensor(x1, "cosine_similarity", "x1")
    _check_tensor(x2, "cosine_similarity", "x2")
    x1, x2 = _C.broadcast_tensors([x1, x2])
    n1 = _C._linalg.vector_norm(x1, 2, dim, True).clamp_min(eps)
    n2 = _C._linalg.vector_norm(x2, 2, dim, True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim."""
    _check_tensor(x1, "pairwise_distance", "x1")
    _check_tensor(x2, "pairwise_distance", "x2")
    dim = max(x1.dim(), x2.dim(), 1) - 1
    return _C._linalg.vector_norm(x1 - x2 + eps, p, dim, keepdim)


def _shuffle_factor(input: Tensor, factor: int, op: str, name: str) -> tuple[int, list[int], int, int, int]:
    """pixel_(un)shuffle's checks: the factor, and input's leading dims, channels, height and width."""
    _check_tensor(input, op)
    r = int(factor)
    if input.dim() < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with {input.dim()} "
                           "dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {r}")
    *lead, c, h, w = input.shape
    return r, lead, c, h, w


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r, lead, c, h, w = _shuffle_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r, lead, c, h, w = _shuffle_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but got "
                           f"height={h}, width={w}, downscale_factor={r}")
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with the C channels dealt out of `groups` groups in turn: (N, g, C/g, *) transposed."""
    _check_tensor(input, "channel_shuffle")
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    n, c, *rest = input.shape
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {g} groups.")
    return input.reshape(n, g, c // g, *rest).transpose(1, 2).reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


# losses

def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """max(0, -target (input1 - input2) + margin)."""
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _reduce(loss, reduction, "margin_ranking_loss")


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1."""
    zeros = _C.zeros_like(input)
    margin_part = _C.where(target != 1, (margin - input).clamp_min(0), zeros)
    self_part = _C.where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction, "hinge_embedding_loss")


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target input))."""
    if isinstance(target, Tensor) and target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    return _reduce(_C._nn_functional.softplus(-target * input), reduction, "soft_margin_loss")


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """-(target log sigmoid(input) + (1 - target) log sigmoid(-input)), averaged over the classes (the last dim)."""
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.dim() - 1) / input.shape[-1]
    return _reduce(loss, reduction, "multilabel_soft_margin_loss")


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1 (cos along the last dim)."""
    dim = input1.dim() - 1
    eps = 1e-12  # torch's EPSILON
    dot = (input1 * input2).sum(dim)
    mag = ((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)
    cos = dot / mag.sqrt()
    zeros = _C.zeros_like(cos)
    pos = _C.where(target == 1, 1 - cos, zeros)
    neg = _C.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(pos + neg, reduction, "cosine_embedding_loss")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise p-norm distance (swap: the
    smaller of d(anchor, negative) and d(positive, negative))."""
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction, "triplet_margin_loss")


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with any distance (pairwise_distance by default)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction, "triplet_margin_with_distance_loss")


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None, reduction: str = "mean"
                     ) -> Tensor:
    """exp(input) - target input (log_input), or input - target log(input + eps); full adds Stirling's
    approximation of log(target!) where target > 1."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * _math.pi * target).log()
        loss = loss + _C.where(target > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """(log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 with full); var of input's
    shape, or one less dim, or with a last dim of 1 (homoscedastic), or a number."""
    if not isinstance(var, Tensor):
        var = _C.full_like(input, float(var))
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * _math.log(2 * _math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


# pooling

def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = True) -> Any:
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _lp_pool(dims: int, input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool) -> Tensor:
    k = _ntuple(kernel_size, dims, f"lp_pool{dims}d")
    pool = [avg_pool1d, avg_pool2d, avg_pool3d][dims - 1]
    out = pool(input.pow(norm_type), k, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(_math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
              ) -> Tensor:
    """(sum of x^p over each window)^(1/p) along the last dim."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
              ) -> Tensor:
    """(sum of x^p over each window)^(1/p) over the last two dims."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
              ) -> Tensor:
    """(sum of x^p over each window)^(1/p) over the last three dims."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
                        ) -> Tensor:
    """input / (k + alpha / size * sum of input^2 over `size` neighbouring channels)^beta."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = (input * input).unsqueeze(1)
    if dim == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.reshape(sizes)
    div = (div * alpha + k).pow(beta)
    return input / div


# dropout over whole channels

def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, dims: int, op: str) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    legacy = dims == 2 and input.dim() == 3  # torch's dropout2d treats (N, C, L) as batched, with a warning
    if legacy:
        import warnings
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=3)
    elif input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{op}: Expected {dims + 1}D or {dims + 2}D input, but received a {input.dim()}D input")
    if not training or p == 0:
        return input
    batched = legacy or input.dim() == dims + 2
    lead = list(input.shape[:2]) if batched else list(input.shape[:1])
    mask_shape = lead + [1] * (input.dim() - len(lead))
    if p == 1:
        mask = _C.zeros(mask_shape, dtype=input.dtype, device=input.device)
    else:
        mask = _C.empty(mask_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p) / (1 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, L) or (C, L) with probability p while training, scaling the rest."""
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) with probability p while training, scaling the rest."""
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p while training."""
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d")


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution: softmax((logits + g) / tau) with g standard Gumbel noise; with
    hard, the one-hot of its argmax, differentiable as the soft sample (straight-through)."""
    uniform = _C.empty_like(logits).uniform_(0.0, 1.0)
    gumbels = -(-(uniform.clamp_min(eps)).log()).log()  # -log(Exp(1)) with Exp(1) = -log(U)
    y_soft = _C.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """interpolate, under its older name."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# the SELU-preserving dropouts: dropped elements take SELU's negative saturation value, and an affine map keeps
# the mean and variance (alpha = SELU's alpha * scale)
_ALPHA_DROPOUT = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool, op: str) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = (list(input.shape[:2]) + [1] * (input.dim() - 2)) if feature else list(input.shape)
    if feature and input.dim() < 2:
        raise RuntimeError(f"{op}: Feature dropout requires at least 2 dimensions in the input")
    keep = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    a = 1.0 / _math.sqrt((_ALPHA_DROPOUT * _ALPHA_DROPOUT * p + 1) * (1 - p))
    shift = (keep - 1) * (_ALPHA_DROPOUT * a) + _ALPHA_DROPOUT * a * p
    scale = keep * a
    return input.mul_(scale).add_(shift) if inplace else input * scale + shift


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements set to SELU's saturation, then an affine map that keeps the
    input's mean and variance."""
    return _alpha_dropout(input, p, training, inplace, False, "alpha_dropout")


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels (dim 1)."""
    return _alpha_dropout(input, p, training, inplace, True, "feature_alpha_dropout")


def _max_unpool(dims: int, input: Tensor, indices: Tensor, kernel_size: Any, stride: Any, padding: Any,
                output_size: Any) -> Tensor:
    op = f"max_unpool{dims}d"
    k = _ntuple(kernel_size, dims, op)
    s = _ntuple(stride if stride is not None else kernel_size, dims, op)
    p = _ntuple(padding, dims, op)
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{op}: expected a {dims + 1}D or {dims + 2}D input, got {input.dim()}D")
    spatial = list(input.shape[-dims:])
    default = [(spatial[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(dims)]
    if output_size is None:
        size = default
    else:
        size = [int(v) for v in output_size][-dims:]
        if len(size) != dims:
            raise ValueError(f"output_size must have {dims} or {dims + 2} elements (got {len(list(output_size))})")
        for i in range(dims):
            low, high = default[i] - s[i], default[i] + s[i]
            if not low < size[i] < high:
                raise ValueError(f"invalid output_size {size} (dim {i} must be between {low} and {high})")
    lead = list(input.shape[:-dims])
    flat_in = input.reshape(*lead, -1)
    flat_idx = indices.reshape(*lead, -1)
    out = _C.zeros(lead + [_math.prod(size)], dtype=input.dtype, device=input.device)
    return out.scatter(len(lead), flat_idx, flat_in).reshape(*lead, *size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of max_pool1d: each value put back where `indices` says it came from, zeros elsewhere."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of max_pool2d: each value put back where `indices` says it came from, zeros elsewhere."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The inverse of max_pool3d: each value put back where `indices` says it came from, zeros elsewhere."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss: sum over classes i != y of max(0, margin - x[y] + x[i])^p (weighted by
    weight[y]), divided by the number of classes."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    y = target.reshape(-1, 1)
    if x.shape[0] != y.shape[0]:
        raise RuntimeError(f"multi_margin_loss: inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    terms = (margin - x.gather(1, y) + x).clamp_min(0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight.gather(0, y.reshape(-1)).reshape(-1, 1)
    terms = terms.scatter(1, y, 0.0)  # not the target class itself
    loss = terms.sum(1) / x.shape[1]
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction, "multi_margin_loss")


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: for each sample, the target classes are target's entries up to the first -1;
    sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])), divided by the number of classes."""
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(x.shape)
    valid = (t >= 0).long().cumprod(1).bool()  # the entries before the first -1
    listed = _C.where(valid, t, _C.zeros_like(t))
    is_target = _C.zeros(list(x.shape), dtype=x.dtype, device=x.device).scatter_add(1, listed, valid.to(x.dtype)) > 0
    xj = x.gather(1, listed)  # (N, K): the listed classes' scores
    pairs = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # (N, K, C)
    mask = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = (pairs * mask.to(x.dtype)).sum((1, 2)) / x.shape[1]
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction, "multilabel_margin_loss")


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-D convolution of a (time, batch, channels) sequence with a (kernel, in, out) weight."""
    if input.dim() != 3 or weight.dim() != 3 or bias.dim() != 1:
        raise RuntimeError("conv_tbc: input must have 3 dims, weight 3 and bias 1")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...), input (N, in) or (in,), linear_weight
    (classes, *out_features, in): a K-dimensional loss over the classes at each out_features position. torch's
    chunking `options` only change how its memory is spent, so yaten accepts and ignores them."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batches, in_features = list(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{in_features} and {linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], list(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = [*batches, classes, *out_features]
    if list(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    rows = _math.prod(out_features, start=classes)
    logits = linear(input, linear_weight.reshape(rows, in_features),
                    linear_bias.reshape(rows) if linear_bias is not None else None).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)


# ------------------------------------------------------------------------------------------------ CTC
def _safe_logsumexp(a: Tensor, b: Tensor, c: Tensor | None = None) -> Tensor:
    """log(e^a + e^b [+ e^c]) elementwise, -inf where all are -inf, with gradients that stay finite there (the
    all -inf entries are computed on zeros and then replaced, so no inf - inf reaches the backward)."""
    parts = [a, b] if c is None else [a, b, c]
    m = parts[0]
    for p in parts[1:]:
        m = _C.maximum(m, p)
    empty = _C.isinf(m) & (m < 0)
    m = _C.where(empty, _C.zeros_like(m), m).detach()
    total = _C.zeros_like(m)
    for p in parts:
        total = total + _C.exp(_C.where(empty, _C.zeros_like(p), p) - m)
    return _C.where(empty, _C.full_like(m, float("-inf")), _C.log(total) + m)


# Note [CTC as a log-space recurrence]: alpha_t(s), the log-probability of emitting the first s extended labels by
# step t, is logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1), and alpha_{t-1}(s - 2) where label s is not blank and
# differs from label s - 2) + log_probs[t, label s], for every sample of the batch at once; a sample whose input has
# ended keeps its alpha. The loss is -logsumexp of the last two states at its last step. Autograd differentiates the
# recurrence (the backward is the beta recursion in disguise), so one composition runs on the CPU and CUDA.
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The connectionist temporal classification loss: -log of the total probability of every alignment of each
    target (N, S padded, or the targets concatenated) to log_probs (T, N, C) (or (T, C) unbatched), blank between
    and around labels (Note [CTC as a log-space recurrence]). 'mean' divides each loss by its target length and
    averages; zero_infinity gives 0 (and a zero gradient) where no alignment fits."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be 2-D or 3-D (T, N, C), got {log_probs.dim()}-D")
    if not log_probs.dtype.is_floating_point:
        raise RuntimeError(f"ctc_loss: log_probs must be a floating point tensor, got {log_probs.dtype}")
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("ctc_loss: blank must be in label range")
    lengths_in = [int(n) for n in (input_lengths.reshape(-1).tolist() if isinstance(input_lengths, Tensor)
                                   else ([input_lengths] if isinstance(input_lengths, int) else input_lengths))]
    lengths_out = [int(n) for n in (target_lengths.reshape(-1).tolist() if isinstance(target_lengths, Tensor)
                                    else ([target_lengths] if isinstance(target_lengths, int) else target_lengths))]
    if len(lengths_in) != batch or len(lengths_out) != batch:
        raise RuntimeError(f"ctc_loss: input_lengths and target_lengths must have {batch} entries, got "
                           f"{len(lengths_in)} and {len(lengths_out)}")
    if any(not 0 <= n <= steps for n in lengths_in):
        raise RuntimeError(f"ctc_loss: Expected input_lengths to have value at most {steps}, but got "
                           f"{max(lengths_in)}")
    if any(n < 0 for n in lengths_out):
        raise RuntimeError("ctc_loss: target_lengths must be non-negative")
    longest = max(lengths_out, default=0)
    device = log_probs.device
    if targets.dim() == 1:  # concatenated
        if targets.shape[0] < sum(lengths_out):
            raise RuntimeError(f"ctc_loss: Expected tensor to have size at least {sum(lengths_out)} at dimension 0, "
                               f"but got size {targets.shape[0]} for argument #2 'targets'")
        rows, start = [], 0
        flat = targets.to(_C.int64)
        for n in lengths_out:
            row = flat[start:start + n]
            rows.append(_C.cat([row, _C.zeros([longest - n], dtype=_C.int64, device=device)]))
            start += n
        padded = _C.stack(rows, 0) if rows else _C.zeros([0, longest], dtype=_C.int64, device=device)
    else:
        if targets.dim() != 2 or targets.shape[0] != batch or targets.shape[1] < longest:
            raise RuntimeError(f"ctc_loss: Expected targets of shape (N={batch}, S >= {longest}), got "
                               f"{list(targets.shape)}")
        padded = targets[:, :longest].to(_C.int64)
    width = 2 * longest + 1
    # the extended labels: blank, l1, blank, l2, ..., blank
    ext = _C.full([batch, width], blank, dtype=_C.int64, device=device)
    if longest:
        ext[:, 1::2] = padded
    positions = _C.arange(width, device=device).view([1, -1])
    label_len = _C.tensor(lengths_out, dtype=_C.int64, device=device).view([-1, 1])
    valid = positions < 2 * label_len + 1
    skip = _C.zeros([batch, width], dtype=_C.bool, device=device)
    if width > 2:
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    lp = log_probs.gather(2, ext.unsqueeze(0).expand([steps, batch, width]))  # (T, N, width)
    minus_inf = float("-inf")
    none = _C.full([batch, width], minus_inf, dtype=log_probs.dtype, device=device)
    starts = positions < 2
    alpha = _C.where(starts & valid, lp[0], none) if steps else none
    time_left = _C.tensor(lengths_in, dtype=_C.int64, device=device).view([-1, 1])
    pad1 = _C.full([batch, 1], minus_inf, dtype=log_probs.dtype, device=device)
    pad2 = _C.full([batch, 2], minus_inf, dtype=log_probs.dtype, device=device)
    for t in range(1, max(lengths_in, default=0)):
        from_one = _C.cat([pad1, alpha[:, :-1]], 1)
        from_two = _C.where(skip, _C.cat([pad2, alpha[:, :-2]], 1), none) if width > 2 else none
        step = _safe_logsumexp(alpha, from_one, from_two) + lp[t]
        step = _C.where(valid, step, none)
        alpha = _C.where(t < time_left, step, alpha)
    last = (2 * label_len).clamp(max=width - 1)
    end_blank = alpha.gather(1, last)
    end_label = _C.where(label_len > 0, alpha.gather(1, (last - 1).clamp(min=0)), none[:, :1])
    nll = -_safe_logsumexp(end_blank, end_label).view([-1])
    nll = _C.where(time_left.view([-1]) == 0, _C.where(label_len.view([-1]) == 0, _C.zeros_like(nll),
                                                             _C.full_like(nll, float("inf"))), nll)
    # torch's gradient with respect to log_probs is exp(log_probs) minus the alignments' posterior over the first
    # input_length steps (the gradient with respect to logits fed through log_softmax); adding e - e.detach(),
    # which is exactly 0, gives the same gradient without changing the value
    e = _C.exp(log_probs)
    in_time = (_C.arange(steps, device=device).view([-1, 1]) < time_left.view([1, -1])).unsqueeze(-1)
    extra = _C.where(in_time, e - e.detach(), _C.zeros_like(e)).sum([0, 2])
    loss = nll + extra
    if zero_infinity:
        loss = _C.where(_C.isinf(nll), _C.zeros_like(loss), loss)
    if reduction == "mean":
        divisor = label_len.view([-1]).clamp(min=1).to(loss.dtype)
        return (loss / divisor).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss


# ------------------------------------------------------------------------------------------------ multi-head attention
def _additive_mask(mask: Tensor | None, dtype: Any, name: str) -> Tensor | None:
    """A boolean mask (True = may not attend) as -inf where True; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype == _C.bool:
        return _C.zeros(list(mask.shape), dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask.to(dtype)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
                                 bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
                                 static_v: Tensor | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """torch's functional multi-head attention over (L, N, E) inputs (or unbatched (L, E)): the input projections
    (packed in_proj_weight, or q/k/v_proj_weight), bias_k/bias_v appended to the keys and values, static_k/static_v
    in their place, a zero key and value with add_zero_attn, the attention and key-padding masks (bool: True may not
    attend; float: added), dropout on the weights while training, the output projection. Returns the output and,
    with need_weights, the weights (averaged over heads unless average_attn_weights=False)."""
    unbatched = query.dim() == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    elif query.dim() != 3:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             f"query tensor")
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                                 "v_proj_weight is None")
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
        wq, wk, wv = in_proj_weight.chunk(3)
    bq, bk, bv = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    q = linear(query, wq, bq)
    k = linear(key, wk, bk)
    v = linear(value, wv, bv)
    mask = _additive_mask(attn_mask, q.dtype, "attn_mask")
    if mask is not None:
        src_len = key.shape[0]
        if mask.dim() == 2:
            if tuple(mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            mask = mask.unsqueeze(0)
        elif mask.dim() == 3:
            if tuple(mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {mask.dim()} is not supported")
    padding = _additive_mask(key_padding_mask, q.dtype, "key_padding_mask")

    def one_more_key(m: Tensor | None) -> Tensor | None:  # a column of zeros (attend) for an appended key
        return None if m is None else pad(m, [0, 1])

    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must be given together")
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key or value.")
        k = _C.cat([k, bias_k.expand([1, bsz, bias_k.shape[-1]])])
        v = _C.cat([v, bias_v.expand([1, bsz, bias_v.shape[-1]])])
        mask, padding = one_more_key(mask), one_more_key(padding)

    def heads(t: Tensor) -> Tensor:  # (S, N, E) -> (N * H, S, d)
        return t.reshape(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)

    q = heads(q)
    for name, static in (("static_k", static_k), ("static_v", static_v)):
        if static is not None and (static.shape[0] != bsz * num_heads or static.shape[2] != head_dim):
            raise AssertionError(f"expecting {name} of shape ({bsz * num_heads}, S, {head_dim}), got "
                                 f"{list(static.shape)}")
    k = heads(k) if static_k is None else static_k
    v = heads(v) if static_v is None else static_v
    if add_zero_attn:
        zeros = _C.zeros([bsz * num_heads, 1, head_dim], dtype=k.dtype, device=k.device)
        k = _C.cat([k, zeros], 1)
        v = _C.cat([v, zeros.to(v.dtype)], 1)
        mask, padding = one_more_key(mask), one_more_key(padding)
    src_len = k.shape[1]
    if padding is not None:
        if tuple(padding.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(padding.shape)}")
        padding = padding.reshape(bsz, 1, 1, src_len).expand([bsz, num_heads, 1, src_len]).reshape(
            bsz * num_heads, 1, src_len)
        mask = padding if mask is None else mask + padding
    scores = _C.matmul(q * (1.0 / _math.sqrt(head_dim)), k.transpose(-2, -1))
    if mask is not None:
        scores = scores + mask
    weights = softmax(scores, -1)
    if dropout_p > 0.0 and training:
        weights = dropout(weights, dropout_p, True)
    out = _C.matmul(weights, v)  # (N * H, L, d)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if unbatched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    if unbatched:
        weights = weights.squeeze(0)
    return out, weights


# ------------------------------------------------------------------------------------------------ fractional max pool
def _fractional_starts(sample: Tensor, size: int, out: int, kernel: int) -> Tensor:
    """Each window's start along one dim for each plane's sample u in [0, 1): floor((i + u) alpha) - floor(u alpha)
    with alpha = (size - kernel) / (out - 1), the last window ending at the edge (Graham's pseudo-random pooling
    sequence, computed in the input's dtype as torch does)."""
    if out == 1:
        return _C.full(list(sample.shape) + [1], size - kernel, dtype=_C.int64, device=sample.device)
    alpha = _C.full([], size - kernel, dtype=sample.dtype, device=sample.device) / (out - 1)
    steps = _C.arange(out - 1, dtype=sample.dtype, device=sample.device)
    starts = (((steps + sample.unsqueeze(-1)) * alpha).trunc() - (sample * alpha).trunc().unsqueeze(-1)).to(_C.int64)
    last = _C.full(list(sample.shape) + [1], size - kernel, dtype=_C.int64, device=sample.device)
    return _C.cat([starts, last], -1)


def _fractional_max_pool(dims: int, input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any,
                         random_samples: Tensor | None) -> tuple[Tensor, Tensor]:
    name = f"fractional_max_pool{dims}d"
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {input.dim()}D")
    kernel = list(kernel_size) if isinstance(kernel_size, (list, tuple)) else [kernel_size] * dims
    spatial = list(input.shape[-dims:])
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
        ratios = list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * dims
        out = [int(n * r) for n, r in zip(spatial, ratios)]
    else:
        out = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * dims
    if len(kernel) != dims or len(out) != dims:
        raise ValueError(f"{name}: kernel_size and output_size must be an int or {dims} ints")
    for n, o, k in zip(spatial, out, kernel):
        if k <= 0 or o <= 0 or o + k - 1 >= n:
            raise RuntimeError(f"{name}(): pool size {k} and output size {o} are too large for input size {n} "
                               f"(output_size + kernel_size - 1 must be smaller, as torch requires)")
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    batch, channels = x.shape[0], x.shape[1]
    if random_samples is None:
        random_samples = _C.rand([batch, channels, dims], dtype=input.dtype, device=input.device)
    if tuple(random_samples.shape) != (batch, channels, dims):
        raise RuntimeError(f"{name}(): expected _random_samples of shape {[batch, channels, dims]}, got "
                           f"{list(random_samples.shape)}")
    # which of a plane's samples places which dim, as torch reads them: (width, height) in 2-D, (time, height,
    # width) in 3-D
    tables = []
    for d in range(dims):
        u = random_samples[..., dims - 1 - d if dims == 2 else d]
        starts = _fractional_starts(u, spatial[d], out[d], kernel[d])  # (N, C, out)
        offsets = _C.arange(kernel[d], device=input.device)
        tables.append(starts.unsqueeze(-1) + offsets)  # (N, C, out, kernel)
    windows = x
    for d in range(dims):
        index = tables[d].reshape(batch, channels, -1)
        view = [batch, channels] + [1] * dims
        view[2 + d] = index.shape[-1]
        target = list(windows.shape)
        target[2 + d] = index.shape[-1]
        windows = windows.gather(2 + d, index.reshape(view).expand(target))
    pairs = []
    for d in range(dims):
        pairs += [out[d], kernel[d]]
    windows = windows.reshape([batch, channels] + pairs)
    order = [0, 1] + [2 + 2 * d for d in range(dims)] + [3 + 2 * d for d in range(dims)]
    windows = windows.permute(order).reshape([batch, channels] + out + [-1])
    flat = _C.zeros([batch, channels] + [1] * (2 * dims), dtype=_C.int64, device=input.device)
    stride = 1
    for d in reversed(range(dims)):
        view = [batch, channels] + [1] * (2 * dims)
        view[2 + 2 * d], view[3 + 2 * d] = out[d], kernel[d]
        flat = flat + tables[d].reshape(view) * stride
        stride *= spatial[d]
    flat = flat.permute(order).reshape([batch, channels] + out + [-1])
    values, indices = _window_max(windows, flat)
    return (values, indices) if batched else (values.squeeze(0), indices.squeeze(0))


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """Max pooling over windows of kernel_size placed pseudo-randomly (a sample per plane) so that the output has
    output_size (or output_ratio of the input's size); Graham, "Fractional max-pooling" (2014)."""
    values, indices = _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """fractional_max_pool2d over the last three dims."""
    values, indices = _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def grouped_mm(mat_a: Tensor, mat_b: Tensor, *, offs: Tensor | None = None, bias: Tensor | None = None,
               out_dtype: Any = None) -> Tensor:
    """torch's grouped_mm (Mixture-of-Experts GEMMs): per-group products of jagged slices. 2D a (M, K) with 3D b (G, K,
    N): rows offs[i-1]:offs[i] of a times b[i], giving (M, N); 3D a (G, M, K) with 2D b (K, N): a[i] times columns
    offs[i-1]:offs[i] of b, giving (M, N); 2D with 2D: a[:, s:e] @ b[s:e] per group, giving (G, M, N); 3D with 3D: the
    batched product (offs None). offs: int32 group ends. Rows or columns past offs[-1] are zero (torch leaves them
    uninitialized). A composite of matmuls over the groups' slices, so it differentiates; torch's CPU errors."""
    if mat_a.dim() not in (2, 3) or mat_b.dim() not in (2, 3):
        raise RuntimeError(f"grouped_mm: mat_a and mat_b have to be 2 or 3d, got {mat_a.dim()}d and {mat_b.dim()}d")
    if mat_a.dtype != mat_b.dtype:
        raise RuntimeError(f"grouped_mm: mat_a and mat_b must have the same dtype, got {mat_a.dtype} and "
                           f"{mat_b.dtype}")
    if (offs is not None) == (mat_a.dim() == 3 and mat_b.dim() == 3):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None and offs.dtype != _C.int32:
        raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if mat_a.dim() == 3 and mat_b.dim() == 3:
        if mat_a.shape[0] != mat_b.shape[0]:
            raise RuntimeError("batched dimension has to match")
        return _C.bmm(mat_a, mat_b)
    assert offs is not None  # a 2D operand: checked above
    ends = [int(v) for v in offs.tolist()]
    starts = [0] + ends[:-1]
    if mat_a.dim() == 2 and mat_b.dim() == 2:
        return _C.stack([_C.matmul(mat_a[:, s:e], mat_b[s:e]) for s, e in zip(starts, ends)])
    if mat_a.dim() == 2:  # rows of a in groups, one b per group
        if len(ends) != mat_b.shape[0]:
            raise RuntimeError("matrix batch sizes have to match")
        parts = [_C.matmul(mat_a[s:e], mat_b[i]) for i, (s, e) in enumerate(zip(starts, ends))]
        rest = mat_a.shape[0] - (ends[-1] if ends else 0)
        parts.append(_C.zeros((rest, mat_b.shape[-1]), dtype=mat_a.dtype, device=mat_a.device))
        return _C.cat(parts, 0)
    if len(ends) != mat_a.shape[0]:  # columns of b in groups, one a per group
        raise RuntimeError("matrix batch sizes have to match")
    parts = [_C.matmul(mat_a[i], mat_b[:, s:e]) for i, (s, e) in enumerate(zip(starts, ends))]
    rest = mat_b.shape[1] - (ends[-1] if ends else 0)
    parts.append(_C.zeros((mat_a.shape[1], rest), dtype=mat_a.dtype, device=mat_a.device))
    return _C.cat(parts, 1)
