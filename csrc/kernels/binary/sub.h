// sub's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct SubOp {
  om<T> alpha;
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    return static_cast<T>(wrapping_sub(om<T>(x), wrapping_mul(alpha, om<T>(y))));
  }
};

}  // namespace yaten::native
