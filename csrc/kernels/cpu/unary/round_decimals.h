// round_decimals's CPU kernel: its own element function over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles round_decimals's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/round_decimals.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void round_decimals_kernel(const TensorIterator& iter, int64_t decimals) {
  cpu_kernel(iter, round_decimals_op<scalar_t>(decimals));
}

}  // namespace yaten::native::cpu
