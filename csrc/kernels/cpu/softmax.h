// CPU softmax and log_softmax over one dim, fused: each row is read for its maximum, read again for the sum of
// exponentials (writing them, for softmax), and scaled in place while still in cache. float32 rows run the wide
// vectors (16 lanes on AVX-512) with vec::exp; other dtypes compute in opmath_t. A dim other than the last is moved last first (a copy).
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "iter/vec.h"
#include "kernels/cpu/reduce/amax.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace softmax_detail {
// The sum of a vector's lanes, in pairs.
inline float lane_sum(vec::wfloat acc) {
  float sum = 0;
  for (int k = 0; k < vec::kWideLanes; k += 2) sum += acc[k] + acc[k + 1];
  return sum;
}

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
  float sum = lane_sum(acc);
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

using vec::kSixteenBit;
using vec::narrow_row;
using vec::widen_row;

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

namespace softmax_detail {
// One row of _softmax_backward_fused in float lanes: softmax's dx = y (dy - sum(dy y)), log_softmax's (y its
// output, the log-probabilities) dx = dy - exp(y) sum(dy). Tails go through a lane buffer, so every element sees the
// same exp.
template <bool kLog>
void float_backward_row(const float* dy, const float* y, float* dx, int64_t n) {
  using vec::wfloat;
  constexpr int L = vec::kWideLanes;
  wfloat acc = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) acc += kLog ? vec::load<wfloat>(dy + i) : vec::load<wfloat>(dy + i) * vec::load<wfloat>(y + i);
  float s = lane_sum(acc);
  for (; i < n; ++i) s += kLog ? dy[i] : dy[i] * y[i];
  const wfloat vs = vec::broadcast<wfloat>(s);
  for (i = 0; i + L <= n; i += L) {
    const wfloat g = vec::load<wfloat>(dy + i), out = vec::load<wfloat>(y + i);
    vec::store(dx + i, kLog ? g - vec::exp(out) * vs : out * (g - vs));
  }
  if (i < n) {
    float g[L] = {}, out[L] = {};
    for (int64_t k = 0; i + k < n; ++k) {
      g[k] = dy[i + k];
      out[k] = y[i + k];
    }
    const wfloat vg = vec::load<wfloat>(g), vy = vec::load<wfloat>(out);
    vec::store(g, kLog ? vg - vec::exp(vy) * vs : vy * (vg - vs));
    for (int64_t k = 0; i + k < n; ++k) dx[i + k] = g[k];
  }
}
// float64 rows, element by element in double.
template <bool kLog>
void double_backward_row(const double* dy, const double* y, double* dx, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += kLog ? dy[i] : dy[i] * y[i];
  for (int64_t i = 0; i < n; ++i) dx[i] = kLog ? dy[i] - std::exp(y[i]) * s : y[i] * (dy[i] - s);
}
template <typename scalar_t, bool kLog>
Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim) {
  const char* op = "_softmax_backward_fused";
  YATEN_CHECK(grad_output.sizes() == output.sizes() && grad_output.dtype() == output.dtype() &&
                  grad_output.device() == output.device(),
              RuntimeError, op, ": grad_output and output must have one shape, dtype and device, got ",
              sizes_text(grad_output.sizes()), " ", dtype_name(grad_output.dtype()), " and ",
              sizes_text(output.sizes()), " ", dtype_name(output.dtype()));
  const auto layout = reduce_plan::rows_along(op, output, dim);
  const Tensor grad_rows = reduce_plan::rows_along(op, grad_output, dim).src;
  const int64_t len = layout.len, rows = layout.rows;
  Tensor out = yaten::empty(layout.src.sizes(), output.dtype(), output.device());
  const scalar_t* y = layout.src.data<scalar_t>();
  const scalar_t* dy = grad_rows.data<scalar_t>();
  scalar_t* dx = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(layout.src.numel() >= yaten::detail::kGilReleaseElements);
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
    std::vector<float> wide(kSixteenBit<scalar_t> ? size_t(3 * len) : 0);
    for (int64_t r = b; r < e; ++r) {
      const int64_t at = r * len;
      if constexpr (std::is_same_v<scalar_t, float>) {
        float_backward_row<kLog>(dy + at, y + at, dx + at, len);
      } else if constexpr (std::is_same_v<scalar_t, double>) {
        double_backward_row<kLog>(dy + at, y + at, dx + at, len);
      } else {  // float16, bfloat16: in float, rounded once
        widen_row(dy + at, wide.data(), len);
        widen_row(y + at, wide.data() + len, len);
        float_backward_row<kLog>(wide.data(), wide.data() + len, wide.data() + 2 * len, len);
        narrow_row(wide.data() + 2 * len, dx + at, len);
      }
    }
  });
  return reduce_plan::from_rows(out, output, layout);
}
}  // namespace softmax_detail

// _softmax_backward_fused: the first-order gradient of softmax (log = false) or log_softmax (log = true) from the
// gradient of the output and the output, one pass over each row (the composite took four, and float16/bfloat16
// copies in float32 besides: 1.2x and 1.85x torch's time).
template <typename scalar_t>
Tensor _softmax_backward_fused_kernel(const Tensor& grad_output, const Tensor& output, int64_t dim, bool log) {
  return log ? softmax_detail::softmax_backward<scalar_t, true>(grad_output, output, dim)
             : softmax_detail::softmax_backward<scalar_t, false>(grad_output, output, dim);
}

}  // namespace yaten::native::cpu
