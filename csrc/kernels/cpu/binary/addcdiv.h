// addcdiv's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/addcdiv.h's, shared with CUDA. A header of its own: an edit recompiles addcdiv's unit alone (Note
// [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/addcdiv.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void addcdiv_kernel(const TensorIterator& iter, const Scalar& value) {
  check_addcdiv_operands(iter);
  cpu_kernel(iter, AddcdivOp<scalar_t>{value.to<om<scalar_t>>()});
}

}  // namespace yaten::native::cpu
