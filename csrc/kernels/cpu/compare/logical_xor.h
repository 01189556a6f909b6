// logical_xor's CPU kernel: LogicalXorOp (kernels/compare/logical_xor.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles logical_xor's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/compare/logical_xor.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void logical_xor_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalXorOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
