// The element function of scaled_square, shared by the CPU and CUDA kernels (Design rule [Shared element math]): one
// definition of the math, so the CUDA kernel is right when the CPU's tested one is.
#pragma once

#include "core/half.h"
#include "core/scalar_type.h"

namespace myext {

template <typename T>
struct ScaledSquareOp {
  using acc_t = ::yaten::opmath_t<T>;  // float for float16/bfloat16, as yaten's own kernels compute
  acc_t scale;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const acc_t x = static_cast<acc_t>(v);
    return static_cast<T>(scale * x * x);
  }
};

}  // namespace myext
