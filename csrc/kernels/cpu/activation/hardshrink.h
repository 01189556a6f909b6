// hardshrink's CPU kernel: HardshrinkOp (kernels/activation/hardshrink.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles hardshrink's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/hardshrink.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hardshrink_kernel(const TensorIterator& iter, const Scalar& lambd) {
  cpu_kernel(iter, HardshrinkOp<scalar_t>{lambd.to<om<scalar_t>>()});
}

}  // namespace yaten::native::cpu
