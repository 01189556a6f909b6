// glu_halves's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// glu's halves: a * sigmoid(b) as a / (1 + e^-b), rounded once.
template <typename T>
struct GluOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    return static_cast<T>(x / (om<T>(1) + std::exp(-y)));
  }
};

}  // namespace yaten::native
