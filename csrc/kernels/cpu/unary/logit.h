// logit's CPU kernel: LogitOp (kernels/unary/logit.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles logit's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/logit.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void logit_kernel(const TensorIterator& iter, std::optional<double> eps) {
  // log(x / (1 - x)) as the functor computes it, the logarithm vec.h's (vec_double.h's) in lanes
  const LogitOp<scalar_t> op = logit_op<scalar_t>(eps);
  const float lo = static_cast<float>(op.lo), hi = static_cast<float>(op.hi);
  const double lo64 = static_cast<double>(op.lo), hi64 = static_cast<double>(op.hi);
  const bool clamp = op.clamp;
  unary_vec_kernel<scalar_t>(
      iter, [op](auto x) { return LogitOp<decltype(x)>{op.clamp, op.lo, op.hi}(x); },
      [=](vec::wfloat x) {
        if (clamp) x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
        return vec::log(x / (1.0f - x));
      },
      [=](vec::wdouble x) {
        if (clamp) x = x < lo64 ? lo64 : (x > hi64 ? hi64 : x);
        return vec::log_double(x / (1.0 - x));
      });
}

}  // namespace yaten::native::cpu
