// lt's CPU kernel: LtOp (kernels/compare/lt.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles lt's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/lt.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void lt_kernel(const TensorIterator& iter) { cpu_kernel(iter, LtOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
