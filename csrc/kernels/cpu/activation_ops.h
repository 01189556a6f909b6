// CPU kernels of the activation functions (yaten.nn.functional). The float32 hot ones (gelu, silu) run 8 lanes at
// a time through iter/vec.h; the rest compute in opmath_t and round once.
#pragma once

#include <cmath>
#include <string>

#include "iter/cpu_loops.h"
#include "iter/vec.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hardtanh_kernel(const TensorIterator& iter, const Scalar& min_val, const Scalar& max_val) {
  using opmath = opmath_t<scalar_t>;
  const opmath lo = min_val.to<opmath>(), hi = max_val.to<opmath>();
  cpu_kernel(iter, [lo, hi](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    return static_cast<scalar_t>(x < lo ? lo : (x > hi ? hi : x));  // NaN stays NaN
  });
}

template <typename scalar_t>
void leaky_relu_kernel(const TensorIterator& iter, const Scalar& negative_slope) {
  using opmath = opmath_t<scalar_t>;
  const opmath slope = negative_slope.to<opmath>();
  cpu_kernel(iter, [slope](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    return static_cast<scalar_t>(x > opmath(0) ? x : x * slope);
  });
}

template <typename scalar_t>
void elu_kernel(const TensorIterator& iter, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  using opmath = opmath_t<scalar_t>;
  const opmath a = alpha.to<opmath>(), s = scale.to<opmath>(), is = input_scale.to<opmath>();
  cpu_kernel(iter, [=](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    return static_cast<scalar_t>(x > opmath(0) ? x * s : std::expm1(x * is) * a * s);
  });
}

// gelu: x * Phi(x) ("none", with erf) or its tanh approximation ("tanh").
template <typename scalar_t>
void gelu_kernel(const TensorIterator& iter, const std::string& approximate) {
  YATEN_CHECK(approximate == "none" || approximate == "tanh", ValueError,
              "gelu: approximate must be 'none' or 'tanh', not '", approximate, "'");
  constexpr float kSqrtHalf = 0.70710678118654752f, kBeta = 0.7978845608028654f, kKappa = 0.044715f;
  if (approximate == "none") {
    unary_vec_kernel<scalar_t>(
        iter, [](auto x) { return x * decltype(x)(0.5) * (1 + std::erf(x * decltype(x)(M_SQRT1_2))); },
        [](vec::vfloat x) { return x * 0.5f * (1.0f + vec::erf_approx(x * kSqrtHalf)); });
  } else {
    unary_vec_kernel<scalar_t>(
        iter,
        [](auto x) {
          using T = decltype(x);
          const T inner = T(0.7978845608028654) * (x + T(0.044715) * x * x * x);
          return T(0.5) * x * (1 + std::tanh(inner));
        },
        [](vec::vfloat x) { return 0.5f * x * (1.0f + vec::tanh(kBeta * (x + kKappa * x * x * x))); });
  }
}

template <typename scalar_t>
void silu_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(
      iter, [](auto x) { return x / (1 + std::exp(-x)); },
      [](vec::vfloat x) { return x / (1.0f + vec::exp(-x)); });
}

template <typename scalar_t>
void mish_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    return static_cast<scalar_t>(x * std::tanh(std::log1p(std::exp(x))));
  });
}

// softplus: log(1 + e^(beta x)) / beta, linear above `threshold` (in units of beta x).
template <typename scalar_t>
void softplus_kernel(const TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  using opmath = opmath_t<scalar_t>;
  const opmath b = beta.to<opmath>(), t = threshold.to<opmath>();
  cpu_kernel(iter, [b, t](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    return static_cast<scalar_t>(x * b > t ? x : std::log1p(std::exp(x * b)) / b);
  });
}

template <typename scalar_t>
void hardsigmoid_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v) + opmath(3);
    return static_cast<scalar_t>((x < opmath(0) ? opmath(0) : (x > opmath(6) ? opmath(6) : x)) / opmath(6));
  });
}

template <typename scalar_t>
void hardswish_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    const opmath r = x + opmath(3);
    return static_cast<scalar_t>(x * (r < opmath(0) ? opmath(0) : (r > opmath(6) ? opmath(6) : r)) / opmath(6));
  });
}

}  // namespace yaten::native::cpu
