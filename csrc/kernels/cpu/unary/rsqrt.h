// rsqrt's CPU kernel: RsqrtOp (kernels/unary/rsqrt.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles rsqrt's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/unary/common.h"
#include "kernels/unary/rsqrt.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void rsqrt_kernel(const TensorIterator& iter) { cpu_kernel(iter, RsqrtOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
