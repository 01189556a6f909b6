// maximum's, minimum's, fmax's and fmin's element functions: one template, two flags, written once for both backends
// (Design rule [Shared element math], kernels/pointwise_math.h). A header per op (Note [A header per op],
// kernels/binary_math.h): an edit recompiles the units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// maximum/minimum: NaN propagates. fmax/fmin: a NaN loses to a number.
template <typename T, bool kMax, bool kNanWins>
struct ExtremumOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    if constexpr (!std::is_integral_v<om<T>>) {
      if (x != x) return kNanWins ? a : b;
      if (y != y) return kNanWins ? b : a;
    }
    return (kMax ? x > y : x < y) ? a : b;
  }
};
template <typename T>
using MaximumOp = ExtremumOp<T, true, true>;
template <typename T>
using MinimumOp = ExtremumOp<T, false, true>;
template <typename T>
using FmaxOp = ExtremumOp<T, true, false>;
template <typename T>
using FminOp = ExtremumOp<T, false, false>;

}  // namespace yaten::native
