// threshold's CPU kernel: ThresholdOp (kernels/activation/threshold.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles threshold's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/threshold.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void threshold_kernel(const TensorIterator& iter, const Scalar& threshold, const Scalar& value) {
  cpu_kernel(iter, ThresholdOp<scalar_t>{threshold.to<om<scalar_t>>(), value.to<om<scalar_t>>()});
}

}  // namespace yaten::native::cpu
