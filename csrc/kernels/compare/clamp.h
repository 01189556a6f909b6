// clamp's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// clamp with both bounds: min(max(x, lo), hi), NaN anywhere giving NaN, and hi winning when lo > hi (as torch).
template <typename T>
struct ClampOp {
  YATEN_HOST_DEVICE T operator()(T v, T l, T h) const {
    const om<T> x = static_cast<om<T>>(v), lo = static_cast<om<T>>(l), hi = static_cast<om<T>>(h);
    const om<T> m = x < lo ? lo : x;
    const om<T> r = m > hi ? hi : m;  // a NaN x stays NaN here
    if constexpr (!std::is_integral_v<om<T>>) {
      return static_cast<T>(lo != lo || hi != hi ? x + lo + hi : r);  // a select, not a branch: the loop vectorizes
    } else {
      return static_cast<T>(r);
    }
  }
};

}  // namespace yaten::native
