// CompositeImplicit nn.functional ops that nn's modules need beyond nn.h: the elementwise losses (l1, smooth_l1,
// huber, binary_cross_entropy with and without logits, kl_div), rms_norm and bilinear. Each is written with torch's
// formula (so the values and gradients agree with torch's to rounding), over ops that have CPU and CUDA kernels and
// derivatives, so each runs on both devices and differentiates to any order with no kernel of its own; smooth_l1's
// and huber's elementwise parts are one op each (_smooth_l1_pointwise, _huber_pointwise: kernels/loss_math.h), which
// took them from one pass per op of the formula to one; so is binary_cross_entropy_with_logits's without pos_weight.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "core/type_promotion.h"
#include "kernels/composite/common.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/_bce_with_logits_pointwise.h"
#include "yaten/ops/_huber_pointwise.h"
#include "yaten/ops/_smooth_l1_pointwise.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/bmm.h"
#include "yaten/ops/any.h"
#include "yaten/ops/clamp_max.h"
#include "yaten/ops/clamp_min.h"
#include "yaten/ops/div.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/le.h"
#include "yaten/ops/log.h"
#include "yaten/ops/log1p.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/logical_not.h"
#include "yaten/ops/logical_or.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/matmul.h"
#include "yaten/ops/mean.h"
#include "yaten/ops/minimum.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/rsqrt.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

namespace loss_detail {
inline void check_reduction(const char* op, const std::string& reduction, bool batchmean = false) {
  YATEN_CHECK(reduction == "mean" || reduction == "sum" || reduction == "none" || (batchmean && reduction == "batchmean"),
              ValueError, op, ": ", reduction, " is not a valid value for reduction (use 'mean', 'sum' or 'none'",
              batchmean ? " or 'batchmean'" : "", ")");
}
inline Tensor reduce(const Tensor& loss, const std::string& reduction) {
  if (reduction == "none") return loss;
  if (reduction == "sum") return yaten::sum(loss);
  return yaten::mean(loss);
}
// input and target as floating tensors of their promoted dtype, broadcast later by the ops; torch's losses refuse
// integer inputs the same way.
inline void check_floating(const char* op, const Tensor& input, const Tensor& target) {
  const ScalarType common = result_type({input, target});
  YATEN_CHECK(is_floating_point(common), NotImplementedError, op, ": not implemented for ", dtype_name(common),
              " (pass floating-point tensors)");
}
inline void check_same_size(const char* op, const Tensor& input, const Tensor& target) {
  YATEN_CHECK(input.sizes() == target.sizes(), ValueError, op, ": Using a target size (", sizes_text(target.sizes()),
              ") that is different to the input size (", sizes_text(input.sizes()), ") is not allowed; give them the "
              "same shape");
}
// torch's losses write into a tensor of the input's dtype: a floating result of an integer input cannot be cast back.
inline void check_castable_to_input(const char* op, const Tensor& input, const Tensor& target) {
  const ScalarType common = result_type({input, target});
  YATEN_CHECK(!(is_floating_point(common) && !is_floating_point(input.dtype())), RuntimeError, op, ": result type ",
              dtype_name(common), " can't be cast to the desired output type ", dtype_name(input.dtype()),
              " (pass a floating-point input)");
}
// torch's backward kernels of these losses take the target in the input's dtype.
inline void check_same_dtype(const char* op, const Tensor& input, const Tensor& other, const char* what) {
  YATEN_CHECK(other.dtype() == input.dtype(), RuntimeError, op, ": Found dtype ", dtype_name(other.dtype()),
              " but expected ", dtype_name(input.dtype()), " (give the ", what, " the input's dtype)");
}
// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), exact for large |x| of either sign.
inline Tensor log_sigmoid(const Tensor& x) {
  return yaten::sub(yaten::clamp_max(x, Scalar(0.0)), yaten::log1p(yaten::exp(yaten::neg(yaten::abs(x)))));
}
}  // namespace loss_detail

