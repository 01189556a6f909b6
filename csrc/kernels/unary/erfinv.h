// erfinv's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// Out of line on CUDA (Note [Heavy functors out of line], iter/cuda_loops.cuh): a guess and a Newton step in double.
template <typename T>
struct ErfinvOp {
  static constexpr bool out_of_line = true;
  YATEN_HOST_DEVICE T operator()(T v) const {
    return static_cast<T>(static_cast<om<T>>(math::erfinv(static_cast<double>(static_cast<om<T>>(v)))));
  }
};

}  // namespace yaten::native
