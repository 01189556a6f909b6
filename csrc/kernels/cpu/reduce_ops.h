// CPU reductions: sum, mean, prod, amax, amin over a list of dims (all when empty), with keepdim.
//
// Each moves the reduced dims last (a copy only when the layout needs one) and reduces one contiguous block per
// output element. Accumulation follows torch: float for float16/bfloat16/float32, double for float64, int64 for
// integers and bool (whose sums are int64). Float sums are pairwise, so 1e7 float32 elements stay accurate.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "core/dtype_switch.h"
#include "core/tensor.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/permute.h"

namespace yaten::native::cpu {

namespace reduce_detail {
struct Plan {
  Tensor src;  // reduced dims last, contiguous
  int64_t outer = 1;
  int64_t inner = 1;
  std::vector<int64_t> out_shape;
};

template <typename scalar_t>
using acc_type = std::conditional_t<std::is_integral_v<scalar_t>, int64_t,
                                    std::conditional_t<std::is_same_v<scalar_t, double>, double, float>>;

template <typename scalar_t, typename out_t>
out_t narrow(acc_type<scalar_t> v) {
  if constexpr (std::is_same_v<out_t, Half> || std::is_same_v<out_t, BFloat16>) {
    return out_t(static_cast<float>(v));
  } else {
    return static_cast<out_t>(v);
  }
}

// Reducing the leading dims of a contiguous tensor (sum(dim=0) of a matrix): rows are added into an accumulator
// row, which needs no copy and vectorizes, instead of moving the reduced dims last.
struct LeadingPlan {
  bool applies = false;
  int64_t rows = 1;   // reduced elements per output
  int64_t width = 1;  // outputs
};

inline LeadingPlan leading_plan(const Tensor& self, const std::vector<int64_t>& dims) {
  LeadingPlan lp;
  const int64_t n = self.dim();
  if (dims.empty() || n < 2 || !self.is_contiguous()) return lp;
  std::vector<bool> reduced(n, false);
  for (int64_t d : dims) {
    const int64_t w = d < 0 ? d + n : d;
    if (w < 0 || w >= n || reduced[w]) return lp;
    reduced[w] = true;
  }
  const int64_t k = static_cast<int64_t>(dims.size());
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d] != (d < k)) return lp;  // not a prefix
  }
  if (k == n) return lp;
  for (int64_t d = 0; d < n; ++d) (d < k ? lp.rows : lp.width) *= self.sizes()[d];
  lp.applies = true;
  return lp;
}

inline Plan plan(const char* op, const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const int64_t n = self.dim();
  std::vector<bool> reduced(n, dims.empty());
  for (int64_t d : dims) {
    const int64_t m = std::max<int64_t>(n, 1);
    YATEN_CHECK(d >= -m && d < m, IndexError, op, ": dimension out of range (expected to be in range of [", -m,
                ", ", m - 1, "], but got ", d, ")");
    const int64_t w = d < 0 ? d + m : d;
    if (n == 0) continue;
    YATEN_CHECK(!reduced[w] || dims.empty(), RuntimeError, op, ": dim ", w, " appears multiple times in the list of dims");
    reduced[w] = true;
  }
  Plan p;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < n; ++d) {
    if (!reduced[d]) {
      order.push_back(d);
      p.outer *= self.sizes()[d];
    }
  }
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d]) {
      order.push_back(d);
      p.inner *= self.sizes()[d];
    }
    if (!reduced[d]) {
      p.out_shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      p.out_shape.push_back(1);
    }
  }
  p.src = yaten::contiguous(n ? yaten::permute(self, order) : self);
  return p;
}

template <typename acc_t, typename scalar_t>
acc_t pairwise_sum(const scalar_t* data, int64_t n) {
  if (n <= 128) {
    acc_t partial[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) partial[k] += static_cast<acc_t>(data[i + k]);
    }
    acc_t total = 0;
    for (; i < n; ++i) total += static_cast<acc_t>(data[i]);
    for (int k = 0; k < 8; ++k) total += partial[k];
    return total;
  }
  const int64_t half = (n / 2 + 7) / 8 * 8;
  return pairwise_sum<acc_t>(data, half) + pairwise_sum<acc_t>(data + half, n - half);
}

// Writes f(block pointer, block length) for each output element into a new tensor of dtype `out_dtype`.
template <typename scalar_t, typename F>
Tensor reduce_blocks(const Plan& p, ScalarType out_dtype, Device device, F f) {
  Tensor out = yaten::empty(p.out_shape, out_dtype, device);
  const scalar_t* src = p.src.data<scalar_t>();
  visit_dtype("reduce", out_dtype, [&](auto tag) {
    using out_t = decltype(tag);
    out_t* dst = out.data<out_t>();
    for (int64_t i = 0; i < p.outer; ++i) dst[i] = narrow<scalar_t, out_t>(f(src + i * p.inner, p.inner));
  });
  return out;
}
}  // namespace reduce_detail

namespace reduce_detail {
// The dtype rule self_or_dtype switched on dtype= when given: the input is converted to it first, as in torch.
template <typename scalar_t>
Tensor as_compute_type(const Tensor& self) {
  return self.dtype() == scalar_type_of<scalar_t> ? self : yaten::_to_copy(self, scalar_type_of<scalar_t>, std::nullopt);
}
}  // namespace reduce_detail