inline Tensor l1_loss_impl(const Tensor& input, const Tensor& target, const std::string& reduction) {
  loss_detail::check_reduction("l1_loss", reduction);
  // complex inputs too: |input - target| is real, as torch's
  if (!is_complex(result_type({input, target}))) loss_detail::check_floating("l1_loss", input, target);
  return loss_detail::reduce(yaten::abs(yaten::sub(input, target)), reduction);
}

// 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (beta = 0: the L1 loss).
inline Tensor smooth_l1_loss_impl(const Tensor& input, const Tensor& target, const std::string& reduction,
                                  double beta) {
  loss_detail::check_reduction("smooth_l1_loss", reduction);
  loss_detail::check_floating("smooth_l1_loss", input, target);
  YATEN_CHECK(beta >= 0, RuntimeError, "smooth_l1_loss does not support negative values for beta (got ", beta, ")");
  if (beta == 0) return loss_detail::reduce(yaten::abs(yaten::sub(input, target)), reduction);
  return loss_detail::reduce(yaten::_smooth_l1_pointwise(input, target, beta), reduction);  // one pass (loss_math.h)
}

// 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere.
inline Tensor huber_loss_impl(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  loss_detail::check_reduction("huber_loss", reduction);
  loss_detail::check_floating("huber_loss", input, target);
  loss_detail::check_castable_to_input("huber_loss", input, target);
  if (autograd::requires_grad(input) || autograd::requires_grad(target)) {
    loss_detail::check_same_dtype("huber_loss", input, target, "target");
  }
  YATEN_CHECK(delta > 0, RuntimeError, "huber_loss does not support non-positive values for delta (got ", delta, ")");
  return loss_detail::reduce(yaten::_huber_pointwise(input, target, delta), reduction);  // one pass (loss_math.h)
}

// -weight (t log x + (1 - t) log(1 - x)), each log clamped at -100 as torch clamps it.
inline Tensor binary_cross_entropy_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const std::string& reduction) {
  const char* op = "binary_cross_entropy";
  loss_detail::check_reduction(op, reduction);
  loss_detail::check_floating(op, input, target);
  loss_detail::check_same_size(op, input, target);
  loss_detail::check_same_dtype(op, input, target, "target");
  if (input.numel() > 0) {  // NaN is outside too, as in torch's check
    const Tensor outside = yaten::logical_not(yaten::logical_and(yaten::ge(input, Scalar(0.0)),
                                                                 yaten::le(input, Scalar(1.0))));
    YATEN_CHECK(!composite_detail::item_bool(yaten::any(outside)), RuntimeError, op, ": all elements of input should "
                "be between 0 and 1");
  }
  const Tensor log_x = yaten::clamp_min(yaten::log(input), Scalar(-100.0));
  const Tensor log_1mx = yaten::clamp_min(yaten::log1p(yaten::neg(input)), Scalar(-100.0));
  // -(t * log_x + (1 - t) * log_1mx) = (t - 1) * log_1mx - t * log_x
  Tensor loss = yaten::sub(yaten::mul(yaten::sub(target, Scalar(1.0)), log_1mx), yaten::mul(target, log_x));
  if (weight.defined()) loss = yaten::mul(loss, weight);
  return loss_detail::reduce(loss, reduction);
}

