// remainder's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// remainder: the result has the sign of the divisor (Python's %).
template <typename T>
struct RemainderOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      T r = math::int_remainder(x, y, "remainder");
      if constexpr (std::is_signed_v<T>) {  // an unsigned remainder has the divisor's sign already
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
      }
      return r;
    } else {
      const om<T> a = static_cast<om<T>>(x), b = static_cast<om<T>>(y);
      om<T> r = std::fmod(a, b);
      if (r != om<T>(0) && ((b < om<T>(0)) != (r < om<T>(0)))) r += b;
      return static_cast<T>(r);
    }
  }
};

}  // namespace yaten::native
