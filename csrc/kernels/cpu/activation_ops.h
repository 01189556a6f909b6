// CPU kernels of the activation functions (yaten.nn.functional), each running its element functor from
// kernels/pointwise_math.h (shared with CUDA). The float32 hot ones (gelu, silu) pair it with an 8-lane form from
// iter/vec.h.
#pragma once

#include <string>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "kernels/pointwise_support.h"
#include "kernels/cpu/unary_ops.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hardtanh_kernel(const TensorIterator& iter, const Scalar& min_val, const Scalar& max_val) {
  check_hardtanh_limits<scalar_t>(min_val, max_val);
  cpu_kernel(iter, hardtanh_op<scalar_t>(min_val, max_val));
}
template <typename scalar_t>
void leaky_relu_kernel(const TensorIterator& iter, const Scalar& negative_slope) {
  cpu_kernel(iter, LeakyReluOp<scalar_t>{negative_slope.to<om<scalar_t>>()});
}
template <typename scalar_t>
void elu_kernel(const TensorIterator& iter, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  cpu_kernel(iter, elu_op<scalar_t>(alpha, scale, input_scale));
}
// gelu: x * Phi(x) ("none", with erf) or its tanh approximation ("tanh").
template <typename scalar_t>
void gelu_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  constexpr float kSqrtHalf = 0.70710678118654752f, kBeta = 0.7978845608028654f, kKappa = 0.044715f;
  if (approximate == "none") {
    unary_vec_kernel<scalar_t>(iter, unary_detail::Scalar<GeluOp>{}, [](vec::wfloat x) {
      const vec::wfloat half = 0.5f * x;  // x/2 (1 + erf(x/sqrt 2)) as one fused multiply-add
      return vec::fma(half, vec::erf(x * kSqrtHalf), half);
    });
  } else {
    unary_vec_kernel<scalar_t>(iter, unary_detail::Scalar<GeluTanhOp>{}, [](vec::wfloat x) {
      return 0.5f * x * (1.0f + vec::tanh(kBeta * (x + kKappa * x * x * x)));
    });
  }
}
// gelu's gradient (GeluBackwardOp), float32 lanes through vec.h's erf (Note [Float32 erf]) and exp.
template <typename scalar_t>
void gelu_backward_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  constexpr float kSqrtHalf = 0.70710678118654752f, kInvSqrt2Pi = 0.39894228040143267794f;
  constexpr float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
  if (approximate == "none") {
    binary_vec_kernel<scalar_t>(
        iter, [](auto g, auto x) { return GeluBackwardOp<decltype(g)>{}(g, x); },
        [](vec::wfloat g, vec::wfloat x) {
          const vec::wfloat cdf = 0.5f * (1.0f + vec::erf(x * kSqrtHalf));
          return g * (cdf + x * (vec::exp(-0.5f * x * x) * kInvSqrt2Pi));
        });
  } else {
    binary_vec_kernel<scalar_t>(
        iter, [](auto g, auto x) { return GeluTanhBackwardOp<decltype(g)>{}(g, x); },
        [](vec::wfloat g, vec::wfloat x) {
          const vec::wfloat t = vec::tanh(kBeta * (x + kKappa * x * x * x));
          return g * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kBeta * (1.0f + 3.0f * kKappa * x * x));
        });
  }
}
template <typename scalar_t>
void silu_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, unary_detail::Scalar<SiluOp>{},
                             [](vec::wfloat x) { return x / (1.0f + vec::exp(-x)); });
}
template <typename scalar_t>
void mish_kernel(const TensorIterator& iter) { cpu_kernel(iter, MishOp<scalar_t>{}); }
template <typename scalar_t>
void softplus_kernel(const TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  cpu_kernel(iter, SoftplusOp<scalar_t>{beta.to<om<scalar_t>>(), threshold.to<om<scalar_t>>()});
}
template <typename scalar_t>
void hardsigmoid_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardsigmoidOp<scalar_t>{}); }
template <typename scalar_t>
void hardswish_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardswishOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
