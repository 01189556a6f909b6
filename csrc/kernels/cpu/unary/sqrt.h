// sqrt's CPU kernel: SqrtOp (kernels/unary/sqrt.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles sqrt's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/sqrt.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void sqrt_kernel(const TensorIterator& iter) {  // 16-bit rows in float lanes too (scalar conversions: 1.35x torch)
  vectorized_unary<scalar_t, SqrtOp>(iter, [](vec::wfloat x) { return vec::sqrt(x); });
}

}  // namespace yaten::native::cpu
