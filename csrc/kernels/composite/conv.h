// Convolution (1 to 3 spatial dims; stride, padding, dilation, groups; transposed with output_padding) as im2col
// (or col2im) and one batched matrix product per chunk of images, written once over ops, so the CPU (OpenBLAS) and
// CUDA (cuBLAS) run the same code; only the chunk size differs (a few MiB of columns on the CPU, where they
// should stay in cache, up to 1 GiB on a GPU, where one large product is best). Convolution's three passes are ops
// with kernels per device: _convolution_forward (not transposed), _convolution_transpose_forward and
// _convolution_weight_backward; the gradient of the input is the other forward (below). Their kernels run the
// functions below, except where the CPU's forward splits the products over threads without whole column matrices
// (kernels/cpu/conv.h, Note [Convolution on the CPU]) and where CUDA hands a pass to cuDNN (kernels/cuda/conv.cuh,
// Note [cuDNN convolutions]).
//
// Note [Convolution as matrix products]: for groups G, a convolution's output for one image and group g is
//     out_g (Cout/G x L) = W_g (Cout/G x Cin/G*kprod) @ cols_g (Cin/G*kprod x L),  cols = im2col(input),
// and a transposed convolution (weight Cin x Cout/G x k...) is its adjoint in the input:
//     out = col2im(W_g^T @ x_g).
// So the gradient of a convolution's input is a transposed convolution of the gradient with the same weight, and
// the other way round; the weight's gradient is  sum over images of grad_g @ cols_g^T  (convolution) or
// x_g @ im2col(grad)_g^T  (transposed). All three are ops with derivatives of their own, so gradients of gradients
// (create_graph) follow.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/conv_math.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_convolution_forward.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/_convolution_transpose_forward.h"
#include "yaten/ops/_convolution_weight_backward.h"
#include "yaten/ops/add.h"
#include "yaten/ops/col2im.h"
#include "yaten/ops/convolution.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/im2col.h"
#include "yaten/ops/matmul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/pad.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/transpose.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

