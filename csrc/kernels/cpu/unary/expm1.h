// expm1's CPU kernel: Expm1Op (kernels/unary/expm1.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles expm1's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/expm1.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void expm1_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Expm1Op>(iter, [](vec::wfloat x) { return vec::expm1(x); },
                                      [](vec::wdouble x) { return vec::expm1_double(x); });
}

}  // namespace yaten::native::cpu
