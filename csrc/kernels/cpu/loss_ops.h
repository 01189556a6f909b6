// CPU kernels of the pointwise losses: their element functions (kernels/loss_math.h, shared with CUDA) run in SIMD
// lanes by elementwise_kernel (Note [Element functions in lanes]).
#pragma once

#include "iter/vec_math.h"
#include "kernels/loss_math.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void smooth_l1_pointwise_kernel(const TensorIterator& iter, double beta) {
  const SmoothL1Op<scalar_t> op{{}, static_cast<om<scalar_t>>(beta)};
  elementwise_kernel<scalar_t>(iter, [op](auto a, auto b) { return op.f(a, b); });
}
template <typename scalar_t>
void huber_pointwise_kernel(const TensorIterator& iter, double delta) {
  const HuberOp<scalar_t> op{{}, static_cast<om<scalar_t>>(delta)};
  elementwise_kernel<scalar_t>(iter, [op](auto a, auto b) { return op.f(a, b); });
}
template <typename scalar_t>
void squared_difference_kernel(const TensorIterator& iter) {
  elementwise_kernel<scalar_t>(iter, [](auto a, auto b) { return SquaredDifferenceOp<scalar_t>{}.f(a, b); });
}

template <typename scalar_t>
void bce_with_logits_pointwise_kernel(const TensorIterator& iter) {
  elementwise_kernel<scalar_t>(iter, [](auto x, auto t) { return BceWithLogitsOp<scalar_t>{}.f(x, t); });
}

}  // namespace yaten::native::cpu
