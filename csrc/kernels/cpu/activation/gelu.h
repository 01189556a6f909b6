// gelu's CPU kernel: GeluOp (kernels/activation/gelu.h) and GeluTanhOp (kernels/activation/gelu.h) over the
// TensorIterator the generated wrapper built. A header of its own: an edit recompiles gelu's unit alone (Note [A
// header per op], kernels/binary_math.h).
#pragma once

#include "kernels/activation/gelu.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

// gelu: x * Phi(x) ("none", with erf) or its tanh approximation ("tanh").
template <typename scalar_t>
void gelu_kernel(const TensorIterator& iter, const std::string& approximate) {
  check_gelu_approximate(approximate);
  constexpr float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
  // float64 in double lanes too (vec_double's erf and tanh; element by element it was 5.2x torch's time)
  if (approximate == "none") {
    // Note [Gelu's erf as one rational function]
    unary_vec_kernel<scalar_t>(iter, FunctorOf<GeluOp>{}, [](vec::wfloat x) { return vec::gelu(x); },
                               [](vec::wdouble x) {
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

}  // namespace yaten::native::cpu