namespace conv_detail {

struct ConvParams {
  int dims = 0;  // spatial dims
  std::vector<int64_t> stride, padding, dilation, output_padding, kernel;
  bool transposed = false;
  int64_t groups = 1;
};

inline std::vector<int64_t> spatial(const std::vector<int64_t>& sizes) {
  return std::vector<int64_t>(sizes.begin() + 2, sizes.end());
}

// torch's checks of convolution's arguments, with its messages where it has one. The weight is given by its sizes,
// dtype and device: the weight's backward has only its sizes.
inline ConvParams check_convolution(const char* op, const Tensor& input, const std::vector<int64_t>& weight_sizes,
                                    ScalarType weight_dtype, Device weight_device, const Tensor& bias,
                                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                    const std::vector<int64_t>& dilation, bool transposed,
                                    const std::vector<int64_t>& output_padding, int64_t groups) {
  const int64_t dim = int64_t(weight_sizes.size());
  YATEN_CHECK(dim >= 3 && dim <= 5, RuntimeError, op, ": expected a 3-D, 4-D or 5-D weight (1 to 3 spatial dims), "
              "but got weight of size ", sizes_text(weight_sizes));
  YATEN_CHECK(input.dim() == dim, RuntimeError, op, ": expected ", dim, "-D input (batched) for ", dim,
              "-D weight of size ", sizes_text(weight_sizes), ", but got input of size ", sizes_text(input.sizes()));
  YATEN_CHECK(input.dtype() == weight_dtype && (!bias.defined() || bias.dtype() == input.dtype()), RuntimeError,
              op, ": Input type (", dtype_name(input.dtype()), ") and weight type (", dtype_name(weight_dtype), ")",
              bias.defined() ? std::string(" and bias type (") + dtype_name(bias.dtype()) + ")" : std::string(),
              " should be the same");
  YATEN_CHECK(is_floating_point(input.dtype()) || (input.dtype() == ScalarType::Long && input.device().is_cpu()),
              NotImplementedError, op, ": not implemented for ", dtype_name(input.dtype()), " on ",
              input.device().str(), " (floating dtypes, and int64 on the CPU, as torch; complex through "
              "yaten.nn.functional's conv functions)");
  YATEN_CHECK(input.device() == weight_device && (!bias.defined() || bias.device() == input.device()),
              RuntimeError, op, ": expected input, weight and bias on one device, but got input on ",
              input.device().str(), " and weight on ", weight_device.str(),
              bias.defined() ? " and bias on " + bias.device().str() : std::string());
  YATEN_CHECK(groups > 0, RuntimeError, op, ": non-positive groups is not supported");
  YATEN_CHECK(input.numel() != 0 || input.sizes()[0] == 0 || input.sizes()[1] == 0, RuntimeError, op,
              ": Only zero batch or zero channel inputs are supported, but got input shape: ",
              sizes_text(input.sizes()));
  ConvParams p;
  p.dims = int(dim - 2);
  p.stride = conv::per_dim(op, "stride", stride, p.dims);
  p.padding = conv::per_dim(op, "padding", padding, p.dims);
  p.dilation = conv::per_dim(op, "dilation", dilation, p.dims);
  p.output_padding = conv::per_dim(op, "output_padding", output_padding, p.dims);
  p.kernel = spatial(weight_sizes);
  p.transposed = transposed;
  p.groups = groups;
  for (int i = 0; i < p.dims; ++i) {
    YATEN_CHECK(p.stride[i] > 0, RuntimeError, op, ": non-positive stride is not supported");
    YATEN_CHECK(p.padding[i] >= 0, RuntimeError, op, ": negative padding is not supported");
    YATEN_CHECK(p.dilation[i] > 0, RuntimeError, op, ": dilation should be greater than zero");
    YATEN_CHECK(p.output_padding[i] >= 0, RuntimeError, op, ": negative output_padding is not supported");
    YATEN_CHECK(p.stride[i] < (int64_t(1) << 31) && p.dilation[i] < (int64_t(1) << 31) &&
                p.padding[i] < (int64_t(1) << 40) && p.output_padding[i] < (int64_t(1) << 31), RuntimeError, op,
                ": stride, dilation, padding or output_padding too large");
    YATEN_CHECK(transposed || p.output_padding[i] == 0, RuntimeError, op, ": output_padding is only for transposed "
                "convolution, but got output_padding ", sizes_text(p.output_padding));
    YATEN_CHECK(!transposed || p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i],
                RuntimeError, op, ": output padding must be smaller than either stride or dilation, but got "
                "output_padding ", sizes_text(p.output_padding), ", stride ", sizes_text(p.stride), " and dilation ",
                sizes_text(p.dilation));
  }
  const int64_t in_channels = input.sizes()[1];
  const int64_t out_channels = transposed ? weight_sizes[1] * groups : weight_sizes[0];
  YATEN_CHECK(weight_sizes[0] % groups == 0, RuntimeError, op, ": Given groups=", groups, ", expected weight to be "
              "divisible by ", groups, " at dimension 0, but got weight of size ", sizes_text(weight_sizes),
              " instead");
  if (transposed) {
    YATEN_CHECK(in_channels == weight_sizes[0], RuntimeError, op, ": Given transposed=1, weight of size ",
                sizes_text(weight_sizes), ", expected input", sizes_text(input.sizes()), " to have ",
                weight_sizes[0], " channels, but got ", in_channels, " channels instead");
  } else {
    YATEN_CHECK(in_channels == weight_sizes[1] * groups, RuntimeError, op, ": Given groups=", groups,
                ", weight of size ", sizes_text(weight_sizes), ", expected input", sizes_text(input.sizes()),
                " to have ", weight_sizes[1] * groups, " channels, but got ", in_channels, " channels instead");
  }
  YATEN_CHECK(!bias.defined() || (bias.dim() == 1 && bias.sizes()[0] == out_channels), RuntimeError, op,
              ": Given weight of size ", sizes_text(weight_sizes), ", expected bias to be 1-dimensional with ",
              out_channels, " elements, but got bias of size ", sizes_text(bias.sizes()), " instead");
  return p;
}

// _convolution_forward's checks (the same as convolution's, for a convolution that is not transposed).
inline ConvParams check_forward(const Tensor& input, const Tensor& weight, const std::vector<int64_t>& stride,
                                const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                int64_t groups) {
  return check_convolution("_convolution_forward", input, weight.sizes(), weight.dtype(), weight.device(), Tensor(),
                           stride, padding, dilation, false, {0}, groups);
}

