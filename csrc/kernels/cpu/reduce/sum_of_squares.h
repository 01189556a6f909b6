// _sum_of_squares: the sum of x * x over dims in one pass, pairwise as sum's (reduce_detail::pairwise_sum), for
// linalg.vector_norm's 2-norm over trailing dims (kernels/composite/reductions.h, norm_impl): mul and sum made two
// passes and a temporary, and the row norms of a 1024 x 1024 float32 matrix took 1.57x torch's time.
#pragma once

#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// The sum of data[i]^2, i < n: blocks of up to 2048 in 64 (float) or 32 (double) independent partial sums of fused
// multiply-adds, the blocks added pairwise (the first half first: the prefetchers follow ascending addresses).
template <typename scalar_t>
scalar_t pairwise_sum_of_squares(const scalar_t* data, int64_t n) {
  constexpr int kPartials = std::is_same_v<scalar_t, float> ? 64 : 32;
  if (n <= 2048) {
    scalar_t partial[kPartials] = {};
    int64_t i = 0;
    for (; i + kPartials <= n; i += kPartials) {
      for (int k = 0; k < kPartials; ++k) partial[k] += data[i + k] * data[i + k];
    }
    scalar_t total = 0;
    for (; i < n; ++i) total += data[i] * data[i];
    for (int width = kPartials / 2; width > 0; width /= 2) {
      for (int k = 0; k < width; ++k) partial[k] += partial[k + width];
    }
    return total + partial[0];
  }
  const int64_t half = (n / 2 + kPartials - 1) / kPartials * kPartials;
  const scalar_t first = pairwise_sum_of_squares(data, half);
  const scalar_t second = pairwise_sum_of_squares(data + half, n - half);
  return first + second;
}
}  // namespace reduce_detail

// float32 and float64 only: ops.yaml's dtypes for it, so the generated dtype switch instantiates no other.
template <typename scalar_t>
Tensor _sum_of_squares_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  static_assert(std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>);
  const auto p = reduce_detail::plan("_sum_of_squares", self, dim, keepdim);
  return reduce_detail::reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [](const scalar_t* b, int64_t n) {
    return reduce_detail::pairwise_sum_of_squares<scalar_t>(b, n);
  });
}

}  // namespace yaten::native::cpu
