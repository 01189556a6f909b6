// exp's CPU kernel: ExpOp (kernels/unary/exp.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles exp's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/exp.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void exp_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, ExpOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<ExpOp>{}, [](vec::wfloat x) { return vec::exp(x); },
                               [](vec::wdouble x) { return vec::exp_double(x); });
  }
}

}  // namespace yaten::native::cpu
