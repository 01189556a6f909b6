// addcmul's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/addcmul.h's, shared with CUDA. A header of its own: an edit recompiles addcmul's unit alone (Note
// [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/addcmul.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void addcmul_kernel(const TensorIterator& iter, const Scalar& value) {
  cpu_kernel(iter, AddcmulOp<scalar_t>{value.to<om<scalar_t>>()});
}

}  // namespace yaten::native::cpu
