// softshrink's CPU kernel: SoftshrinkOp (kernels/activation/softshrink.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles softshrink's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/softshrink.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void softshrink_kernel(const TensorIterator& iter, const Scalar& lambd) {
  check_softshrink_lambd<scalar_t>(iter, lambd);
  cpu_kernel(iter, SoftshrinkOp<scalar_t>{lambd.to<om<scalar_t>>()});
}

}  // namespace yaten::native::cpu
