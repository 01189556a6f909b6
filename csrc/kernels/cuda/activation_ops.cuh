// CUDA kernels of the activation functions: each launches the element functor that the CPU kernel of the same name
// runs (kernels/activation_math.h), through gpu_kernel.
#pragma once

#include <string>

#include "iter/cuda_loops.cuh"
#include "kernels/activation_math.h"
#include "kernels/pointwise_support.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void hardtanh_kernel(const TensorIterator& iter, const Scalar& min_val, const Scalar& max_val) {
  check_hardtanh_limits<scalar_t>(min_val, max_val);
  gpu_kernel(iter, hardtanh_op<scalar_t>(min_val, max_val));
}
template <typename scalar_t>
void leaky_relu_kernel(const TensorIterator& iter, const Scalar& negative_slope) {
  gpu_kernel(iter, LeakyReluOp<scalar_t>{negative_slope.to<om<scalar_t>>()});
}
template <typename scalar_t>
void glu_halves_kernel(const TensorIterator& iter) {
  gpu_kernel(iter, GluOp<scalar_t>{});
}
template <typename scalar_t>
void threshold_kernel(const TensorIterator& iter, const Scalar& threshold, const Scalar& value) {
  gpu_kernel(iter, ThresholdOp<scalar_t>{threshold.to<om<scalar_t>>(), value.to<om<scalar_t>>()});
}
template <typename scalar_t>
void hardshrink_kernel(const TensorIterator& iter, const Scalar& lambd) {
  gpu_kernel(iter, HardshrinkOp<scalar_t>{lambd.to<om<scalar_t>>()});
}
template <typename scalar_t>
void softshrink_kernel(const TensorIterator& iter, const Scalar& lambd) {
  check_softshrink_lambd<scalar_t>(iter, lambd);
  gpu_kernel(iter, SoftshrinkOp<scalar_t>{lambd.to<om<scalar_t>>()});
}
template <typename scalar_t>
void elu_kernel(const TensorIterator& iter, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  gpu_kernel(iter, elu_op<scalar_t>(alpha, scale, input_scale));
}
template <typename scalar_t>
void gelu_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  if (approximate == "none") {
    gpu_kernel(iter, GeluOp<scalar_t>{});
  } else {
    gpu_kernel(iter, GeluTanhOp<scalar_t>{});
  }
}
template <typename scalar_t>
void gelu_backward_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  if (approximate == "none") {
    gpu_kernel(iter, GeluBackwardOp<scalar_t>{});
  } else {
    gpu_kernel(iter, GeluTanhBackwardOp<scalar_t>{});
  }
}
template <typename scalar_t>
void silu_kernel(const TensorIterator& iter) { gpu_kernel(iter, SiluOp<scalar_t>{}); }
template <typename scalar_t>
void silu_backward_kernel(const TensorIterator& iter) { gpu_kernel(iter, SiluBackwardOp<scalar_t>{}); }
template <typename scalar_t>
void mish_kernel(const TensorIterator& iter) { gpu_kernel(iter, MishOp<scalar_t>{}); }
template <typename scalar_t>
void softplus_kernel(const TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  gpu_kernel(iter, SoftplusOp<scalar_t>{beta.to<om<scalar_t>>(), threshold.to<om<scalar_t>>()});
}
template <typename scalar_t>
void hardsigmoid_kernel(const TensorIterator& iter) { gpu_kernel(iter, HardsigmoidOp<scalar_t>{}); }
template <typename scalar_t>
void hardswish_kernel(const TensorIterator& iter) { gpu_kernel(iter, HardswishOp<scalar_t>{}); }

}  // namespace yaten::native::cuda
