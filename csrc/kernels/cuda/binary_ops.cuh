// CUDA kernels of the arithmetic and bitwise binary ops (and the ternary lerp/addcmul/addcdiv): each launches the
// element functor that the CPU kernel of the same name runs (kernels/binary_math.h), through gpu_kernel.
#pragma once

#include "iter/cuda_loops.cuh"
#include "kernels/alpha_check.h"
#include "kernels/binary_math.h"
#include "kernels/pointwise_support.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void add_kernel(const TensorIterator& iter, const Scalar& alpha) {
  check_alpha("add", iter, alpha);
  gpu_kernel(iter, AddOp<scalar_t>{alpha.to<om<scalar_t>>()});
}
template <typename scalar_t>
void sub_kernel(const TensorIterator& iter, const Scalar& alpha) {
  check_sub_operands(iter);
  check_alpha("sub", iter, alpha);
  gpu_kernel(iter, SubOp<scalar_t>{alpha.to<om<scalar_t>>()});
}
template <typename scalar_t>
void mul_kernel(const TensorIterator& iter) { gpu_kernel(iter, MulOp<scalar_t>{}); }
template <typename scalar_t>
void div_kernel(const TensorIterator& iter) { gpu_kernel(iter, DivOp<scalar_t>{}); }
template <typename scalar_t>
void maximum_kernel(const TensorIterator& iter) { gpu_kernel(iter, MaximumOp<scalar_t>{}); }
template <typename scalar_t>
void minimum_kernel(const TensorIterator& iter) { gpu_kernel(iter, MinimumOp<scalar_t>{}); }
template <typename scalar_t>
void fmax_kernel(const TensorIterator& iter) { gpu_kernel(iter, FmaxOp<scalar_t>{}); }
template <typename scalar_t>
void fmin_kernel(const TensorIterator& iter) { gpu_kernel(iter, FminOp<scalar_t>{}); }
// Integer division by zero cannot raise on the device: see pointwise_math.h.
template <typename scalar_t>
void remainder_kernel(const TensorIterator& iter) { gpu_kernel(iter, RemainderOp<scalar_t>{}); }
template <typename scalar_t>
void fmod_kernel(const TensorIterator& iter) { gpu_kernel(iter, FmodOp<scalar_t>{}); }
template <typename scalar_t>
void floor_divide_kernel(const TensorIterator& iter) { gpu_kernel(iter, FloorDivideOp<scalar_t>{}); }
template <typename scalar_t>
void div_trunc_kernel(const TensorIterator& iter) { gpu_kernel(iter, DivTruncOp<scalar_t>{}); }
template <typename scalar_t>
void pow_kernel(const TensorIterator& iter) {
  check_pow_number_exponent(iter);
  gpu_kernel(iter, PowOp<scalar_t>{});
}
template <typename scalar_t>
void atan2_kernel(const TensorIterator& iter) { gpu_kernel(iter, Atan2Op<scalar_t>{}); }
template <typename scalar_t>
void hypot_kernel(const TensorIterator& iter) { gpu_kernel(iter, HypotOp<scalar_t>{}); }
template <typename scalar_t>
void lerp_scalar_kernel(const TensorIterator& iter, const Scalar& weight) {
  check_same_dtypes("lerp", iter, {"end"}, /*out_too=*/false);
  gpu_kernel(iter, LerpScalarOp<scalar_t>{weight.to<om<scalar_t>>()});
}
template <typename scalar_t>
void lerp_tensor_kernel(const TensorIterator& iter) {
  // a 0-dim weight of another dtype promotes (lerp of int8 tensors with tensor(0.5) is float32, as in torch), and
  // the out= then takes any dtype the result casts into safely
  check_same_dtypes("lerp", iter, {"end"}, /*out_too=*/iter.input_dim(2) != 0);
  check_lerp_weight(iter);
  gpu_kernel(iter, LerpTensorOp<scalar_t>{});
}
template <typename scalar_t>
void addcmul_kernel(const TensorIterator& iter, const Scalar& value) {
  gpu_kernel(iter, AddcmulOp<scalar_t>{value.to<om<scalar_t>>()});
}
template <typename scalar_t>
void addcdiv_kernel(const TensorIterator& iter, const Scalar& value) {
  check_addcdiv_operands(iter);
  gpu_kernel(iter, AddcdivOp<scalar_t>{value.to<om<scalar_t>>()});
}
template <typename scalar_t>
void bitwise_and_kernel(const TensorIterator& iter) { gpu_kernel(iter, BitwiseAndOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_or_kernel(const TensorIterator& iter) { gpu_kernel(iter, BitwiseOrOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_xor_kernel(const TensorIterator& iter) { gpu_kernel(iter, BitwiseXorOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_not_kernel(const TensorIterator& iter) { gpu_kernel(iter, BitwiseNotOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_left_shift_kernel(const TensorIterator& iter) { gpu_kernel(iter, LeftShiftOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_right_shift_kernel(const TensorIterator& iter) { gpu_kernel(iter, RightShiftOp<scalar_t>{}); }

}  // namespace yaten::native::cuda
