// ge's CPU kernel: GeOp (kernels/compare/ge.h) over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles ge's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/ge.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void ge_kernel(const TensorIterator& iter) { cpu_kernel(iter, GeOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
