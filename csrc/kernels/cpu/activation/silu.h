// silu's CPU kernel: SiluOp (kernels/activation/silu.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles silu's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/activation/silu.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void silu_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, FunctorOf<SiluOp>{},
                             [](vec::wfloat x) { return x / (1.0f + vec::exp(-x)); },
                             [](vec::wdouble x) { return x / (1.0 + vec::exp_double(-x)); });
}

}  // namespace yaten::native::cpu
