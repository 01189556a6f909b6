// CPU upsample_nearest2d (and nearest-exact) and upsample_bilinear2d in one pass. The composites
// (kernels/composite/upsample.h), which CUDA runs, resample rows, then columns, each pass a tensor of its own; here
// each output row is made from its source rows at once, so only the output is written (8 x 64 x 56 x 56 -> 112 x
// 112 at one thread: bilinear 7.8 -> 4.3 ms, nearest 2.0 -> 1.2 ms). The taps (nearest_index, linear_taps), the
// order (rows, then columns) and the rounding to the dtype after each are the composites', so both devices give
// the same values.
#pragma once

#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/composite/upsample.h"
#include "kernels/pointwise_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace upsample_cpu {
template <typename scalar_t>
Tensor nearest2d(const char* op, const Tensor& self, const std::vector<int64_t>& output_size,
                 std::optional<double> scales_h, std::optional<double> scales_w, bool exact) {
  upsample_detail::check(op, self, output_size, 2, /*uint8_ok=*/true);
  const int64_t planes = self.sizes()[0] * self.sizes()[1], h = self.sizes()[2], w = self.sizes()[3];
  const int64_t oh = output_size[0], ow = output_size[1];
  const std::vector<int64_t> rows = upsample_detail::nearest_index(h, oh, scales_h, exact);
  const std::vector<int64_t> cols = upsample_detail::nearest_index(w, ow, scales_w, exact);
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty({self.sizes()[0], self.sizes()[1], oh, ow}, self.dtype(), self.device());
  if (planes == 0) return out;
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const int64_t* at = cols.data();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(planes * oh, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, ow)), [&](int64_t begin,
                                                                                             int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const scalar_t* row = src + ((r / oh) * h + rows[size_t(r % oh)]) * w;
      scalar_t* o = dst + r * ow;
      if (r % oh > 0 && rows[size_t(r % oh)] == rows[size_t(r % oh - 1)] && r > begin) {
        std::copy(o - ow, o, o);  // the row above read the same source row
      } else {
        for (int64_t j = 0; j < ow; ++j) o[j] = row[at[j]];
      }
    }
  });
  return out;
}
}  // namespace upsample_cpu

template <typename scalar_t>
Tensor upsample_nearest2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size,
                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_cpu::nearest2d<scalar_t>("upsample_nearest2d", self, output_size, scales_h, scales_w, false);
}

template <typename scalar_t>
Tensor _upsample_nearest_exact2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size,
                                        std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_cpu::nearest2d<scalar_t>("_upsample_nearest_exact2d", self, output_size, scales_h, scales_w, true);
}

template <typename scalar_t>
Tensor upsample_bilinear2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size, bool align_corners,
                                  std::optional<double> scales_h, std::optional<double> scales_w) {
  using acc_t = opmath_t<scalar_t>;
  using T = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;  // the taps' precision
  upsample_detail::check("upsample_bilinear2d", self, output_size, 2);
  const int64_t planes = self.sizes()[0] * self.sizes()[1], h = self.sizes()[2], w = self.sizes()[3];
  const int64_t oh = output_size[0], ow = output_size[1];
  const upsample_detail::LinearTaps<T> rows = upsample_detail::linear_taps<T>(h, oh, align_corners, scales_h);
  const upsample_detail::LinearTaps<T> cols = upsample_detail::linear_taps<T>(w, ow, align_corners, scales_w);
  // The weights as the composite's lerp sees them: rounded to the dtype, then widened.
  std::vector<acc_t> row_w(static_cast<size_t>(oh)), col_w(static_cast<size_t>(ow));
  for (int64_t i = 0; i < oh; ++i) row_w[size_t(i)] = acc_t(scalar_t(rows.w[size_t(i)]));
  for (int64_t j = 0; j < ow; ++j) col_w[size_t(j)] = acc_t(scalar_t(cols.w[size_t(j)]));
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty({self.sizes()[0], self.sizes()[1], oh, ow}, self.dtype(), self.device());
  if (planes == 0) return out;
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(planes * oh, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, ow + w)),
               [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> blended(static_cast<size_t>(w));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = r / oh, i = r % oh;
      const scalar_t* a = src + (plane * h + rows.i0[size_t(i)]) * w;
      const scalar_t* b = src + (plane * h + rows.i1[size_t(i)]) * w;
      const acc_t wi = row_w[size_t(i)];
      for (int64_t j = 0; j < w; ++j) {
        blended[size_t(j)] = static_cast<scalar_t>(math::lerp(acc_t(a[j]), acc_t(b[j]), wi));
      }
      scalar_t* o = dst + r * ow;
      for (int64_t j = 0; j < ow; ++j) {
        o[j] = static_cast<scalar_t>(math::lerp(acc_t(blended[size_t(cols.i0[size_t(j)])]),
                                                acc_t(blended[size_t(cols.i1[size_t(j)])]), col_w[size_t(j)]));
      }
    }
  });
  return out;
}

}  // namespace yaten::native::cpu
