// CUDA kernels of the comparisons, the logical ops, isclose, nan_to_num, clamp and where: each launches the element
// functor that the CPU kernel of the same name runs (kernels/compare_math.h), through gpu_kernel.
#pragma once

#include <optional>

#include "iter/cuda_loops.cuh"
#include "kernels/compare_math.h"
#include "kernels/pointwise_support.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void eq_kernel(const TensorIterator& iter) { gpu_kernel(iter, EqOp<scalar_t>{}); }
template <typename scalar_t>
void ne_kernel(const TensorIterator& iter) { gpu_kernel(iter, NeOp<scalar_t>{}); }
template <typename scalar_t>
void lt_kernel(const TensorIterator& iter) { gpu_kernel(iter, LtOp<scalar_t>{}); }
template <typename scalar_t>
void le_kernel(const TensorIterator& iter) { gpu_kernel(iter, LeOp<scalar_t>{}); }
template <typename scalar_t>
void gt_kernel(const TensorIterator& iter) { gpu_kernel(iter, GtOp<scalar_t>{}); }
template <typename scalar_t>
void ge_kernel(const TensorIterator& iter) { gpu_kernel(iter, GeOp<scalar_t>{}); }
template <typename scalar_t>
void isnan_kernel(const TensorIterator& iter) { gpu_kernel(iter, IsnanOp<scalar_t>{}); }
template <typename scalar_t>
void isinf_kernel(const TensorIterator& iter) { gpu_kernel(iter, IsinfOp<scalar_t>{}); }
template <typename scalar_t>
void isfinite_kernel(const TensorIterator& iter) { gpu_kernel(iter, IsfiniteOp<scalar_t>{}); }
template <typename scalar_t>
void logical_and_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogicalAndOp<scalar_t>{}); }
template <typename scalar_t>
void logical_or_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogicalOrOp<scalar_t>{}); }
template <typename scalar_t>
void logical_xor_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogicalXorOp<scalar_t>{}); }
template <typename scalar_t>
void logical_not_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogicalNotOp<scalar_t>{}); }
template <typename scalar_t>
void isclose_kernel(const TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  check_isclose(iter, rtol, atol);
  gpu_kernel(iter, isclose_op<scalar_t>(rtol, atol, equal_nan));
}
template <typename scalar_t>
void nan_to_num_kernel(const TensorIterator& iter, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  gpu_kernel(iter, nan_to_num_op<scalar_t>(nan, posinf, neginf));
}
template <typename scalar_t>
void clamp_kernel(const TensorIterator& iter) { gpu_kernel(iter, ClampOp<scalar_t>{}); }
template <typename scalar_t>
Tensor where_kernel(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TensorIterator iter = where_iterator<scalar_t>(condition, self, other);
  gpu_kernel(iter, WhereOp<scalar_t>{});
  return iter.finish();
}

}  // namespace yaten::native::cuda
