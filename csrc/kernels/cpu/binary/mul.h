// mul's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/mul.h's, shared with CUDA. A header of its own: an edit recompiles mul's unit alone (Note [A header
// per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/mul.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void mul_kernel(const TensorIterator& iter) {
  if constexpr (kHalfInLanes<scalar_t>) {
    const auto f = [](auto x, auto y) { return x * y; };
    binary_vec_kernel<scalar_t>(iter, f, f);
  } else {
    cpu_kernel(iter, MulOp<scalar_t>{});
  }
}

}  // namespace yaten::native::cpu
