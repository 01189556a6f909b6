// round's CPU kernel: RoundOp (kernels/unary/rounding.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles round's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/rounding.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void round_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, RoundOp>(iter, [](vec::wfloat x) { return vec::rounded<3>(x); },
                                      [](vec::wdouble x) { return vec::rounded_double<3>(x); });
}

}  // namespace yaten::native::cpu
