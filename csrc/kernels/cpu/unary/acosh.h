// acosh's CPU kernel: AcoshOp (kernels/unary/acosh.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles acosh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/acosh.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void acosh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AcoshOp>(iter, [](vec::wfloat x) { return vec::acosh(x); },
                                      [](vec::wdouble x) { return vec::acosh_double(x); });
}

}  // namespace yaten::native::cpu
