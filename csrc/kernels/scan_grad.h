// Derivatives of the scans that ops.yaml's formulas call (`native::logcumsumexp_backward`), written with ops so that
// they have derivatives of their own. kernels/cpu/reduce/scan.h includes this header for the families' autograd
// kernels.
#pragma once

#include <cstdint>
#include <limits>

#include "core/tensor.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/conj_physical.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/flip.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/log.h"
#include "yaten/ops/logcumsumexp.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/where.h"

namespace yaten::native {

// The most negative finite value of a floating dtype.
inline double lowest_finite(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half: return -65504.0;
    case ScalarType::BFloat16: return -3.3895313892515355e38;
    case ScalarType::Float: return -static_cast<double>(std::numeric_limits<float>::max());
    default: return -std::numeric_limits<double>::max();
  }
}

// d result_i / d x_j = exp(x_j - result_i) for j <= i, so the gradient of x_j is exp(x_j) * sum over i >= j of
// grad_i exp(-result_i). The sum runs backwards along dim as a logcumsumexp of log|grad_i| - result_i, the positive
// and the negative gradients apart (a log takes no negative number), so nothing overflows; written with ops, it
// has its own derivative. A gradient of the other sign stands in as the dtype's lowest finite value, not -inf:
// -inf would reach the second derivative as inf - inf (the first is the same either way).
//
// Complex inputs (holomorphic): the gradient of x_j is the sum over i >= j of grad_i conj(exp(x_j - result_i)), one
// complex logcumsumexp of log(grad_i) - conj(result_i) backwards (a complex log takes every sign).
inline Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (grad.numel() == 0) return grad;
  if (is_complex(grad.dtype())) {
    const Tensor terms = yaten::sub(yaten::log(grad), yaten::conj_physical(result), Scalar(int64_t(1)));
    const Tensor sums = yaten::flip(yaten::logcumsumexp(yaten::flip(terms, {dim}), dim), {dim});
    return yaten::exp(yaten::add(sums, yaten::conj_physical(self), Scalar(int64_t(1))));
  }
  const Scalar none(lowest_finite(grad.dtype()));
  const Tensor log_abs = yaten::log(yaten::abs(grad));
  auto reversed_sum = [&](const Tensor& log_part) {
    const Tensor terms = yaten::sub(log_part, result, Scalar(int64_t(1)));
    return yaten::flip(yaten::logcumsumexp(yaten::flip(terms, {dim}), dim), {dim});
  };
  const Tensor positive = reversed_sum(yaten::where(yaten::gt(grad, Scalar(0.0)), log_abs, none));
  const Tensor negative = reversed_sum(yaten::where(yaten::lt(grad, Scalar(0.0)), log_abs, none));
  return yaten::sub(yaten::exp(yaten::add(positive, self, Scalar(int64_t(1)))),
                    yaten::exp(yaten::add(negative, self, Scalar(int64_t(1)))), Scalar(int64_t(1)));
}

}  // namespace yaten::native
