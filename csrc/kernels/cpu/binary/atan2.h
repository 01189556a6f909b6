// atan2's CPU kernel, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/atan2.h's, shared with CUDA. A header of its own: an edit recompiles atan2's unit alone (Note [A
// header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/atan2.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void atan2_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto y, auto x) { return Atan2Op<decltype(y)>{}(y, x); },
                              [](vec::wfloat y, vec::wfloat x) { return vec::atan2(y, x); },
                              [](vec::wdouble y, vec::wdouble x) { return vec::atan2_double(y, x); });
}

}  // namespace yaten::native::cpu
