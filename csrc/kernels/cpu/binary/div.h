// div's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/div.h's, shared with CUDA. A header of its own: an edit recompiles div's unit alone (Note [A header
// per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/div.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void div_kernel(const TensorIterator& iter) {
  if constexpr (kHalfInLanes<scalar_t>) {
    const auto f = [](auto x, auto y) { return x / y; };
    binary_vec_kernel<scalar_t>(iter, f, f);
  } else {
    cpu_kernel(iter, DivOp<scalar_t>{});
  }
}

}  // namespace yaten::native::cpu
