// isnan's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// isnan/isinf/isfinite: integers and bool are always finite.
template <typename T>
struct IsnanOp {
  YATEN_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_complex_v<T>) {  // either part NaN, as torch
      return x.re != x.re || x.im != x.im;
    } else {
      return math::is_nan(static_cast<om<T>>(x));
    }
  }
};

}  // namespace yaten::native
