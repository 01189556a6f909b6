// fmod's CPU kernel, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/fmod.h's, shared with CUDA. A header of its own: an edit recompiles fmod's unit alone (Note [A
// header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/fmod.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

// Integer division by zero raises yaten.ZeroDivisionError (a RuntimeError, as torch raises on the CPU).
// float32, float16 and bfloat16 run vec::fmod (exact), float64 vec::fmod_double; the other dtypes the functor.
template <typename scalar_t>
void fmod_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return FmodOp<decltype(x)>{}(x, y); },
                              [](vec::wfloat x, vec::wfloat y) { return vec::fmod(x, y); },
                              [](vec::wdouble x, vec::wdouble y) { return vec::fmod_double(x, y); });
}

}  // namespace yaten::native::cpu
