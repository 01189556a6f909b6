// hypot's CPU kernel, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/hypot.h's, shared with CUDA. A header of its own: an edit recompiles hypot's unit alone (Note [A
// header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/hypot.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hypot_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto a, auto b) { return HypotOp<decltype(a)>{}(a, b); },
                              [](vec::wfloat a, vec::wfloat b) { return vec::hypot(a, b); },
                              [](vec::wdouble a, vec::wdouble b) { return vec::hypot_double(a, b); });
}

}  // namespace yaten::native::cpu
