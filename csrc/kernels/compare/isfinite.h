// isfinite's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct IsfiniteOp {
  YATEN_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return true;
    } else if constexpr (is_complex_v<T>) {
      return std::isfinite(x.re) && std::isfinite(x.im);
    } else {
      return std::isfinite(static_cast<om<T>>(x));
    }
  }
};

}  // namespace yaten::native
