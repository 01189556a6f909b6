// amax and amin over a list of dims: NaN propagates, as torch. kernels/cpu/softmax.h takes its rows' maxima from
// reduce_detail::float_extreme.
#pragma once

#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// The extreme of a float block and whether it holds a NaN, 16 lanes at a time (two vector accumulators).
template <bool kMax>
std::pair<float, bool> float_extreme(const float* b, int64_t n) {
  using vec::vfloat;
  using vec::vint;
  constexpr int L = vec::kLanes;
  vfloat acc0 = vec::splat(b[0]), acc1 = acc0;
  vint nan = vint{} == 1;  // all false
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    const vfloat x0 = vec::load(b + i), x1 = vec::load(b + i + L);
    acc0 = kMax ? vec::max(acc0, x0) : vec::min(acc0, x0);
    acc1 = kMax ? vec::max(acc1, x1) : vec::min(acc1, x1);
    nan |= (x0 != x0) | (x1 != x1);
  }
  acc0 = kMax ? vec::max(acc0, acc1) : vec::min(acc0, acc1);
  float best = acc0[0];
  bool any_nan = false;
  for (int k = 0; k < L; ++k) {
    best = kMax ? std::max(best, acc0[k]) : std::min(best, acc0[k]);
    any_nan |= nan[k] != 0;
  }
  for (; i < n; ++i) {
    best = kMax ? (b[i] > best ? b[i] : best) : (b[i] < best ? b[i] : best);
    any_nan |= b[i] != b[i];
  }
  return {best, any_nan};
}

// The extreme of a block and whether it holds a NaN: float through float_extreme's vector lanes, other dtypes
// through eight independent partial extremes (branch-free, so the loop vectorizes), NaN tracked on the side.
template <typename scalar_t, bool kMax>
std::pair<acc_type<scalar_t>, bool> extreme_value(const scalar_t* b, int64_t n) {
  using acc_t = acc_type<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, float>) {
    return float_extreme<kMax>(b, n);
  } else if constexpr (vec::kSixteenBit<scalar_t>) {
    // widened 512 at a time into float_extreme's lanes (element by element: 2-2.6x torch's time)
    float wide[512], best = 0;
    bool nan = false;
    for (int64_t s = 0; s < n; s += 512) {
      const int64_t len = std::min<int64_t>(512, n - s);
      vec::widen_row(b + s, wide, len);
      const auto [piece, piece_nan] = float_extreme<kMax>(wide, len);
      best = s == 0 ? piece : (kMax ? std::max(best, piece) : std::min(best, piece));
      nan |= piece_nan;
    }
    return {best, nan};
  } else {
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
    return {best, nan};
  }
}

// amax/amin: NaN wins, as in torch; an empty reduction has no answer.
template <typename scalar_t, bool kMax>
Tensor extreme(const char* op, const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  using acc_t = acc_type<scalar_t>;
  const auto p = plan(op, self, dim, keepdim);
  YATEN_CHECK(p.inner > 0 || p.outer == 0, IndexError, op, "(): Expected reduction dim to have non-zero size.");
  return reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [](const scalar_t* b, int64_t n) {
    const auto [best, nan] = extreme_value<scalar_t, kMax>(b, n);
    return nan ? std::numeric_limits<acc_t>::quiet_NaN() : best;
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
