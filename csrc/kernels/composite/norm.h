// Normalization for every device: native_batch_norm (training, with the running statistics updated in place, and
// evaluation; the passes its CPU and CUDA kernels share, Note [Batch norm in a few passes]), and as composites
// native_group_norm, native_layer_norm and the backwards. Instance norm is batch norm of the (1, N*C) view, in
// yaten.nn.functional.
//
// Note [Normalization as one scaled pass]: after the statistics (one var_mean pass), each element is
//     y = x * scale + shift,  scale = rstd * weight,  shift = bias - mean * scale
// with scale and shift per channel (batch norm), per (sample, channel) (group norm) or per row (layer norm, before
// its elementwise weight and bias): one addcmul over the input, as torch's CPU kernels compute it. Reduced
// precision inputs compute in float32 and round once at the end. The composites' autograd comes from the ops they
// call (var_mean, rsqrt, addcmul, ...), so gradients of gradients follow.
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/autograd.h"
#include "kernels/norm_math.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_batch_norm_backward_fused.h"
#include "yaten/ops/_group_norm_fused.h"
#include "yaten/ops/_layer_norm_fused.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/addcmul.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/mean.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/native_batch_norm_backward.h"
#include "yaten/ops/native_group_norm_backward.h"
#include "yaten/ops/_layer_norm_backward_fused.h"
#include "yaten/ops/native_layer_norm_backward.h"
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
// The mean of x over dims and 1/sqrt(var + eps), the biased variance's (one var_mean pass): what each norm
// normalizes by, and what its gradients compute again where gradients of gradients are recorded.
inline std::pair<Tensor, Tensor> mean_rstd(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                                           double eps) {
  auto [var, mean] = yaten::var_mean(x, dims, Scalar(int64_t(0)), keepdim);
  return {mean, yaten::rsqrt(yaten::add(var, Scalar(eps), Scalar(int64_t(1))))};
}
// A length-C vector as (1, C, 1, ...) for a `dim`-D input.
inline Tensor channel_view(const Tensor& v, int64_t dim) {
  std::vector<int64_t> shape(size_t(dim), 1);
  shape[1] = v.numel();
  return yaten::reshape(v, shape);
}
// Batch norm's dims: every dim but 1 (channels), and the count of values each channel's statistics are over.
inline std::vector<int64_t> non_channel_dims(const Tensor& input) {
  std::vector<int64_t> dims = {0};
  for (int64_t i = 2; i < input.dim(); ++i) dims.push_back(i);
  return dims;
}
inline int64_t values_per_channel(const Tensor& input) {
  const int64_t channels = input.sizes()[1];
  return channels ? input.numel() / channels : 0;
}
inline void check_batched(const char* op, const Tensor& input) {
  YATEN_CHECK(input.dim() >= 2, RuntimeError, op, ": expected an input of at least 2 dims (N, C, ...), got input "
              "of size ", sizes_text(input.sizes()));
}
// The kernels read raw pointers: every tensor given must be on the input's device.
inline void check_device(const char* op, const Tensor& input, std::initializer_list<const Tensor*> others) {
  for (const Tensor* t : others) {
    YATEN_CHECK(!t->defined() || t->device() == input.device(), RuntimeError, op, ": expected all tensors on ",
                input.device().str(), ", but got one on ", t->device().str());
  }
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

// Note [Batch norm in a few passes]: native_batch_norm is a CPU and a CUDA kernel (kernels/cpu/norm.h,
// kernels/cuda/norm.cuh) with a derivatives: formula, not a composite: as a composite its dozen small ops each
// recorded an autograd node and launched a kernel, which is what a small network's training step spent its time on.
// Both devices run batch_norm_forward below: one var_mean pass, the per-channel values in one step
// (kernels/norm_math.h, run by the device's `Channels`), one addcmul pass. Its backward, native_batch_norm_backward,
// stays a composite (so gradients of gradients come from its ops) but, when no gradient of it is being recorded,
// calls _batch_norm_backward_fused: two sums, the per-channel step, two addcmuls.
namespace norm_detail {
inline Tensor per_channel(const Tensor& t, ScalarType dtype) {
  return t.defined() ? yaten::contiguous(as_dtype(t, dtype)) : Tensor();
}
template <typename acc_t>
acc_t* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<acc_t>() : nullptr;
}
// A running statistic as the per-channel step updates it: in place, in its own dtype and stride.
inline norm::RunningStat running_stat(const char* op, const char* name, const Tensor& t) {
  if (!t.defined()) return {};
  const ScalarType d = t.dtype();
  YATEN_CHECK(d == ScalarType::Half || d == ScalarType::BFloat16 || d == ScalarType::Float || d == ScalarType::Double,
              TypeError, op, ": ", name, " must be a floating tensor, got ", dtype_name(d));
  return {t.data_ptr(), t.strides()[0], d};
}

template <typename acc_t, typename Channels>
std::tuple<Tensor, Tensor, Tensor> batch_norm_forward(const Tensor& input, const Tensor& x, const Tensor& weight,
                                                      const Tensor& bias, const Tensor& running_mean,
                                                      const Tensor& running_var, bool training, double momentum,
                                                      double eps) {
  const ScalarType acc = scalar_type_of<acc_t>;
  const int64_t channels = input.sizes()[1];
  Tensor mean, var;
  const int64_t per_channel_count = values_per_channel(input);
  if (training) {
    auto [v, m] = yaten::var_mean(x, non_channel_dims(input), Scalar(int64_t(0)), false);
    mean = yaten::contiguous(m);
    var = yaten::contiguous(v);
  } else {
    mean = per_channel(running_mean, acc);
    var = per_channel(running_var, acc);
  }
  const Tensor w = per_channel(weight, acc), b = per_channel(bias, acc);
  const norm::RunningStat rm = running_stat("batch_norm", "running_mean", training ? running_mean : Tensor());
  const norm::RunningStat rv = running_stat("batch_norm", "running_var", training ? running_var : Tensor());
  Tensor invstd = yaten::empty({channels}, acc, input.device());
  Tensor scale = yaten::empty({channels}, acc, input.device()), shift = yaten::empty({channels}, acc, input.device());
  const norm::BatchNormForward<acc_t> step{
      mean.data<acc_t>(), var.data<acc_t>(), data_or_null<acc_t>(w), data_or_null<acc_t>(b),
      rm, rv, invstd.data<acc_t>(),
      scale.data<acc_t>(), shift.data<acc_t>(), acc_t(eps), acc_t(momentum),
      acc_t(double(per_channel_count) / double(per_channel_count - 1)), training};
  Channels::run(step, channels, input.device());
  const Tensor out = yaten::addcmul(channel_view(shift, input.dim()), x, channel_view(scale, input.dim()),
                                    Scalar(int64_t(1)));
  // The statistics in the input's dtype, or in float32 for a float16/bfloat16 input whose parameters are float32
  // (torch's mixed type): the dtypes torch's CPU kernel returns them in.
  ScalarType stats = input.dtype();
  for (const Tensor* p : {&weight, &bias, &running_mean, &running_var}) {
    if (p->defined()) {
      if (p->dtype() != input.dtype()) stats = acc;
      break;
    }
  }
  const Tensor none = yaten::empty({0}, stats, input.device());
  return {as_dtype(out, input.dtype()), training ? as_dtype(mean, stats) : none,
          training ? as_dtype(invstd, stats) : none};
}

// native_batch_norm's kernel on either device (`Channels::run(step, C, device)` runs step(c) for each channel).
template <typename Channels>
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                                     const Tensor& running_mean, const Tensor& running_var,
                                                     bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  check_batched(op, input);
  YATEN_CHECK(is_floating_point(input.dtype()), NotImplementedError, op, ": not implemented for ",
              dtype_name(input.dtype()), " (floating dtypes only)");
  const int64_t channels = input.sizes()[1];
  check_channels(op, "weight", weight, channels);
  check_channels(op, "bias", bias, channels);
  check_channels(op, "running_mean", running_mean, channels);
  check_channels(op, "running_var", running_var, channels);
  if (training) {
    YATEN_CHECK(values_per_channel(input) > 1, ValueError, op, ": Expected more than 1 value per channel when "
                "training, got input size ", sizes_text(input.sizes()));
  } else {
    YATEN_CHECK(running_mean.defined() && running_var.defined(), RuntimeError, op, ": running_mean and running_var "
                "must be given in evaluation mode (training=False)");
  }
  check_device(op, input, {&weight, &bias, &running_mean, &running_var});
  const Tensor x = in_float(input);  // the statistics in float, or in double for double inputs
  if (x.dtype() == ScalarType::Double) {
    return batch_norm_forward<double, Channels>(input, x, weight, bias, running_mean, running_var, training,
                                                momentum, eps);
  }
  return batch_norm_forward<float, Channels>(input, x, weight, bias, running_mean, running_var, training, momentum,
                                             eps);
}
}  // namespace norm_detail

