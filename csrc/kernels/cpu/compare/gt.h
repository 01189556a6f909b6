// gt's CPU kernel: GtOp (kernels/compare/gt.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles gt's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/gt.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void gt_kernel(const TensorIterator& iter) { cpu_kernel(iter, GtOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
