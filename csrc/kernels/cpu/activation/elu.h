// elu's CPU kernel: EluOp (kernels/activation/elu.h) over the TensorIterator the generated wrapper built. A header
// of its own: an edit recompiles elu's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/activation/elu.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

// elu (and selu, celu through it): its functor's formula over `auto`, run in vec.h's (vec_double's) lanes by
// elementwise_kernel (Note [Element functions in lanes]).
template <typename scalar_t>
void elu_kernel(const TensorIterator& iter, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  const EluOp<scalar_t> op = elu_op<scalar_t>(alpha, scale, input_scale);
  elementwise_kernel<scalar_t>(
      iter, [op](auto x) { return x < 0 ? math::expm1(x * op.input_scale) * op.negcoef : x * op.scale; });
}

}  // namespace yaten::native::cpu