inline std::tuple<Tensor, Tensor, Tensor> native_group_norm_impl(const Tensor& input, const Tensor& weight,
                                                                 const Tensor& bias, int64_t n, int64_t c,
                                                                 int64_t hxw, int64_t group, double eps) {
  using namespace norm_detail;
  check_group_norm("group_norm", input, weight, bias, n, c, hxw, group);
  // the one-kernel CPU forward (kernels/cpu/group_norm.h) where it applies; its gradient is the backward below
  const auto same = [&](const Tensor& t) {
    return !t.defined() || (t.dtype() == input.dtype() && t.is_contiguous() && t.device() == input.device());
  };
  if (input.device().type == DeviceType::CPU && input.numel() > 0 && input.is_contiguous() && same(weight) &&
      same(bias)) {
    return yaten::_group_norm_fused(input, weight, bias, n, c, hxw, group, eps);
  }
  const Tensor x = in_float(input);
  const int64_t per_group = c / group;
  const auto [mean, rstd] = mean_rstd(yaten::reshape(x, {n, group, per_group * hxw}), {2}, false, eps);
  if (!weight.defined() && !bias.defined()) {  // scale and shift per (sample, group): no per-channel copies
    const auto [scale, shift] = scale_shift(yaten::reshape(mean, {n, group, 1}), yaten::reshape(rstd, {n, group, 1}),
                                            Tensor(), Tensor());
    const Tensor out = yaten::addcmul(shift, yaten::reshape(x, {n, group, per_group * hxw}), scale,
                                      Scalar(int64_t(1)));
    return {as_dtype(yaten::reshape(out, input.sizes()), input.dtype()), as_dtype(mean, input.dtype()),
            as_dtype(rstd, input.dtype())};
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
  // the statistics in the input's dtype, as torch returns them (float16 and bfloat16 too)
  return {as_dtype(yaten::reshape(out, input.sizes()), input.dtype()), as_dtype(mean, input.dtype()),
          as_dtype(rstd, input.dtype())};
}

inline std::tuple<Tensor, Tensor, Tensor> native_layer_norm_impl(const Tensor& input,
                                                                 const std::vector<int64_t>& normalized_shape,
                                                                 const Tensor& weight, const Tensor& bias,
                                                                 double eps) {
  using namespace norm_detail;
  check_layer_norm("layer_norm", input, normalized_shape, weight, bias);
  // the one-kernel CPU forward (kernels/cpu/layer_norm.h) where it applies; its gradient is the backward below
  const auto same = [&](const Tensor& t) { return !t.defined() || (t.dtype() == input.dtype() && t.is_contiguous()); };
  if (input.device().type == DeviceType::CPU && input.numel() > 0 && input.is_contiguous() && same(weight) &&
      same(bias) && (!weight.defined() || weight.device() == input.device()) &&
      (!bias.defined() || bias.device() == input.device())) {
    return yaten::_layer_norm_fused(input, normalized_shape, weight, bias, eps);
  }
  const int64_t k = int64_t(normalized_shape.size());
  const Tensor x = in_float(input);
  std::vector<int64_t> dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  const auto [mean, rstd] = mean_rstd(x, dims, true, eps);
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
  return {as_dtype(out, input.dtype()), autograd::detach(as_dtype(mean, input.dtype())),
          autograd::detach(as_dtype(rstd, input.dtype()))};
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

// Sums over every dim but 1 (channels), without moving the channels last (a copy of the whole tensor, which the
// reductions make for dims (0, 2, ...)): the (N, C, HW) view summed over its contiguous rows, then over N.
inline Tensor channel_sums(const Tensor& t) {
  const int64_t n = t.sizes()[0], c = t.sizes()[1];
  const std::vector<int64_t> first = {0}, rows = {2};
  if (t.dim() == 2) return yaten::contiguous(yaten::sum(t, first, false));
  const int64_t hw = n != 0 && c != 0 ? t.numel() / (n * c) : 0;
  return yaten::contiguous(yaten::sum(yaten::sum(yaten::reshape(t, {n, c, hw}), rows, false), first, false));
}

template <typename acc_t, typename Channels>
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const Tensor& weight, const Tensor& mean,
                                                       const Tensor& invstd, bool train,
                                                       std::array<bool, 3> output_mask) {
  const ScalarType acc = scalar_type_of<acc_t>;
  const int64_t channels = input.sizes()[1];
  const Tensor dy = as_dtype(in_float(grad_out), acc);
  const Tensor m = per_channel(mean, acc), r = per_channel(invstd, acc), w = per_channel(weight, acc);
  const bool need_sum_dy = (output_mask[0] && train) || output_mask[2];
  const bool need_xmu = (output_mask[0] && train) || output_mask[1];
  const Tensor xmu = need_xmu ? yaten::sub(as_dtype(in_float(input), acc), channel_view(m, input.dim()),
                                           Scalar(int64_t(1)))
                              : Tensor();
  const Tensor sum_dy = need_sum_dy ? channel_sums(dy) : Tensor();
  const Tensor sum_dy_xmu = need_xmu ? channel_sums(yaten::mul(dy, xmu)) : Tensor();
  const Device device = input.device();
  Tensor a = yaten::empty({channels}, acc, device), b, c0, grad_weight, grad_bias;
  if (output_mask[0] && train) {
    b = yaten::empty({channels}, acc, device);
    c0 = yaten::empty({channels}, acc, device);
  }
  if (output_mask[1]) grad_weight = yaten::empty({channels}, acc, device);
  if (output_mask[2]) grad_bias = yaten::empty({channels}, acc, device);
  const norm::BatchNormBackward<acc_t> step{
      data_or_null<acc_t>(sum_dy), data_or_null<acc_t>(sum_dy_xmu), r.data<acc_t>(), data_or_null<acc_t>(w),
      a.data<acc_t>(), data_or_null<acc_t>(b), data_or_null<acc_t>(c0),
      data_or_null<acc_t>(grad_weight), data_or_null<acc_t>(grad_bias),
      acc_t(values_per_channel(input)), train};
  Channels::run(step, channels, device);
  Tensor grad_input;
  if (output_mask[0]) {
    const int64_t dim = input.dim();
    grad_input = train ? yaten::addcmul(yaten::addcmul(channel_view(c0, dim), xmu, channel_view(b, dim),
                                                       Scalar(int64_t(1))),
                                        dy, channel_view(a, dim), Scalar(int64_t(1)))
                       : yaten::mul(dy, channel_view(a, dim));
    grad_input = as_dtype(grad_input, input.dtype());
  }
  const ScalarType param_dtype = weight.defined() ? weight.dtype() : input.dtype();
  if (grad_weight.defined()) grad_weight = as_dtype(grad_weight, param_dtype);
  if (grad_bias.defined()) grad_bias = as_dtype(grad_bias, param_dtype);
  return {grad_input, grad_weight, grad_bias};
}

// _batch_norm_backward_fused's kernel on either device: mean and invstd are the per-channel statistics the
// forward normalized with (the batch's while training, else the running mean and 1 / sqrt(running_var + eps)).
template <typename Channels>
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward_fused(const Tensor& grad_out, const Tensor& input,
                                                             const Tensor& weight, const Tensor& mean,
                                                             const Tensor& invstd, bool train,
                                                             std::array<bool, 3> output_mask) {
  const char* op = "_batch_norm_backward_fused";
  check_batched(op, input);
  check_grad_out(op, grad_out, input);
  const int64_t channels = input.sizes()[1];
  check_channels(op, "weight", weight, channels);
  check_statistic(op, "mean", mean, channels);
  check_statistic(op, "invstd", invstd, channels);
  check_device(op, input, {&grad_out, &weight, &mean, &invstd});
  if (input.dtype() == ScalarType::Double || grad_out.dtype() == ScalarType::Double) {
    return batch_norm_backward<double, Channels>(grad_out, input, weight, mean, invstd, train, output_mask);
  }
  return batch_norm_backward<float, Channels>(grad_out, input, weight, mean, invstd, train, output_mask);
}
}  // namespace norm_detail

