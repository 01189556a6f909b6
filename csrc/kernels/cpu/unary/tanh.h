// tanh's CPU kernel: TanhOp (kernels/unary/tanh.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles tanh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/tanh.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void tanh_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, TanhOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<TanhOp>{}, [](vec::wfloat x) { return vec::tanh(x); },
                               [](vec::wdouble x) { return vec::tanh_double(x); });
  }
}

}  // namespace yaten::native::cpu
