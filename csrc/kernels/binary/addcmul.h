// addcmul's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct AddcmulOp {
  om<T> value;
  YATEN_HOST_DEVICE T operator()(T s, T a, T b) const {
    return static_cast<T>(om<T>(s) + value * om<T>(a) * om<T>(b));
  }
};

}  // namespace yaten::native
