// CompositeImplicit nn.functional ops: layer_norm (over native_layer_norm, norm.h), one_hot, embedding, nll_loss, cross_entropy, mse_loss.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "kernels/composite/common.h"
#include "kernels/composite/norm.h"
#include "core/type_promotion.h"
#include "yaten/ops/_squared_difference.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/amax.h"
#include "yaten/ops/amin.h"
#include "yaten/ops/any.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/gather.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/log_softmax.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/logical_or.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/mean.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/ones.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/rsqrt.h"
#include "yaten/ops/squeeze.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/var_mean.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

// embedding_dense_backward, torch's Core ATen op: the gradient of embedding's weight, (num_weights, D), each
// row the sum of grad_output's rows at its index (divided by the index's count with scale_grad_by_freq); the
// row padding_idx gets none (-1: no padding row).
inline Tensor embedding_dense_backward_impl(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                            int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  YATEN_CHECK(indices.dtype() == ScalarType::Long || indices.dtype() == ScalarType::Int, TypeError, op,
              ": expected the indices to be int64 or int32, got ", dtype_name(indices.dtype()));
  YATEN_CHECK(num_weights >= 0, RuntimeError, op, ": num_weights must be non-negative, got ", num_weights);
  std::vector<int64_t> rows_shape = indices.sizes();
  const int64_t dim = grad_output.dim() > 0 ? grad_output.sizes().back() : 0;
  rows_shape.push_back(dim);
  YATEN_CHECK(grad_output.dim() >= 1 && grad_output.sizes() == rows_shape, RuntimeError, op,
              ": expected grad_output of size ", sizes_text(rows_shape), " (the indices' size and the embedding "
              "dim), but got ", sizes_text(grad_output.sizes()));
  const Tensor flat = yaten::reshape(indices, {-1});
  Tensor rows = yaten::reshape(grad_output, {flat.numel(), dim});
  if (scale_grad_by_freq) {
    const Tensor ones = yaten::ones({flat.numel()}, ScalarType::Long, indices.device());
    const Tensor counts = autograd::index_select_backward(ones, {num_weights}, 0, flat);
    rows = yaten::div(rows, yaten::unsqueeze(yaten::index_select(counts, 0, flat), 1));
  }
  if (padding_idx >= 0) {
    rows = yaten::where(yaten::unsqueeze(yaten::eq(flat, Scalar(padding_idx)), 1),
                        yaten::zeros({}, rows.dtype(), rows.device()), rows);
  }
  return autograd::index_select_backward(rows, {num_weights, dim}, 0, flat);
}

namespace nn_detail {
inline int64_t item_int(const Tensor& t) {
  return *yaten::_to_copy(t, ScalarType::Long, Device(DeviceType::CPU)).data<int64_t>();
}
inline void check_reduction(const char* op, const std::string& reduction) {
  YATEN_CHECK(reduction == "mean" || reduction == "sum" || reduction == "none", ValueError, op, ": ", reduction,
              " is not a valid value for reduction (use 'mean', 'sum' or 'none')");
}
}  // namespace nn_detail

// layer_norm over the last len(normalized_shape) dims: native_layer_norm's output (kernels/composite/norm.h).
inline Tensor layer_norm_impl(const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& weight,
                              const Tensor& bias, double eps) {
  return std::get<0>(native_layer_norm_impl(input, normalized_shape, weight, bias, eps));
}

inline Tensor one_hot_impl(const Tensor& self, int64_t num_classes) {
  YATEN_CHECK(self.dtype() == ScalarType::Long, TypeError, "one_hot is only applicable to index tensor (int64), got ",
              dtype_name(self.dtype()));
  if (self.numel() > 0) {
    YATEN_CHECK(nn_detail::item_int(yaten::amin(self, {}, false)) >= 0, RuntimeError, "one_hot: Class values must be "
                "non-negative.");
  }
  if (num_classes == -1) {
    YATEN_CHECK(self.numel() > 0, RuntimeError, "one_hot: can not infer total number of classes from empty tensor.");
    num_classes = nn_detail::item_int(yaten::amax(self, {}, false)) + 1;
  } else if (self.numel() > 0) {
    YATEN_CHECK(nn_detail::item_int(yaten::amax(self, {}, false)) < num_classes, RuntimeError, "one_hot: Class values "
                "must be smaller than num_classes.");
  }
  const Tensor classes = yaten::arange(Scalar(int64_t(0)), Scalar(num_classes), Scalar(int64_t(1)), ScalarType::Long,
                                       self.device());
  return yaten::_to_copy(yaten::eq(yaten::unsqueeze(self, -1), classes), ScalarType::Long, std::nullopt);
}

