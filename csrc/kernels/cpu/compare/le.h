// le's CPU kernel: LeOp (kernels/compare/le.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles le's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/le.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void le_kernel(const TensorIterator& iter) { cpu_kernel(iter, LeOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
