// log's CPU kernel: LogOp (kernels/unary/log.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles log's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/log.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void log_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, LogOp>(iter, [](vec::wfloat x) { return vec::log(x); },
                                    [](vec::wdouble x) { return vec::log_double(x); });
}

}  // namespace yaten::native::cpu
