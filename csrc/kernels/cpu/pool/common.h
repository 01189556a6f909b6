// What the CPU pooling kernels build on: the walks over a plane's rows, outputs and inputs, and the interior columns
// of a row (Note [max_pool's rows]). Each output element comes from kernels/pool_math.h (Note [Pooling windows]),
// which CUDA shares; the CPU walks the output coordinates of a plane in order instead of dividing a flat index.
//
// Note [A pooling op per header]: each pooling op's CPU kernels (kernels/cpu/pool/<op>.h, its 2-d and 3-d forms
// together) are a header of their own over this one, and their text, the same on both backends, a fragment
// (kernels/pool/<op>.inc) that the CPU header and kernels/cuda/pool.cuh include. An edit to max_pool's loops then
// recompiles max_pool's unit alone in the developer loop (YATEN_UNIT_PER_OP): 9.9 s from edit to importable (its
// interior loops for every dtype and stride), the adaptive average 3.9 s, this header 14.4 s, where any edit to
// kernels/cpu/pool.h, which held them all, took 15.6.
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

namespace yaten::native::cpu::pool_detail {
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

// The divisor that the interior columns of a row share: its windows along dims 0 and 1 (w), the whole kernel along
// the last.
inline int64_t interior_divisor(const Geometry& g, const pool::AvgDim* w, bool count_include_pad, int64_t divisor) {
  const pool::AvgDim whole[3] = {w[0], w[1], {0, g.kernel[2], g.kernel[2]}};
  return pool::avg_divisor(whole, count_include_pad, divisor);
}

}  // namespace yaten::native::cpu::pool_detail
