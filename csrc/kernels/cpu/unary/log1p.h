// log1p's CPU kernel: Log1pOp (kernels/unary/log1p.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles log1p's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/log1p.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void log1p_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Log1pOp>(iter, [](vec::wfloat x) { return vec::log1p(x); },
                                      [](vec::wdouble x) { return vec::log1p_double(x); });
}

}  // namespace yaten::native::cpu
