// CPU pooling over 2 or 3 spatial dims: max with indices, average and adaptive average, and the average poolings'
// backwards. Each output element comes from kernels/pool_math.h (Note [Pooling windows]), which CUDA shares; the CPU
// walks the output coordinates of a plane in order instead of dividing a flat index.
#pragma once

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/pool_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace pool_detail {
using pool::Geometry;
using pool::MaxDim;
using pool::max_takes;

// Calls fn(plane, flat index of the row's first output, the row's coordinates of dims 0 and 1) for every row of
// outputs (all of a plane's outputs along the last dim), in parallel over rows.
template <typename Fn>
void for_each_row(const pool::Geometry& g, int64_t planes, int64_t work_per_output, Fn&& fn) {
  const int64_t rows = planes * g.out[0] * g.out[1];
  if (rows == 0 || g.out[2] == 0) return;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.out[2] * work_per_output));
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) fn(r / (g.out[0] * g.out[1]), r * g.out[2], (r / g.out[1]) % g.out[0],
                                              r % g.out[1]);
  });
}

// Calls fn(plane, flat output index, output coordinates) for every output element, a plane's rows at a time.
template <typename Fn>
void for_each_output(const pool::Geometry& g, int64_t planes, int64_t work_per_output, Fn&& fn) {
  for_each_row(g, planes, work_per_output, [&](int64_t plane, int64_t o, int64_t oc0, int64_t oc1) {
    int64_t oc[3] = {oc0, oc1, 0};
    for (; oc[2] < g.out[2]; ++oc[2], ++o) fn(plane, o, oc);
  });
}

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

// The interior columns of Note [max_pool's rows]: [lo, hi), the outputs whose window along the last dim starts at
// or after column 0 and ends before the image does.
inline std::pair<int64_t, int64_t> interior_columns(const Geometry& g) {
  const int64_t s = g.stride[2], extent = (g.kernel[2] - 1) * g.dil[2];
  const int64_t lo = std::min(g.out[2], (g.pad[2] + s - 1) / s);
  const int64_t last_start = g.in[2] - 1 - extent + g.pad[2];  // the largest o * s that keeps the window inside
  const int64_t hi = last_start < 0 ? 0 : std::min(g.out[2], last_start / s + 1);
  return {lo, std::max(lo, hi)};
}

// Calls fn(std::integral_constant<int64_t, S>{}): S is the last dim's stride when it is 1 or 2, so that the interior
// loops compile for it, else 0 (they read it from g).
template <typename Fn>
void with_last_stride(const Geometry& g, Fn&& fn) {
  if (g.stride[2] == 1) {
    fn(std::integral_constant<int64_t, 1>{});
  } else if (g.stride[2] == 2) {
    fn(std::integral_constant<int64_t, 2>{});
  } else {
    fn(std::integral_constant<int64_t, 0>{});
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

// The divisor that the interior columns of a row share: its windows along dims 0 and 1 (w), the whole kernel along
// the last.
inline int64_t interior_divisor(const Geometry& g, const pool::AvgDim* w, bool count_include_pad, int64_t divisor) {
  const pool::AvgDim whole[3] = {w[0], w[1], {0, g.kernel[2], g.kernel[2]}};
  return pool::avg_divisor(whole, count_include_pad, divisor);
}

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

// Calls fn(flat input index, plane, index within the plane) for every input element.
template <typename Fn>
void for_each_input(int64_t planes, int64_t in_numel, int64_t work, Fn&& fn) {
  const int64_t total = planes * in_numel;
  if (total == 0) return;
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(total, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i, i / in_numel, i % in_numel);
  });
}

// Note [avg_pool's backward on the CPU]: an input's gradient is the sum of grad[o] / divisor(o) over the windows o
// that hold it, in the order of o (avg_backward_value, CUDA's element). The CPU scatters instead, a plane per thread:
// for each output in order, its share to every input of its window. Each input then receives the same terms in the
// same order, so the sums are avg_backward_value's, without its per-input search for windows and divisions
// (8 x 64 x 56 x 56, k2, one thread: 26.6 -> 0.58 ms). Along a row's interior columns (interior_columns), all of its
// outputs add one tap at a time; taking the taps from the last to the first keeps each input's terms in the order
// of their outputs.
template <int64_t S, typename acc_t>
void avg_backward_interior(const Geometry& g, const acc_t* share, const pool::AvgDim* w, int64_t oc2, int64_t count,
                           acc_t* plane) {
  const int64_t s = S != 0 ? S : g.stride[2];
  const int64_t col = oc2 * s - g.pad[2];  // the first window's first column, inside the image
  for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
    for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
      acc_t* row = plane + (a * g.in[1] + b) * g.in[2] + col;
      for (int64_t c = g.kernel[2] - 1; c >= 0; --c) {
        acc_t* p = row + c;
        for (int64_t j = 0; j < count; ++j) p[j * s] += share[j];
      }
    }
  }
}

