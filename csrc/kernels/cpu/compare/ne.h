// ne's CPU kernel: NeOp (kernels/compare/ne.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles ne's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/ne.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void ne_kernel(const TensorIterator& iter) { cpu_kernel(iter, NeOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