// _convolution_transpose_forward's checks (convolution's, for a transposed convolution).
inline ConvParams check_transpose_forward(const Tensor& input, const Tensor& weight,
                                          const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                          const std::vector<int64_t>& dilation,
                                          const std::vector<int64_t>& output_padding, int64_t groups) {
  return check_convolution("_convolution_transpose_forward", input, weight.sizes(), weight.dtype(), weight.device(),
                           Tensor(), stride, padding, dilation, true, output_padding, groups);
}

// Images per matrix product: as many as keep the column matrix within a budget (a few MiB on the CPU, which the
// products then read from cache; 1 GiB on a GPU), at least one.
inline int64_t images_per_chunk(const Tensor& t, int64_t column_elements_per_image, int64_t batch) {
  const int64_t budget = t.device().is_cuda() ? (int64_t(1) << 30) : (int64_t(8) << 20);
  const int64_t per_image =
      std::max<int64_t>(1, checked_mul("convolution", column_elements_per_image, element_size(t.dtype())));
  return std::clamp<int64_t>(budget / per_image, 1, std::max<int64_t>(batch, 1));
}

// The columns of a chunk of images, (B, C * kprod, L); a 1x1 kernel at stride 1 without padding reads the images
// themselves.
inline Tensor columns(const Tensor& images, const conv::Geometry& g, const ConvParams& p) {
  bool identity = g.kprod == 1;
  for (int i = 0; i < g.dims; ++i) identity = identity && g.stride[i] == 1 && g.pad[i] == 0;
  if (identity) return yaten::reshape(images, {images.sizes()[0], g.channels, g.cols});
  return yaten::im2col(images, p.kernel, p.dilation, p.padding, p.stride);
}

// Rows of chunk results land in `out`: the first chunk's result is the output when it covers the whole batch.
struct ChunkedOutput {
  std::vector<int64_t> shape;
  Tensor out;
  void put(const Tensor& result, int64_t n0, int64_t count, const Tensor& like) {
    if (n0 == 0 && count == shape[0]) {
      out = yaten::reshape(result, shape);
      return;
    }
    if (!out.defined()) out = yaten::empty(shape, like.dtype(), like.device());
    std::vector<int64_t> chunk = shape;
    chunk[0] = count;
    yaten::copy_(yaten::narrow(out, 0, n0, count), yaten::reshape(result, chunk));
  }
};

inline Tensor add_bias(Tensor out, const Tensor& bias) {
  if (!bias.defined()) return out;
  std::vector<int64_t> shape(out.dim(), 1);
  shape[1] = bias.sizes()[0];
  return yaten::add_(out, yaten::reshape(bias, shape));
}

// The spatial grid of a transposed convolution's columns is its input's; output_padding at or past the stride
// (allowed below the dilation) makes the grid of the output larger than the input, so the input is padded with
// zeros at the end to that grid, which adds nothing.
inline Tensor pad_to_grid(const Tensor& x, const conv::Geometry& g) {
  std::vector<int64_t> pad;
  bool any = false;
  for (int i = g.dims - 1; i >= 0; --i) {
    const int64_t extra = g.out[i] - x.sizes()[2 + i];
    pad.push_back(0);
    pad.push_back(extra);
    any = any || extra != 0;
  }
  return any ? yaten::pad(x, pad, "constant", 0.0) : x;
}

// out = W_g @ im2col(x)_g per image: (N, Cin, in...) -> (N, Cout, out...).
inline Tensor forward(const Tensor& input, const Tensor& weight, const ConvParams& p) {
  const int64_t n = input.sizes()[0], cin = input.sizes()[1], cout = weight.sizes()[0], groups = p.groups;
  const conv::Geometry g = conv::sliding_geometry("convolution", cin, spatial(input.sizes()), p.kernel, p.dilation,
                                                  p.padding, p.stride);
  ChunkedOutput result{{n, cout}, Tensor()};
  for (int i = 0; i < g.dims; ++i) result.shape.push_back(g.out[i]);
  if (n == 0) return yaten::empty(result.shape, input.dtype(), input.device());
  const int64_t kg = cin / groups * g.kprod;
  const Tensor w = groups == 1 ? yaten::reshape(weight, {cout, kg}) : yaten::reshape(weight, {groups, cout / groups, kg});
  const int64_t chunk = images_per_chunk(input, g.rows() * g.cols, n);
  for (int64_t n0 = 0; n0 < n; n0 += chunk) {
    const int64_t b = std::min(chunk, n - n0);
    const Tensor cols = columns(yaten::narrow(input, 0, n0, b), g, p);
    result.put(yaten::matmul(w, groups == 1 ? cols : yaten::reshape(cols, {b, groups, kg, g.cols})), n0, b, input);
  }
  return result.out;
}

