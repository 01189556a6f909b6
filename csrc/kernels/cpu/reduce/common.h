// What every CPU reduction and scan builds on (each op's kernels have a header of their own beside this one, so an
// edit to one recompiles its families' unit alone: Note [A header per op], kernels/binary_math.h): the output dtype,
// the pairwise float sums, the loop over blocks and its threads.
//
// Each reduction moves the reduced dims last (a copy only when the layout needs one) and reduces one contiguous block
// per output element. Accumulation follows torch: float for float16/bfloat16/float32, double for float64, int64 for
// integers and bool (whose sums are int64). Float sums are pairwise, so 1e7 float32 elements stay accurate.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <limits>
#include <vector>

#include "core/convert.h"
#include "core/dtype_switch.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "kernels/pointwise_math.h"
#include "core/tensor.h"
#include "core/wrap_dim.h"
#include "kernels/reduce_support.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/complex.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/imag.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/real.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/view.h"

namespace yaten::native::cpu {

namespace reduce_detail {
using native::reduce_plan::Plan;
using native::reduce_plan::acc_type;
using native::reduce_plan::LeadingPlan;
using native::reduce_plan::leading_plan;
using native::reduce_plan::plan;
using native::reduce_plan::as_compute_type;

// Calls fn(out_t{}) for a reduction's or scan's output dtype, which is its input's (the wrapper's switch converts
// the input to dtype= first) or int64 (the integral and bool inputs of sum, prod, cumsum and cumprod when dtype= is
// not given). Only these two: a switch over every dtype instantiated each kernel's output loop ten times for each
// input dtype, 100 loops per op that never ran, and a third of the compile time of the units holding sum.
template <typename scalar_t, typename Fn>
decltype(auto) visit_out_dtype(const char* op, ScalarType out_dtype, Fn&& fn) {
  if (out_dtype == scalar_type_of<scalar_t>) return fn(scalar_t{});
  YATEN_CHECK(out_dtype == ScalarType::Long, RuntimeError, op, ": internal error: an output of ", dtype_name(out_dtype),
              " for an input of ", dtype_name(scalar_type_of<scalar_t>));
  return fn(int64_t{});
}

template <typename scalar_t, typename out_t>
out_t narrow(acc_type<scalar_t> v) {
  if constexpr (std::is_same_v<out_t, Half> || std::is_same_v<out_t, BFloat16>) {
    return out_t(static_cast<float>(v));
  } else {
    return static_cast<out_t>(v);
  }
}

// Blocks of up to 512 elements are summed into 32 independent partial sums (float32: blocks of 2048 into eight vector
// registers of accumulators, so the adds pipeline instead of waiting on each other); blocks combine pairwise, so the
// error grows with log(n), not n.
template <typename acc_t, typename scalar_t>
acc_t pairwise_sum(const scalar_t* data, int64_t n) {
  constexpr int kPartials = 32;
  // float32 in blocks of 2048 (each of the 64 lanes sums 32 elements before the blocks pair up): at 512 the lanes'
  // final additions and the recursion took a sixth of a sum of 1M floats (0.073 -> 0.063 ms, 1.19x -> 1.0x torch's)
  constexpr int64_t kLeaf = std::is_same_v<scalar_t, float> && std::is_same_v<acc_t, float> ? 2048 : 512;
  if (n <= kLeaf) {
    if constexpr (std::is_same_v<scalar_t, float> && std::is_same_v<acc_t, float>) {
      using vec::vfloat;
      vfloat a0 = {}, a1 = {}, a2 = {}, a3 = {}, a4 = {}, a5 = {}, a6 = {}, a7 = {};
      int64_t i = 0;
      for (; i + 2 * kPartials <= n; i += 2 * kPartials) {  // eight chains of adds: four left the loads idle
        a0 += vec::load(data + i);
        a1 += vec::load(data + i + 8);
        a2 += vec::load(data + i + 16);
        a3 += vec::load(data + i + 24);
        a4 += vec::load(data + i + 32);
        a5 += vec::load(data + i + 40);
        a6 += vec::load(data + i + 48);
        a7 += vec::load(data + i + 56);
      }
      for (; i + kPartials <= n; i += kPartials) {
        a0 += vec::load(data + i);
        a1 += vec::load(data + i + 8);
        a2 += vec::load(data + i + 16);
        a3 += vec::load(data + i + 24);
      }
      const vfloat v = ((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7));
      float total = 0;
      for (; i < n; ++i) total += data[i];
      return total + (((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])));
    }
    if constexpr (vec::kSixteenBit<scalar_t> && std::is_same_v<acc_t, float>) {
      // widened a vector at a time, then summed as float32 (a scalar conversion per element, which GCC does not
      // vectorize, kept float16 sums at 7.7x torch's time)
      float wide[512];
      vec::widen_row(data, wide, n);
      return pairwise_sum<float>(wide, n);
    }
    if constexpr (sizeof(scalar_t) == 1 && std::is_integral_v<scalar_t> && std::is_integral_v<acc_t>) {
      // bytes (a mask's count too) in int32 lanes, which 512 of them cannot overflow, so the sum is exact and
      // vectorizes without widening each byte to 64 bits (uint8 sums took 3.4x a float sum's time)
      int32_t partial[kPartials] = {};
      int64_t i = 0;
      for (; i + kPartials <= n; i += kPartials) {
        for (int k = 0; k < kPartials; ++k) partial[k] += static_cast<int32_t>(data[i + k]);
      }
      int32_t total = 0;
      for (; i < n; ++i) total += static_cast<int32_t>(data[i]);
      for (int k = 0; k < kPartials; ++k) total += partial[k];
      return static_cast<acc_t>(total);
    }
    acc_t partial[kPartials] = {};
    int64_t i = 0;
    for (; i + kPartials <= n; i += kPartials) {  // integer sums wrap around, as in torch (pointwise_math.h)
      for (int k = 0; k < kPartials; ++k) partial[k] = wrapping_add(partial[k], static_cast<acc_t>(data[i + k]));
    }
    acc_t total = 0;
    for (; i < n; ++i) total = wrapping_add(total, static_cast<acc_t>(data[i]));
    for (int width = kPartials / 2; width > 0; width /= 2) {
      for (int k = 0; k < width; ++k) partial[k] = wrapping_add(partial[k], partial[k + width]);
    }
    return wrapping_add(total, partial[0]);
  }
  const int64_t half = (n / 2 + kPartials - 1) / kPartials * kPartials;
  // The first half first, in a statement of its own: as two arguments of one call, GCC evaluated the second half
  // first, so the blocks were read from the highest address down, which the prefetchers do not follow (1e7 floats:
  // 3.4 ms instead of 1.1 ms).
  const acc_t first = pairwise_sum<acc_t>(data, half);
  const acc_t second = pairwise_sum<acc_t>(data + half, n - half);
  return wrapping_add(first, second);
}

// pairwise_sum over the pool's threads: one pairwise sum per thread's piece, added in order (deterministic for a
// given thread count).
template <typename acc_t, typename scalar_t>
acc_t parallel_pairwise_sum(const scalar_t* data, int64_t n) {
  const int64_t pieces = get_num_threads();
  if (pieces == 1 || n < 4 * kGrainSize) return pairwise_sum<acc_t>(data, n);
  std::vector<acc_t> partial(pieces, acc_t(0));
  const int64_t piece = (n + pieces - 1) / pieces;
  parallel_for(pieces, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t begin = k * piece, end = std::min(n, begin + piece);
      if (begin < end) partial[k] = pairwise_sum<acc_t>(data + begin, end - begin);
    }
  });
  acc_t total = 0;
  for (acc_t v : partial) total = wrapping_add(total, v);
  return total;
}

