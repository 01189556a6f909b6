"""Autograd: every op whose ops.yaml entry declares `derivatives:` is checked with gradcheck (finite differences in
float64) and against torch's gradients; then the engine (accumulation, retain_graph, create_graph, hooks, grad
mode, version counters, leaf and view rules) and the generated nodes (names, next_functions, _saved_*)."""

from __future__ import annotations

import pytest

import yaten
from helpers import from_torch, to_torch
from test_ops import OPS

F = yaten.nn.functional


def pos(*shape):
    return lambda torch, gen: torch.rand(shape, generator=gen, dtype=torch.float64) + 0.5


def rnd(*shape):
    return lambda torch, gen: torch.randn(shape, generator=gen, dtype=torch.float64)


def idx(values):
    return lambda torch, gen: torch.tensor(values)


def cond(*shape):
    return lambda torch, gen: torch.rand(shape, generator=gen) > 0.5


def unit(*shape, low=-0.8, high=0.8):
    return lambda torch, gen: torch.rand(shape, generator=gen, dtype=torch.float64) * (high - low) + low


def wide(*shape):
    return lambda torch, gen: torch.randn(shape, generator=gen, dtype=torch.float64) * 3


def nnf(lib):
    return lib.nn.functional


def put_rows(lib, x, values, rows):
    y = x * 1
    y[rows] = values
    return y


def fill_row(lib, x):
    y = x * 1
    y[1].fill_(2.0)
    return y


def copy_rows(lib, x, rows, source):
    y = x * 1
    y.index_copy_(0, rows, source)
    return y


def sum_of_pair(pair):
    return pair[0] * 2 + pair[1]


def conv_weight_grad(lib, grad, x):
    """The weight part of a convolution's backward, as a function of the gradient and the input."""
    args = ([1, 1], [1, 0], [1, 1], False, [0, 0], 2)
    if lib is yaten:
        return yaten._C._convolution_weight_backward(grad, x, [4, 1, 3, 2], *args)
    weight = lib.zeros(4, 1, 3, 2, dtype=x.dtype)
    return lib.ops.aten.convolution_backward(grad, x, weight, None, *args, [False, True, False])[1]


def spd(lib, a):
    """A symmetric positive-definite matrix made from any square a."""
    return a @ a.transpose(-2, -1) + 4 * lib.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def shifted(lib, a):
    return a + 4 * lib.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def gauge_free_svd(lib, u, s, vh):
    """A function of the SVD that flipping a pair of singular vectors leaves alone."""
    return (u[..., :2] @ vh[..., :2, :]) * s[..., :1].unsqueeze(-1)


def gauge_free_eigh(lib, w, v):
    return (v[..., :2] @ v[..., :2].transpose(-2, -1)) * w[..., -1:].unsqueeze(-1)


def gauge_free_eig(lib, w, v):
    """Sums over the eigenpairs (so their order does not matter) of phase-free quantities."""
    return ((v.abs() ** 2) * w.real.unsqueeze(-2)).sum(-1) + (w * w).real.sum(-1, keepdim=True)


def unary(name, make=rnd(3, 4)):
    return ([make], lambda lib, x: getattr(lib, name)(x))