// The geometry of a transposed convolution: its output is the image, its input the grid of kernel positions.
inline conv::Geometry transposed_geometry(const char* op, const std::vector<int64_t>& input_sizes,
                                          int64_t out_channels, const ConvParams& p) {
  std::vector<int64_t> out_size;
  for (int i = 0; i < p.dims; ++i) {
    const int64_t in = input_sizes[2 + i];
    const int64_t size = checked_add(op, checked_add(op, checked_mul(op, in - 1, p.stride[i]) - 2 * p.padding[i],
                                                     checked_mul(op, p.dilation[i], p.kernel[i] - 1)),
                                     p.output_padding[i] + 1);
    YATEN_CHECK(size > 0 && in > 0, RuntimeError, op, ": Given input size per channel ",
                sizes_text(spatial(input_sizes)), ", the calculated output size along spatial dim ", i, " is ", size,
                ": output size is too small");
    out_size.push_back(size);
  }
  return conv::sliding_geometry(op, out_channels, out_size, p.kernel, p.dilation, p.padding, p.stride);
}

// out = col2im(W_g^T @ x_g) per image: (N, Cin, in...) -> (N, Cout, out...).
inline Tensor transposed_forward(const Tensor& input, const Tensor& weight, const ConvParams& p) {
  const int64_t n = input.sizes()[0], cin = input.sizes()[1], groups = p.groups;
  const int64_t per_group = weight.sizes()[1], cout = per_group * groups;
  const conv::Geometry g = transposed_geometry("conv_transpose", input.sizes(), cout, p);
  std::vector<int64_t> out_size(g.in, g.in + g.dims), shape = {n, cout};
  shape.insert(shape.end(), out_size.begin(), out_size.end());
  if (n == 0) return yaten::empty(shape, input.dtype(), input.device());
  const int64_t rows_g = per_group * g.kprod;  // column rows per group
  const Tensor w = yaten::reshape(weight, {groups, cin / groups, rows_g});
  const Tensor wt = groups == 1 ? yaten::transpose(yaten::reshape(w, {cin, rows_g}), 0, 1) : yaten::transpose(w, 1, 2);
  const Tensor x = pad_to_grid(input, g);
  const int64_t chunk = images_per_chunk(input, g.rows() * g.cols, n);
  ChunkedOutput result{shape, Tensor()};
  for (int64_t n0 = 0; n0 < n; n0 += chunk) {
    const int64_t b = std::min(chunk, n - n0);
    const Tensor xs = groups == 1 ? yaten::reshape(yaten::narrow(x, 0, n0, b), {b, cin, g.cols})
                                  : yaten::reshape(yaten::narrow(x, 0, n0, b), {b, groups, cin / groups, g.cols});
    const Tensor cols = yaten::reshape(yaten::matmul(wt, xs), {b, g.rows(), g.cols});
    result.put(yaten::col2im(cols, out_size, p.kernel, p.dilation, p.padding, p.stride), n0, b, input);
  }
  return result.out;
}

// The gradient of a convolution's input: a transposed convolution of the gradient with the same weight, its
// output_padding the rows and columns the forward's floor division dropped (always fewer than the stride); and the
// other way round, cut to the input's size where output_padding at or past the stride made the output larger.
inline Tensor input_backward(const Tensor& grad, const std::vector<int64_t>& input_sizes, const Tensor& weight,
                             const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, bool transposed,
                             const std::vector<int64_t>& output_padding, int64_t groups) {
  const int dims = int(input_sizes.size()) - 2;
  if (!transposed) {
    const auto s = conv::per_dim("convolution_backward", "stride", stride, dims);
    const auto pd = conv::per_dim("convolution_backward", "padding", padding, dims);
    const auto d = conv::per_dim("convolution_backward", "dilation", dilation, dims);
    std::vector<int64_t> dropped;
    for (int i = 0; i < dims; ++i) {
      const int64_t k = weight.sizes()[2 + i];
      dropped.push_back(input_sizes[2 + i] - ((grad.sizes()[2 + i] - 1) * s[i] - 2 * pd[i] + d[i] * (k - 1) + 1));
    }
    return yaten::convolution(grad, weight, Tensor(), stride, padding, dilation, true, dropped, groups);
  }
  Tensor result = yaten::convolution(grad, weight, Tensor(), stride, padding, dilation, false, {0}, groups);
  for (int i = 0; i < dims; ++i) {
    if (result.sizes()[2 + i] > input_sizes[2 + i]) result = yaten::narrow(result, 2 + i, 0, input_sizes[2 + i]);
  }
  return result;
}

