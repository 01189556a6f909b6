// leaky_relu's CPU kernel: LeakyReluOp (kernels/activation/leaky_relu.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles leaky_relu's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/leaky_relu.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void leaky_relu_kernel(const TensorIterator& iter, const Scalar& negative_slope) {
  cpu_kernel(iter, LeakyReluOp<scalar_t>{negative_slope.to<om<scalar_t>>()});
}

}  // namespace yaten::native::cpu