# full name -> (input makers, call(lib, *inputs)); the inputs made with float64 require grad.
RECIPES = {
    "add.Tensor": ([rnd(3, 4), rnd(4)], lambda lib, a, b: lib.add(a, b, alpha=2)),
    "sub.Tensor": ([rnd(3, 4), rnd(3, 1)], lambda lib, a, b: lib.sub(a, b, alpha=3)),
    "mul.Tensor": ([rnd(3, 4), rnd(1, 4)], lambda lib, a, b: lib.mul(a, b)),
    "div.Tensor": ([rnd(3, 4), pos(4)], lambda lib, a, b: lib.div(a, b)),
    "neg": unary("neg"), "exp": unary("exp"), "log": unary("log", pos(3, 4)), "sqrt": unary("sqrt", pos(3, 4)),
    "rsqrt": unary("rsqrt", pos(3, 4)), "sin": unary("sin"), "cos": unary("cos"), "tanh": unary("tanh"),
    "sigmoid": unary("sigmoid"), "relu": unary("relu"), "abs": unary("abs"), "log1p": unary("log1p", pos(3, 4)),
    "expm1": unary("expm1"), "reciprocal": unary("reciprocal", pos(3, 4)),
    "pow.Tensor_Tensor": ([pos(3, 4), rnd(3, 4)], lambda lib, a, b: lib.pow(a, b)),
    "sum": ([rnd(3, 4)], lambda lib, x: lib.sum(x)),
    "sum.dim_IntList": ([rnd(2, 3, 4)], lambda lib, x: lib.sum(x, [0, 2], keepdim=False)),
    "mean": ([rnd(3, 4)], lambda lib, x: lib.mean(x)),
    "mean.dim": ([rnd(2, 3, 4)], lambda lib, x: lib.mean(x, [1], keepdim=True)),
    "mm": ([rnd(3, 4), rnd(4, 2)], lambda lib, a, b: lib.mm(a, b)),
    # linear's product with a bias (yaten's own op) against torch's addmm
    "_addmm_bias": ([rnd(2), rnd(3, 4), rnd(4, 2)],
                    lambda lib, b, a, m: yaten._C._addmm_bias(b, a, m) if lib is yaten else lib.addmm(b, a, m)),
    "bmm": ([rnd(2, 3, 4), rnd(2, 4, 2)], lambda lib, a, b: lib.bmm(a, b)),
    "softmax.int": ([rnd(3, 4)], lambda lib, x: lib.softmax(x, 1)),
    "log_softmax.int": ([rnd(3, 4)], lambda lib, x: lib.log_softmax(x, 0)),
    "copy_": ([rnd(3, 4)], lambda lib, x: lib.zeros(3, 4, dtype=x.dtype).copy_(x)),
    "gather": ([rnd(3, 4), idx([[0, 0], [3, 1], [2, 2]])], lambda lib, x, i: lib.gather(x, 1, i)),
    "_scatter_reduce_": ([rnd(3, 4), idx([[0, 1, 0], [2, 1, 3], [1, 1, 0]]), rnd(3, 3)],
                         lambda lib, x, i, s: lib.scatter_reduce(x, 1, i, s, "amax")
                         + lib.scatter_reduce(x, 1, i, s, "amin", include_self=False)),
    "index_select": ([rnd(3, 4), idx([2, 0, 2])], lambda lib, x, i: lib.index_select(x, 1, i)),
    "where.self": ([cond(3, 4), rnd(3, 4), rnd(4)], lambda lib, c, a, b: lib.where(c, a, b)),
    "max": ([rnd(3, 4)], lambda lib, x: lib.max(x)),
    "median": ([rnd(3, 4)], lambda lib, x: lib.median(x)),
    "nanmedian": ([rnd(3, 5)], lambda lib, x: lib.nanmedian(x)),
    "min": ([rnd(3, 4)], lambda lib, x: lib.min(x) * 2),
    "max.dim": ([rnd(3, 4)], lambda lib, x: lib.max(x, 1).values),
    "min.dim": ([rnd(3, 4)], lambda lib, x: lib.min(x, 0, keepdim=True).values),
    "view": ([rnd(3, 4)], lambda lib, x: x.view(2, 6)),
    "as_strided": ([rnd(3, 4)], lambda lib, x: x.as_strided((2, 2), (1, 2), 1) * 2 + x[1:].as_strided((2, 2), (4, 1))
                   + x.as_strided((3, 2), (0, 1)).sum(0)),  # the last overlaps: its gradient adds up
    "reshape": ([rnd(3, 4)], lambda lib, x: x.t().reshape(12)),
    "permute": ([rnd(2, 3, 4)], lambda lib, x: x.permute(2, 0, 1)),
    "transpose.int": ([rnd(2, 3, 4)], lambda lib, x: x.transpose(0, 2)),
    "t": ([rnd(3, 4)], lambda lib, x: x.t()),
    "slice.Tensor": ([rnd(5, 4)], lambda lib, x: x[1:5:2]),
    "select.int": ([rnd(3, 4)], lambda lib, x: x.select(1, 2)),
    "squeeze": ([rnd(3, 1, 4)], lambda lib, x: x.squeeze()),
    "squeeze.dim": ([rnd(3, 1, 4)], lambda lib, x: x.squeeze(1)),
    "squeeze.dims": ([rnd(1, 3, 1, 4)], lambda lib, x: x.squeeze((0, 2))),
    "unsqueeze": ([rnd(3, 4)], lambda lib, x: x.unsqueeze(1)),
    "expand": ([rnd(3, 1)], lambda lib, x: x.expand(2, 3, 4)),
    "diagonal": ([rnd(3, 4)], lambda lib, x: x.diagonal(1)),
    # complex numbers and FFTs: real float64 inputs and results, complex in between
    "view_as_real": ([rnd(3, 4, 2)], lambda lib, x: lib.view_as_real(lib.view_as_complex(x) * lib.view_as_complex(x))),
    "view_as_complex": ([rnd(3, 4, 2)],
                        lambda lib, x: lib.view_as_real(lib.view_as_complex(x) / (lib.view_as_complex(x) + 3))),
    "conj_physical": ([rnd(3, 2)], lambda lib, x: lib.view_as_real(lib.conj_physical(lib.view_as_complex(x))
                                                                   * lib.view_as_complex(x))),
    "complex": ([rnd(3, 4), rnd(4)], lambda lib, a, b: lib.view_as_real(lib.complex(a, b) * lib.complex(b, a))),
    "_fft_r2c": ([rnd(3, 8)], lambda lib, x: lib.view_as_real(lib.fft.rfft(x, norm="ortho"))),
    "_fft_c2r": ([rnd(3, 5, 2)], lambda lib, x: lib.fft.irfft(lib.view_as_complex(x), n=8)),
    "_fft_c2c": ([rnd(3, 6, 2)], lambda lib, x: lib.view_as_real(lib.fft.ifft(lib.view_as_complex(x), norm="forward"))),
    "var_mean.correction": ([rnd(3, 4)], lambda lib, x: sum_of_pair(lib.var_mean(x, 1, correction=0))),
    # pointwise: piecewise constant ones have zero gradients
    "floor": unary("floor"), "ceil": unary("ceil"), "trunc": unary("trunc"), "round": unary("round"),
    "sign": unary("sign"), "frac": unary("frac"),
    "round.decimals": ([rnd(3, 4)], lambda lib, x: lib.round(x, decimals=1)),
    "floor_divide": ([rnd(3, 4), pos(4)], lambda lib, a, b: lib.div(a, b, rounding_mode="floor")),
    "_div_trunc": ([rnd(3, 4), pos(4)], lambda lib, a, b: lib.div(a, b, rounding_mode="trunc")),
    "remainder.Tensor": ([rnd(3, 4), pos(3, 4)], lambda lib, a, b: lib.remainder(a, b)),
    "fmod.Tensor": ([rnd(3, 4), pos(4)], lambda lib, a, b: lib.fmod(a, b)),
    "atan2": ([rnd(3, 4), rnd(3, 4)], lambda lib, a, b: lib.atan2(a, b)),
    "hypot": ([rnd(3, 4), rnd(4)], lambda lib, a, b: lib.hypot(a, b)),
    "maximum": ([rnd(3, 4), rnd(4)], lambda lib, a, b: lib.maximum(a, b)),
    "minimum": ([rnd(3, 4), rnd(3, 4)], lambda lib, a, b: lib.minimum(a, b)),
    "fmax": ([rnd(3, 4), rnd(3, 4)], lambda lib, a, b: lib.fmax(a, b)),
    "fmin": ([rnd(3, 4), rnd(4)], lambda lib, a, b: lib.fmin(a, b)),
    "lerp.Scalar": ([rnd(3, 4), rnd(3, 4)], lambda lib, a, b: lib.lerp(a, b, 0.3)),
    "lerp.Tensor": ([rnd(3, 4), rnd(4), rnd(3, 4)], lambda lib, a, b, w: lib.lerp(a, b, w)),
    "addcmul": ([rnd(3, 4), rnd(3, 4), rnd(4)], lambda lib, a, b, c: lib.addcmul(a, b, c, value=0.5)),
    "addcdiv": ([rnd(3, 4), rnd(3, 4), pos(3, 4)], lambda lib, a, b, c: lib.addcdiv(a, b, c, value=-2)),
    "exp2": unary("exp2"), "log2": unary("log2", pos(3, 4)), "log10": unary("log10", pos(3, 4)),
    "tan": unary("tan", unit(3, 4)), "asin": unary("asin", unit(3, 4)), "acos": unary("acos", unit(3, 4)),
    "atan": unary("atan"), "sinh": unary("sinh"), "cosh": unary("cosh"), "asinh": unary("asinh"),
    "acosh": unary("acosh", unit(3, 4, low=1.2, high=3.0)), "atanh": unary("atanh", unit(3, 4)),
    "erf": unary("erf"), "erfc": unary("erfc"), "erfinv": unary("erfinv", unit(3, 4)),
    "logit": ([unit(3, 4, low=0.05, high=0.95)], lambda lib, x: lib.logit(x) + lib.logit(x, eps=0.2)),
    "hardtanh": ([rnd(3, 4)], lambda lib, x: nnf(lib).hardtanh(x, -0.5, 0.7)),
    "leaky_relu": ([rnd(3, 4)], lambda lib, x: nnf(lib).leaky_relu(x, 0.1)),
    "threshold": ([rnd(3, 4)], lambda lib, x: nnf(lib).threshold(x, 0.1, -2.0)),
    "_glu_halves": ([rnd(3, 4), rnd(3, 4)], lambda lib, a, b: nnf(lib).glu(lib.cat([a, b], 1), 1)),
    # the pointwise losses through the losses that call them (rnd's normal values fall on both sides of 0.6)
    "_squared_difference": ([rnd(3, 4), rnd(4)], lambda lib, a, b: nnf(lib).mse_loss(*lib.broadcast_tensors(a, b),
                                                                                      reduction="none")),
    "_smooth_l1_pointwise": ([rnd(3, 4), rnd(3, 4)],
                             lambda lib, a, b: nnf(lib).smooth_l1_loss(a, b, reduction="none", beta=0.6)),
    "_bce_with_logits_pointwise": ([rnd(3, 4), unit(3, 4, low=0.1, high=0.9)],
                                   lambda lib, x, t: nnf(lib).binary_cross_entropy_with_logits(x, t, reduction="none")),
    "_huber_pointwise": ([rnd(3, 4), rnd(3, 4)],
                         lambda lib, a, b: nnf(lib).huber_loss(a, b, reduction="none", delta=0.6)),
    "elu": ([rnd(3, 4)], lambda lib, x: nnf(lib).elu(x, 1.5) + nnf(lib).selu(x)),
    "gelu": ([wide(3, 4)], lambda lib, x: nnf(lib).gelu(x) + nnf(lib).gelu(x, approximate="tanh")),
    "silu": ([wide(3, 4)], lambda lib, x: nnf(lib).silu(x)),
    # the fused CPU attention against torch's own CPU flash op (same arguments; its output, the logsumexp not)
    "_flash_attention": ([rnd(2, 3, 5, 4), rnd(2, 3, 7, 4), rnd(2, 3, 7, 4)],
                         lambda lib, q, k, v: (yaten._C._flash_attention(q, k, v, None, True, 0.5)[0] if lib is yaten
                                               else lib.ops.aten._scaled_dot_product_flash_attention_for_cpu(
                                                   q, k, v, 0.0, True, scale=0.5)[0])),
    "gelu_backward": ([rnd(3, 4), wide(3, 4)],
                      lambda lib, g, x: (yaten.gelu_backward(g, x) + yaten.gelu_backward(g, x, approximate="tanh"))
                      if lib is yaten else (lib.ops.aten.gelu_backward(g, x)
                                            + lib.ops.aten.gelu_backward(g, x, approximate="tanh"))),
    # torch's aten::silu_backward has no derivative of its own: its formula, in torch's ops, is the reference
    "silu_backward": ([rnd(3, 4), wide(3, 4)],
                      lambda lib, g, x: (yaten.silu_backward(g, x) if lib is yaten
                                         else g * x.sigmoid() * (1 + x * (1 - x.sigmoid())))),
    "mish": ([wide(3, 4)], lambda lib, x: nnf(lib).mish(x)),
    "softplus": ([wide(3, 4)], lambda lib, x: nnf(lib).softplus(x) + nnf(lib).softplus(x, beta=2, threshold=3)),
    "hardsigmoid": ([wide(3, 4)], lambda lib, x: nnf(lib).hardsigmoid(x)),
    "hardswish": ([wide(3, 4)], lambda lib, x: nnf(lib).hardswish(x)),
    "nan_to_num": unary("nan_to_num"),
    "clamp_min.Tensor": ([rnd(3, 4), rnd(4)], lambda lib, x, m: lib.clamp_min(x, m)),
    "clamp_max.Tensor": ([rnd(3, 4), rnd(3, 1)], lambda lib, x, m: lib.clamp_max(x, m)),
    "_clamp": ([rnd(3, 4), unit(4, low=-1.5, high=-0.2), unit(4, low=0.2, high=1.5)],
               lambda lib, x, lo, hi: lib.clamp(x, lo, hi) + lib.clamp(x, -0.5, 0.5)),
    # reductions, scans, sorting
    "prod": ([rnd(3, 4)], lambda lib, x: lib.prod(x)),
    "prod.dim_int": ([rnd(3, 4)], lambda lib, x: lib.prod(x, 1, keepdim=True)),
    "amax": ([rnd(3, 4)], lambda lib, x: lib.amax(x, 0) + lib.max(x)),
    "amin": ([rnd(3, 4)], lambda lib, x: lib.amin(x, 1, keepdim=True) + lib.min(x)),
    "cumsum": ([rnd(3, 4)], lambda lib, x: lib.cumsum(x, 1)),
    "logcumsumexp": ([rnd(3, 4)], lambda lib, x: lib.logcumsumexp(x, 1)),
    "cumprod": ([rnd(3, 4)], lambda lib, x: lib.cumprod(x, 0)),
    "cummax": ([rnd(3, 4)], lambda lib, x: lib.cummax(x, 1).values),
    "cummin": ([rnd(3, 4)], lambda lib, x: lib.cummin(x, 0).values),
    "sort": ([rnd(3, 4)], lambda lib, x: lib.sort(x, 1, descending=True).values),
    "topk": ([rnd(3, 5)], lambda lib, x: lib.topk(x, 2, 1).values),
    "kthvalue": ([rnd(3, 5)], lambda lib, x: lib.kthvalue(x, 2, 1).values),
    "median.dim": ([rnd(3, 5)], lambda lib, x: lib.median(x, 1, keepdim=True).values),
    "nanmedian.dim": ([rnd(3, 4)], lambda lib, x: lib.nanmedian(x, 0).values),
    "mode": ([rnd(3, 4)], lambda lib, x: lib.mode(x, 1).values),  # all values differ: the smallest
    # indexing, writing into parts, joining
    "_index_front": ([rnd(3, 4), idx([0, 2, 0, -1])], lambda lib, x, i: x[i].sum(1) + x[:, i].sum(0)),
    "_index_put_front_": ([rnd(3, 4), rnd(2, 4), idx([2, 0])], put_rows),
    "masked_fill_.Scalar": ([rnd(3, 4), cond(4)], lambda lib, x, c: x.masked_fill(c, 0.5)),
    "fill_.Scalar": ([rnd(3, 4)], fill_row),
    "scatter_.src": ([rnd(3, 4), idx([[0, 1, 2, 0], [2, 0, 1, 1]]), rnd(2, 4)],
                     lambda lib, x, i, s: lib.scatter(x, 0, i, s)),
    "scatter_.value": ([rnd(3, 4), idx([[0, 1, 2, 0]])], lambda lib, x, i: lib.scatter(x, 0, i, 1.5)),
    "scatter_add_": ([rnd(3, 4), idx([[0, 1, 2, 0], [0, 0, 1, 0]]), rnd(2, 4)],
                     lambda lib, x, i, s: lib.scatter_add(x, 0, i, s) + lib.scatter_add(x, 1, i, s * 2)),
    "index_copy_": ([rnd(3, 4), idx([2, 0]), rnd(2, 4)], copy_rows),
    # random fills overwrite self: zero gradients (degenerate ranges keep finite differences deterministic)
    "uniform_": ([rnd(3, 4)], lambda lib, x: (x * 1).uniform_(0.0, 0.0) + x),
    "normal_": ([rnd(3, 4)], lambda lib, x: (x * 1).normal_(0.0, 0.0) + x),
    "random_.from_to": ([rnd(3, 4)], lambda lib, x: (x * 1).random_(0, 1) + x),
    "bernoulli_.float": ([rnd(3, 4)], lambda lib, x: (x * 1).bernoulli_(0.0) + x),
    "bernoulli_.Tensor": ([rnd(3, 4), unit(4, low=0.0, high=0.0)], lambda lib, x, p: (x * 1).bernoulli_(p * 0) + x),
    "_randperm_": ([rnd(1)], lambda lib, x: (yaten._C._randperm_(x * 1) if lib is yaten
                                             else (x * 1).copy_(lib.randperm(1, dtype=x.dtype))) + x),
    "cat": ([rnd(3, 2), rnd(3, 4)], lambda lib, a, b: lib.cat([a, b], 1)),
    "pad": ([rnd(3, 4)], lambda lib, x: nnf(lib).pad(x, (1, 2, -1, 0), value=0.5)),
    # a strided, dilated, grouped convolution followed by a transposed one: both directions of `convolution`
    "convolution": ([rnd(2, 4, 5, 6), rnd(4, 2, 2, 3), rnd(4), rnd(4, 1, 3, 2)],
                    lambda lib, x, w, b, w2: nnf(lib).conv_transpose2d(
                        nnf(lib).conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2), w2,
                        stride=(1, 2), padding=(1, 0), output_padding=(0, 1), groups=2)),
    # the CPU's forward kernel called by name (convolution reaches it too), torch's conv2d beside it
    "_convolution_forward": ([rnd(2, 4, 5, 6), rnd(4, 2, 2, 3)],
                             lambda lib, x, w: yaten.ops.yaten._convolution_forward(x, w, [2, 1], [1, 1], [1, 2], 2)
                             if lib is yaten else nnf(lib).conv2d(x, w, stride=(2, 1), padding=1, dilation=(1, 2),
                                                                  groups=2)),
    "_convolution_transpose_forward": ([rnd(2, 4, 5, 6), rnd(4, 1, 3, 2)],
                                       lambda lib, x, w: yaten.ops.yaten._convolution_transpose_forward(
                                           x, w, [1, 2], [1, 0], [1, 1], [0, 1], 2)
                                       if lib is yaten else nnf(lib).conv_transpose2d(
                                           x, w, stride=(1, 2), padding=(1, 0), output_padding=(0, 1), groups=2)),
    "_convolution_weight_backward": ([rnd(2, 4, 5, 3), rnd(2, 2, 5, 4)], conv_weight_grad),
    "upsample_nearest2d": ([rnd(2, 2, 4, 5)], lambda lib, x: nnf(lib).interpolate(x, size=(7, 3), mode="nearest")),
    "_upsample_nearest_exact2d": ([rnd(2, 2, 4, 5)],
                                  lambda lib, x: nnf(lib).interpolate(x, size=(7, 3), mode="nearest-exact")),
    # both corner rules, a shrink along one dim and a growth along the other
    "upsample_bilinear2d": ([rnd(2, 2, 4, 5)],
                            lambda lib, x: nnf(lib).interpolate(x, size=(7, 3), mode="bilinear")
                            + nnf(lib).interpolate(x, size=(7, 3), mode="bilinear", align_corners=True)),
    "im2col": ([rnd(2, 2, 5, 6)], lambda lib, x: nnf(lib).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))),
    "native_batch_norm": ([rnd(4, 3, 5), rnd(3), rnd(3)],
                          lambda lib, x, w, b: lib.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0]),
    "max_pool2d_with_indices": ([wide(2, 2, 5, 6)], lambda lib, x: nnf(lib).max_pool2d(x, (3, 2), (2, 1), 1)),
    "max_pool3d_with_indices": ([wide(1, 2, 3, 4, 4)], lambda lib, x: nnf(lib).max_pool3d(x, 2, 1, (1, 0, 1))),
    "avg_pool2d": ([rnd(2, 2, 5, 6)], lambda lib, x: nnf(lib).avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                                                          count_include_pad=False)),
    "avg_pool3d": ([rnd(1, 2, 3, 4, 4)], lambda lib, x: nnf(lib).avg_pool3d(x, 2, 1, 1)),
    "avg_pool2d_backward": ([rnd(2, 2, 3, 3), rnd(2, 2, 5, 6)], lambda lib, g, x: (
        yaten.avg_pool2d_backward(g, x, [3], [2], [1], False, True, None) if lib is yaten
        else lib.ops.aten.avg_pool2d_backward(g, x, [3, 3], [2, 2], [1, 1], False, True, None))),
    "avg_pool3d_backward": ([rnd(1, 2, 1, 2, 2), rnd(1, 2, 3, 4, 4)], lambda lib, g, x: (
        yaten.avg_pool3d_backward(g, x, [2], [2], [0], False, True, None) if lib is yaten
        else lib.ops.aten.avg_pool3d_backward(g, x, [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, None))),
    "_adaptive_avg_pool2d": ([rnd(2, 2, 5, 6)], lambda lib, x: nnf(lib).adaptive_avg_pool2d(x, (3, 4))),
    "_adaptive_avg_pool3d": ([rnd(1, 2, 3, 4, 5)], lambda lib, x: nnf(lib).adaptive_avg_pool3d(x, (2, 3, 2))),
    "_adaptive_avg_pool2d_backward": ([rnd(2, 2, 3, 4), rnd(2, 2, 5, 6)], lambda lib, g, x: (
        yaten._C._adaptive_avg_pool2d_backward(g, x) if lib is yaten
        else lib.ops.aten._adaptive_avg_pool2d_backward(g, x))),
    "_adaptive_avg_pool3d_backward": ([rnd(1, 2, 2, 3, 2), rnd(1, 2, 3, 4, 5)], lambda lib, g, x: (
        yaten._C._adaptive_avg_pool3d_backward(g, x) if lib is yaten
        else lib.ops.aten._adaptive_avg_pool3d_backward(g, x))),
    "polygamma": ([pos(3, 4)], lambda lib, x: lib.polygamma(2, x)),
    # layer_norm reaches it for contiguous CPU inputs with weight and bias of their dtype
    "_layer_norm_fused": ([rnd(3, 4), rnd(4), rnd(4)], lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (4,), w, b)),
    # linalg.vector_norm's 2-norm over trailing dims of a contiguous CPU float tensor
    "_sum_of_squares": ([rnd(3, 4)], lambda lib, x: lib.linalg.vector_norm(x, 2, 1)),
    # group_norm likewise
    "_group_norm_fused": ([rnd(2, 4, 3), rnd(4), rnd(4)], lambda lib, x, w, b: lib.nn.functional.group_norm(x, 2, w, b)),
    "special_i1": ([rnd(3, 4)], lambda lib, x: lib.special.i1(x)),
    "special_i0e": ([rnd(3, 4)], lambda lib, x: lib.special.i0e(x)),
    "special_i1e": ([rnd(3, 4)], lambda lib, x: lib.special.i1e(x)),
    "special_erfcx": ([wide(3, 4)], lambda lib, x: lib.special.erfcx(x)),
    "special_log_ndtr": ([wide(3, 4)], lambda lib, x: lib.special.log_ndtr(x)),
    # igamma and igammac: torch's derivative is in x only (yaten's too), so a is a constant
    "igamma": ([pos(3, 4)], lambda lib, x: lib.igamma(lib.full((4,), 1.7, dtype=lib.float64, device=x.device), x)),
    "igammac": ([pos(3, 4)], lambda lib, x: lib.igammac(lib.full((4,), 1.7, dtype=lib.float64, device=x.device), x)),
    # torch's zeta has no derivative; yaten's in q is -s zeta(s + 1, q), compared with the derivative of torch's
    # autograd through the Euler-Maclaurin sum (200 terms, then the integral and two corrections: error < 1e-13)
    "special_zeta": ([pos(3, 4)], lambda lib, q: lib.special.zeta(lib.full((4,), 2.5, dtype=lib.float64, device=q.device), q)
                     if lib is yaten else _zeta_by_sum(lib, 2.5, q)),
    # torch's heaviside has no derivative: compared with the same step written with where (self has no zeros here,
    # where the step's finite differences would jump; tests/test_special_ops.py checks values' gradient at 0)
    "heaviside": ([rnd(3, 4), rnd(4)], lambda lib, x, v: lib.heaviside(x, v) if lib is yaten
                  else lib.where(x == 0, v, (x > 0).to(v.dtype)) + 0 * x),
    "col2im": ([rnd(2, 12, 10)], lambda lib, c: nnf(lib).fold(c, (4, 5), (2, 3), padding=(0, 1), stride=(2, 1))),
    # linear algebra: well-conditioned inputs (a shift of the diagonal), Hermitian ones made from any input, and
    # functions of the factors that do not depend on their gauge (the signs of singular and eigen vectors)
    "linalg_lu_factor_ex": ([rnd(2, 4, 4)], lambda lib, a: lib.linalg.lu_factor_ex(a)[0]),
    "linalg_lu_solve": ([rnd(2, 4, 4), rnd(2, 4, 3)],
                        lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, adjoint=True)),
    "_linalg_solve_ex": ([rnd(2, 4, 4), rnd(2, 4, 3)], lambda lib, a, b: lib.linalg.solve(a, b)),
    "linalg_cholesky_ex": ([rnd(2, 4, 4)], lambda lib, a: lib.linalg.cholesky(spd(lib, a))),
    "linalg_solve_triangular": ([rnd(2, 4, 4), rnd(2, 4, 3)],
                                lambda lib, a, b: lib.linalg.solve_triangular(shifted(lib, a), b, upper=True)),
    "linalg_qr": ([rnd(5, 3)], lambda lib, a: lib.linalg.qr(a)[0][:3] + lib.linalg.qr(a)[1]),
    "_linalg_svd": ([rnd(2, 5, 3)], lambda lib, a: gauge_free_svd(lib, *lib.linalg.svd(a, full_matrices=False))),
    "_linalg_eigh": ([rnd(2, 4, 4)], lambda lib, a: gauge_free_eigh(lib, *lib.linalg.eigh(a + a.transpose(-2, -1)))),
    "_linalg_eig": ([rnd(2, 4, 4)], lambda lib, a: gauge_free_eig(lib, *lib.linalg.eig(a))),
    "linalg_lstsq": ([rnd(2, 5, 3), rnd(2, 5, 2)], lambda lib, a, b: lib.linalg.lstsq(a, b).solution),
    "_linalg_det": ([rnd(2, 4, 4)], lambda lib, a: lib.linalg.det(a)),
    "_linalg_slogdet": ([rnd(2, 4, 4)], lambda lib, a: lib.linalg.slogdet(a)[1]),
    "linalg_pinv": ([rnd(3, 5)], lambda lib, a: lib.linalg.pinv(a)),
    "linalg_pinv.atol_rtol_tensor": ([rnd(2, 5, 3)], lambda lib, a: lib.linalg.pinv(
        a, atol=lib.tensor([1e-3, 1e-2], dtype=a.dtype, device=a.device), rtol=lib.tensor(0.0, dtype=a.dtype, device=a.device))),
}

