// Element functions written once over `auto`, run in SIMD lanes on the CPU.
//
// kernels/pointwise_math.h's `math::` functions (exp, log, expm1, tanh, ...) take a scalar, on the CPU and on CUDA.
// This header adds their overloads for vec::wfloat (16 float lanes with AVX-512, 8 with AVX2) and vec::wdouble, from
// iter/vec.h and iter/vec_double*.h, so an element function written as a generic lambda or a functor with a template
// call operator,
//
//     [a](auto x) { return x > 0 ? x : a * math::expm1(x / a); }
//
// computes one element when given a float (a CUDA kernel's call, or an integer dtype's) and a row of lanes when given
// a vector: comparisons give lane masks, `?:` selects lane by lane (at least one of its two values of x's type: for
// two numbers, `x * 0 + a`), and arithmetic with a number applies it to every lane. elementwise_kernel<scalar_t>(iter, f) runs f that way: float32, float16 and bfloat16 in float lanes, float64
// in double lanes, other dtypes element by element in their opmath type (Note [Element functions in lanes]).
//
// Note [Element functions in lanes]: this is how an op added from outside the library's own kernels gets the speed of
// the hand-written vector kernels: the lanes run the same vec.h functions the library's exp or tanh kernels run
// (their accuracy is in docs/cpu-math.md), and the tails and strided rows go through a lane buffer, so every element
// of a result is computed by one formula. Both sides of a `?:` are computed in every lane, so a branch that can
// overflow or divide by zero where it is not selected is harmless, but a branch that is expensive costs every lane.
#pragma once

#include <type_traits>

#include "iter/vec.h"
#include "iter/vec_double.h"
#include "iter/vec_double_erf.h"
#include "iter/vec_double_trig.h"
#include "kernels/pointwise_math.h"

namespace yaten::native {

namespace math {
#define YATEN_LANES(name, float_form, double_form)                         \
  inline vec::wfloat name(vec::wfloat x) { return vec::float_form(x); }   \
  inline vec::wdouble name(vec::wdouble x) { return vec::double_form(x); }
YATEN_LANES(exp, exp, exp_double)
YATEN_LANES(exp2, exp2, exp2_double)
YATEN_LANES(expm1, expm1, expm1_double)
YATEN_LANES(log, log, log_double)
YATEN_LANES(log2, log2, log2_double)
YATEN_LANES(log10, log10, log10_double)
YATEN_LANES(log1p, log1p, log1p_double)
YATEN_LANES(sqrt, sqrt, sqrt_double)
YATEN_LANES(sin, sin, sin_double)
YATEN_LANES(cos, cos, cos_double)
YATEN_LANES(tan, tan, tan_double)
YATEN_LANES(asin, asin, asin_double)
YATEN_LANES(acos, acos, acos_double)
YATEN_LANES(atan, atan, atan_double)
YATEN_LANES(sinh, sinh, sinh_double)
YATEN_LANES(cosh, cosh, cosh_double)
YATEN_LANES(tanh, tanh, tanh_double)
YATEN_LANES(asinh, asinh, asinh_double)
YATEN_LANES(acosh, acosh, acosh_double)
YATEN_LANES(atanh, atanh, atanh_double)
#undef YATEN_LANES
}  // namespace math

// f over the iterator's inputs (one or two), in lanes where the dtype has them (see the top of this header).
template <typename scalar_t, typename F>
void elementwise_kernel(const TensorIterator& iter, F f) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_invocable_v<F, opmath>) {
    unary_vec_kernel<scalar_t>(iter, f, f, f);
  } else {
    static_assert(std::is_invocable_v<F, opmath, opmath>, "elementwise_kernel: f takes one input or two");
    binary_vec_kernel<scalar_t>(iter, f, f, f);
  }
}

}  // namespace yaten::native
