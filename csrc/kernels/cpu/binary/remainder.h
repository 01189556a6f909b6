// remainder's CPU kernel, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/remainder.h's, shared with CUDA. A header of its own: an edit recompiles remainder's unit alone
// (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/remainder.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

// Integer division by zero raises yaten.ZeroDivisionError (a RuntimeError, as torch raises on the CPU).
// float32, float16 and bfloat16 run vec::remainder, float64 vec::remainder_double (exact fmod, then the
// functor's own steps: the functor's results, which the other dtypes run).
template <typename scalar_t>
void remainder_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return RemainderOp<decltype(x)>{}(x, y); },
                              [](vec::wfloat x, vec::wfloat y) { return vec::remainder(x, y); },
                              [](vec::wdouble x, vec::wdouble y) { return vec::remainder_double(x, y); });
}

}  // namespace yaten::native::cpu
