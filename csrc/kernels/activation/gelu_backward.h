// gelu_backward's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

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

}  // namespace yaten::native