// (1 - t) x - (1 + (pos_weight - 1) t) log(sigmoid(x)): torch's form, stable for logits of any size.
inline Tensor binary_cross_entropy_with_logits_impl(const Tensor& input, const Tensor& target, const Tensor& weight,
                                                    const std::string& reduction, const Tensor& pos_weight) {
  const char* op = "binary_cross_entropy_with_logits";
  loss_detail::check_reduction(op, reduction);
  loss_detail::check_floating(op, input, target);
  loss_detail::check_castable_to_input(op, input, target);
  // torch computes (1 - target) * input in place in target's dtype: an integer or bool target cannot hold it
  YATEN_CHECK(is_floating_point(target.dtype()), RuntimeError, op, ": result type ",
              dtype_name(result_type({input, target})), " can't be cast to the desired output type ",
              dtype_name(target.dtype()), " (pass a floating-point target)");
  loss_detail::check_same_size(op, input, target);
  const ScalarType common = result_type({input, target});
  if (!pos_weight.defined() && (common == ScalarType::Float || common == ScalarType::Double)) {
    // one pass (kernels/loss_math.h); float16 and bfloat16 keep torch's op-by-op rounding in their own dtype, which
    // the one pass (in float, rounded once) would differ from by up to 0.09 in bfloat16
    const Tensor loss = yaten::_bce_with_logits_pointwise(input, target);
    return loss_detail::reduce(weight.defined() ? yaten::mul(loss, weight) : loss, reduction);
  }
  Tensor log_sig = loss_detail::log_sigmoid(input);
  if (pos_weight.defined()) {
    const Tensor log_weight = yaten::add(yaten::mul(yaten::sub(pos_weight, Scalar(1.0)), target), Scalar(1.0));
    log_sig = yaten::mul(log_sig, log_weight);
  }
  Tensor loss = yaten::sub(yaten::mul(yaten::neg(yaten::sub(target, Scalar(1.0))), input), log_sig);
  if (weight.defined()) loss = yaten::mul(loss, weight);
  return loss_detail::reduce(loss, reduction);
}

// Pointwise KL divergence of the input log-probabilities from the target: t (log t - x), 0 where t = 0
// (log_target: exp(t) (t - x)); 'batchmean' divides the sum by the batch size, the mathematically right mean.
inline Tensor kl_div_impl(const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
  loss_detail::check_reduction("kl_div", reduction, /*batchmean=*/true);
  YATEN_CHECK(!is_integral(input.dtype(), /*include_bool=*/true) && !is_integral(target.dtype(), true), RuntimeError,
              "kl_div: Integral inputs not supported.");
  loss_detail::check_floating("kl_div", input, target);
  Tensor loss;
  if (log_target) {
    loss = yaten::mul(yaten::exp(target), yaten::sub(target, input));
  } else {
    const Tensor positive = yaten::gt(target, Scalar(0.0));
    const Tensor safe = yaten::where(positive, target, Scalar(1.0));
    const Tensor xlogx = yaten::where(positive, yaten::mul(target, yaten::log(safe)), Scalar(0.0));
    loss = yaten::sub(xlogx, yaten::mul(target, input));
  }
  if (reduction == "batchmean") {
    const Tensor total = yaten::sum(loss);
    return input.dim() == 0 ? total : yaten::div(total, Scalar(input.sizes()[0]));
  }
  return loss_detail::reduce(loss, reduction);
}

