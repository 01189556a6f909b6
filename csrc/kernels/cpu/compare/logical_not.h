// logical_not's CPU kernel: LogicalNotOp (kernels/compare/logical_not.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles logical_not's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/compare/logical_not.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void logical_not_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalNotOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
