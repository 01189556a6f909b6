// CPU softmax and log_softmax over one dim, fused: each row is read for its maximum, read again for the sum of
// exponentials (writing them, for softmax), and scaled in place while still in cache. float32 rows run the wide
// vectors (16 lanes on AVX-512) with vec::exp; other dtypes compute in opmath_t. A dim other than the last is moved last first (a copy).
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "iter/vec.h"
#include "kernels/cpu/reduce_ops.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace softmax_detail {
template <bool kLog>
void float_row(const float* x, float* y, int64_t n) {
  using vec::wfloat;
  constexpr int L = vec::kWideLanes;  // the exponentials in the element functions' wide vectors (16 lanes on AVX-512)
  const auto [max, nan] = reduce_detail::float_extreme<true>(x, n);
  const float m = nan ? std::numeric_limits<float>::quiet_NaN() : max;
  const wfloat vm = vec::broadcast<wfloat>(m);
  wfloat acc = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const wfloat e = vec::exp(vec::load<wfloat>(x + i) - vm);
    if constexpr (!kLog) vec::store(y + i, e);
    acc += e;
  }
  float sum = 0;
  for (int k = 0; k < L; k += 2) sum += acc[k] + acc[k + 1];
  if (i < n) {  // the tail through a lane buffer, so it sees the same exp
    float buffer[L];
    for (int k = 0; k < L; ++k) buffer[k] = i + k < n ? x[i + k] - m : -INFINITY;
    vec::store(buffer, vec::exp(vec::load<wfloat>(buffer)));
    for (int64_t k = 0; i + k < n; ++k) {
      if constexpr (!kLog) y[i + k] = buffer[k];
      sum += buffer[k];
    }
  }
  if constexpr (kLog) {
    const float log_sum = std::log(sum);  // (x - m) - log_sum: adding m to log_sum first would lose it
    for (int64_t k = 0; k < n; ++k) y[k] = (x[k] - m) - log_sum;
  } else {
    const float scale = 1.0f / sum;
    for (int64_t k = 0; k < n; ++k) y[k] *= scale;
  }
}

template <typename scalar_t, bool kLog>
void generic_row(const scalar_t* x, scalar_t* y, int64_t n) {
  using T = opmath_t<scalar_t>;
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < n; ++k) {
    const T v = static_cast<T>(x[k]);
    if (v != v || v > m) m = v;
    if (v != v) break;
  }
  T sum = 0;
  for (int64_t k = 0; k < n; ++k) sum += std::exp(static_cast<T>(x[k]) - m);
  if constexpr (kLog) {
    const T log_sum = std::log(sum);
    for (int64_t k = 0; k < n; ++k) y[k] = static_cast<scalar_t>((static_cast<T>(x[k]) - m) - log_sum);
  } else {
    for (int64_t k = 0; k < n; ++k) y[k] = static_cast<scalar_t>(std::exp(static_cast<T>(x[k]) - m) / sum);
  }
}

// float16 and bfloat16 rows widened into float and rounded back, a vector at a time
template <typename scalar_t>
void widen_row(const scalar_t* x, float* out, int64_t n) {
  constexpr int64_t L = vec::kWideLanes;
  int64_t i = 0;
  for (; i + L <= n; i += L) vec::store(out + i, vec::load16<vec::wfloat>(x + i));
  for (; i < n; ++i) out[i] = static_cast<float>(x[i]);
}
template <typename scalar_t>
void narrow_row(const float* x, scalar_t* out, int64_t n) {
  constexpr int64_t L = vec::kWideLanes;
  int64_t i = 0;
  for (; i + L <= n; i += L) vec::store16(out + i, vec::load<vec::wfloat>(x + i));
  for (; i < n; ++i) out[i] = static_cast<scalar_t>(x[i]);
}
template <typename scalar_t>
constexpr bool kSixteenBit = std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>;

template <typename scalar_t, bool kLog>
Tensor softmax(const char* op, const Tensor& input, int64_t dim) {
  const Tensor self = reduce_plan::as_compute_type<scalar_t>(input);
  const auto layout = reduce_plan::rows_along(op, self, dim);
  const Tensor& src = layout.src;
  const int64_t len = layout.len, rows = layout.rows;
  Tensor out = yaten::empty(src.sizes(), src.dtype(), src.device());
  const scalar_t* x = src.data<scalar_t>();
  scalar_t* y = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(src.numel() >= yaten::detail::kGilReleaseElements);
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
    // float16 and bfloat16: float_row on the row widened into a buffer, the result rounded once, as torch computes
    // them (generic_row's exp one element at a time took 11-12x torch's time)
    std::vector<float> wide(kSixteenBit<scalar_t> ? size_t(2 * len) : 0);
    for (int64_t r = b; r < e; ++r) {
      if constexpr (std::is_same_v<scalar_t, float>) {
        float_row<kLog>(x + r * len, y + r * len, len);
      } else if constexpr (kSixteenBit<scalar_t>) {
        widen_row(x + r * len, wide.data(), len);
        float_row<kLog>(wide.data(), wide.data() + len, len);
        narrow_row(wide.data() + len, y + r * len, len);
      } else {
        generic_row<scalar_t, kLog>(x + r * len, y + r * len, len);
      }
    }
  });
  return reduce_plan::from_rows(out, self, layout);
}
}  // namespace softmax_detail

template <typename scalar_t>
Tensor softmax_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_detail::softmax<scalar_t, false>("softmax", self, dim);
}

template <typename scalar_t>
Tensor log_softmax_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_detail::softmax<scalar_t, true>("log_softmax", self, dim);
}

}  // namespace yaten::native::cpu
