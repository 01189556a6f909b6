// The GradScaler's two ops on the CPU: the unscale with its non-finite check, over a list in one pass, and the
// scale's update (kernels/optim_math.h's, the CUDA kernel's own).
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/cpu/foreach/common.h"
#include "kernels/optim_math.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void amp_non_finite_check_and_unscale_kernel(const std::vector<Tensor>& self, const Tensor& found_inf,
                                             const Tensor& inv_scale) {
  const char* name = "_amp_foreach_non_finite_check_and_unscale_";
  YATEN_CHECK(inv_scale.numel() == 1 && inv_scale.dtype() == ScalarType::Float, RuntimeError, name,
              ": inv_scale must be a 1-element float tensor.");
  YATEN_CHECK(found_inf.numel() == 1 && found_inf.dtype() == ScalarType::Float && found_inf.is_contiguous(),
              RuntimeError, name, ": found_inf must be a 1-element float tensor.");
  YATEN_CHECK(found_inf.device().is_cpu() && inv_scale.device().is_cpu(), RuntimeError, name,
              ": found_inf and inv_scale must be on the CPU with CPU gradients");
  using O = om<scalar_t>;
  const O factor = O(foreach::item(inv_scale).to_double());
  std::vector<char> flags(self.size(), 0);  // per tensor, written by whichever pieces find a non-finite element
  auto step = [&](const std::vector<foreach::TensorList>& w, size_t i, int64_t b, int64_t e) {
    scalar_t* g = w[0][i].data<scalar_t>();
    bool bad = false;
    for (int64_t j = b; j < e; ++j) {
      const O x = O(g[j]);
      bad |= !std::isfinite(x);
      g[j] = scalar_t(x * factor);
    }
    if (bad) __atomic_store_n(&flags[i], char(1), __ATOMIC_RELAXED);
  };
  foreach::check_lists(name, self, {});
  foreach_detail::fused_apply<scalar_t>(name, {&self}, step);
  if (std::any_of(flags.begin(), flags.end(), [](char f) { return f != 0; })) *found_inf.data<float>() = 1.0f;
}

template <typename scalar_t>
Tensor amp_update_scale_kernel(const Tensor& self, const Tensor& growth_tracker, const Tensor& found_inf,
                               double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  const char* name = "_amp_update_scale_";
  YATEN_CHECK(growth_tracker.numel() == 1 && growth_tracker.dtype() == ScalarType::Int, RuntimeError, name,
              ": growth_tracker must be a 1-element int32 tensor.");
  YATEN_CHECK(self.numel() == 1 && found_inf.numel() == 1 && found_inf.dtype() == ScalarType::Float, RuntimeError, name,
              ": current_scale and found_inf must be 1-element float tensors.");
  YATEN_CHECK(growth_tracker.device().is_cpu() && found_inf.device().is_cpu(), RuntimeError, name,
              ": growth_tracker and found_inf must be on the scale's device (the CPU)");
  float* scale = self.data<float>();
  *scale = optim::amp_update_scale(*scale, growth_tracker.data<int>(), *found_inf.data<float>(), scale_growth_factor,
                                   scale_backoff_factor, growth_interval);
  return self;
}

}  // namespace yaten::native::cpu
