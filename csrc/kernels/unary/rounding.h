// The element functions of ceil, floor, round and trunc, written once for both backends (Design rule [Shared element
// math], kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit
// recompiles the units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// floor/ceil/trunc/round keep integers as they are (a copy), like torch. round is half to even (nearbyint in the
// default rounding mode), as in torch and NumPy.
template <typename T, int kMode>  // 0 floor, 1 ceil, 2 trunc, 3 round
struct RoundingOp {
  YATEN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) {
      return v;
    } else {
      const om<T> x = static_cast<om<T>>(v);
      if constexpr (kMode == 0) return static_cast<T>(std::floor(x));
      if constexpr (kMode == 1) return static_cast<T>(std::ceil(x));
      if constexpr (kMode == 2) return static_cast<T>(std::trunc(x));
      if constexpr (kMode == 3) return static_cast<T>(std::nearbyint(x));
    }
  }
};
template <typename T>
using FloorOp = RoundingOp<T, 0>;
template <typename T>
using CeilOp = RoundingOp<T, 1>;
template <typename T>
using TruncOp = RoundingOp<T, 2>;
template <typename T>
using RoundOp = RoundingOp<T, 3>;

}  // namespace yaten::native
