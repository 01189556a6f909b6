// floor_divide's CPU kernel, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/floor_divide.h's, shared with CUDA. A header of its own: an edit recompiles floor_divide's unit
// alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/floor_divide.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

// Integer division by zero raises yaten.ZeroDivisionError (a RuntimeError, as torch raises on the CPU).
// float32, float16 and bfloat16 run vec::floor_divide, float64 vec::floor_divide_double (exact fmod,
// then the functor's own steps); the other dtypes the functor.
template <typename scalar_t>
void floor_divide_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return FloorDivideOp<decltype(x)>{}(x, y); },
                              [](vec::wfloat x, vec::wfloat y) { return vec::floor_divide(x, y); },
                              [](vec::wdouble x, vec::wdouble y) { return vec::floor_divide_double(x, y); });
}

}  // namespace yaten::native::cpu
