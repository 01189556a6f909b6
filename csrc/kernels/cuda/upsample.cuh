// CUDA upsample_nearest2d, _upsample_nearest_exact2d and upsample_bilinear2d: the composites' passes
// (kernels/composite/upsample.h: index_select and lerp, each a CUDA kernel), whose values the CPU's one-pass kernels
// (kernels/cpu/upsample.h) reproduce.
#pragma once

#include <optional>
#include <vector>

#include "kernels/composite/upsample.h"

namespace yaten::native::cuda {

template <typename scalar_t>
Tensor upsample_nearest2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size,
                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_detail::nearest("upsample_nearest2d", self, output_size, {scales_h, scales_w}, false);
}

template <typename scalar_t>
Tensor _upsample_nearest_exact2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size,
                                        std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_detail::nearest("_upsample_nearest_exact2d", self, output_size, {scales_h, scales_w}, true);
}

template <typename scalar_t>
Tensor upsample_bilinear2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size, bool align_corners,
                                  std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_detail::linear("upsample_bilinear2d", self, output_size, align_corners, {scales_h, scales_w});
}

}  // namespace yaten::native::cuda
