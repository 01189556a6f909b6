// asin's CPU kernel: AsinOp (kernels/unary/asin.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles asin's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/asin.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void asin_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AsinOp>(iter, [](vec::wfloat x) { return vec::asin(x); },
                                     [](vec::wdouble x) { return vec::asin_double(x); });
}

}  // namespace yaten::native::cpu
