// The CUDA kernel of scaled_square: the same element function, run by yaten's gpu_kernel on the current stream.
#pragma once

#include "iter/cuda_loops.cuh"
#include "src/scaled_square_math.h"

namespace myext::native::cuda {

template <typename scalar_t>
void scaled_square_kernel(const ::yaten::TensorIterator& iter, double scale) {
  using acc_t = ::yaten::opmath_t<scalar_t>;
  ::yaten::native::gpu_kernel(iter, ScaledSquareOp<scalar_t>{static_cast<acc_t>(scale)});
}

}  // namespace myext::native::cuda
