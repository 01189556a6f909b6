// erf's CPU kernel: ErfOp (kernels/unary/erf.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles erf's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/erf.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void erf_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, ErfOp>(iter, [](vec::wfloat x) { return vec::erf(x); },
                                    [](vec::wdouble x) { return vec::erf_double(x); });
}

}  // namespace yaten::native::cpu