DIFFERENTIABLE = [op for op in OPS if op.derivatives and op.derived_from is None]


def _zeta_by_sum(torch, s, q):
    shifted = q.unsqueeze(-1) + torch.arange(200, dtype=torch.float64)
    a = q + 200
    return (shifted ** -s).sum(-1) + a ** (1 - s) / (s - 1) + 0.5 * a ** -s + s / 12 * a ** (-s - 1)


def derived_recipe(op):
    """A recipe that follows from the entry, for an op without a hand-written one: each Tensor argument a float64
    tensor with values in (0.1, 0.9) (inside the domains of log, sqrt, asin, logit, ...; away from the kinks of abs
    and relu), of shape (3, 4), or (4,) from the second on for a pointwise op (so broadcasting is covered), every other
    argument left at its default; called as torch calls it (yaten.NAME / torch.NAME, or the method). None when an
    argument has neither a Tensor type nor a default, or when yaten has no function or method of that name (torch
    must have the same: a new op without torch's name needs a recipe comparing it with something else)."""
    tensors = []
    for a in op.schema.arguments:
        if a.type.base == "Tensor" and a.type.list_size is None and not a.type.optional and not a.keyword_only:
            if a.default is not None:
                break
            tensors.append(a)
        elif a.default is None:
            return None
    pointwise = "pointwise" in op.tags
    makers = [unit(*((4,) if pointwise and i else (3, 4)), low=0.1, high=0.9) for i in range(len(tensors))]
    name = op.schema.name
    if op.python_module and "function" in op.variants:  # yaten.special.xlog1py beside torch.special.xlog1py
        path = op.python_module.split(".")
        short = name.removeprefix(path[-1] + "_")

        def namespace(lib):
            for part in path:
                lib = getattr(lib, part)
            return lib
        if hasattr(namespace(yaten), short):
            return makers, lambda lib, *xs: getattr(namespace(lib), short)(*xs)
        return None
    if "function" in op.variants and hasattr(yaten, name):
        return makers, lambda lib, *xs: getattr(lib, name)(*xs)
    if "method" in op.variants and hasattr(yaten.Tensor, name):
        return makers, lambda lib, x, *xs: getattr(x, name)(*xs)
    return None


