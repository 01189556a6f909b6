// relu's CPU kernel: ReluOp (kernels/unary/relu.h) over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles relu's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/relu.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void relu_kernel(const TensorIterator& iter) { cpu_kernel(iter, ReluOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
