// log2's CPU kernel: Log2Op (kernels/unary/log2.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles log2's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/log2.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void log2_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Log2Op>(iter, [](vec::wfloat x) { return vec::log2(x); },
                                     [](vec::wdouble x) { return vec::log2_double(x); });
}

}  // namespace yaten::native::cpu