DERIVED = {op.schema.full_name: r for op in DIFFERENTIABLE if op.schema.full_name not in RECIPES
           and (r := derived_recipe(op)) is not None}


def test_every_op_with_derivatives_has_a_recipe():
    """A recipe written here, or one that follows from the entry (derived_recipe)."""
    missing = [op.schema.full_name for op in DIFFERENTIABLE if op.schema.full_name not in RECIPES | DERIVED]
    assert not missing, f"add a RECIPES entry for {missing}: their inputs do not follow from the entry"


def make_inputs(torch, makers, seed):
    gen = torch.Generator().manual_seed(seed)
    made = [m(torch, gen) for m in makers]
    ours = [from_torch(t) for t in made]
    for t, y in zip(made, ours):
        if t.dtype == torch.float64:
            t.requires_grad_()
            y.requires_grad_()
    return made, ours


@pytest.mark.parametrize("name", sorted(RECIPES | DERIVED))
def test_gradients_match_torch_and_finite_differences(torch, name):
    makers, call = (RECIPES | DERIVED)[name]
    made, ours = make_inputs(torch, makers, len(name))
    out, expected = call(yaten, *ours), call(torch, *made)
    seed = torch.randn(expected.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    expected.backward(seed)
    out.backward(from_torch(seed))
    for t, y in zip(made, ours):
        if t.requires_grad:
            assert y.grad is not None, f"{name}: no gradient"
            torch.testing.assert_close(to_torch(torch, y.grad), t.grad)
    fresh = [y.detach().requires_grad_() if y.dtype == yaten.float64 else y for y in ours]
    assert yaten.autograd.gradcheck(lambda *xs: call(yaten, *xs), fresh)


@pytest.mark.parametrize("name", sorted(RECIPES | DERIVED))
def test_second_derivatives(torch, name):
    """gradgradcheck: the backward formulas are themselves differentiable (create_graph), with respect to the
    inputs and to the incoming gradient."""
    makers, call = (RECIPES | DERIVED)[name]
    _, ours = make_inputs(torch, makers, 7)
    assert yaten.autograd.gradgradcheck(lambda *xs: call(yaten, *xs), ours)


def test_composites_differentiate_through_what_they_call(torch):
    gen = torch.Generator().manual_seed(3)
    x, w, b = (torch.randn(s, generator=gen, dtype=torch.float64, requires_grad=True) for s in [(4, 3), (5, 3), (5,)])
    target = torch.tensor([0, 4, 2, 1])
    ys = [from_torch(t.detach()).requires_grad_() for t in (x, w, b)]
    loss = F.cross_entropy(F.linear(ys[0], ys[1], ys[2]), from_torch(target), label_smoothing=0.1)
    expected = torch.nn.functional.cross_entropy(torch.nn.functional.linear(x, w, b), target, label_smoothing=0.1)
    loss.backward()
    expected.backward()
    for t, y in zip((x, w, b), ys):
        torch.testing.assert_close(to_torch(torch, y.grad), t.grad)
    a = from_torch(x.detach()).requires_grad_()
    assert yaten.autograd.gradcheck(lambda v: F.layer_norm(v, [3]) * yaten.arange(3), [a])
    assert yaten.autograd.gradcheck(lambda v: F.mse_loss(v, yaten.ones(4, 3, dtype=yaten.float64)), [a])


def test_gradcheck_catches_a_gradient_that_does_not_flow():
    x = yaten.tensor([1.0, 2.0], dtype=yaten.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        yaten.autograd.gradcheck(lambda v: v.detach() * 2, [x])
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        yaten.autograd.gradcheck(lambda v: v.detach() * 2 + v, [x])
    assert yaten.autograd.gradcheck(lambda v: v * 2 + v.detach().sum() * 0, [x])


def test_leaves_accumulate_and_graph_attributes():
    x = yaten.tensor([1.0, 2.0, 3.0]).requires_grad_()
    assert x.is_leaf and x.grad_fn is None and x.grad is None
    y = (x * x).sum()
    assert not y.is_leaf and y.requires_grad and y.grad_fn.name() == "SumBackward0"
    mul = y.grad_fn.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    assert mul.next_functions[0][0].name() == "AccumulateGrad"
    assert mul._saved_self.tolist() == [1.0, 2.0, 3.0]
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]  # accumulated twice
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
    x.grad = None
    z = (x * 3).sum()
    z.backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        yaten.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="floating point"):
        yaten.ones(2, dtype=yaten.int64).requires_grad_()


