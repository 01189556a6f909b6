// cosh's CPU kernel: CoshOp (kernels/unary/cosh.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles cosh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/cosh.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void cosh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, CoshOp>(iter, [](vec::wfloat x) { return vec::cosh(x); },
                                     [](vec::wdouble x) { return vec::cosh_double(x); });
}

}  // namespace yaten::native::cpu
