// hardswish's CPU kernel: HardswishOp (kernels/activation/hardswish.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles hardswish's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/hardswish.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hardswish_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardswishOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
