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
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "iter/vec.h"
#include "kernels/composite/norm.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace layer_norm_detail {
constexpr int kAccumulators = 16;  // independent partial sums: the compiler keeps them in one vector register
// sum over i < n of f(x[i]) in acc_t, in kAccumulators interleaved partial sums (vectorized, and a smaller
// rounding error than one running sum).
template <typename acc_t, typename scalar_t, typename F>
inline acc_t row_sum(const scalar_t* x, int64_t n, F f) {
  acc_t part[kAccumulators] = {};
  int64_t i = 0;
  for (; i + kAccumulators <= n; i += kAccumulators) {
    for (int j = 0; j < kAccumulators; ++j) part[j] += f(static_cast<acc_t>(x[i + j]));
  }
  for (; i < n; ++i) part[0] += f(static_cast<acc_t>(x[i]));
  acc_t total = 0;
  for (int j = 0; j < kAccumulators; ++j) total += part[j];
  return total;
}
// One row of the fused backward in float lanes (float32, and float16/bfloat16 rows widened into buffers): the two
// row sums in vector accumulators (one serial sum per row was a chain of dependent adds), then dx, and the weight's
// and bias's partial sums. w is the weight widened (or null), m and inv the row's mean and rstd.
inline void float_backward_row(const float* g, const float* x, const float* w, float m, float inv, float* dx,
                               float* pw, float* pb, int64_t n) {
  using vec::wfloat;
  constexpr int64_t L = vec::kWideLanes;
  if (dx != nullptr) {
    wfloat sg = {}, sgx = {};
    const wfloat vm = vec::broadcast<wfloat>(m), vinv = vec::broadcast<wfloat>(inv);
    int64_t i = 0;
    for (; i + L <= n; i += L) {
      const wfloat gi = w ? vec::load<wfloat>(g + i) * vec::load<wfloat>(w + i) : vec::load<wfloat>(g + i);
      sg += gi;
      sgx += gi * ((vec::load<wfloat>(x + i) - vm) * vinv);
    }
    float sum_g = 0, sum_gx = 0;
    for (int k = 0; k < L; ++k) {
      sum_g += sg[k];
      sum_gx += sgx[k];
    }
    for (; i < n; ++i) {
      const float gi = g[i] * (w ? w[i] : 1.0f);
      sum_g += gi;
      sum_gx += gi * ((x[i] - m) * inv);
    }
    const float a = sum_g / float(n), b = sum_gx / float(n);
    for (i = 0; i < n; ++i) {
      const float gi = g[i] * (w ? w[i] : 1.0f);
      dx[i] = inv * (gi - a - ((x[i] - m) * inv) * b);
    }
  }
  if (pw != nullptr) {
    for (int64_t i = 0; i < n; ++i) pw[i] += g[i] * ((x[i] - m) * inv);
  }
  if (pb != nullptr) {
    for (int64_t i = 0; i < n; ++i) pb[i] += g[i];
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
  for (const Tensor* t : {&input, &weight, &bias}) {
    YATEN_CHECK(!t->defined() || (t->dtype() == input.dtype() && t->is_contiguous()), RuntimeError, op,
                ": input, weight and bias must be contiguous and of one dtype (layer_norm sends the other cases to "
                "its composite)");
  }
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
      const acc_t mu = layer_norm_detail::row_sum<acc_t>(row, n, [](acc_t v) { return v; }) / acc_t(n);
      const acc_t var = layer_norm_detail::row_sum<acc_t>(row, n, [mu](acc_t v) { return (v - mu) * (v - mu); }) /
                        acc_t(n);
      const acc_t inv = acc_t(1) / std::sqrt(var + static_cast<acc_t>(eps));
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
    if constexpr (!std::is_same_v<scalar_t, double>) {
      // float32 rows as they are, float16/bfloat16 rows widened into float buffers (and dx rounded once)
      constexpr bool kWiden = !std::is_same_v<scalar_t, float>;
      std::vector<float> wide(kWiden ? size_t(3 * n) : 0), weight(kWiden && w ? size_t(n) : 0);
      if constexpr (kWiden) {
        if (w) vec::widen_row(w, weight.data(), n);
      }
      for (int64_t c = c0; c < c1; ++c) {
        float* pw = want_w ? partial_w.data() + c * n : nullptr;
        float* pb = want_b ? partial_b.data() + c * n : nullptr;
        for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) {
          const float m = static_cast<float>(mu[r]), inv = static_cast<float>(rs[r]);
          if constexpr (kWiden) {
            vec::widen_row(dy + r * n, wide.data(), n);
            vec::widen_row(x + r * n, wide.data() + n, n);
            layer_norm_detail::float_backward_row(wide.data(), wide.data() + n, w ? weight.data() : nullptr, m, inv,
                                                  dx ? wide.data() + 2 * n : nullptr, pw, pb, n);
            if (dx) vec::narrow_row(wide.data() + 2 * n, dx + r * n, n);
          } else {
            layer_norm_detail::float_backward_row(dy + r * n, x + r * n, w, m, inv, dx ? dx + r * n : nullptr, pw,
                                                  pb, n);
          }
        }
      }
      return;
    }
    for (int64_t c = c0; c < c1; ++c) {
      acc_t* pw = want_w ? partial_w.data() + c * n : nullptr;
      acc_t* pb = want_b ? partial_b.data() + c * n : nullptr;
      for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) {
        const scalar_t* gr = dy + r * n;
        const scalar_t* xr = x + r * n;
        const acc_t m = static_cast<acc_t>(mu[r]), inv = static_cast<acc_t>(rs[r]);
        if (dx != nullptr) {
          acc_t sum_g = 0, sum_gx = 0;
          for (int64_t i = 0; i < n; ++i) {
            const acc_t g = static_cast<acc_t>(gr[i]) * (w ? static_cast<acc_t>(w[i]) : acc_t(1));
            sum_g += g;
            sum_gx += g * ((static_cast<acc_t>(xr[i]) - m) * inv);
          }
          const acc_t a = sum_g / acc_t(n), b = sum_gx / acc_t(n);
          scalar_t* dr = dx + r * n;
          for (int64_t i = 0; i < n; ++i) {
            const acc_t g = static_cast<acc_t>(gr[i]) * (w ? static_cast<acc_t>(w[i]) : acc_t(1));
            const acc_t x_hat = (static_cast<acc_t>(xr[i]) - m) * inv;
            dr[i] = static_cast<scalar_t>(inv * (g - a - x_hat * b));
          }
        }
        if (pw != nullptr) {
          for (int64_t i = 0; i < n; ++i) pw[i] += static_cast<acc_t>(gr[i]) * ((static_cast<acc_t>(xr[i]) - m) * inv);
        }
        if (pb != nullptr) {
          for (int64_t i = 0; i < n; ++i) pb[i] += static_cast<acc_t>(gr[i]);
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