// x / sqrt(mean(x^2) + eps) over the last len(normalized_shape) dims, times weight; eps defaults to the dtype's
// machine epsilon and float16/bfloat16 compute in float32, as torch's rms_norm.
inline Tensor rms_norm_impl(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight,
                            std::optional<double> eps) {
  const char* op = "rms_norm";
  const auto n = static_cast<int64_t>(normalized_shape.size());
  YATEN_CHECK(n >= 1, RuntimeError, op, ": Expected normalized_shape to be at least 1-dimensional");
  YATEN_CHECK(input.dim() >= n && std::equal(normalized_shape.begin(), normalized_shape.end(), input.sizes().end() - n),
              RuntimeError, op, ": Given normalized_shape=", sizes_text(normalized_shape), ", expected input with "
              "shape [*, ", sizes_text(normalized_shape), "], but got input of size ", sizes_text(input.sizes()));
  YATEN_CHECK(!weight.defined() || weight.sizes() == normalized_shape, RuntimeError, op, ": Expected weight to be of "
              "shape ", sizes_text(normalized_shape), ", got ", sizes_text(weight.sizes()));
  YATEN_CHECK(is_floating_point(input.dtype()) || is_complex(input.dtype()), NotImplementedError, op,
              ": not implemented for ", dtype_name(input.dtype()));
  const bool reduced = input.dtype() == ScalarType::Half || input.dtype() == ScalarType::BFloat16;
  const Tensor x = reduced ? yaten::_to_copy(input, ScalarType::Float, std::nullopt) : input;
  // the default eps is the machine epsilon of the dtype; of a complex dtype torch's is 0 (numeric_limits has no
  // epsilon for its complex type), and complex inputs square without conjugation (x * x), as torch's pow(x, 2)
  const double epsilon = eps ? *eps : is_complex(input.dtype()) ? 0.0
                                    : (input.dtype() == ScalarType::Double ? 2.220446049250313e-16
                                       : input.dtype() == ScalarType::Half ? 0.0009765625
                                       : input.dtype() == ScalarType::BFloat16 ? 0.0078125
                                                                             : 1.1920928955078125e-07);
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - n; d < input.dim(); ++d) dims.push_back(d);
  const Tensor mean_square = yaten::mean(yaten::mul(x, x), dims, /*keepdim=*/true, std::nullopt);
  Tensor out = yaten::mul(x, yaten::rsqrt(yaten::add(mean_square, Scalar(epsilon))));
  if (reduced) out = yaten::_to_copy(out, input.dtype(), std::nullopt);
  if (weight.defined()) out = yaten::mul(out, weight);
  return out;
}

// y[..., o] = sum_ij x1[..., i] weight[o, i, j] x2[..., j] + bias[o]: one matrix product with the weight laid out
// (i, o * j), then a product with x2 summed over j.
inline Tensor bilinear_impl(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  const char* op = "bilinear";
  YATEN_CHECK(weight.dim() == 3, RuntimeError, op, ": expected a 3-D weight (out, in1, in2), got ", weight.dim(), "-D");
  YATEN_CHECK(input1.dim() == input2.dim() && input1.dim() >= 1, RuntimeError, op, ": input1 and input2 must have "
              "the same number of dimensions, at least 1, got ", input1.dim(), " and ", input2.dim());
  const int64_t out_features = weight.sizes()[0], in1 = weight.sizes()[1], in2 = weight.sizes()[2];
  YATEN_CHECK(input1.sizes().back() == in1, RuntimeError, op, ": input1's last dim (", input1.sizes().back(),
              ") must equal the weight's dim 1 (", in1, ")");
  YATEN_CHECK(input2.sizes().back() == in2, RuntimeError, op, ": input2's last dim (", input2.sizes().back(),
              ") must equal the weight's dim 2 (", in2, ")");
  YATEN_CHECK(std::equal(input1.sizes().begin(), input1.sizes().end() - 1, input2.sizes().begin()), RuntimeError, op,
              ": input1 and input2 must have the same batch dims, got ", sizes_text(input1.sizes()), " and ",
              sizes_text(input2.sizes()));
  YATEN_CHECK(!bias.defined() || (bias.dim() == 1 && bias.sizes()[0] == out_features), RuntimeError, op,
              ": expected a bias of ", out_features, " elements");
  std::vector<int64_t> out_shape(input1.sizes().begin(), input1.sizes().end() - 1);
  const Tensor x1 = yaten::reshape(input1, {-1, in1});
  const Tensor x2 = yaten::reshape(input2, {-1, in2, 1});
  const Tensor w = yaten::reshape(yaten::permute(weight, {1, 0, 2}), {in1, out_features * in2});
  // both contractions as matrix products (torch's _trilinear order: over in1, then over in2), so integer inputs
  // keep their dtype and float16/bfloat16 accumulate as a product does
  const Tensor left = yaten::reshape(yaten::matmul(x1, w), {-1, out_features, in2});
  Tensor out = yaten::reshape(yaten::bmm(left, x2), {-1, out_features});
  if (bias.defined()) out = yaten::add(out, bias);
  out_shape.push_back(out_features);
  return yaten::reshape(out, out_shape);
}

}  // namespace yaten::native
