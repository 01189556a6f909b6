// isnan's CPU kernel: IsnanOp (kernels/compare/isnan.h) over the TensorIterator the generated wrapper built. A
// header of its own: an edit recompiles isnan's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/isnan.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void isnan_kernel(const TensorIterator& iter) { cpu_kernel(iter, IsnanOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
