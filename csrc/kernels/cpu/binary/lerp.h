// lerp's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/lerp.h's, shared with CUDA. A header of its own: an edit recompiles lerp's unit alone (Note [A
// header per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/lerp.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void lerp_scalar_kernel(const TensorIterator& iter, const Scalar& weight) {
  check_same_dtypes("lerp", iter, {"end"}, /*out_too=*/false);
  cpu_kernel(iter, LerpScalarOp<scalar_t>{weight.to<om<scalar_t>>()});
}
template <typename scalar_t>
void lerp_tensor_kernel(const TensorIterator& iter) {
  // a 0-dim weight of another dtype promotes (lerp of int8 tensors with tensor(0.5) is float32, as in torch), and
  // the out= then takes any dtype the result casts into safely
  check_same_dtypes("lerp", iter, {"end"}, /*out_too=*/iter.input_dim(2) != 0);
  check_lerp_weight(iter);
  cpu_kernel(iter, LerpTensorOp<scalar_t>{});
}

}  // namespace yaten::native::cpu