inline Tensor bias_backward(const Tensor& grad) {
  std::vector<int64_t> dims = {0};
  for (int64_t i = 2; i < grad.dim(); ++i) dims.push_back(i);
  return yaten::sum(grad, dims, false);
}

// The geometry of a convolution's backward (the columns im2col makes: of the input, or of grad_output for a
// transposed convolution), after the checks that grad_output has the input's dtype and device and the
// convolution's output size.
inline conv::Geometry backward_geometry(const char* op, const Tensor& grad_output, const Tensor& input, int64_t cout,
                                        const ConvParams& p) {
  YATEN_CHECK(grad_output.dtype() == input.dtype() && grad_output.device() == input.device(), RuntimeError, op,
              ": expected grad_output of the input's dtype and device, but got ", dtype_name(grad_output.dtype()),
              " on ", grad_output.device().str(), " for an input of ", dtype_name(input.dtype()), " on ",
              input.device().str());
  const conv::Geometry g = p.transposed ? transposed_geometry(op, input.sizes(), cout, p)
                                        : conv::sliding_geometry(op, input.sizes()[1], spatial(input.sizes()),
                                                                 p.kernel, p.dilation, p.padding, p.stride);
  std::vector<int64_t> expected = {input.sizes()[0], cout};
  for (int i = 0; i < g.dims; ++i) expected.push_back(p.transposed ? g.in[i] : g.out[i]);
  YATEN_CHECK(grad_output.sizes() == expected, RuntimeError, op, ": expected grad_output of size ",
              sizes_text(expected), ", but got ", sizes_text(grad_output.sizes()));
  return g;
}

}  // namespace conv_detail

inline Tensor convolution_impl(const Tensor& input, const Tensor& weight, const Tensor& bias,
                               const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation, bool transposed,
                               const std::vector<int64_t>& output_padding, int64_t groups) {
  const auto p = conv_detail::check_convolution("convolution", input, weight.sizes(), weight.dtype(), weight.device(),
                                                bias, stride, padding, dilation, transposed, output_padding, groups);
  // float16 and bfloat16 on the CPU: products, sums and the bias in float32, rounded once at the end, as torch's CPU
  // kernels (rounding the product before the bias is added differs in the last bit)
  if (input.device().is_cpu() && (input.dtype() == ScalarType::Half || input.dtype() == ScalarType::BFloat16)) {
    const auto wide = [](const Tensor& t) {
      return t.defined() ? yaten::_to_copy(t, ScalarType::Float, std::nullopt) : t;
    };
    return yaten::_to_copy(convolution_impl(wide(input), wide(weight), wide(bias), stride, padding, dilation,
                                            transposed, output_padding, groups),
                           input.dtype(), std::nullopt);
  }
  return conv_detail::add_bias(transposed ? yaten::_convolution_transpose_forward(input, weight, p.stride, p.padding,
                                                                                  p.dilation, p.output_padding,
                                                                                  groups)
                                          : yaten::_convolution_forward(input, weight, p.stride, p.padding,
                                                                        p.dilation, groups), bias);
}

