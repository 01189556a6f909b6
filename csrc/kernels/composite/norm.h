// Normalization for every device, as composites: native_batch_norm (training, with the running statistics updated
// in place, and evaluation), native_group_norm and native_layer_norm. Instance norm is batch norm of the (1, N*C)
// view, in yaten.nn.functional.
//
// Note [Normalization as one scaled pass]: after the statistics (one var_mean pass), each element is
//     y = x * scale + shift,  scale = rstd * weight,  shift = bias - mean * scale
// with scale and shift per channel (batch norm), per (sample, channel) (group norm) or per row (layer norm, before
// its elementwise weight and bias): one addcmul over the input, as torch's CPU kernels compute it. Reduced
// precision inputs compute in float32 and round once at the end. Autograd comes from the ops called (var_mean,
// rsqrt, addcmul, ...), so gradients of gradients follow.
#pragma once

#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/addcmul.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/mean.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/rsqrt.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/var_mean.h"

namespace yaten::native {

namespace norm_detail {
inline bool reduced(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
inline Tensor in_float(const Tensor& t) {
  return t.defined() && reduced(t.dtype()) ? yaten::_to_copy(t, ScalarType::Float, std::nullopt) : t;
}
inline Tensor as_dtype(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? t : yaten::_to_copy(t, dtype, std::nullopt);
}
// A length-C vector as (1, C, 1, ...) for a `dim`-D input.
inline Tensor channel_view(const Tensor& v, int64_t dim) {
  std::vector<int64_t> shape(size_t(dim), 1);
  shape[1] = v.numel();
  return yaten::reshape(v, shape);
}
inline void check_channels(const char* op, const char* name, const Tensor& t, int64_t channels) {
  YATEN_CHECK(!t.defined() || (t.dim() == 1 && t.sizes()[0] == channels), RuntimeError, op, ": ", name,
              " should contain ", channels, " elements not ", t.defined() ? t.numel() : 0);
}
// scale = rstd * weight, shift = bias - mean * scale (weight and bias optional, all of one shape).
inline std::pair<Tensor, Tensor> scale_shift(const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                                             const Tensor& bias) {
  const Tensor scale = weight.defined() ? yaten::mul(rstd, in_float(weight)) : rstd;
  const Tensor moved = yaten::mul(mean, scale);
  return {scale, bias.defined() ? yaten::sub(in_float(bias), moved, Scalar(int64_t(1))) : yaten::neg(moved)};
}
// torch's checks of group norm's arguments (the forward's and the backward's).
inline void check_group_norm(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t n,
                             int64_t c, int64_t hxw, int64_t group) {
  YATEN_CHECK(group > 0 && c % group == 0, RuntimeError, op, ": Expected number of channels in input to be "
              "divisible by num_groups, but got input of shape ", sizes_text(input.sizes()), " and num_groups=",
              group);
  YATEN_CHECK(n >= 0 && hxw >= 0 && input.dim() >= 2 && input.sizes()[0] == n && input.sizes()[1] == c &&
              input.numel() == checked_numel(op, {n, c, hxw}), RuntimeError, op, ": expected an input of N=", n,
              ", C=", c, " and HxW=", hxw, " elements, but got input of size ", sizes_text(input.sizes()));
  YATEN_CHECK(is_floating_point(input.dtype()), NotImplementedError, op, ": not implemented for ",
              dtype_name(input.dtype()), " (floating dtypes only)");
  check_channels(op, "weight", weight, c);
  check_channels(op, "bias", bias, c);
}
// torch's checks of layer norm's arguments (the forward's and the backward's).
inline void check_layer_norm(const char* op, const Tensor& input, const std::vector<int64_t>& normalized_shape,
                             const Tensor& weight, const Tensor& bias) {
  const int64_t k = int64_t(normalized_shape.size());
  bool matches = k >= 1 && k <= input.dim();
  for (int64_t i = 0; matches && i < k; ++i) matches = input.sizes()[input.dim() - k + i] == normalized_shape[i];
  YATEN_CHECK(matches, RuntimeError, op, ": normalized_shape must be the trailing sizes of the input (and not "
              "empty), but got normalized_shape ", sizes_text(normalized_shape), " for input of size ",
              sizes_text(input.sizes()));
  YATEN_CHECK(is_floating_point(input.dtype()), TypeError, op, ": expected a floating input, got ",
              dtype_name(input.dtype()));
  for (const Tensor* p : {&weight, &bias}) {
    YATEN_CHECK(!p->defined() || p->sizes() == normalized_shape, RuntimeError, op, ": weight and bias must have "
                "the shape normalized_shape");
  }
}
}  // namespace norm_detail

inline std::tuple<Tensor, Tensor, Tensor> native_batch_norm_impl(const Tensor& input, const Tensor& weight,
                                                                 const Tensor& bias, const Tensor& running_mean,
                                                                 const Tensor& running_var, bool training,
                                                                 double momentum, double eps) {
  using namespace norm_detail;
  const char* op = "batch_norm";
  YATEN_CHECK(input.dim() >= 2, RuntimeError, op, ": expected an input of at least 2 dims (N, C, ...), got input "
              "of size ", sizes_text(input.sizes()));
  YATEN_CHECK(is_floating_point(input.dtype()), NotImplementedError, op, ": not implemented for ",
              dtype_name(input.dtype()), " (floating dtypes only)");
  const int64_t channels = input.sizes()[1];
  check_channels(op, "weight", weight, channels);
  check_channels(op, "bias", bias, channels);
  check_channels(op, "running_mean", running_mean, channels);
  check_channels(op, "running_var", running_var, channels);
  std::vector<int64_t> dims = {0};
  for (int64_t i = 2; i < input.dim(); ++i) dims.push_back(i);
  const Tensor x = in_float(input);
  Tensor mean, rstd;
  if (training) {
    const int64_t per_channel = channels ? input.numel() / channels : 0;
    YATEN_CHECK(per_channel > 1, ValueError, op, ": Expected more than 1 value per channel when training, got input "
                "size ", sizes_text(input.sizes()));
    auto [var, m] = yaten::var_mean(x, dims, Scalar(int64_t(0)), false);
    mean = m;
    rstd = yaten::rsqrt(yaten::add(var, Scalar(eps), Scalar(int64_t(1))));
    autograd::GradModeGuard no_grad(false);  // the running statistics are state, not part of the graph
    const double unbias = double(per_channel) / double(per_channel - 1);
    if (running_mean.defined()) {
      yaten::copy_(running_mean, yaten::add(yaten::mul(in_float(running_mean), Scalar(1.0 - momentum)),
                                            yaten::mul(autograd::detach(m), Scalar(momentum)), Scalar(int64_t(1))));
    }
    if (running_var.defined()) {
      yaten::copy_(running_var, yaten::add(yaten::mul(in_float(running_var), Scalar(1.0 - momentum)),
                                           yaten::mul(autograd::detach(var), Scalar(momentum * unbias)),
                                           Scalar(int64_t(1))));
    }
  } else {
    YATEN_CHECK(running_mean.defined() && running_var.defined(), RuntimeError, op, ": running_mean and running_var "
                "must be given in evaluation mode (training=False)");
    mean = in_float(running_mean);
    rstd = yaten::rsqrt(yaten::add(in_float(running_var), Scalar(eps), Scalar(int64_t(1))));
  }
  const auto [scale, shift] = scale_shift(mean, rstd, weight, bias);
  const Tensor out = yaten::addcmul(channel_view(shift, input.dim()), x, channel_view(scale, input.dim()),
                                    Scalar(int64_t(1)));
  const Tensor none = yaten::empty({0}, x.dtype(), input.device());
  // the saved statistics carry no gradient, as torch's (its output_differentiability [True, False, False])
  return {as_dtype(out, input.dtype()), training ? autograd::detach(mean) : none,
          training ? autograd::detach(rstd) : none};
}

inline std::tuple<Tensor, Tensor, Tensor> native_group_norm_impl(const Tensor& input, const Tensor& weight,
                                                                 const Tensor& bias, int64_t n, int64_t c,
                                                                 int64_t hxw, int64_t group, double eps) {
  using namespace norm_detail;
  check_group_norm("group_norm", input, weight, bias, n, c, hxw, group);
  const Tensor x = in_float(input);
  const int64_t per_group = c / group;
  auto [var, mean] = yaten::var_mean(yaten::reshape(x, {n, group, per_group * hxw}), std::vector<int64_t>{2},
                                     Scalar(int64_t(0)), false);
  const Tensor rstd = yaten::rsqrt(yaten::add(var, Scalar(eps), Scalar(int64_t(1))));
  if (!weight.defined() && !bias.defined()) {  // scale and shift per (sample, group): no per-channel copies
    const auto [scale, shift] = scale_shift(yaten::reshape(mean, {n, group, 1}), yaten::reshape(rstd, {n, group, 1}),
                                            Tensor(), Tensor());
    const Tensor out = yaten::addcmul(shift, yaten::reshape(x, {n, group, per_group * hxw}), scale,
                                      Scalar(int64_t(1)));
    return {as_dtype(yaten::reshape(out, input.sizes()), input.dtype()), mean, rstd};
  }
  // per (sample, channel): each group's statistics repeated over its channels
  const auto per_channel = [&](const Tensor& t) {
    return yaten::reshape(yaten::expand(yaten::reshape(t, {n, group, 1}), {n, group, per_group}), {n, c});
  };
  const Tensor w = weight.defined() ? yaten::reshape(weight, {1, c}) : Tensor();
  const Tensor b = bias.defined() ? yaten::reshape(bias, {1, c}) : Tensor();
  const auto [scale, shift] = scale_shift(per_channel(mean), per_channel(rstd), w, b);
  const Tensor out = yaten::addcmul(yaten::reshape(shift, {n, c, 1}), yaten::reshape(x, {n, c, hxw}),
                                    yaten::reshape(scale, {n, c, 1}), Scalar(int64_t(1)));
  return {as_dtype(yaten::reshape(out, input.sizes()), input.dtype()), mean, rstd};
}

inline std::tuple<Tensor, Tensor, Tensor> native_layer_norm_impl(const Tensor& input,
                                                                 const std::vector<int64_t>& normalized_shape,
                                                                 const Tensor& weight, const Tensor& bias,
                                                                 double eps) {
  using namespace norm_detail;
  check_layer_norm("layer_norm", input, normalized_shape, weight, bias);
  const int64_t k = int64_t(normalized_shape.size());
  const Tensor x = in_float(input);
  std::vector<int64_t> dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  auto [var, mean] = yaten::var_mean(x, dims, Scalar(int64_t(0)), true);
  const Tensor rstd = yaten::rsqrt(yaten::add(var, Scalar(eps), Scalar(int64_t(1))));
  const auto [scale, shift] = scale_shift(mean, rstd, Tensor(), Tensor());
  Tensor out = yaten::addcmul(shift, x, scale, Scalar(int64_t(1)));  // (x - mean) * rstd, per row
  if (weight.defined() && bias.defined()) {
    out = yaten::addcmul(in_float(bias), out, in_float(weight), Scalar(int64_t(1)));
  } else if (weight.defined()) {
    out = yaten::mul(out, in_float(weight));
  } else if (bias.defined()) {
    out = yaten::add(out, in_float(bias), Scalar(int64_t(1)));
  }
  // the saved statistics carry no gradient, as torch's (its output_differentiability [True, False, False])
  return {as_dtype(out, input.dtype()), autograd::detach(mean), autograd::detach(rstd)};
}

// ------------------------------------------------------------------------------------------------ backwards
// torch's Core ATen backward ops, for the programs torch exports with them. Each returns the gradients output_mask
// asks for (the others undefined: None in Python) in closed form: with x_hat = (x - mean) * rstd and
// g = grad_out * weight, the input's gradient is
//     rstd * (g - mean(g) - x_hat * mean(g * x_hat))        (means over each normalized group)
// as torch's kernels compute it, and the weight's and bias's are sums of grad_out * x_hat and grad_out over what
// they are shared by. Composites, so their own gradients come from the ops they call.

namespace norm_detail {
inline Tensor normalized_grad(const Tensor& g, const Tensor& x_hat, const Tensor& rstd,
                              const std::vector<int64_t>& dims) {
  const Tensor g_mean = yaten::mean(g, dims, true);
  const Tensor gx_mean = yaten::mean(yaten::mul(g, x_hat), dims, true);
  return yaten::mul(yaten::sub(yaten::sub(g, g_mean, Scalar(int64_t(1))), yaten::mul(x_hat, gx_mean),
                               Scalar(int64_t(1))),
                    rstd);
}
// x_hat = (input - mean) * rstd, in float32 for float16/bfloat16 inputs; mean and rstd shaped to broadcast.
inline Tensor normalized(const Tensor& input, const Tensor& mean, const Tensor& rstd) {
  return yaten::mul(yaten::sub(in_float(input), mean, Scalar(int64_t(1))), rstd);
}
// Sums over `dims` (none: t itself, where yaten::sum would sum everything), in `dtype`.
inline Tensor sum_over(const Tensor& t, const std::vector<int64_t>& dims, ScalarType dtype) {
  return as_dtype(dims.empty() ? t : yaten::sum(t, dims, false), dtype);
}
inline void check_grad_out(const char* op, const Tensor& grad_out, const Tensor& input) {
  YATEN_CHECK(grad_out.sizes() == input.sizes(), RuntimeError, op, ": expected grad_out of the input's size ",
              sizes_text(input.sizes()), ", but got ", sizes_text(grad_out.sizes()));
}
inline void check_statistic(const char* op, const char* name, const Tensor& t, int64_t count) {
  YATEN_CHECK(t.defined() && t.numel() == count, RuntimeError, op, ": expected ", name, " of ", count,
              " elements (one per normalized group), but got ", t.defined() ? sizes_text(t.sizes()) : "None");
}
}  // namespace norm_detail

inline std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  using namespace norm_detail;
  const char* op = "native_batch_norm_backward";
  YATEN_CHECK(input.dim() >= 2, RuntimeError, op, ": expected an input of at least 2 dims (N, C, ...), got input "
              "of size ", sizes_text(input.sizes()));
  check_grad_out(op, grad_out, input);
  const int64_t channels = input.sizes()[1];
  check_channels(op, "weight", weight, channels);
  Tensor mean, invstd;
  if (train) {  // the batch's statistics, as native_batch_norm saved them
    check_statistic(op, "save_mean", save_mean, channels);
    check_statistic(op, "save_invstd", save_invstd, channels);
    mean = in_float(save_mean);
    invstd = in_float(save_invstd);
  } else {
    check_statistic(op, "running_mean", running_mean, channels);
    check_statistic(op, "running_var", running_var, channels);
    mean = in_float(running_mean);
    invstd = yaten::rsqrt(yaten::add(in_float(running_var), Scalar(eps), Scalar(int64_t(1))));
  }
  std::vector<int64_t> dims = {0};
  for (int64_t i = 2; i < input.dim(); ++i) dims.push_back(i);
  const Tensor dy = in_float(grad_out), rstd = channel_view(invstd, input.dim());
  // in evaluation the statistics are constants, and the input's gradient needs no x_hat
  const bool need_x_hat = (output_mask[0] && train) || output_mask[1];
  const Tensor x_hat = need_x_hat ? normalized(input, channel_view(mean, input.dim()), rstd) : Tensor();
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor g = weight.defined() ? yaten::mul(dy, channel_view(in_float(weight), input.dim())) : dy;
    grad_input = as_dtype(train ? normalized_grad(g, x_hat, rstd, dims) : yaten::mul(g, rstd), input.dtype());
  }
  const ScalarType param_dtype = weight.defined() ? weight.dtype() : input.dtype();
  if (output_mask[1]) grad_weight = sum_over(yaten::mul(dy, x_hat), dims, param_dtype);
  if (output_mask[2]) grad_bias = sum_over(dy, dims, param_dtype);
  return {grad_input, grad_weight, grad_bias};
}

