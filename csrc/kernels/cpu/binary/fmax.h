// fmax's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/extremum.h's, shared with CUDA. A header of its own: an edit recompiles fmax's unit alone (Note [A
// header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/extremum.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void fmax_kernel(const TensorIterator& iter) { cpu_kernel(iter, FmaxOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
