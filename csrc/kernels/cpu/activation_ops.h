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
// glu's halves in one pass (yaten.nn.functional.glu splits its input): a * sigmoid(b) in lanes.
template <typename scalar_t>
void glu_halves_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(
      iter, [](auto a, auto b) { return GluOp<decltype(a)>{}(a, b); },
      [](vec::wfloat a, vec::wfloat b) { return a * vec::sigmoid(b); },
      [](vec::wdouble a, vec::wdouble b) { return a * vec::sigmoid_double(b); });
}
template <typename scalar_t>
void threshold_kernel(const TensorIterator& iter, const Scalar& threshold, const Scalar& value) {
  cpu_kernel(iter, ThresholdOp<scalar_t>{threshold.to<om<scalar_t>>(), value.to<om<scalar_t>>()});
}
template <typename scalar_t>
void hardshrink_kernel(const TensorIterator& iter, const Scalar& lambd) {
  cpu_kernel(iter, HardshrinkOp<scalar_t>{lambd.to<om<scalar_t>>()});
}
template <typename scalar_t>
void softshrink_kernel(const TensorIterator& iter, const Scalar& lambd) {
  check_softshrink_lambd<scalar_t>(iter, lambd);
  cpu_kernel(iter, SoftshrinkOp<scalar_t>{lambd.to<om<scalar_t>>()});
}
// elu (and selu, celu through it): the functor's select, expm1 from vec.h's float and vec_double.h's float64 forms.
template <typename scalar_t>
void elu_kernel(const TensorIterator& iter, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  if constexpr (is_complex_v<scalar_t> || std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, elu_op<scalar_t>(alpha, scale, input_scale));
  } else {
    const auto op = elu_op<scalar_t>(alpha, scale, input_scale);
    const float negcoef = static_cast<float>(op.negcoef), pos = static_cast<float>(op.scale);
    const float in_scale = static_cast<float>(op.input_scale);
    const double negcoef64 = static_cast<double>(op.negcoef), pos64 = static_cast<double>(op.scale);
    const double in_scale64 = static_cast<double>(op.input_scale);
    unary_vec_kernel<scalar_t>(
        iter, [op](auto x) { return EluOp<decltype(x)>{op.negcoef, op.scale, op.input_scale}(x); },
        [=](vec::wfloat x) { return x < 0.f ? vec::expm1(x * in_scale) * negcoef : x * pos; },
        [=](vec::wdouble x) { return x < 0.0 ? vec::expm1_double(x * in_scale64) * negcoef64 : x * pos64; });
  }
}
// gelu: x * Phi(x) ("none", with erf) or its tanh approximation ("tanh").
template <typename scalar_t>
void gelu_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  constexpr float kSqrtHalf = 0.70710678118654752f, kBeta = 0.7978845608028654f, kKappa = 0.044715f;
  // float64 in double lanes too (vec_double's erf and tanh; element by element it was 5.2x torch's time)
  if (approximate == "none") {
    unary_vec_kernel<scalar_t>(iter, unary_detail::Scalar<GeluOp>{}, [](vec::wfloat x) {
      const vec::wfloat half = 0.5f * x;  // x/2 (1 + erf(x/sqrt 2)) as one fused multiply-add
      return vec::fma(half, vec::erf(x * kSqrtHalf), half);
    }, [](vec::wdouble x) {
      const vec::wdouble half = 0.5 * x;
      return half + half * vec::erf_double(x * 0.70710678118654752440);
    });
  } else {
    unary_vec_kernel<scalar_t>(iter, unary_detail::Scalar<GeluTanhOp>{}, [](vec::wfloat x) {
      return 0.5f * x * (1.0f + vec::tanh(kBeta * (x + kKappa * x * x * x)));
    }, [](vec::wdouble x) {
      return 0.5 * x * (1.0 + vec::tanh_double(0.7978845608028654 * (x + 0.044715 * x * x * x)));
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
                             [](vec::wfloat x) { return x / (1.0f + vec::exp(-x)); },
                             [](vec::wdouble x) { return x / (1.0 + vec::exp_double(-x)); });
}
// mish: x tanh(log1p(e^x)), each step vec.h's (vec_double's) form; e^x = inf gives tanh(inf) = 1, so x.
template <typename scalar_t>
void mish_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, MishOp>(
      iter, [](vec::wfloat x) { return x * vec::tanh(vec::log1p(vec::exp(x))); },
      [](vec::wdouble x) { return x * vec::tanh_double(vec::log1p_double(vec::exp_double(x))); });
}
// softplus: log1p(e^(beta x)) / beta, x itself where beta x > threshold.
template <typename scalar_t>
void softplus_kernel(const TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  const SoftplusOp<scalar_t> op{beta.to<om<scalar_t>>(), threshold.to<om<scalar_t>>()};
  if constexpr (is_complex_v<scalar_t> || std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, op);
  } else {
    const float b = static_cast<float>(op.beta), t = static_cast<float>(op.threshold);
    const double b64 = static_cast<double>(op.beta), t64 = static_cast<double>(op.threshold);
    unary_vec_kernel<scalar_t>(
        iter, [op](auto x) { return SoftplusOp<decltype(x)>{op.beta, op.threshold}(x); },
        [=](vec::wfloat x) {
          const vec::wfloat z = x * b;
          return z > t ? x : vec::log1p(vec::exp(z)) / b;
        },
        [=](vec::wdouble x) {
          const vec::wdouble z = x * b64;
          return z > t64 ? x : vec::log1p_double(vec::exp_double(z)) / b64;
        });
  }
}
template <typename scalar_t>
void hardsigmoid_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardsigmoidOp<scalar_t>{}); }
template <typename scalar_t>
void hardswish_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardswishOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
