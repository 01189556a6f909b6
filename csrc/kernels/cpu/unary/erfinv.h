// erfinv's CPU kernel: ErfinvOp (kernels/unary/erfinv.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles erfinv's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/erfinv.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void erfinv_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, ErfinvOp>(iter, [](vec::wfloat x) { return vec::erfinv(x); },
                                       [](vec::wdouble x) { return vec::erfinv_double(x); });
}

}  // namespace yaten::native::cpu
