// div_trunc's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/div_trunc.h's, shared with CUDA. A header of its own: an edit recompiles div_trunc's unit alone
// (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/div_trunc.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void div_trunc_kernel(const TensorIterator& iter) { cpu_kernel(iter, DivTruncOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
