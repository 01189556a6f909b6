// abs's CPU kernel: AbsOp (kernels/pointwise_math.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles abs's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void abs_kernel(const TensorIterator& iter) {
  // float16 and bfloat16: the sign bit cleared (neg: flipped), exactly what the functor's round trip through float
  // gives, NaN included, without the conversions (3x torch's time one element at a time)
  if constexpr (vec::kSixteenBit<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) { return scalar_t::from_bits(x.bits & 0x7fffu); });
  } else {
    cpu_kernel(iter, AbsOp<scalar_t>{});
  }
}

}  // namespace yaten::native::cpu
