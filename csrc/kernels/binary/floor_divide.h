// floor_divide's element function (and div's rounding_mode='floor'), written once for both backends (Design rule
// [Shared element math], kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h):
// an edit recompiles the units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct FloorDivideOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      T q = math::int_quotient(x, y, "floor_divide");
      if constexpr (std::is_signed_v<T>) {  // unsigned division already rounds down
        if (math::int_remainder(x, y, "floor_divide") != 0 && ((x < 0) != (y < 0))) --q;
      }
      return q;
    } else {
      return static_cast<T>(math::floor_divide_float<om<T>>(x, y));
    }
  }
};

}  // namespace yaten::native
