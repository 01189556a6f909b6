// isinf's CPU kernel: IsinfOp (kernels/compare/isinf.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles isinf's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/isinf.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void isinf_kernel(const TensorIterator& iter) { cpu_kernel(iter, IsinfOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
