// log10's CPU kernel: Log10Op (kernels/unary/log10.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles log10's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/log10.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void log10_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Log10Op>(iter, [](vec::wfloat x) { return vec::log10(x); },
                                      [](vec::wdouble x) { return vec::log10_double(x); });
}

}  // namespace yaten::native::cpu