inline std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd, const Tensor& weight,
    int64_t n, int64_t c, int64_t hxw, int64_t group, std::array<bool, 3> output_mask) {
  using namespace norm_detail;
  const char* op = "native_group_norm_backward";
  check_group_norm(op, input, weight, Tensor(), n, c, hxw, group);
  check_grad_out(op, grad_out, input);
  check_statistic(op, "mean", mean, n * group);
  check_statistic(op, "rstd", rstd, n * group);
  const int64_t per_group = c / group;
  const std::vector<int64_t> shape = {n, group, per_group, hxw};
  const Tensor dy = yaten::reshape(in_float(grad_out), shape);
  const Tensor r = yaten::reshape(in_float(rstd), {n, group, 1, 1});
  const Tensor m = yaten::reshape(in_float(mean), {n, group, 1, 1});
  const bool need_x_hat = output_mask[0] || (output_mask[1] && weight.defined());
  const Tensor x_hat = need_x_hat ? normalized(yaten::reshape(input, shape), m, r) : Tensor();
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor g = weight.defined() ? yaten::mul(dy, yaten::reshape(in_float(weight), {1, group, per_group, 1}))
                                      : dy;
    grad_input = as_dtype(yaten::reshape(normalized_grad(g, x_hat, r, {2, 3}), input.sizes()), input.dtype());
  }
  const ScalarType param_dtype = weight.defined() ? weight.dtype() : input.dtype();
  if (output_mask[1] && weight.defined()) {
    grad_weight = yaten::reshape(sum_over(yaten::mul(dy, x_hat), {0, 3}, param_dtype), {c});
  }
  if (output_mask[2]) grad_bias = yaten::reshape(sum_over(dy, {0, 3}, param_dtype), {c});
  return {grad_input, grad_weight, grad_bias};
}