def test_grad_create_graph_and_hooks():
    x = yaten.tensor([0.5, -1.0, 2.0], dtype=yaten.float64).requires_grad_()
    y = (x * x * x).sum()
    (g,) = yaten.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [0.75, 3.0, 12.0] and g.requires_grad
    (gg,) = yaten.autograd.grad(g.sum(), x)
    assert gg.tolist() == [3.0, -6.0, 12.0]
    assert x.grad is None  # grad() returns, never accumulates
    seen = []
    h = x * 2
    h.register_hook(lambda grad: seen.append(grad.tolist()) or grad * 10)
    x.register_hook(lambda grad: seen.append(("leaf", grad.tolist())))
    h.sum().backward()
    assert seen == [[1.0, 1.0, 1.0], ("leaf", [20.0, 20.0, 20.0])]
    assert x.grad.tolist() == [20.0, 20.0, 20.0]
    r = x * 3
    r.retain_grad()
    (r * r).sum().backward()
    assert r.grad.tolist() == [3.0, -6.0, 12.0]
    calls = []
    out = (x + 1).exp()
    out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: calls.append(len(grad_inputs)))
    out.sum().backward()
    assert calls == [1]
    (unused,) = yaten.autograd.grad((x * 2).sum(), [yaten.ones(1).requires_grad_()], allow_unused=True)
    assert unused is None


