// CUDA kernels of the special functions and the sign/exponent ops: each launches the element functor from
// kernels/special_math.h that the CPU kernel of the same name (kernels/cpu/special_ops.h) runs.
#pragma once

#include <cstdint>

#include "iter/cuda_loops.cuh"
#include "kernels/special_support.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void digamma_kernel(const TensorIterator& iter) { gpu_kernel(iter, DigammaOp<scalar_t>{}); }
template <typename scalar_t>
void lgamma_kernel(const TensorIterator& iter) { gpu_kernel(iter, LgammaOp<scalar_t>{}); }
template <typename scalar_t>
void polygamma_kernel(const TensorIterator& iter, int64_t n) {
  check_polygamma_order(n);
  gpu_kernel(iter, PolygammaOp<scalar_t>{n});
}
template <typename scalar_t>
void i0_kernel(const TensorIterator& iter) { gpu_kernel(iter, I0Op<scalar_t>{}); }
template <typename scalar_t>
void i1_kernel(const TensorIterator& iter) { gpu_kernel(iter, I1Op<scalar_t>{}); }
template <typename scalar_t>
void sinc_kernel(const TensorIterator& iter) { gpu_kernel(iter, SincOp<scalar_t>{}); }
template <typename scalar_t>
void sgn_kernel(const TensorIterator& iter) { gpu_kernel(iter, SgnOp<scalar_t>{}); }
template <typename scalar_t>
void signbit_kernel(const TensorIterator& iter) {
  check_signbit_output(iter);
  gpu_kernel(iter, SignbitOp<scalar_t>{});
}
template <typename scalar_t>
void copysign_kernel(const TensorIterator& iter) { gpu_kernel(iter, CopysignOp<scalar_t>{}); }
template <typename scalar_t>
void nextafter_kernel(const TensorIterator& iter) { gpu_kernel(iter, NextafterOp<scalar_t>{}); }
template <typename scalar_t>
void xlogy_kernel(const TensorIterator& iter) { gpu_kernel(iter, XlogyOp<scalar_t>{}); }
template <typename scalar_t>
void logaddexp_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogaddexpOp<scalar_t>{}); }
template <typename scalar_t>
void logaddexp2_kernel(const TensorIterator& iter) { gpu_kernel(iter, Logaddexp2Op<scalar_t>{}); }
template <typename scalar_t>
void heaviside_kernel(const TensorIterator& iter) {
  check_heaviside_operands(iter);
  gpu_kernel(iter, HeavisideOp<scalar_t>{});
}

}  // namespace yaten::native::cuda
