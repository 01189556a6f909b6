// layer_norm's forward on the CPU in one kernel: per row (the normalized dims, contiguous), the mean and the variance
// in two passes over the row while it is in cache (the two-pass variance: no cancellation), then
// (x - mean) * rstd * weight + bias written in a third; rows in parallel. float16 and bfloat16 compute in float, double
// in double. The composite in kernels/composite/norm.h calls it for contiguous CPU inputs whose weight and bias have
// the input's dtype (its four passes over memory, and their temporaries, were 2.7x torch's time); its gradient is
// native_layer_norm_backward's, from the saved mean and rstd.
#pragma once

#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
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

}  // namespace yaten::native::cpu
