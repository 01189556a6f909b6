// CPU kernels of the unary pointwise ops.
#pragma once

#include "iter/cpu_loops.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void neg_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t { return -opmath(x); });
}

}  // namespace yaten::native::cpu
