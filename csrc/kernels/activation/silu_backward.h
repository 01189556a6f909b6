// silu_backward's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// silu's gradient: grad s (1 + x (1 - s)), s = sigmoid(x)
template <typename T>
struct SiluBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v);
    const om<T> s = om<T>(1) / (om<T>(1) + math::exp(-x));
    return static_cast<T>(static_cast<om<T>>(grad) * (s * (om<T>(1) + x * (om<T>(1) - s))));
  }
};

}  // namespace yaten::native
