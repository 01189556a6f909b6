// CUDA kernels of the arithmetic binary ops: the same contract as csrc/kernels/cpu/binary_ops.h, with functors
// in place of lambdas (no --extended-lambda needed).
#pragma once

#include "iter/cuda_loops.cuh"

namespace yaten::native::cuda {

template <typename scalar_t>
struct AddFunctor {
  opmath_t<scalar_t> alpha;
  __device__ scalar_t operator()(scalar_t x, scalar_t y) const {
    using opmath = opmath_t<scalar_t>;
    return static_cast<opmath>(x) + alpha * static_cast<opmath>(y);
  }
};

template <typename scalar_t>
void add_kernel(const TensorIterator& iter, const Scalar& alpha) {
  gpu_kernel(iter, AddFunctor<scalar_t>{alpha.to<opmath_t<scalar_t>>()});
}

}  // namespace yaten::native::cuda