inline std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& mean,
    const Tensor& rstd, const Tensor& weight, const Tensor& bias, std::array<bool, 3> output_mask) {
  using namespace norm_detail;
  const char* op = "native_layer_norm_backward";
  check_layer_norm(op, input, normalized_shape, weight, bias);
  check_grad_out(op, grad_out, input);
  const int64_t axis = input.dim() - int64_t(normalized_shape.size());
  // the statistics per row, the normalized dims kept as 1 (as native_layer_norm returns them)
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().begin() + axis), batch_dims, dims;
  stat_shape.resize(size_t(input.dim()), 1);
  for (int64_t i = 0; i < input.dim(); ++i) (i < axis ? batch_dims : dims).push_back(i);
  int64_t rows = 1;
  for (int64_t i = 0; i < axis; ++i) rows *= input.sizes()[i];
  check_statistic(op, "mean", mean, rows);
  check_statistic(op, "rstd", rstd, rows);
  const Tensor dy = in_float(grad_out), r = yaten::reshape(in_float(rstd), stat_shape);
  const bool need_x_hat = output_mask[0] || (output_mask[1] && weight.defined());
  const Tensor x_hat = need_x_hat ? normalized(input, yaten::reshape(in_float(mean), stat_shape), r) : Tensor();
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor g = weight.defined() ? yaten::mul(dy, in_float(weight)) : dy;
    grad_input = as_dtype(normalized_grad(g, x_hat, r, dims), input.dtype());
  }
  if (output_mask[1] && weight.defined()) grad_weight = sum_over(yaten::mul(dy, x_hat), batch_dims, weight.dtype());
  if (output_mask[2] && bias.defined()) grad_bias = sum_over(dy, batch_dims, bias.dtype());
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace yaten::native
