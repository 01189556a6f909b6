// atan's CPU kernel: AtanOp (kernels/unary/atan.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles atan's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/atan.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void atan_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AtanOp>(iter, [](vec::wfloat x) { return vec::atan(x); },
                                     [](vec::wdouble x) { return vec::atan_double(x); });
}

}  // namespace yaten::native::cpu
