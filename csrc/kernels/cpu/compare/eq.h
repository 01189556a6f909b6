// eq's CPU kernel: EqOp (kernels/compare/eq.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles eq's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/eq.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void eq_kernel(const TensorIterator& iter) { cpu_kernel(iter, EqOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
