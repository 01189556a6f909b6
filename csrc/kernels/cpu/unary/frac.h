// frac's CPU kernel: FracOp (kernels/unary/frac.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles frac's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/frac.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void frac_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, FracOp>(iter, [](vec::wfloat x) { return vec::frac(x); },
                                     [](vec::wdouble x) { return x - vec::rounded_double<2>(x); });
}

}  // namespace yaten::native::cpu
