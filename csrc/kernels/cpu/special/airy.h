// The CPU kernels of kernels/special/airy.h's functions, a header of their own (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "iter/cpu_loops.h"
#include "kernels/special/airy.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void airy_ai_kernel(const TensorIterator& iter) { cpu_kernel(iter, AiryAiOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
