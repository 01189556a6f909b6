// cos's CPU kernel: CosOp (kernels/unary/cos.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles cos's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/cos.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void cos_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, CosOp>(iter, [](vec::wfloat x) { return vec::cos(x); },
                                    [](vec::wdouble x) { return vec::cos_double(x); });
}

}  // namespace yaten::native::cpu
