// bitwise_left_shift's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/bitwise_left_shift.h's, shared with CUDA. A header of its own: an edit recompiles
// bitwise_left_shift's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/bitwise_left_shift.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void bitwise_left_shift_kernel(const TensorIterator& iter) { cpu_kernel(iter, LeftShiftOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
