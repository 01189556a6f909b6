// softshrink's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// softshrink: x - lambd above lambd, x + lambd below -lambd, x * 0 between (so a NaN x gives NaN, as torch).
template <typename T>
struct SoftshrinkOp {
  om<T> lambd;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * om<T>(0)));
  }
};

}  // namespace yaten::native