def test_factories_take_requires_grad():
    for made in (yaten.zeros(2, 3, requires_grad=True), yaten.ones((2,), dtype=yaten.float64, requires_grad=True),
                 yaten.randn(3, requires_grad=True), yaten.tensor([1.0, 2.0], requires_grad=True),
                 yaten.full((2,), 1.5, requires_grad=True), yaten.zeros_like(yaten.ones(2), requires_grad=True),
                 yaten.linspace(0, 1, 5, requires_grad=True), yaten.eye(2, requires_grad=True)):
        assert made.requires_grad and made.is_leaf
    assert not yaten.zeros(2).requires_grad and not yaten.tensor([1.0]).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        yaten.zeros(2, dtype=yaten.int64, requires_grad=True)
    w = yaten.tensor([[1.0, 2.0]], requires_grad=True)
    (w * w).sum().backward()
    assert w.grad.tolist() == [[2.0, 4.0]]


def test_grad_mode_and_detach():
    x = yaten.ones(3).requires_grad_()
    with yaten.no_grad():
        assert not (x * 2).requires_grad
        with yaten.enable_grad():
            assert (x * 2).requires_grad
    with yaten.inference_mode():
        assert not (x + 1).requires_grad
    yaten.set_grad_enabled(False)
    assert not yaten.is_grad_enabled() and not (x * 2).requires_grad
    yaten.set_grad_enabled(True)

    @yaten.no_grad()
    def f(v):
        return v * 2

    assert not f(x).requires_grad
    d = (x * 2).detach()
    assert not d.requires_grad and d.is_leaf
    e = x * 2
    e.detach_()
    assert not e.requires_grad


