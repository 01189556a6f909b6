// masked_fill_'s CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value) {
  TensorIterator iter = masked_fill_iterator(self, mask);
  cpu_kernel(iter, MaskedFillOp<scalar_t>{value.to<scalar_t>()});
  return self;
}

}  // namespace yaten::native::cpu