// The loop of every reduction and scan: f(begin, end) over blocks [0, count), each of `length` input elements, on the
// pool's threads in chunks of about kGrainSize elements, with the GIL released when the work is large enough to be
// worth it. One place for the grain, the threads and the GIL.
template <typename F>
void for_each_block(int64_t count, int64_t length, F&& f) {
  yaten::detail::ScopedGilRelease release_gil(count * length >= yaten::detail::kGilReleaseElements);
  parallel_for(count, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(length, 1)), std::forward<F>(f));
}

// Writes f(block pointer, block length) for each output element into a new tensor of dtype `out_dtype`.
template <typename scalar_t, typename F>
Tensor reduce_blocks(const Plan& p, ScalarType out_dtype, Device device, F f) {
  Tensor out = yaten::empty(p.out_shape, out_dtype, device);
  const scalar_t* src = p.src.data<scalar_t>();
  visit_out_dtype<scalar_t>("reduce", out_dtype, [&](auto tag) {
    using out_t = decltype(tag);
    out_t* dst = out.data<out_t>();
    for_each_block(p.outer, p.inner, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const auto v = f(src + i * p.inner, p.inner);
        if constexpr (is_complex_v<std::decay_t<decltype(v)>>) {
          dst[i] = convert<out_t>(v);
        } else {
          dst[i] = narrow<scalar_t, out_t>(v);
        }
      }
    });
  });
  return out;
}
}  // namespace reduce_detail

}  // namespace yaten::native::cpu
