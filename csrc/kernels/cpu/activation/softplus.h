// softplus's CPU kernel: SoftplusOp (kernels/activation/softplus.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles softplus's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/softplus.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

// softplus: log1p(e^(beta x)) / beta, x itself where beta x > threshold.
template <typename scalar_t>
void softplus_kernel(const TensorIterator& iter, const Scalar& beta, const Scalar& threshold) {
  const SoftplusOp<scalar_t> op{beta.to<om<scalar_t>>(), threshold.to<om<scalar_t>>()};
  elementwise_kernel<scalar_t>(iter, [op](auto x) {
    const auto z = x * op.beta;
    return z > op.threshold ? x : math::log1p(math::exp(z)) / op.beta;
  });
}

}  // namespace yaten::native::cpu
