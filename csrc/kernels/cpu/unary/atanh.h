// atanh's CPU kernel: AtanhOp (kernels/unary/atanh.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles atanh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/atanh.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void atanh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AtanhOp>(iter, [](vec::wfloat x) { return vec::atanh(x); },
                                      [](vec::wdouble x) { return vec::atanh_double(x); });
}

}  // namespace yaten::native::cpu
