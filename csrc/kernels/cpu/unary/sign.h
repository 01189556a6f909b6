// sign's CPU kernel: SignOp (kernels/pointwise_math.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles sign's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void sign_kernel(const TensorIterator& iter) { cpu_kernel(iter, SignOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
