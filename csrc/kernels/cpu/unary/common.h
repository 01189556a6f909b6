// What every CPU kernel of the unary family builds on (each kernel has a header of its own beside this one: Note [A
// header per op], kernels/binary_math.h; its functor is kernels/unary/<op>.h's, shared with CUDA): the loops, and
// the vector forms of iter/vec.h (float lanes: exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan,
// asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, sigmoid, erf, erfc, erfinv, the roundings; float64 lanes,
// iter/vec_double*.h, for most of them). The functor serves the other dtypes and complex.
#pragma once

#include <cmath>
#include <optional>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "iter/vec_double_erf.h"
#include "iter/vec_double_trig.h"
#include "kernels/pointwise_math.h"

namespace yaten::native::cpu {

// float, float16 and bfloat16 through the 8-lane form vec_f, other real dtypes through the functor Op, complex
// through Op element by element.
template <typename scalar_t, template <typename> class Op, typename VecF>
void vectorized_unary(const TensorIterator& iter, VecF vec_f) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, Op<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<Op>{}, vec_f);
  }
}
// ... and float64 through the kDoubleLanes form vec_f64 (iter/vec_double.h).
template <typename scalar_t, template <typename> class Op, typename VecF, typename VecF64>
void vectorized_unary(const TensorIterator& iter, VecF vec_f, VecF64 vec_f64) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, Op<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<Op>{}, vec_f, vec_f64);
  }
}

}  // namespace yaten::native::cpu
