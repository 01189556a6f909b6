// gelu_backward's CPU kernel: GeluBackwardOp (kernels/activation/gelu_backward.h) and GeluTanhBackwardOp
// (kernels/activation/gelu_backward.h) over the TensorIterator the generated wrapper built. A header of its own: an
// edit recompiles gelu_backward's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/activation/gelu_backward.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

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

}  // namespace yaten::native::cpu
