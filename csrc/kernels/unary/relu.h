// relu's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// relu keeps NaN (x < 0 is false for NaN).
template <typename T>
struct ReluOp {
  YATEN_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return static_cast<om<T>>(x) < om<T>(0) ? T(0) : x;
    }
  }
};

}  // namespace yaten::native
