// trunc's CPU kernel: TruncOp (kernels/unary/rounding.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles trunc's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/rounding.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void trunc_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, TruncOp>(iter, [](vec::wfloat x) { return vec::rounded<2>(x); },
                                      [](vec::wdouble x) { return vec::rounded_double<2>(x); });
}

}  // namespace yaten::native::cpu
