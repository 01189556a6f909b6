// reciprocal's CPU kernel: ReciprocalOp (kernels/unary/reciprocal.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles reciprocal's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/reciprocal.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void reciprocal_kernel(const TensorIterator& iter) {  // 1 / x in 16 float lanes (as cpu_kernel: 1.26x torch)
  vectorized_unary<scalar_t, ReciprocalOp>(iter, [](vec::wfloat x) { return 1.0f / x; },
                                           [](vec::wdouble x) { return 1.0 / x; });
}

}  // namespace yaten::native::cpu
