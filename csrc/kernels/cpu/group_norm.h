// group_norm's forward on the CPU in one kernel: per (sample, group), whose channels and positions are one
// contiguous row of an NC* input, the mean and the variance in two passes over the row while it is in cache (the
// two-pass variance, as layer_norm's), then each channel's positions written as x * scale + shift with
// scale = rstd * weight[c] and shift = bias[c] - mean * scale; rows in parallel. float16 and bfloat16 compute in
// float, double in double. The composite in kernels/composite/norm.h calls it for contiguous CPU inputs whose weight
// and bias have the input's dtype (its var_mean, the per-channel statistics and the addcmul took 1.21x torch's time
// on 4 x 64 x 64 x 64 float32 in 8 groups); its gradient is native_group_norm_backward's, from the saved statistics.
#pragma once

#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/composite/norm.h"
#include "kernels/cpu/layer_norm.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _group_norm_fused_kernel(const Tensor& input, const Tensor& weight,
                                                            const Tensor& bias, int64_t n, int64_t c, int64_t hxw,
                                                            int64_t group, double eps) {
  using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
  const char* op = "_group_norm_fused";
  native::norm_detail::check_group_norm(op, input, weight, bias, n, c, hxw, group);
  layer_norm_detail::check_fused_inputs(op, "group_norm", input, weight, bias);
  YATEN_CHECK(input.numel() > 0, RuntimeError, op, ": empty input (group_norm sends it to its composite)");
  const int64_t per_group = c / group, row = per_group * hxw;
  Tensor out = yaten::empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = yaten::empty({n, group}, input.dtype(), input.device());
  Tensor rstd = yaten::empty({n, group}, input.dtype(), input.device());
  const scalar_t* x = input.data<scalar_t>();
  const scalar_t* w = weight.defined() ? weight.data<scalar_t>() : nullptr;
  const scalar_t* b = bias.defined() ? bias.data<scalar_t>() : nullptr;
  scalar_t* y = out.data<scalar_t>();
  scalar_t* mean_out = mean.data<scalar_t>();
  scalar_t* rstd_out = rstd.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(n * group, std::max<int64_t>(1, kGrainSize / row), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const scalar_t* src = x + r * row;
      scalar_t* dst = y + r * row;
      const auto [mu, inv] = layer_norm_detail::row_moments<acc_t>(src, row, eps);
      mean_out[r] = static_cast<scalar_t>(mu);
      rstd_out[r] = static_cast<scalar_t>(inv);
      const int64_t first = (r % group) * per_group;  // the group's first channel
      for (int64_t k = 0; k < per_group; ++k) {
        const acc_t scale = w != nullptr ? inv * static_cast<acc_t>(w[first + k]) : inv;
        const acc_t shift = (b != nullptr ? static_cast<acc_t>(b[first + k]) : acc_t(0)) - mu * scale;
        const scalar_t* from = src + k * hxw;
        scalar_t* to = dst + k * hxw;
        for (int64_t i = 0; i < hxw; ++i) to[i] = static_cast<scalar_t>(static_cast<acc_t>(from[i]) * scale + shift);
      }
    }
  });
  return {out, mean, rstd};
}

}  // namespace yaten::native::cpu
