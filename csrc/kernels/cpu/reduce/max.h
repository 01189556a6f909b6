// max/min over a dim with indices (the first extreme's, NaN first), argmax/argmin; amax's extreme_value finds the
// extreme of a block that is not float32.
#pragma once

#include "kernels/cpu/reduce/amax.h"  // reduce_detail::extreme_value
#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// Whether (v, i) beats (best, best_i) for the first extreme: NaN beats everything, then the greater (less) value,
// then the lower index.
template <bool kMax, typename T>
bool beats(T v, int64_t i, T best, int64_t best_i) {
  if (best != best) return v != v && i < best_i;
  if (v != v) return true;
  return (kMax ? v > best : v < best) || (v == best && i < best_i);
}

// float blocks in one pass: each of 32 lanes (four vectors, so the compare-and-select chains overlap) keeps its
// first extreme and that one's index (a strict comparison, so a later equal value never replaces it), and the lanes
// are merged by beats(). NaNs are only noted on the way; a block that holds one is searched again for the first.
template <bool kMax>
std::pair<float, int64_t> float_block_extreme(const float* b, int64_t n) {
  using vec::vfloat;
  using vec::vint;
  constexpr int L = vec::kLanes;
  constexpr int kVectors = 4;
  const vint lane = {0, 1, 2, 3, 4, 5, 6, 7};
  vfloat best[kVectors];
  vint at[kVectors];
  for (int k = 0; k < kVectors; ++k) {
    best[k] = vec::load(b + k * L);
    at[k] = lane + k * L;
  }
  vint nan = best[0] != best[0];
  for (int k = 1; k < kVectors; ++k) nan |= best[k] != best[k];
  int64_t i = kVectors * L;
  for (; i + kVectors * L <= n; i += kVectors * L) {
    for (int k = 0; k < kVectors; ++k) {
      const vfloat x = vec::load(b + i + k * L);
      const vint take = kMax ? x > best[k] : x < best[k];
      best[k] = take ? x : best[k];
      at[k] = take ? lane + static_cast<int32_t>(i + k * L) : at[k];
      nan |= x != x;
    }
  }
  bool any_nan = false;
  for (int k = 0; k < L; ++k) any_nan |= nan[k] != 0;
  for (int64_t j = i; j < n; ++j) any_nan |= b[j] != b[j];
  if (any_nan) {
    for (int64_t j = 0; j < n; ++j) {
      if (b[j] != b[j]) return {b[j], j};
    }
  }
  float value = best[0][0];
  int64_t index = at[0][0];
  for (int v = 0; v < kVectors; ++v) {
    for (int k = 0; k < L; ++k) {
      if (beats<kMax>(best[v][k], at[v][k], value, index)) value = best[v][k], index = at[v][k];
    }
  }
  for (; i < n; ++i) {
    if (beats<kMax>(b[i], i, value, index)) value = b[i], index = i;
  }
  return {value, index};
}

// The index of the first extreme of a block (the first NaN when there is one). float: one pass
// (float_block_extreme); other dtypes: one vectorizable pass for the extreme, a second for its position.
template <typename scalar_t, bool kMax>
std::pair<scalar_t, int64_t> block_extreme(const scalar_t* b, int64_t n) {
  using acc_t = acc_type<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, float>) {
    if (n >= 4 * vec::kLanes && n <= std::numeric_limits<int32_t>::max()) return float_block_extreme<kMax>(b, n);
  }
  const auto [best, nan] = extreme_value<scalar_t, kMax>(b, n);
  for (int64_t j = 0; j < n; ++j) {
    const acc_t v = static_cast<acc_t>(b[j]);
    if (nan ? v != v : v == best) return {b[j], j};
  }
  return {b[0], 0};
}

template <typename scalar_t, bool kMax>
std::tuple<Tensor, Tensor> extreme_with_index(const char* op, const Tensor& self, int64_t dim, bool keepdim) {
  const auto p = plan(op, self, {dim}, keepdim);
  YATEN_CHECK(p.inner > 0 || p.outer == 0, IndexError, op, "(): Expected reduction dim ", dim,
              " to have non-zero size.");
  Tensor values = yaten::empty(p.out_shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(p.out_shape, ScalarType::Long, self.device());
  const scalar_t* src = p.src.data<scalar_t>();
  scalar_t* v = values.data<scalar_t>();
  int64_t* idx = indices.data<int64_t>();
  for_each_block(p.outer, p.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::tie(v[i], idx[i]) = block_extreme<scalar_t, kMax>(src + i * p.inner, p.inner);
  });
  return {values, indices};
}

template <typename scalar_t, bool kMax>
Tensor arg_extreme(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(extreme_with_index<scalar_t, kMax>(op, self, *dim, keepdim));
  YATEN_CHECK(self.numel() > 0, RuntimeError, op, "(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor flat = yaten::reshape(self, {-1});
  Tensor index = std::get<1>(extreme_with_index<scalar_t, kMax>(op, flat, 0, false));
  if (keepdim) return yaten::reshape(index, std::vector<int64_t>(self.dim(), 1));
  return index;
}
}  // namespace reduce_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce_detail::extreme_with_index<scalar_t, true>("max", self, dim, keepdim);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> min_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce_detail::extreme_with_index<scalar_t, false>("min", self, dim, keepdim);
}
template <typename scalar_t>
Tensor argmax_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return reduce_detail::arg_extreme<scalar_t, true>("argmax", self, dim, keepdim);
}
template <typename scalar_t>
Tensor argmin_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return reduce_detail::arg_extreme<scalar_t, false>("argmin", self, dim, keepdim);
}

}  // namespace yaten::native::cpu
