// sum and mean over a list of dims (all when empty), with keepdim: pairwise float sums over the reduced dims, or
// over the leading ones when those are reduced (reduce_detail::leading_sum).
#pragma once

#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// sum over leading dims (see LeadingPlan), divided by `divisor` (1 for sum, the count for mean).
template <typename scalar_t>
Tensor leading_sum(const Tensor& self, const LeadingPlan& lp, const std::vector<int64_t>& dims, bool keepdim,
                   ScalarType out_dtype, double divisor) {
  using acc_t = acc_type<scalar_t>;
  std::vector<acc_t> acc(lp.width, acc_t(0));
  const scalar_t* src = self.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(lp.rows * lp.width >= yaten::detail::kGilReleaseElements);
  // Each thread adds whole rows into its own columns [b, e), in blocks that keep the accumulator in cache.
  parallel_for(lp.width, std::max<int64_t>(256, kGrainSize / std::max<int64_t>(lp.rows, 1)), [&](int64_t b, int64_t e) {
    constexpr int64_t kBlock = 2048;
    for (int64_t j0 = b; j0 < e; j0 += kBlock) {
      const int64_t j1 = std::min(e, j0 + kBlock);
      acc_t* __restrict__ a = acc.data();
      int64_t r = 0;
      for (; r + 4 <= lp.rows; r += 4) {  // four rows per pass over the accumulator: a quarter of its loads/stores
        const scalar_t* __restrict__ r0 = src + r * lp.width;
        const scalar_t* __restrict__ r1 = r0 + lp.width;
        const scalar_t* __restrict__ r2 = r1 + lp.width;
        const scalar_t* __restrict__ r3 = r2 + lp.width;
        for (int64_t j = j0; j < j1; ++j) {
          a[j] += (static_cast<acc_t>(r0[j]) + static_cast<acc_t>(r1[j])) +
                  (static_cast<acc_t>(r2[j]) + static_cast<acc_t>(r3[j]));
        }
      }
      for (; r < lp.rows; ++r) {
        const scalar_t* __restrict__ row = src + r * lp.width;
        for (int64_t j = j0; j < j1; ++j) a[j] += static_cast<acc_t>(row[j]);
      }
    }
  });
  Tensor out = yaten::empty(reduce_plan::leading_out_shape(self, static_cast<int64_t>(dims.size()), keepdim),
                           out_dtype, self.device());
  visit_out_dtype<scalar_t>("sum", out_dtype, [&](auto tag) {
    using out_t = decltype(tag);
    out_t* dst = out.data<out_t>();
    for (int64_t j = 0; j < lp.width; ++j) {
      dst[j] = narrow<scalar_t, out_t>(divisor == 1 ? acc[j] : static_cast<acc_t>(acc[j] / divisor));
    }
  });
  return out;
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor sum_dim_kernel(const Tensor& input, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                      std::optional<ScalarType> dtype) {
  const std::vector<int64_t> dim = dims.value_or(std::vector<int64_t>{});  // None: every dim
  if constexpr (std::is_same_v<scalar_t, int64_t>) {
    // a mask's count (count_nonzero, sum(mask, dtype=int64)): its bytes summed as uint8, not first widened to an
    // int64 tensor (which took 0.49 of count_nonzero's 0.68 ms for 1M)
    if (input.dtype() == ScalarType::Bool) {
      return sum_dim_kernel<uint8_t>(yaten::view(input, ScalarType::Byte), dims, keepdim, ScalarType::Long);
    }
  }
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_reduction("sum", self, dim, [&](const Tensor& real, const std::vector<int64_t>& dims) {
      return sum_dim_kernel<real_of_t<scalar_t>>(real, dims, keepdim, std::nullopt);
    });
  } else {
    using acc_t = reduce_detail::acc_type<scalar_t>;
    const ScalarType out_dtype = dtype.value_or(is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype());
    const auto lp = reduce_detail::leading_plan(self, dim);
    if (lp.applies) return reduce_detail::leading_sum<scalar_t>(self, lp, dim, keepdim, out_dtype, 1.0);
    const auto p = reduce_detail::plan("sum", self, dim, keepdim);
    return reduce_detail::reduce_blocks<scalar_t>(p, out_dtype, self.device(), [&](const scalar_t* b, int64_t n) {
      return p.outer == 1 ? reduce_detail::parallel_pairwise_sum<acc_t>(b, n) : reduce_detail::pairwise_sum<acc_t>(b, n);
    });
  }
}

template <typename scalar_t>
Tensor sum_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_dim_kernel<scalar_t>(self, {}, false, dtype);
}

template <typename scalar_t>
Tensor mean_dim_kernel(const Tensor& input, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                       std::optional<ScalarType>) {
  const std::vector<int64_t> dim = dims.value_or(std::vector<int64_t>{});  // None: every dim
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_reduction("mean", self, dim, [&](const Tensor& real, const std::vector<int64_t>& dims) {
      return mean_dim_kernel<real_of_t<scalar_t>>(real, dims, keepdim, std::nullopt);
    });
  } else {
    using acc_t = reduce_detail::acc_type<scalar_t>;
    const auto lp = reduce_detail::leading_plan(self, dim);
    if (lp.applies && lp.rows > 0) {
      return reduce_detail::leading_sum<scalar_t>(self, lp, dim, keepdim, self.dtype(), static_cast<double>(lp.rows));
    }
    const auto p = reduce_detail::plan("mean", self, dim, keepdim);
    return reduce_detail::reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [&](const scalar_t* b, int64_t n) {
      if (n == 0) return std::numeric_limits<acc_t>::quiet_NaN();
      return (p.outer == 1 ? reduce_detail::parallel_pairwise_sum<acc_t>(b, n) : reduce_detail::pairwise_sum<acc_t>(b, n)) /
             acc_t(n);
    });
  }
}

template <typename scalar_t>
Tensor mean_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return mean_dim_kernel<scalar_t>(self, {}, false, dtype);
}

}  // namespace yaten::native::cpu
