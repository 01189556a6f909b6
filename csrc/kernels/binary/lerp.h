// lerp's element functions: a number or a tensor as the weight, written once for both backends (Design rule [Shared
// element math], kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit
// recompiles the units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct LerpScalarOp {
  om<T> weight;
  YATEN_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(math::lerp(om<T>(a), om<T>(b), weight)); }
};
template <typename T>
struct LerpTensorOp {
  YATEN_HOST_DEVICE T operator()(T a, T b, T w) const {
    return static_cast<T>(math::lerp(om<T>(a), om<T>(b), om<T>(w)));
  }
};

}  // namespace yaten::native
