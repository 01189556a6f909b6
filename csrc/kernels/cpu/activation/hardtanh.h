// hardtanh's CPU kernel: its own element function over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles hardtanh's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/activation/hardtanh.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hardtanh_kernel(const TensorIterator& iter, const Scalar& min_val, const Scalar& max_val) {
  check_hardtanh_limits<scalar_t>(min_val, max_val);
  cpu_kernel(iter, hardtanh_op<scalar_t>(min_val, max_val));
}

}  // namespace yaten::native::cpu