def test_version_counters_and_in_place_rules():
    x = yaten.ones(3).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    a = x * 2
    v0 = a._version
    b = a * a
    a.add_(1)  # a is saved by the multiplication
    assert a._version > v0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    c = x * 2
    c.add_(4)  # in place on a non-leaf: recorded
    c.exp_()
    c.sum().backward()
    assert x.grad.allclose(yaten.exp(yaten.full((3,), 6.0)) * 2)
    with yaten.no_grad():
        x.add_(1)  # allowed without recording
    with pytest.raises(RuntimeError, match="out="):
        yaten.add(x, x, out=yaten.empty(3))


def test_in_place_ops_that_read_their_input_save_a_copy(torch):
    t = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    x = from_torch(t.detach()).requires_grad_()
    results = []
    for lib, v in ((torch, t), (yaten, x)):
        y = v * 1
        y.sin_()
        y.mul_(v)
        y.exp_()
        y.sum().backward()
        results.append(v.grad)
    torch.testing.assert_close(to_torch(torch, results[1]), results[0])


def test_in_place_ops_that_read_their_input_have_second_derivatives():
    def f(v):
        y = v * 1
        y.mul_(v)  # saves a copy of y's old value, whose history goes back to v
        y.sin_()
        return y

    x = yaten.tensor([0.5, -1.0, 2.0], dtype=yaten.float64, requires_grad=True)
    assert yaten.autograd.gradcheck(f, [x])
    assert yaten.autograd.gradgradcheck(f, [x])


def test_graphs_free_their_memory():
    import gc

    x = yaten.ones(1000, dtype=yaten.float64, requires_grad=True)

    def work():
        y = x * 2
        y[0:500].mul_(3)              # CopySlices on y
        buf = yaten.zeros(2000, dtype=yaten.float64)
        buf[0:1000] = y               # and on a buffer outside autograd
        v = y[100:200]
        y.add_(1)                     # v's history is made again
        return buf.sum() + (v * 2).sum()

    work().backward()
    gc.collect()
    before = yaten.memory_stats()["bytes_in_use"]
    for _ in range(5):
        work()
        work().backward()
    gc.collect()
    assert yaten.memory_stats()["bytes_in_use"] <= before


