"""yaten.nn.functional: the ops whose ops.yaml entry says `python_module: nn.functional`, plus torch's `inplace=`
spelling of their in-place forms and the activations that live in yaten itself (relu, sigmoid, tanh)."""

from __future__ import annotations

from typing import Any

from .. import _C
from .._C._nn_functional import *  # noqa: F401,F403
from .._C._nn_functional import embedding as _embedding, elu as _elu, hardtanh as _hardtanh, leaky_relu as _leaky_relu

Tensor = _C.Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else _C.relu(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu6_() if inplace else _C._nn_functional.relu6(input)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.selu_() if inplace else _C._nn_functional.selu(input)


def hardtanh(input: Tensor, min_val: Any = -1.0, max_val: Any = 1.0, inplace: bool = False) -> Tensor:
    return input.hardtanh_(min_val, max_val) if inplace else _hardtanh(input, min_val, max_val)


def leaky_relu(input: Tensor, negative_slope: Any = 0.01, inplace: bool = False) -> Tensor:
    return input.leaky_relu_(negative_slope) if inplace else _leaky_relu(input, negative_slope)


def elu(input: Tensor, alpha: Any = 1.0, inplace: bool = False) -> Tensor:
    return input.elu_(alpha) if inplace else _elu(input, alpha)


def sigmoid(input: Tensor) -> Tensor:
    return _C.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _C.tanh(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.silu_() if inplace else _C._nn_functional.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return input.mish_() if inplace else _C._nn_functional.mish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return input.hardsigmoid_() if inplace else _C._nn_functional.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return input.hardswish_() if inplace else _C._nn_functional.hardswish(input)


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


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of `weight` at the indices in `input`."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding(): max_norm, scale_grad_by_freq and sparse are not supported yet")
    return _embedding(input, weight, padding_idx)
