// asinh's CPU kernel: AsinhOp (kernels/unary/asinh.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles asinh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/asinh.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void asinh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AsinhOp>(iter, [](vec::wfloat x) { return vec::asinh(x); },
                                      [](vec::wdouble x) { return vec::asinh_double(x); });
}

}  // namespace yaten::native::cpu
