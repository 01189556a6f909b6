// tan's CPU kernel: TanOp (kernels/unary/tan.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles tan's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/tan.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void tan_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, TanOp>(iter, [](vec::wfloat x) { return vec::tan(x); },
                                    [](vec::wdouble x) { return vec::tan_double(x); });
}

}  // namespace yaten::native::cpu
