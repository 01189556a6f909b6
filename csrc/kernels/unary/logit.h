// logit's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include <optional>

#include "kernels/pointwise_math.h"

namespace yaten::native {

// logit(x) = log(x / (1 - x)), with x first clamped to [lo, hi] when `clamp` (eps given).
template <typename T>
struct LogitOp {
  bool clamp;
  om<T> lo, hi;
  YATEN_HOST_DEVICE T operator()(T v) const {
    om<T> x = static_cast<om<T>>(v);
    if (clamp) x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
    return static_cast<T>(std::log(x / (om<T>(1) - x)));
  }
};
// logit's parameters, from the kernel's arguments; shared by both backends.
template <typename scalar_t>
LogitOp<scalar_t> logit_op(std::optional<double> eps) {
  using opmath = om<scalar_t>;
  if (eps) (void)Scalar(*eps).to<scalar_t>();  // torch converts eps to the dtype: its overflow RuntimeError
  const bool clamp = eps && *eps >= 0;  // a negative eps clamps nothing, as in torch
  return {clamp, clamp ? static_cast<opmath>(*eps) : opmath(0), clamp ? 1 - static_cast<opmath>(*eps) : opmath(1)};
}

}  // namespace yaten::native
