// bitwise_right_shift's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct RightShiftOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    if (static_cast<std::make_unsigned_t<T>>(b) >= sizeof(T) * 8) {
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      return 0;
    }
    return static_cast<T>(a >> b);
  }
};

}  // namespace yaten::native
