// CPU kernels of the activation functions (yaten.nn.functional), each running its element functor from
// kernels/activation_math.h (shared with CUDA). The float32 hot ones (gelu, silu) pair it with an 8-lane form from
// iter/vec.h.
#pragma once

#include <string>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_math.h"
#include "kernels/activation_math.h"
#include "kernels/pointwise_support.h"

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
// elu (and selu, celu through it), mish and softplus: their functors' formulas over `auto`, run in vec.h's (vec_double's)
// lanes by elementwise_kernel (Note [Element functions in lanes]).
template <typename scalar_t>
void elu_kernel(const TensorIterator& iter, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  const EluOp<scalar_t> op = elu_op<scalar_t>(alpha, scale, input_scale);
  elementwise_kernel<scalar_t>(
      iter, [op](auto x) { return x < 0 ? math::expm1(x * op.input_scale) * op.negcoef : x * op.scale; });
}
// gelu: x * Phi(x) ("none", with erf) or its tanh approximation ("tanh").
template <typename scalar_t>
void gelu_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  constexpr float kSqrtHalf = 0.70710678118654752f, kBeta = 0.7978845608028654f, kKappa = 0.044715f;
  // float64 in double lanes too (vec_double's erf and tanh; element by element it was 5.2x torch's time)
  if (approximate == "none") {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<GeluOp>{}, [](vec::wfloat x) {
      const vec::wfloat half = 0.5f * x;  // x/2 (1 + erf(x/sqrt 2)) as one fused multiply-add
      return vec::fma(half, vec::erf_core<false>(x * kSqrtHalf), half);
    }, [](vec::wdouble x) {
      const vec::wdouble half = 0.5 * x;
      return half + half * vec::erf_double(x * 0.70710678118654752440);
    });
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<GeluTanhOp>{}, [](vec::wfloat x) {
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
  unary_vec_kernel<scalar_t>(iter, FunctorOf<SiluOp>{},
                             [](vec::wfloat x) { return x / (1.0f + vec::exp(-x)); },
                             [](vec::wdouble x) { return x / (1.0 + vec::exp_double(-x)); });
}
template <typename scalar_t>
void silu_backward_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(
      iter, [](auto g, auto x) { return SiluBackwardOp<decltype(g)>{}(g, x); },
      [](vec::wfloat g, vec::wfloat x) {
        const vec::wfloat s = 1.0f / (1.0f + vec::exp(-x));
        return g * (s * (1.0f + x * (1.0f - s)));
      });
}
// mish: x tanh(log1p(e^x)); e^x = inf gives tanh(inf) = 1, so x.
template <typename scalar_t>
void mish_kernel(const TensorIterator& iter) {
  elementwise_kernel<scalar_t>(iter, [](auto x) { return x * math::tanh(math::log1p(math::exp(x))); });
}
// softplus: log1p(e^(beta x)) / beta, x itself where beta x > threshold.
template <typename scalar_t>
void softplus_kernel(const TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  const SoftplusOp<scalar_t> op{beta.to<om<scalar_t>>(), threshold.to<om<scalar_t>>()};
  elementwise_kernel<scalar_t>(iter, [op](auto x) {
    const auto z = x * op.beta;
    return z > op.threshold ? x : math::log1p(math::exp(z)) / op.beta;
  });
}
template <typename scalar_t>
void hardsigmoid_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardsigmoidOp<scalar_t>{}); }
template <typename scalar_t>
void hardswish_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardswishOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