inline std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  using namespace norm_detail;
  const char* op = "native_batch_norm_backward";
  check_batched(op, input);
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
  // no gradient of this gradient is being recorded: the fused passes (Note [Batch norm in a few passes])
  if (!autograd::compute_requires_grad({&grad_out, &input, &weight, &mean, &invstd})) {
    return yaten::_batch_norm_backward_fused(grad_out, input, weight, mean, invstd, train, output_mask);
  }
  const std::vector<int64_t> dims = non_channel_dims(input);
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

namespace norm_detail {
// native_batch_norm's derivatives: formula. The saved statistics carry no gradient (torch's
// output_differentiability), so where gradients of these gradients are being recorded (create_graph) the batch's
// statistics are computed again from the input, by ops that record how they depend on it.
inline std::tuple<Tensor, Tensor, Tensor> batch_norm_grads(const Tensor& grad, const Tensor& input,
                                                           const Tensor& weight, const Tensor& running_mean,
                                                           const Tensor& running_var, const Tensor& save_mean,
                                                           const Tensor& save_invstd, bool training, double eps,
                                                           std::array<bool, 3> output_mask) {
  if (training && autograd::compute_requires_grad({&grad, &input, &weight})) {
    const auto [mean, invstd] = mean_rstd(in_float(input), non_channel_dims(input), false, eps);
    return yaten::native_batch_norm_backward(grad, input, weight, running_mean, running_var, mean, invstd, true, eps,
                                             output_mask);
  }
  return yaten::native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean, save_invstd,
                                           training, eps, output_mask);
}
}  // namespace norm_detail

