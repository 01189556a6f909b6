// CUDA kernels of the pointwise losses: the element functions of kernels/loss_math.h, which the CPU kernels of the
// same names run, through gpu_kernel.
#pragma once

#include "iter/cuda_loops.cuh"
#include "kernels/loss_math.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void smooth_l1_pointwise_kernel(const TensorIterator& iter, double beta) {
  gpu_kernel(iter, SmoothL1Op<scalar_t>{{}, static_cast<om<scalar_t>>(beta)});
}
template <typename scalar_t>
void huber_pointwise_kernel(const TensorIterator& iter, double delta) {
  gpu_kernel(iter, HuberOp<scalar_t>{{}, static_cast<om<scalar_t>>(delta)});
}
template <typename scalar_t>
void squared_difference_kernel(const TensorIterator& iter) {
  gpu_kernel(iter, SquaredDifferenceOp<scalar_t>{});
}

template <typename scalar_t>
void bce_with_logits_pointwise_kernel(const TensorIterator& iter) {
  gpu_kernel(iter, BceWithLogitsOp<scalar_t>{});
}

}  // namespace yaten::native::cuda
