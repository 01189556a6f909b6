// exp2's CPU kernel: Exp2Op (kernels/unary/exp2.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles exp2's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/exp2.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void exp2_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Exp2Op>(iter, [](vec::wfloat x) { return vec::exp2(x); },
                                     [](vec::wdouble x) { return vec::exp2_double(x); });
}

}  // namespace yaten::native::cpu
