// avg_pool2d and avg_pool3d's CPU kernels: kernels/pool/avg_pool.inc's, over pool_detail::avg_pool here. A header of
// its own: an edit recompiles its unit alone (Note [A pooling op per header], kernels/cpu/pool/common.h).
#pragma once

#include "kernels/cpu/pool/common.h"

namespace yaten::native::cpu {

namespace pool_detail {

// avg_pool's interior columns (interior_columns), as Note [max_pool's rows] takes max_pool's: each tap for a block
// of outputs at once, every output summing its taps in avg_over's order, so the sums are avg_over's. The window's
// divisor is the same for all of them (the row's dims 0 and 1, and the whole kernel along the last dim).
template <int64_t S, typename acc_t, typename scalar_t>
void avg_interior(const Geometry& g, const scalar_t* plane, const pool::AvgDim* w, int64_t oc2, int64_t count,
                  acc_t divisor, scalar_t* dst) {
  constexpr int64_t kBlock = 64;
  const int64_t s = S != 0 ? S : g.stride[2];
  acc_t sum[kBlock];
  for (int64_t b0 = 0; b0 < count; b0 += kBlock) {
    const int64_t n = std::min(kBlock, count - b0);
    const int64_t col = (oc2 + b0) * s - g.pad[2];  // the block's first window's first column, inside the image
    std::fill(sum, sum + n, acc_t(0));
    for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
      for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
        const scalar_t* row = plane + (a * g.in[1] + b) * g.in[2] + col;
        for (int64_t c = 0; c < g.kernel[2]; ++c) {
          const scalar_t* p = row + c;
          for (int64_t j = 0; j < n; ++j) sum[j] += static_cast<acc_t>(p[j * s]);
        }
      }
    }
    for (int64_t j = 0; j < n; ++j) dst[b0 + j] = static_cast<scalar_t>(sum[j] / divisor);
  }
}

template <typename scalar_t>
Tensor avg_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& k,
                const std::vector<int64_t>& s, const std::vector<int64_t>& p, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  using acc_t = opmath_t<scalar_t>;
  const int64_t divisor = pool::divisor_of(op, divisor_override);
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  const pool::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const std::pair<int64_t, int64_t> inner = interior_columns(g);
  for_each_row(g, plan.planes, g.kernel[0] * g.kernel[1] * g.kernel[2], [&](int64_t plane, int64_t o, int64_t oc0,
                                                                             int64_t oc1) {
    pool::AvgDim w[3] = {pool::avg_dim(g, 0, oc0), pool::avg_dim(g, 1, oc1), {}};  // dims 0 and 1: once per row
    const scalar_t* image = src + plane * g.in_numel;
    const auto edge = [&](int64_t oc2) {
      w[2] = pool::avg_dim(g, 2, oc2);
      dst[o + oc2] = static_cast<scalar_t>(pool::avg_over<acc_t>(g, image, w, count_include_pad, divisor));
    };
    for (int64_t oc2 = 0; oc2 < inner.first; ++oc2) edge(oc2);
    const int64_t count = inner.second - inner.first;
    if (count > 0) {
      const auto d = static_cast<acc_t>(interior_divisor(g, w, count_include_pad, divisor));
      scalar_t* row = dst + o + inner.first;
      with_last_stride(g, [&](auto S) {
        avg_interior<decltype(S)::value, acc_t>(g, image, w, inner.first, count, d, row);
      });
    }
    for (int64_t oc2 = inner.second; oc2 < g.out[2]; ++oc2) edge(oc2);
  });
  return out;
}

}  // namespace pool_detail

#include "kernels/pool/avg_pool.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
