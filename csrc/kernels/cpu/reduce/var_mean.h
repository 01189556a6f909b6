// var_mean: the mean and the corrected variance of each block, in one read where it can (reduce_detail::mean_and_m2).
#pragma once

#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// The one-read moments' accumulators: vec::wdouble, as many doubles as one vector register holds (8 on AVX-512, 4
// elsewhere), two of them per 8 values where a register holds 4. As 8-double vectors on AVX2 GCC kept them on the
// stack and moved them a double at a time: var_mean over 32 rows of 32,768 floats took 1.77 ms there (a sum of them
// 0.07 ms), group_norm 4.4x torch's time.
typedef float vfloat_acc __attribute__((vector_size(4 * vec::kDoubleLanes)));  // the floats widened into one wdouble
constexpr int kAccPerEight = 8 / vec::kDoubleLanes;

// The mean and the sum of squared deviations (m2) of n values, in double. Inputs of 4 bytes or fewer (float,
// float16, bfloat16: 24 significant bits at most) are read once: each block of 256 values as shifted sums (d = x -
// the block's first value: mean = shift + S1/len, m2 = S2 - S1^2/len, whose cancellation costs at most 256^2 ulp of
// double, far below float's), the blocks merged as Chan, Golub and LeVeque merge running moments. Reading each row
// once instead of twice is what group and layer norm wait on (64 rows of 25088 floats: 304 -> 188 us). Doubles
// keep two passes (the mean, then the squared deviations), which their 53 bits need.
template <typename scalar_t>
std::pair<double, double> mean_and_m2(const scalar_t* x, int64_t n) {
  // eight running sums, so the adds do not wait on each other (one chain ran at a quarter of memory speed)
  const auto total = [](const auto& lanes) {
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  };
  const auto two_passes = [&]() -> std::pair<double, double> {
    const double mu = pairwise_sum<double>(x, n) / static_cast<double>(n);
    double s2[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
      for (int j = 0; j < 8; ++j) {
        const double d = static_cast<double>(x[k + j]) - mu;
        s2[j] += d * d;
      }
    }
    for (; k < n; ++k) {
      const double d = static_cast<double>(x[k]) - mu;
      s2[k % 8] += d * d;
    }
    return {mu, total(s2)};
  };
  if constexpr (sizeof(scalar_t) <= 4) {
    constexpr int64_t kBlock = 256;
    double mean = 0, m2 = 0;
    for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
      const int64_t len = std::min(kBlock, n - b0);
      const scalar_t* v = x + b0;
      const double shift = static_cast<double>(v[0]);
      // eight lanes in vector registers (each 8 values widened to doubles), one row of lanes per 8 values
      vec::wdouble s1[kAccPerEight] = {}, s2[kAccPerEight] = {};
      const vec::wdouble shifts = vec::wdouble{} + shift;
      int64_t k = 0;
      for (; k + 8 <= len; k += 8) {
        for (int h = 0; h < kAccPerEight; ++h) {
          vec::wdouble d;
          if constexpr (std::is_same_v<scalar_t, float>) {
            vfloat_acc f;
            std::memcpy(&f, v + k + h * vec::kDoubleLanes, sizeof f);
            d = __builtin_convertvector(f, vec::wdouble) - shifts;
          } else {
            for (int j = 0; j < vec::kDoubleLanes; ++j) d[j] = static_cast<double>(v[k + h * vec::kDoubleLanes + j]);
            d -= shifts;
          }
          s1[h] += d;
          s2[h] += d * d;
        }
      }
      double lanes1[8], lanes2[8];
      std::memcpy(lanes1, s1, sizeof lanes1);
      std::memcpy(lanes2, s2, sizeof lanes2);
      for (; k < len; ++k) {
        const double d = static_cast<double>(v[k]) - shift;
        lanes1[k % 8] += d;
        lanes2[k % 8] += d * d;
      }
      const double sum = total(lanes1), block_m2 = total(lanes2) - sum * sum / static_cast<double>(len);
      const double delta = shift + sum / static_cast<double>(len) - mean;
      const double seen = static_cast<double>(b0), count = static_cast<double>(b0 + len);
      mean += delta * (static_cast<double>(len) / count);
      m2 += (block_m2 < 0 ? 0.0 : block_m2) + delta * delta * (seen * static_cast<double>(len) / count);
    }
    // an infinity or NaN: the two passes give torch's results (the merge would turn inf - inf into NaN)
    if (n > 0 && std::isfinite(mean) && std::isfinite(m2)) return {mean, m2};
  }
  return two_passes();
}
}  // namespace reduce_detail

// var and mean of each block, in double (reduce_detail::mean_and_m2).
template <typename scalar_t>
std::tuple<Tensor, Tensor> var_mean_real(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                                         const std::optional<Scalar>& correction, bool keepdim) {
  const double c = correction ? correction->to<double>() : 1.0;
  const auto p = reduce_detail::plan("var_mean", self, dim.value_or(std::vector<int64_t>{}), keepdim);
  Tensor var = yaten::empty(p.out_shape, self.dtype(), self.device());
  Tensor mean = yaten::empty(p.out_shape, self.dtype(), self.device());
  const scalar_t* src = p.src.data<scalar_t>();
  scalar_t* v = var.data<scalar_t>();
  scalar_t* m = mean.data<scalar_t>();
  reduce_detail::for_each_block(p.outer, p.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t n = p.inner;
      const auto [mu, m2] = reduce_detail::mean_and_m2(src + i * p.inner, n);
      const double dof = std::max(0.0, static_cast<double>(n) - c);
      // no elements: NaN whatever the correction (torch, and the CUDA kernel)
      v[i] = reduce_detail::narrow<double, scalar_t>(n > 0 ? m2 / dof : std::numeric_limits<double>::quiet_NaN());
      m[i] = reduce_detail::narrow<double, scalar_t>(mu);
    }
  });
  return {var, mean};
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> var_mean_kernel(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                                           const std::optional<Scalar>& correction, bool keepdim) {
  if constexpr (is_complex_v<scalar_t>) {
    // |z - mean|^2 averaged: the real part's variance plus the imaginary part's (a real result, as torch's), and
    // the complex mean of the two parts' means
    auto [var_re, mean_re] = var_mean_real<real_of_t<scalar_t>>(yaten::real(self), dim, correction, keepdim);
    auto [var_im, mean_im] = var_mean_real<real_of_t<scalar_t>>(yaten::imag(self), dim, correction, keepdim);
    return {yaten::add(var_re, var_im, Scalar(int64_t(1))), yaten::complex(mean_re, mean_im)};
  } else {
    return var_mean_real<scalar_t>(self, dim, correction, keepdim);
  }
}

}  // namespace yaten::native::cpu