inline Tensor embedding_impl(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx) {
  YATEN_CHECK(weight.dim() == 2, RuntimeError, "embedding: weight must be 2-D, got ", weight.dim(), "-D");
  YATEN_CHECK(input.dtype() == ScalarType::Long || input.dtype() == ScalarType::Int, TypeError, "embedding: expected "
              "the indices to be int64 or int32, got ", dtype_name(input.dtype()));
  const Tensor flat = yaten::reshape(input, {-1});
  Tensor rows = yaten::index_select(weight, 0, flat);
  if (padding_idx) {  // only the gradient treats padding_idx specially: the padding row gets none
    const int64_t n = weight.sizes()[0];
    YATEN_CHECK(*padding_idx >= -n && *padding_idx < n, ValueError, "embedding: padding_idx must be within "
                "num_embeddings");
    if (autograd::requires_grad(weight)) {
      const int64_t pad = *padding_idx < 0 ? *padding_idx + n : *padding_idx;
      const Tensor is_pad = yaten::unsqueeze(yaten::eq(flat, Scalar(pad)), 1);
      rows = yaten::where(is_pad, yaten::index_select(autograd::detach(weight), 0, flat), rows);
    }
  }
  std::vector<int64_t> shape = input.sizes();
  shape.push_back(weight.sizes()[1]);
  return yaten::reshape(rows, shape);
}

namespace nn_detail {
// The (N*d..., C) log-probabilities and (N*d...) targets of an (N, C, d...) or (C) input.
struct ClassProblem {
  Tensor scores;  // [M, C]
  Tensor target;  // [M]
  std::vector<int64_t> target_shape;
};
inline ClassProblem flatten_classes(const char* op, const Tensor& input, const Tensor& target) {
  YATEN_CHECK(input.dim() >= 1, ValueError, op, ": expected an input of at least 1 dim (C, or N x C x ...)");
  YATEN_CHECK(target.dtype() == ScalarType::Long, TypeError, op, ": expected int64 class indices as target, got ",
              dtype_name(target.dtype()));
  std::vector<int64_t> expected = input.sizes();
  expected.erase(expected.begin() + (input.dim() == 1 ? 0 : 1));
  YATEN_CHECK(target.sizes() == expected, ValueError, op, ": expected target of shape matching the input without its "
              "class dim, got input ", input.dim(), "-D with target ", target.dim(), "-D of a different shape");
  const int64_t c = input.dim() == 1 ? input.sizes()[0] : input.sizes()[1];
  const Tensor moved = input.dim() == 1 ? input : yaten::movedim(input, 1, -1);
  return {yaten::reshape(moved, {-1, c}), yaten::reshape(target, {-1}), expected};
}
inline Tensor reduce(const Tensor& loss, const Tensor& weights, const std::string& reduction,
                     const std::vector<int64_t>& shape) {
  if (reduction == "none") return yaten::reshape(loss, shape);
  if (reduction == "sum") return yaten::sum(loss);
  return yaten::div(yaten::sum(loss), yaten::sum(weights));
}
}  // namespace nn_detail

// nll_loss: -weight[t] * input[n, t], skipping ignore_index; 'mean' divides by the total weight of the kept targets.
inline Tensor nll_loss_impl(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                            const std::string& reduction) {
  nn_detail::check_reduction("nll_loss", reduction);
  const auto p = nn_detail::flatten_classes("nll_loss", input, target);
  const int64_t c = p.scores.sizes()[1];
  const Tensor keep = yaten::ne(p.target, Scalar(ignore_index));
  const Tensor safe = yaten::where(keep, p.target, Scalar(int64_t(0)));
  if (safe.numel() > 0) {
    const bool bad = composite_detail::item_bool(yaten::any(yaten::logical_and(
        keep, yaten::logical_or(yaten::lt(safe, Scalar(int64_t(0))), yaten::ge(safe, Scalar(c))))));
    YATEN_CHECK(!bad, IndexError, "nll_loss: Target out of bounds: class indices must be in [0, ", c, ") or equal "
                "ignore_index (", ignore_index, ")");
  }
  YATEN_CHECK(!weight.defined() || (weight.dim() == 1 && weight.sizes()[0] == c), RuntimeError, "nll_loss: weight "
              "tensor should be defined either for all ", c, " classes or no classes");
  const Tensor picked = yaten::squeeze(yaten::gather(p.scores, 1, yaten::unsqueeze(safe, 1)), 1);
  Tensor w = weight.defined() ? yaten::index_select(weight, 0, safe)
                              : yaten::ones({safe.numel()}, input.dtype(), input.device());
  w = yaten::mul(w, keep);
  return nn_detail::reduce(yaten::neg(yaten::mul(picked, w)), w, reduction, p.target_shape);
}

