// sigmoid's CPU kernel: SigmoidOp (kernels/unary/sigmoid.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles sigmoid's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/sigmoid.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void sigmoid_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, SigmoidOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<SigmoidOp>{},
                               [](vec::wfloat x) { return vec::sigmoid(x); },
                               [](vec::wdouble x) { return vec::sigmoid_double(x); });
  }
}

}  // namespace yaten::native::cpu
