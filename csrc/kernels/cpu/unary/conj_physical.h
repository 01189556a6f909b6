// conj_physical's CPU kernel: ConjOp (kernels/unary/conj_physical.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles conj_physical's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/conj_physical.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void conj_physical_kernel(const TensorIterator& iter) { cpu_kernel(iter, ConjOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