// cross_entropy: class indices (with label smoothing as torch computes it) or class probabilities as the target.
inline Tensor cross_entropy_impl(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                                 const std::string& reduction, double label_smoothing) {
  nn_detail::check_reduction("cross_entropy", reduction);
  YATEN_CHECK(label_smoothing >= 0 && label_smoothing <= 1, RuntimeError, "cross_entropy: label_smoothing must be "
              "between 0.0 and 1.0, got ", label_smoothing);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const Tensor logp = yaten::log_softmax(input, class_dim, std::nullopt);
  const int64_t c = input.dim() == 0 ? 0 : input.sizes()[class_dim];
  const auto class_weights = [&](const Tensor& t) {  // weight laid along the class dim of t
    std::vector<int64_t> shape(t.dim(), 1);
    shape[class_dim] = c;
    return yaten::reshape(weight, shape);
  };
  if (is_floating_point(target.dtype())) {  // probabilities
    YATEN_CHECK(target.sizes() == input.sizes(), ValueError, "cross_entropy: probability targets must have the "
                "input's shape");
    Tensor probs = target;
    if (label_smoothing > 0) {
      probs = yaten::add(yaten::mul(target, Scalar(1 - label_smoothing)), Scalar(label_smoothing / double(c)),
                         Scalar(int64_t(1)));
    }
    Tensor terms = yaten::mul(logp, probs);
    if (weight.defined()) terms = yaten::mul(terms, class_weights(terms));
    const Tensor loss = yaten::neg(yaten::sum(terms, std::vector<int64_t>{class_dim}, false, std::nullopt));
    if (reduction == "none") return loss;
    if (reduction == "sum") return yaten::sum(loss);
    return yaten::div(yaten::sum(loss), Scalar(input.numel() / std::max<int64_t>(c, 1)));
  }
  Tensor nll = nll_loss_impl(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  // The smoothing term: -sum over classes of logp (times the class weights), over the kept targets.
  Tensor terms = weight.defined() ? yaten::mul(logp, class_weights(logp)) : logp;
  Tensor smooth = yaten::neg(yaten::sum(terms, std::vector<int64_t>{class_dim}, false, std::nullopt));
  const Tensor keep = yaten::ne(target, Scalar(ignore_index));
  smooth = yaten::mul(smooth, keep);
  Tensor smooth_red;
  if (reduction == "none") {
    smooth_red = smooth;
  } else if (reduction == "sum") {
    smooth_red = yaten::sum(smooth);
  } else {
    const Tensor safe = yaten::where(keep, target, Scalar(int64_t(0)));
    const Tensor denom = weight.defined() ? yaten::sum(yaten::mul(yaten::index_select(weight, 0,
                                                                  yaten::reshape(safe, {-1})), yaten::reshape(keep, {-1})))
                                          : yaten::sum(keep);
    smooth_red = yaten::div(yaten::sum(smooth), denom);
  }
  return yaten::add(yaten::mul(nll, Scalar(1 - label_smoothing)), yaten::mul(smooth_red, Scalar(label_smoothing /
                                                                                                double(c))),
                    Scalar(int64_t(1)));
}

inline Tensor mse_loss_impl(const Tensor& input, const Tensor& target, const std::string& reduction) {
  nn_detail::check_reduction("mse_loss", reduction);
  // torch's kernel subtracts in the promoted dtype, so a bool input beside a float target is fine (sub refuses bool)
  const bool any_bool = (input.dtype() == ScalarType::Bool) != (target.dtype() == ScalarType::Bool);
  const ScalarType common = any_bool ? result_type({input, target}) : input.dtype();
  const auto as_common = [&](const Tensor& t) {
    return any_bool && t.dtype() != common ? yaten::_to_copy(t, common, std::nullopt) : t;
  };
  YATEN_CHECK(is_floating_point(result_type({input, target})), NotImplementedError, "mse_loss: not implemented for ",
              dtype_name(result_type({input, target})), " (as torch: pass floating-point tensors)");
  const Tensor sq = yaten::_squared_difference(as_common(input), as_common(target));  // one pass (loss_math.h)
  if (reduction == "none") return sq;
  if (reduction == "sum") return yaten::sum(sq);
  return yaten::mean(sq);
}

}  // namespace yaten::native
