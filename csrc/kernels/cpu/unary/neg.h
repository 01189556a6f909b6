// neg's CPU kernel: NegOp (kernels/unary/neg.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles neg's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/neg.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void neg_kernel(const TensorIterator& iter) {
  if constexpr (vec::kSixteenBit<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) { return scalar_t::from_bits(x.bits ^ 0x8000u); });  // see abs_kernel
  } else {
    cpu_kernel(iter, NegOp<scalar_t>{});
  }
}

}  // namespace yaten::native::cpu
