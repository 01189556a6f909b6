// sinh's CPU kernel: SinhOp (kernels/unary/sinh.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles sinh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/sinh.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void sinh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, SinhOp>(iter, [](vec::wfloat x) { return vec::sinh(x); },
                                     [](vec::wdouble x) { return vec::sinh_double(x); });
}

}  // namespace yaten::native::cpu
