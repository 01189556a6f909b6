// layer_norm's forward on the CPU in one kernel: per row (the normalized dims, contiguous), the mean and the variance
// in two passes over the row while it is in cache (the two-pass variance: no cancellation), then
// (x - mean) * rstd * weight + bias written in a third; rows in parallel. float16 and bfloat16 compute in float, double
// in double. The composite in kernels/composite/norm.h calls it for contiguous CPU inputs whose weight and bias have
// the input's dtype (its four passes over memory, and their temporaries, were 2.7x torch's time); its gradient is
// native_layer_norm_backward's, from the saved mean and rstd.
#pragma once

#include <array>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "iter/vec.h"
#include "kernels/composite/norm.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace layer_norm_detail {
constexpr int kAccumulators = 16;  // independent partial sums: the compiler keeps them in one vector register
// sum over i < n of f(i) in acc_t, in kAccumulators interleaved partial sums (vectorized, and a smaller rounding
// error than one running sum).
template <typename acc_t, typename F>
inline acc_t row_sum_at(int64_t n, F f) {
  acc_t part[kAccumulators] = {};
  int64_t i = 0;
  for (; i + kAccumulators <= n; i += kAccumulators) {
    for (int j = 0; j < kAccumulators; ++j) part[j] += f(i + j);
  }
  for (; i < n; ++i) part[0] += f(i);
  acc_t total = 0;
  for (int j = 0; j < kAccumulators; ++j) total += part[j];
  return total;
}
// sum over i < n of f(x[i]) in acc_t.
template <typename acc_t, typename scalar_t, typename F>
inline acc_t row_sum(const scalar_t* x, int64_t n, F f) {
  return row_sum_at<acc_t>(n, [&](int64_t i) { return f(static_cast<acc_t>(x[i])); });
}
// A row's mean and 1/sqrt(var + eps), the variance by a second pass over the row (no cancellation), which is in
// cache by then: layer_norm's rows and group_norm's (kernels/cpu/group_norm.h).
template <typename acc_t, typename scalar_t>
inline std::pair<acc_t, acc_t> row_moments(const scalar_t* x, int64_t n, double eps) {
  const acc_t mu = row_sum<acc_t>(x, n, [](acc_t v) { return v; }) / acc_t(n);
  const acc_t var = row_sum<acc_t>(x, n, [mu](acc_t v) { return (v - mu) * (v - mu); }) / acc_t(n);
  return {mu, acc_t(1) / std::sqrt(var + static_cast<acc_t>(eps))};
}
// One row of the fused backward in T (float for float32, float16 and bfloat16, whose rows come widened into
// buffers; double for float64): g = grad_out * weight (w null: none), x_hat = (x - m) * inv; dx (when asked) =
// inv * (g - mean(g) - x_hat * mean(g * x_hat)), the row sums in row_sum_at's partial sums (one running sum per row
// was a chain of dependent adds); pw and pb gather the weight's and the bias's sums.
template <bool kWeight, typename T>
inline void backward_row(const T* g, const T* x, const T* w, T m, T inv, T* dx, T* pw, T* pb, int64_t n) {
  const auto gw = [&](int64_t i) {  // kWeight, not w's test per element: the loops vectorize
    if constexpr (kWeight) {
      return g[i] * w[i];
    } else {
      return g[i];
    }
  };
  const auto x_hat = [&](int64_t i) { return (x[i] - m) * inv; };
  if (dx != nullptr) {
    const T a = row_sum_at<T>(n, gw) / T(n);
    const T b = row_sum_at<T>(n, [&](int64_t i) { return gw(i) * x_hat(i); }) / T(n);
    for (int64_t i = 0; i < n; ++i) dx[i] = inv * (gw(i) - a - x_hat(i) * b);
  }
  if (pw != nullptr) {
    for (int64_t i = 0; i < n; ++i) pw[i] += g[i] * x_hat(i);
  }
  if (pb != nullptr) {
    for (int64_t i = 0; i < n; ++i) pb[i] += g[i];
  }
}
// A fused norm kernel's inputs (layer_norm's, group_norm's): contiguous and of one dtype; `norm` sends the other
// cases to its composite.
inline void check_fused_inputs(const char* op, const char* norm, const Tensor& input, const Tensor& weight,
                               const Tensor& bias) {
  for (const Tensor* t : {&input, &weight, &bias}) {
    YATEN_CHECK(!t->defined() || (t->dtype() == input.dtype() && t->is_contiguous()), RuntimeError, op,
                ": input, weight and bias must be contiguous and of one dtype (", norm, " sends the other cases to "
                "its composite)");
  }
}
}  // namespace layer_norm_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _layer_norm_fused_kernel(const Tensor& input,
                                                            const std::vector<int64_t>& normalized_shape,
                                                            const Tensor& weight, const Tensor& bias, double eps) {
  using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
  const char* op = "_layer_norm_fused";
  native::norm_detail::check_layer_norm(op, input, normalized_shape, weight, bias);
  layer_norm_detail::check_fused_inputs(op, "layer_norm", input, weight, bias);
  const int64_t axis = input.dim() - int64_t(normalized_shape.size());
  int64_t n = 1, rows = 1;
  for (int64_t i = 0; i < input.dim(); ++i) (i < axis ? rows : n) *= input.sizes()[i];
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().begin() + axis);
  stat_shape.resize(size_t(input.dim()), 1);
  Tensor out = yaten::empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = yaten::empty(stat_shape, input.dtype(), input.device());
  Tensor rstd = yaten::empty(stat_shape, input.dtype(), input.device());
  const scalar_t* x = input.data<scalar_t>();
  const scalar_t* w = weight.defined() ? weight.data<scalar_t>() : nullptr;
  const scalar_t* b = bias.defined() ? bias.data<scalar_t>() : nullptr;
  scalar_t* y = out.data<scalar_t>();
  scalar_t* mean_out = mean.data<scalar_t>();
  scalar_t* rstd_out = rstd.data<scalar_t>();
  YATEN_CHECK(n > 0 && rows > 0, RuntimeError, op, ": empty input (layer_norm sends it to its composite)");
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const scalar_t* row = x + r * n;
      scalar_t* dst = y + r * n;
      const auto [mu, inv] = layer_norm_detail::row_moments<acc_t>(row, n, eps);
      mean_out[r] = static_cast<scalar_t>(mu);
      rstd_out[r] = static_cast<scalar_t>(inv);
      const acc_t shift = -mu * inv;  // (x - mean) * rstd = x * rstd + shift
      if (w != nullptr && b != nullptr) {
        for (int64_t i = 0; i < n; ++i) {
          dst[i] = static_cast<scalar_t>((static_cast<acc_t>(row[i]) * inv + shift) * static_cast<acc_t>(w[i]) +
                                         static_cast<acc_t>(b[i]));
        }
      } else if (w != nullptr) {
        for (int64_t i = 0; i < n; ++i) {
          dst[i] = static_cast<scalar_t>((static_cast<acc_t>(row[i]) * inv + shift) * static_cast<acc_t>(w[i]));
        }
      } else if (b != nullptr) {
        for (int64_t i = 0; i < n; ++i) {
          dst[i] = static_cast<scalar_t>(static_cast<acc_t>(row[i]) * inv + shift + static_cast<acc_t>(b[i]));
        }
      } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<scalar_t>(static_cast<acc_t>(row[i]) * inv + shift);
      }
    }
  });
  return {out, mean, rstd};
}

