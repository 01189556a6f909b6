// div's element function (true division; rounding_mode='trunc' is div_trunc.h's, 'floor' floor_divide.h's), written
// once for both backends (Design rule [Shared element math], kernels/pointwise_math.h). A header per op (Note [A
// header per op], kernels/binary_math.h): an edit recompiles the units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct DivOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(om<T>(x) / om<T>(y)); }
};

}  // namespace yaten::native
