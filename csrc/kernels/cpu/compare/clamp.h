// clamp's CPU kernel: ClampOp (kernels/compare/clamp.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles clamp's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/clamp.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void clamp_kernel(const TensorIterator& iter) { cpu_kernel(iter, ClampOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
