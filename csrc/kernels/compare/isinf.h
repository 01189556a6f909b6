// isinf's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct IsinfOp {
  YATEN_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return false;
    } else if constexpr (is_complex_v<T>) {  // either part infinite, as torch
      return std::isinf(x.re) || std::isinf(x.im);
    } else {
      return std::isinf(static_cast<om<T>>(x));
    }
  }
};

}  // namespace yaten::native
