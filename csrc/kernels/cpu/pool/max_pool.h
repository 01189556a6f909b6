// max_pool2d_with_indices and max_pool3d_with_indices's CPU kernels: kernels/pool/max_pool.inc's, over
// pool_detail::max_pool here. A header of its own: an edit recompiles its unit alone (Note [A pooling op per header],
// kernels/cpu/pool/common.h).
#pragma once

#include "kernels/cpu/pool/common.h"

namespace yaten::native::cpu {

namespace pool_detail {

// Note [max_pool's rows]: one output at a time, max_over's taps form a chain of dependent selects (each waits for
// the last), about 30 ns per output of a 3x3 window. Along a row, the outputs whose windows lie inside the image
// along the last dim ("interior" columns) have the same taps at a fixed step, so the CPU takes each tap for a block
// of them at once: the loop over the block has no dependence and vectorizes, and every output still sees its taps
// in max_over's order under the same rule (max_takes), so the values and indices are max_over's. The columns near
// the edges go through max_over. S is the stride along the last dim when known at compile time (0: read g).
template <int64_t S, typename acc_t, typename scalar_t>
void max_interior(const Geometry& g, const scalar_t* plane, const MaxDim* w, int64_t oc2, int64_t count,
                  scalar_t* dst, int64_t* idx) {
  constexpr int64_t kBlock = 64;
  const int64_t s = S != 0 ? S : g.stride[2];
  acc_t best[kBlock];
  int64_t at[kBlock];
  // the row of every window's first tap (dims 0 and 1 are the row's, the same for all its outputs)
  const int64_t first = ((w[0].start + w[0].lo * g.dil[0]) * g.in[1] + w[1].start + w[1].lo * g.dil[1]) * g.in[2];
  for (int64_t b0 = 0; b0 < count; b0 += kBlock) {
    const int64_t n = std::min(kBlock, count - b0);
    const int64_t col = (oc2 + b0) * s - g.pad[2];  // the block's first window's first column, inside the image
    for (int64_t j = 0; j < n; ++j) {
      best[j] = pool::max_start<acc_t>();
      at[j] = first + col + j * s;
    }
    for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
      const int64_t i0 = w[0].start + a * g.dil[0];
      for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
        const int64_t row = (i0 * g.in[1] + w[1].start + b * g.dil[1]) * g.in[2] + col;
        for (int64_t c = 0; c < g.kernel[2]; ++c) {
          const int64_t pos = row + c * g.dil[2];
          const scalar_t* p = plane + pos;
          for (int64_t j = 0; j < n; ++j) {
            const acc_t v = static_cast<acc_t>(p[j * s]);
            const bool take = max_takes(v, best[j]);
            best[j] = take ? v : best[j];
            at[j] = take ? pos + j * s : at[j];
          }
        }
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      dst[b0 + j] = static_cast<scalar_t>(best[j]);
      idx[b0 + j] = at[j];
    }
  }
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& k,
                                    const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                                    const std::vector<int64_t>& d, bool ceil_mode) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, d, ceil_mode);
  const pool::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(plan.out_shape, ScalarType::Long, self.device());
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  int64_t* idx = indices.data<int64_t>();
  const std::pair<int64_t, int64_t> inner = interior_columns(g);
  for_each_row(g, plan.planes, g.kernel[0] * g.kernel[1] * g.kernel[2], [&](int64_t plane, int64_t o, int64_t oc0,
                                                                             int64_t oc1) {
    pool::MaxDim w[3] = {pool::max_dim(g, 0, oc0), pool::max_dim(g, 1, oc1), {}};  // dims 0 and 1: once per row
    const scalar_t* image = src + plane * g.in_numel;
    const auto edge = [&](int64_t oc2) {
      w[2] = pool::max_dim(g, 2, oc2);
      acc_t value;
      pool::max_over<acc_t>(g, image, w, &value, &idx[o + oc2]);
      dst[o + oc2] = static_cast<scalar_t>(value);
    };
    for (int64_t oc2 = 0; oc2 < inner.first; ++oc2) edge(oc2);
    const int64_t count = inner.second - inner.first;
    if (count > 0 && w[0].lo < w[0].hi && w[1].lo < w[1].hi) {
      scalar_t* d = dst + o + inner.first;
      int64_t* i = idx + o + inner.first;
      with_last_stride(g, [&](auto S) {
        max_interior<decltype(S)::value, acc_t>(g, image, w, inner.first, count, d, i);
      });
    } else {
      for (int64_t oc2 = inner.first; oc2 < inner.second; ++oc2) edge(oc2);
    }
    for (int64_t oc2 = inner.second; oc2 < g.out[2]; ++oc2) edge(oc2);
  });
  return {out, indices};
}

}  // namespace pool_detail

#include "kernels/pool/max_pool.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
