// logical_or's CPU kernel: LogicalOrOp (kernels/compare/logical_or.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles logical_or's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/compare/logical_or.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void logical_or_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalOrOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
