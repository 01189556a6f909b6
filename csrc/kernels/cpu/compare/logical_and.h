// logical_and's CPU kernel: LogicalAndOp (kernels/compare/logical_and.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles logical_and's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/compare/logical_and.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void logical_and_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalAndOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