namespace reduce_detail {
// sum over leading dims (see LeadingPlan), divided by `divisor` (1 for sum, the count for mean).
template <typename scalar_t>
Tensor leading_sum(const Tensor& self, const LeadingPlan& lp, const std::vector<int64_t>& dims, bool keepdim,
                   ScalarType out_dtype, double divisor) {
  using acc_t = acc_type<scalar_t>;
  std::vector<acc_t> acc(lp.width, acc_t(0));
  const scalar_t* src = self.data<scalar_t>();
  for (int64_t r = 0; r < lp.rows; ++r) {
    const scalar_t* row = src + r * lp.width;
    acc_t* a = acc.data();
    for (int64_t j = 0; j < lp.width; ++j) a[j] += static_cast<acc_t>(row[j]);
  }
  std::vector<int64_t> shape;
  const int64_t k = static_cast<int64_t>(dims.size());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d >= k) {
      shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  Tensor out = yaten::empty(shape, out_dtype, self.device());
  visit_dtype("sum", out_dtype, [&](auto tag) {
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
Tensor sum_dim_kernel(const Tensor& input, const std::vector<int64_t>& dim, bool keepdim,
                      std::optional<ScalarType> dtype) {
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  using acc_t = reduce_detail::acc_type<scalar_t>;
  const ScalarType out_dtype = dtype.value_or(is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype());
  const auto lp = reduce_detail::leading_plan(self, dim);
  if (lp.applies) return reduce_detail::leading_sum<scalar_t>(self, lp, dim, keepdim, out_dtype, 1.0);
  const auto p = reduce_detail::plan("sum", self, dim, keepdim);
  return reduce_detail::reduce_blocks<scalar_t>(p, out_dtype, self.device(), [](const scalar_t* b, int64_t n) {
    return reduce_detail::pairwise_sum<acc_t>(b, n);
  });
}

template <typename scalar_t>
Tensor sum_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_dim_kernel<scalar_t>(self, {}, false, dtype);
}

template <typename scalar_t>
Tensor mean_dim_kernel(const Tensor& input, const std::vector<int64_t>& dim, bool keepdim,
                       std::optional<ScalarType>) {
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  using acc_t = reduce_detail::acc_type<scalar_t>;
  const auto lp = reduce_detail::leading_plan(self, dim);
  if (lp.applies && lp.rows > 0) {
    return reduce_detail::leading_sum<scalar_t>(self, lp, dim, keepdim, self.dtype(), static_cast<double>(lp.rows));
  }
  const auto p = reduce_detail::plan("mean", self, dim, keepdim);
  return reduce_detail::reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [](const scalar_t* b, int64_t n) {
    return n == 0 ? std::numeric_limits<acc_t>::quiet_NaN() : reduce_detail::pairwise_sum<acc_t>(b, n) / acc_t(n);
  });
}

template <typename scalar_t>
Tensor mean_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return mean_dim_kernel<scalar_t>(self, {}, false, dtype);
}

template <typename scalar_t>
Tensor prod_kernel(const Tensor& input, std::optional<ScalarType> dtype) {
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  using acc_t = reduce_detail::acc_type<scalar_t>;
  const ScalarType out_dtype = dtype.value_or(is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype());
  const auto p = reduce_detail::plan("prod", self, {}, false);
  return reduce_detail::reduce_blocks<scalar_t>(p, out_dtype, self.device(), [](const scalar_t* b, int64_t n) {
    acc_t product = 1;
    for (int64_t i = 0; i < n; ++i) product *= static_cast<acc_t>(b[i]);
    return product;
  });
}

namespace reduce_detail {
// amax/amin: NaN wins, as in torch; an empty reduction has no answer.
template <typename scalar_t, bool kMax>
Tensor extreme(const char* op, const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  using acc_t = acc_type<scalar_t>;
  const auto p = plan(op, self, dim, keepdim);
  YATEN_CHECK(p.inner > 0 || p.outer == 0, IndexError, op, "(): Expected reduction dim to have non-zero size.");
  return reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [](const scalar_t* b, int64_t n) {
    // Eight independent partial extremes, branch-free, so the loop vectorizes; NaN is tracked on the side.
    auto pick = [](acc_t a, acc_t v) { return kMax ? (v > a ? v : a) : (v < a ? v : a); };
    acc_t partial[8];
    for (int k = 0; k < 8; ++k) partial[k] = static_cast<acc_t>(b[0]);
    bool nan = false;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) {
        const acc_t v = static_cast<acc_t>(b[i + k]);
        partial[k] = pick(partial[k], v);
        if constexpr (!std::is_integral_v<acc_t>) nan |= v != v;
      }
    }
    acc_t best = partial[0];
    for (int k = 1; k < 8; ++k) best = pick(best, partial[k]);
    for (; i < n; ++i) {
      const acc_t v = static_cast<acc_t>(b[i]);
      best = pick(best, v);
      if constexpr (!std::is_integral_v<acc_t>) nan |= v != v;
    }
    if constexpr (!std::is_integral_v<acc_t>) {
      if (nan) return std::numeric_limits<acc_t>::quiet_NaN();
    }
    return best;
  });
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor amax_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  return reduce_detail::extreme<scalar_t, true>("amax", self, dim, keepdim);
}

template <typename scalar_t>
Tensor amin_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  return reduce_detail::extreme<scalar_t, false>("amin", self, dim, keepdim);
}

}  // namespace yaten::native::cpu
