// acos's CPU kernel: AcosOp (kernels/unary/acos.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles acos's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/acos.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void acos_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AcosOp>(iter, [](vec::wfloat x) { return vec::acos(x); },
                                     [](vec::wdouble x) { return vec::acos_double(x); });
}

}  // namespace yaten::native::cpu
