// softplus's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// softplus: log(1 + e^(beta x)) / beta, linear above `threshold` (in units of beta x).
template <typename T>
struct SoftplusOp {
  om<T> beta, threshold;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta);
  }
};

}  // namespace yaten::native
