// isfinite's CPU kernel: IsfiniteOp (kernels/compare/isfinite.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles isfinite's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/compare/isfinite.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void isfinite_kernel(const TensorIterator& iter) { cpu_kernel(iter, IsfiniteOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