// native_layer_norm_backward in one kernel (the CPU, contiguous tensors of one dtype): per row, with x_hat = (x -
// mean) * rstd and g = grad_out * weight, grad_input = rstd * (g - mean(g) - x_hat * mean(g * x_hat)); grad_weight
// and grad_bias sum grad_out * x_hat and grad_out over the rows, each thread into its own partial sums, added at the
// end. Two passes over each row, where the composite made a dozen over the whole input.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _layer_norm_backward_fused_kernel(const Tensor& grad_out, const Tensor& input,
                                                                     const std::vector<int64_t>& normalized_shape,
                                                                     const Tensor& mean, const Tensor& rstd,
                                                                     const Tensor& weight,
                                                                     std::array<bool, 3> output_mask) {
  using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
  const char* op = "_layer_norm_backward_fused";
  native::norm_detail::check_layer_norm(op, input, normalized_shape, weight, Tensor());
  const int64_t axis = input.dim() - int64_t(normalized_shape.size());
  int64_t n = 1, rows = 1;
  for (int64_t i = 0; i < input.dim(); ++i) (i < axis ? rows : n) *= input.sizes()[i];
  for (const Tensor* t : {&grad_out, &input, &mean, &rstd, &weight}) {
    YATEN_CHECK(!t->defined() || (t->dtype() == input.dtype() && t->is_contiguous()), RuntimeError, op,
                ": grad_out, input, mean, rstd and weight must be contiguous and of one dtype (layer_norm's backward "
                "sends the other cases to its composite)");
  }
  YATEN_CHECK(grad_out.sizes() == input.sizes() && mean.numel() == rows && rstd.numel() == rows && n > 0 &&
                  rows > 0,
              RuntimeError, op, ": grad_out of the input's shape, one mean and rstd per row, nothing empty");
  const scalar_t *dy = grad_out.data<scalar_t>(), *x = input.data<scalar_t>();
  const scalar_t *mu = mean.data<scalar_t>(), *rs = rstd.data<scalar_t>();
  const scalar_t* w = weight.defined() ? weight.data<scalar_t>() : nullptr;
  Tensor grad_input = output_mask[0] ? yaten::empty(input.sizes(), input.dtype(), input.device()) : Tensor();
  scalar_t* dx = output_mask[0] ? grad_input.data<scalar_t>() : nullptr;
  const bool want_w = output_mask[1] && w != nullptr, want_b = output_mask[2];
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(rows, 4 * get_num_threads()));
  std::vector<acc_t> partial_w(want_w ? size_t(chunks * n) : 0), partial_b(want_b ? size_t(chunks * n) : 0);
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    // float16/bfloat16 rows widened into float buffers (dx rounded once); float32 and float64 rows as they are
    constexpr bool kWiden = vec::kSixteenBit<scalar_t>;
    std::vector<acc_t> wide(kWiden ? size_t(3 * n) : 0), weight(kWiden && w ? size_t(n) : 0);
    const acc_t* wa = nullptr;
    if constexpr (kWiden) {
      if (w) vec::widen_row(w, weight.data(), n);
      wa = w ? weight.data() : nullptr;
    } else {
      wa = w;
    }
    const auto row = [&](const acc_t* g, const acc_t* xr, acc_t m, acc_t inv, acc_t* d, acc_t* pw, acc_t* pb) {
      if (wa != nullptr) {
        layer_norm_detail::backward_row<true>(g, xr, wa, m, inv, d, pw, pb, n);
      } else {
        layer_norm_detail::backward_row<false>(g, xr, wa, m, inv, d, pw, pb, n);
      }
    };
    for (int64_t c = c0; c < c1; ++c) {
      acc_t* pw = want_w ? partial_w.data() + c * n : nullptr;
      acc_t* pb = want_b ? partial_b.data() + c * n : nullptr;
      for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) {
        const acc_t m = static_cast<acc_t>(mu[r]), inv = static_cast<acc_t>(rs[r]);
        if constexpr (kWiden) {
          vec::widen_row(dy + r * n, wide.data(), n);
          vec::widen_row(x + r * n, wide.data() + n, n);
          row(wide.data(), wide.data() + n, m, inv, dx ? wide.data() + 2 * n : nullptr, pw, pb);
          if (dx) vec::narrow_row(wide.data() + 2 * n, dx + r * n, n);
        } else {
          row(dy + r * n, x + r * n, m, inv, dx ? dx + r * n : nullptr, pw, pb);
        }
      }
    }
  });
  auto total = [&](const std::vector<acc_t>& partial) {
    Tensor out = yaten::empty(normalized_shape, input.dtype(), input.device());
    scalar_t* o = out.data<scalar_t>();
    for (int64_t i = 0; i < n; ++i) {
      acc_t sum = 0;
      for (int64_t c = 0; c < chunks; ++c) sum += partial[size_t(c * n + i)];
      o[i] = static_cast<scalar_t>(sum);
    }
    return out;
  };
  return {grad_input, want_w ? total(partial_w) : Tensor(), want_b ? total(partial_b) : Tensor()};
}

}  // namespace yaten::native::cpu