template <typename scalar_t>
Tensor avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self,
                         const std::vector<int64_t>& k, const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  using acc_t = opmath_t<scalar_t>;
  constexpr bool kInPlace = std::is_same_v<acc_t, scalar_t>;  // else a plane of acc_t sums, rounded at the end
  const int64_t divisor = pool::divisor_of(op, divisor_override);
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  pool::check_grad_shape(op, grad_output, plan, self);
  const pool::Geometry& g = plan.g;
  const Tensor grad = yaten::contiguous(grad_output);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  if (plan.planes * g.in_numel == 0) return out;
  const scalar_t* src = grad.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const std::pair<int64_t, int64_t> inner = interior_columns(g);
  const int64_t work = g.in_numel + g.out_numel * g.kernel[0] * g.kernel[1] * g.kernel[2];
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(plan.planes, std::max<int64_t>(1, kGrainSize / work), [&](int64_t begin, int64_t end) {
    std::vector<acc_t> sums(kInPlace ? 0 : static_cast<size_t>(g.in_numel));
    std::vector<acc_t> share(static_cast<size_t>(g.out[2]));
    for (int64_t plane = begin; plane < end; ++plane) {
      acc_t* in = kInPlace ? reinterpret_cast<acc_t*>(dst + plane * g.in_numel) : sums.data();
      std::fill(in, in + g.in_numel, acc_t(0));
      const scalar_t* grad_plane = src + plane * g.out_numel;
      pool::AvgDim w[3];
      for (int64_t oc0 = 0; oc0 < g.out[0]; ++oc0) {
        w[0] = pool::avg_dim(g, 0, oc0);
        for (int64_t oc1 = 0; oc1 < g.out[1]; ++oc1) {
          w[1] = pool::avg_dim(g, 1, oc1);
          const scalar_t* grad_row = grad_plane + (oc0 * g.out[1] + oc1) * g.out[2];
          const auto edge = [&](int64_t oc2) {
            w[2] = pool::avg_dim(g, 2, oc2);
            const acc_t v = static_cast<acc_t>(grad_row[oc2]) /
                            static_cast<acc_t>(pool::avg_divisor(w, count_include_pad, divisor));
            for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
              for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
                acc_t* row = in + (a * g.in[1] + b) * g.in[2];
                for (int64_t c = w[2].lo; c < w[2].hi; ++c) row[c] += v;
              }
            }
          };
          for (int64_t oc2 = 0; oc2 < inner.first; ++oc2) edge(oc2);
          const int64_t count = inner.second - inner.first;
          if (count > 0) {
            const auto d = static_cast<acc_t>(interior_divisor(g, w, count_include_pad, divisor));
            for (int64_t j = 0; j < count; ++j) share[j] = static_cast<acc_t>(grad_row[inner.first + j]) / d;
            with_last_stride(g, [&](auto S) {
              avg_backward_interior<decltype(S)::value>(g, share.data(), w, inner.first, count, in);
            });
          }
          for (int64_t oc2 = inner.second; oc2 < g.out[2]; ++oc2) edge(oc2);
        }
      }
      if constexpr (!kInPlace) {
        scalar_t* to = dst + plane * g.in_numel;
        for (int64_t i = 0; i < g.in_numel; ++i) to[i] = static_cast<scalar_t>(in[i]);
      }
    }
  });
  return out;
}

template <typename scalar_t>
Tensor adaptive_avg_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& output_size) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, output_size);
  const pool::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const int64_t work = g.out_numel ? std::max<int64_t>(1, g.in_numel / g.out_numel) : 1;
  for_each_output(g, plan.planes, work, [&](int64_t plane, int64_t o, const int64_t* oc) {
    dst[o] = static_cast<scalar_t>(pool::adaptive_avg_value_at<acc_t>(g, src + plane * g.in_numel, oc));
  });
  return out;
}

template <typename scalar_t>
Tensor adaptive_avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, trailing_sizes(grad_output.sizes(), dims));
  pool::check_grad_shape(op, grad_output, plan, self);
  const pool::Geometry& g = plan.g;
  const Tensor grad = yaten::contiguous(grad_output);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  const scalar_t* src = grad.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  for_each_input(plan.planes, g.in_numel, 4, [&](int64_t i, int64_t plane, int64_t at) {
    dst[i] = static_cast<scalar_t>(pool::adaptive_avg_backward_value<acc_t>(g, src + plane * g.out_numel, at));
  });
  return out;
}
}  // namespace pool_detail

#include "kernels/pool_kernels.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
