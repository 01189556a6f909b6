// sin's CPU kernel: SinOp (kernels/unary/sin.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles sin's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/sin.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void sin_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, SinOp>(iter, [](vec::wfloat x) { return vec::sin(x); },
                                    [](vec::wdouble x) { return vec::sin_double(x); });
}

}  // namespace yaten::native::cpu
