// div_trunc's element function: div(rounding_mode='trunc'), written once for both backends (Design rule [Shared
// element math], kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit
// recompiles the units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// div(rounding_mode="trunc").
template <typename T>
struct DivTruncOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return math::int_quotient(x, y, "div");
    } else {
      // the quotient rounded to T first (float16 and bfloat16: 17.95 is 18 before the truncation), as torch
      return static_cast<T>(std::trunc(static_cast<om<T>>(static_cast<T>(static_cast<om<T>>(x) /
                                                                         static_cast<om<T>>(y)))));
    }
  }
};

}  // namespace yaten::native
