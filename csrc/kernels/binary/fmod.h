// fmod's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// fmod: the result has the sign of the dividend (C's fmod).
template <typename T>
struct FmodOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return math::int_remainder(x, y, "fmod");
    } else {
      return static_cast<T>(std::fmod(static_cast<om<T>>(x), static_cast<om<T>>(y)));
    }
  }
};

}  // namespace yaten::native