def run_both(torch, fn, *shapes):
    """fn(lib, *leaves) in torch and yaten from the same float64 values; returns (torch grads, yaten grads)."""
    gen = torch.Generator().manual_seed(5)
    ts = [torch.randn(s, generator=gen, dtype=torch.float64, requires_grad=True) for s in shapes]
    ys = [from_torch(t.detach()).requires_grad_() for t in ts]
    out_t, out_y = fn(torch, *ts), fn(yaten, *ys)
    torch.testing.assert_close(to_torch(torch, out_y.detach()), out_t.detach())
    seed = torch.randn(out_t.shape, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    out_t.backward(seed)
    out_y.backward(from_torch(seed))
    for t, y in zip(ts, ys):
        torch.testing.assert_close(to_torch(torch, y.grad), t.grad)
    return ts, ys


def write_through_view(lib, x, w):
    y = x * 2
    y[1:3].mul_(w)       # CopySlices: y's gradient with the rows sent through mul_
    y[:, 0] = w[0] * 3   # copy_ into a column view
    return y * 1


def stale_view(lib, x):
    y = x * 1
    v = y[0]            # a view made before the base changes
    y.mul_(x)           # v's values change with y: its history is made again from y's
    return v * 5 + y.sum(0)


def view_of_view(lib, x):
    y = x * 3
    y.t()[1:, :2].add_(x.t()[1:, :2] ** 2)
    return y


def plain_buffer(lib, x):
    buf = lib.zeros(4, 3, dtype=lib.float64)
    buf[1:3] = x        # buf was outside autograd: it gets a history
    buf[0] = x[0] * 2
    return buf


def composites_that_write_parts(lib, x):
    stacked = lib.stack([x, x * 2], 1)
    rolled = lib.roll(x, 1, 0)
    h = lib.hstack([x, x[:, :1]])
    return stacked.sum(1) + rolled + h[:, :3] + x[x > 0.1].sum()


@pytest.mark.parametrize("fn, shapes", [(write_through_view, [(3, 3), (3,)]), (stale_view, [(2, 3)]),
                                        (view_of_view, [(3, 3)]), (plain_buffer, [(2, 3)]),
                                        (composites_that_write_parts, [(3, 3)])])
def test_in_place_ops_on_views(torch, fn, shapes):
    run_both(torch, fn, *shapes)


def test_view_rules():
    x = yaten.ones(3, 2).requires_grad_()
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        x[0].add_(1)
    with pytest.raises(RuntimeError, match="single memory location"):
        (x * 1)[0:1].expand(4, 2).add_(1)
    y = x * 1
    with yaten.no_grad():
        v = y[0]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v.mul_(2)
    with yaten.no_grad():
        x[0].add_(1)  # allowed without recording
    assert x.tolist() == [[2.0, 2.0], [1.0, 1.0], [1.0, 1.0]]
    z = x * 1
    part = z[1]
    part.fill_(0.0)
    assert z.grad_fn.name() == "CopySlices" and part.grad_fn is not None
    z.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]


def test_every_kernel_op_declares_its_gradient():
    """No op reaches NotImplemented: each kernel op has `derivatives:` or marks its outputs non-differentiable."""
    from codegen import views

    families = {}
    for op in OPS:
        families.setdefault(op.schema.name.rstrip("_"), []).append(op)
    missing = []
    for op in OPS:
        if op.schema.is_out:
            continue
        plan = views.autograd_plan(op, families[op.schema.name.rstrip("_")])
        if plan and plan.kind == "fallback":
            missing.append(op.schema.full_name)
    assert not missing, f"ops without derivatives or output_differentiability: {missing}"


def test_mlp_example_trains():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "mlp.py"
    spec = importlib.util.spec_from_file_location("mlp_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.train(verbose=False) > 0.68  # chance is 1/3; the example states 0.715


def test_pow_with_a_python_number_keeps_float64_gradients_exact(torch):
    """pow's scalar forms wrap the number as a 0-dim tensor; its gradient formulas once did arithmetic between
    wrapped numbers alone, in float32 (issue 21: ~6e-9 off for x ** (1 / 3), ~1e-8 for 2.5 ** t)."""
    x = torch.tensor([0.3, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    xs = from_torch(x.detach()).requires_grad_()
    (x ** (1 / 3)).sum().backward()
    (xs ** (1 / 3)).sum().backward()
    torch.testing.assert_close(to_torch(torch, xs.grad), x.grad, rtol=1e-15, atol=0)
    t = torch.tensor([0.3, 1.7], dtype=torch.float64, requires_grad=True)
    ts = from_torch(t.detach()).requires_grad_()
    torch.pow(2.5, t).sum().backward()
    yaten.pow(2.5, ts).sum().backward()
    torch.testing.assert_close(to_torch(torch, ts.grad), t.grad, rtol=1e-15, atol=0)


def test_leaf_grads_are_their_own_dense_tensors_as_torch():
    """AccumulateGrad's layout contract: a sum's backward hands on an expanded view and add's backward one tensor
    for both inputs; each .grad must still take in-place updates alone (clip_grad_norm_, optimizers), as in torch."""
    torch = pytest.importorskip("torch")
    results = {}
    for lib in (torch, yaten):
        a, b = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
        w = lib.ones(2, 3, requires_grad=True)
        ((a + b).sum() + (w - a).sum() + a.sum()).backward()
        a.grad.mul_(2)
        b.grad.add_(1)
        w.grad.mul_(3)
        c = lib.ones(2, requires_grad=True)
        c.sum().backward()
        c.grad.mul_(5)
        results[lib.__name__] = [t.grad.tolist() for t in (a, b, w, c)]
    assert results["yaten"] == results["torch"], results


def test_leaf_grads_never_share_memory_through_views():
    """A view's backward hands a view of the same gradient to a second leaf: it gets its own copy."""
    w1, w2 = yaten.ones(3, requires_grad=True), yaten.ones(1, 3, requires_grad=True)
    (w1 + w2.view(3)).sum().backward()
    w1.grad.mul_(5)
    assert w1.grad.tolist() == [5.0, 5.0, 5.0] and w2.grad.tolist() == [[1.0, 1.0, 1.0]]
