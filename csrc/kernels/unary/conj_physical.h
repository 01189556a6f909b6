// conj_physical's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// conj_physical: the conjugate of a complex element; any other element is itself.
template <typename T>
struct ConjOp {
  YATEN_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_complex_v<T>) {
      return T(x.re, -x.im);
    } else {
      return x;
    }
  }
};

}  // namespace yaten::native
