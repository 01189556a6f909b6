// The element math of the activations and their fused gradients, written once for both backends: the functors of
// kernels/pointwise_math.h's Design rule [Shared element math]. A family's functors have a header of their own so that
// an edit to one recompiles that family's units alone (Note [Functor headers per family], pointwise_math.h).
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

YATEN_FLOAT_UNARY_OP(MishOp, x * std::tanh(std::log1p(std::exp(x))))
YATEN_FLOAT_UNARY_OP(SiluOp, x / (om<T>(1) + math::exp(-x)))
YATEN_FLOAT_UNARY_OP(GeluOp, x * om<T>(0.5) * (om<T>(1) + std::erf(x * om<T>(0.70710678118654752440))))
YATEN_FLOAT_UNARY_OP(GeluTanhOp, om<T>(0.5) * x * (om<T>(1) + std::tanh(om<T>(0.7978845608028654) *
                                                                       (x + om<T>(0.044715) * x * x * x))))
// gelu's gradient: grad * (Phi(x) + x phi(x)); of the tanh form, with t = tanh(beta (x + kappa x^3)),
// grad * (0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2)). One pass (gelu_backward) where the composite of
// erf, exp and four products made eight.
template <typename T>
struct GeluBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v);
    const om<T> cdf = om<T>(0.5) * (om<T>(1) + std::erf(x * om<T>(0.70710678118654752440)));
    const om<T> pdf = std::exp(om<T>(-0.5) * x * x) * om<T>(0.39894228040143267794);
    return static_cast<T>(static_cast<om<T>>(grad) * (cdf + x * pdf));
  }
};
// silu's gradient: grad s (1 + x (1 - s)), s = sigmoid(x)
template <typename T>
struct SiluBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v);
    const om<T> s = om<T>(1) / (om<T>(1) + math::exp(-x));
    return static_cast<T>(static_cast<om<T>>(grad) * (s * (om<T>(1) + x * (om<T>(1) - s))));
  }
};
template <typename T>
struct GeluTanhBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v), beta = om<T>(0.7978845608028654), kappa = om<T>(0.044715);
    const om<T> t = std::tanh(beta * (x + kappa * x * x * x));
    const om<T> slope = om<T>(0.5) * (om<T>(1) + t) +
                        om<T>(0.5) * x * (om<T>(1) - t * t) * beta * (om<T>(1) + om<T>(3) * kappa * x * x);
    return static_cast<T>(static_cast<om<T>>(grad) * slope);
  }
};

YATEN_FLOAT_UNARY_OP(HardsigmoidOp, (x + om<T>(3) < om<T>(0) ? om<T>(0) : (x + om<T>(3) > om<T>(6) ? om<T>(6) : x + om<T>(3))) / om<T>(6))
YATEN_FLOAT_UNARY_OP(HardswishOp, x * (x + om<T>(3) < om<T>(0) ? om<T>(0) : (x + om<T>(3) > om<T>(6) ? om<T>(6) : x + om<T>(3))) / om<T>(6))

// ------------------------------------------------------------------------------------------------ activations

template <typename T>
struct HardtanhOp {
  om<T> lo, hi;  // a NaN lo comes with a NaN hi (hardtanh_op)
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    // NaN stays NaN; a NaN bound gives NaN everywhere, as torch's clamp with a NaN bound
    return static_cast<T>(hi != hi || x > hi ? hi : (x < lo ? lo : x));
  }
};
template <typename scalar_t>
HardtanhOp<scalar_t> hardtanh_op(const Scalar& min_val, const Scalar& max_val) {
  const om<scalar_t> lo = min_val.to<om<scalar_t>>();
  const om<scalar_t> hi = max_val.to<om<scalar_t>>();
  return {lo, lo != lo ? lo : hi};
}
template <typename T>
struct LeakyReluOp {
  om<T> slope;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x > om<T>(0) ? x : x * slope);
  }
};
// elu: x * scale from 0 up (so a zero input gives 0 whatever alpha and input_scale are, as torch), else
// expm1(x * input_scale) * (alpha * scale).
template <typename T>
struct EluOp {
  om<T> negcoef, scale, input_scale;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x < om<T>(0) ? std::expm1(x * input_scale) * negcoef : x * scale);
  }
};
template <typename scalar_t>
EluOp<scalar_t> elu_op(const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  using opmath = om<scalar_t>;
  return {alpha.to<opmath>() * scale.to<opmath>(), scale.to<opmath>(), input_scale.to<opmath>()};
}
// softplus: log(1 + e^(beta x)) / beta, linear above `threshold` (in units of beta x).
template <typename T>
struct SoftplusOp {
  om<T> beta, threshold;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta);
  }
};
// glu's halves: a * sigmoid(b) as a / (1 + e^-b), rounded once.
template <typename T>
struct GluOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    return static_cast<T>(x / (om<T>(1) + std::exp(-y)));
  }
};
// threshold: `value` where x <= threshold, x elsewhere (a NaN x stays).
template <typename T>
struct ThresholdOp {
  om<T> threshold, value;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x <= threshold ? value : x);
  }
};
// hardshrink: 0 where -lambd <= x <= lambd, x elsewhere (a NaN x stays).
template <typename T>
struct HardshrinkOp {
  om<T> lambd;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x >= -lambd && x <= lambd ? om<T>(0) : x);
  }
};
// softshrink: x - lambd above lambd, x + lambd below -lambd, x * 0 between (so a NaN x gives NaN, as torch).
template <typename T>
struct SoftshrinkOp {
  om<T> lambd;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * om<T>(0)));
  }
};

}  // namespace yaten::native
