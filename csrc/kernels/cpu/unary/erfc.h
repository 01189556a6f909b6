// erfc's CPU kernel: ErfcOp (kernels/unary/erfc.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles erfc's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/erfc.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void erfc_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, ErfcOp>(iter, [](vec::wfloat x) { return vec::erfc(x); });
}

}  // namespace yaten::native::cpu