namespace norm_detail {
// _group_norm_fused's gradients: native_group_norm_backward from the saved statistics, or, when a gradient of them
// is being recorded, from statistics recomputed by ops the graph can differentiate (as layer_norm_grads).
inline std::tuple<Tensor, Tensor, Tensor> group_norm_grads(const Tensor& grad, const Tensor& input,
                                                           const Tensor& save_mean, const Tensor& save_rstd,
                                                           const Tensor& weight, int64_t n, int64_t c, int64_t hxw,
                                                           int64_t group, double eps, std::array<bool, 3> output_mask) {
  if (autograd::compute_requires_grad({&grad, &input, &weight})) {
    const auto [mean, rstd] = mean_rstd(yaten::reshape(in_float(input), {n, group, -1}), {2}, false, eps);
    return yaten::native_group_norm_backward(grad, input, mean, rstd, weight, n, c, hxw, group, output_mask);
  }
  return yaten::native_group_norm_backward(grad, input, save_mean, save_rstd, weight, n, c, hxw, group, output_mask);
}
// _layer_norm_fused's derivatives: formula, as batch_norm_grads: the saved mean and rstd carry no gradient, so where
// gradients of these gradients are being recorded they are computed again from the input by ops that record it.
inline std::tuple<Tensor, Tensor, Tensor> layer_norm_grads(const Tensor& grad, const Tensor& input,
                                                           const std::vector<int64_t>& normalized_shape,
                                                           const Tensor& save_mean, const Tensor& save_rstd,
                                                           const Tensor& weight, const Tensor& bias, double eps,
                                                           std::array<bool, 3> output_mask) {
  if (autograd::compute_requires_grad({&grad, &input, &weight})) {
    std::vector<int64_t> dims;
    for (int64_t i = input.dim() - int64_t(normalized_shape.size()); i < input.dim(); ++i) dims.push_back(i);
    const auto [mean, rstd] = mean_rstd(in_float(input), dims, true, eps);
    return yaten::native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias, output_mask);
  }
  // first order on the CPU: one fused kernel (contiguous tensors of one dtype, as _layer_norm_fused saves them)
  const auto fits = [&](const Tensor& t) {
    return !t.defined() || (t.dtype() == input.dtype() && t.is_contiguous() && t.device().is_cpu());
  };
  // a gradient of another layout (sum()'s, expanded) is made contiguous for it: one copy, where the composite below
  // took 1.2x torch's time
  const Tensor dense = grad.defined() && grad.dtype() == input.dtype() && grad.device().is_cpu() && !grad.is_contiguous()
                           ? yaten::contiguous(grad)
                           : grad;
  if (input.device().is_cpu() && input.numel() > 0 && dense.sizes() == input.sizes() && fits(input) && fits(dense) &&
      fits(save_mean) && fits(save_rstd) && fits(weight) && is_floating_point(input.dtype()) &&
      (!bias.defined() || bias.dtype() == input.dtype())) {
    return yaten::_layer_norm_backward_fused(dense, input, normalized_shape, save_mean, save_rstd, weight,
                                             output_mask);
  }
  return yaten::native_layer_norm_backward(grad, input, normalized_shape, save_mean, save_rstd, weight, bias,
                                           output_mask);
}
}  // namespace norm_detail

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