namespace conv_detail {

// _convolution_weight_backward's checks; the geometry of the columns im2col makes (of the input, or of grad_output
// for a transposed convolution).
struct WeightBackwardPlan {
  ConvParams p;
  conv::Geometry g;
  int64_t cout;
};
inline WeightBackwardPlan check_weight_backward(const Tensor& grad_output, const Tensor& input,
                                                const std::vector<int64_t>& weight_size,
                                                const std::vector<int64_t>& stride,
                                                const std::vector<int64_t>& padding,
                                                const std::vector<int64_t>& dilation, bool transposed,
                                                const std::vector<int64_t>& output_padding, int64_t groups) {
  const char* op = "convolution_backward";
  YATEN_CHECK(weight_size.size() >= 3 && weight_size.size() <= 5 && int64_t(weight_size.size()) == input.dim() &&
              grad_output.dim() == input.dim(), RuntimeError, op, ": expected input, grad_output and weight_size of "
              "one rank (3 to 5), but got input of size ", sizes_text(input.sizes()), ", grad_output of size ",
              sizes_text(grad_output.sizes()), " and weight_size ", sizes_text(weight_size));
  WeightBackwardPlan plan;
  plan.p = check_convolution(op, input, weight_size, input.dtype(), input.device(), Tensor(), stride, padding,
                             dilation, transposed, output_padding, groups);
  plan.cout = transposed ? weight_size[1] * groups : weight_size[0];
  plan.g = backward_geometry(op, grad_output, input, plan.cout, plan.p);
  return plan;
}

// The gradient of a convolution's weight: sum over images of grad_g @ im2col(input)_g^T, or for a transposed
// convolution input_g @ im2col(grad)_g^T (Note [Convolution as matrix products]).
inline Tensor weight_backward(const Tensor& grad_output, const Tensor& input, const std::vector<int64_t>& weight_size,
                              const WeightBackwardPlan& plan) {
  const ConvParams& p = plan.p;
  const conv::Geometry& g = plan.g;
  const int64_t n = input.sizes()[0], cin = input.sizes()[1], groups = p.groups;
  // the image im2col reads (input, or the gradient for a transposed convolution) and the other factor
  const Tensor& image = p.transposed ? grad_output : input;
  const Tensor other = p.transposed ? pad_to_grid(input, g) : grad_output;
  const int64_t other_channels = p.transposed ? cin : plan.cout;
  const int64_t rows_g = g.rows() / groups, other_g = other_channels / groups;
  Tensor total = yaten::zeros({groups, other_g, rows_g}, input.dtype(), input.device());
  const int64_t chunk = images_per_chunk(input, g.rows() * g.cols, n);
  for (int64_t n0 = 0; n0 < n; n0 += chunk) {
    const int64_t b = std::min(chunk, n - n0);
    const Tensor cols = yaten::reshape(columns(yaten::narrow(image, 0, n0, b), g, p), {b, groups, rows_g, g.cols});
    const Tensor factor = yaten::reshape(yaten::narrow(other, 0, n0, b), {b, groups, other_g, g.cols});
    yaten::add_(total, yaten::sum(yaten::matmul(factor, yaten::transpose(cols, 2, 3)), std::vector<int64_t>{0}, false));
  }
  return yaten::reshape(total, weight_size);
}

}  // namespace conv_detail

// convolution_backward, torch's Core ATen op: the gradients of convolution's input, weight and bias for
// grad_output, those output_mask asks for (the others undefined: None in Python), each as convolution's
// `derivatives:` computes it. bias_sizes is only the bias's shape, which the sum over grad_output gives.
inline std::tuple<Tensor, Tensor, Tensor> convolution_backward_impl(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    const std::optional<std::vector<int64_t>>& bias_sizes, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool transposed,
    const std::vector<int64_t>& output_padding, int64_t groups, std::array<bool, 3> output_mask) {
  const char* op = "convolution_backward";
  const auto p = conv_detail::check_convolution(op, input, weight.sizes(), weight.dtype(), weight.device(), Tensor(),
                                                stride, padding, dilation, transposed, output_padding, groups);
  const int64_t cout = transposed ? weight.sizes()[1] * p.groups : weight.sizes()[0];
  conv_detail::backward_geometry(op, grad_output, input, cout, p);
  YATEN_CHECK(!bias_sizes || (bias_sizes->size() == 1 && (*bias_sizes)[0] == cout), RuntimeError, op,
              ": expected bias_sizes [", cout, "] (the output channels), but got ",
              sizes_text(bias_sizes ? *bias_sizes : std::vector<int64_t>{}));
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = conv_detail::input_backward(grad_output, input.sizes(), weight, p.stride, p.padding, p.dilation,
                                             transposed, p.output_padding, p.groups);
  }
  if (output_mask[1]) {
    grad_weight = yaten::_convolution_weight_backward(grad_output, input, weight.sizes(), p.stride, p.padding,
                                                      p.dilation, transposed, p.output_padding, p.groups);
  }
  if (output_mask[2]) grad_bias = conv_detail::bias_backward(grad_output);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace yaten::native
