// CPU reductions and scans: sum, mean, prod, amax, amin, all, any over a list of dims (all when empty), with
// keepdim; max/min/argmax/argmin over one dim with indices; var_mean; cumsum, cumprod, cummax, cummin.
//
// Each moves the reduced dims last (a copy only when the layout needs one) and reduces one contiguous block per
// output element. Accumulation follows torch: float for float16/bfloat16/float32, double for float64, int64 for
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
#include "kernels/scan_grad.h"  // the formulas its families' autograd kernels call
#include "kernels/special_math.h"
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

// Blocks of up to 512 elements are summed into 32 independent partial sums (four vector registers of
// accumulators, so the adds pipeline instead of waiting on each other); blocks combine pairwise, so the error grows
// with log(n), not n.
template <typename acc_t, typename scalar_t>
acc_t pairwise_sum(const scalar_t* data, int64_t n) {
  constexpr int kPartials = 32;
  if (n <= 512) {
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


namespace reduce_detail {
// sum over leading dims (see LeadingPlan), divided by `divisor` (1 for sum, the count for mean).
template <typename scalar_t>
Tensor leading_sum(const Tensor& self, const LeadingPlan& lp, const std::vector<int64_t>& dims, bool keepdim,
                   ScalarType out_dtype, double divisor) {
  using acc_t = acc_type<scalar_t>;
  std::vector<acc_t> acc(lp.width, acc_t(0));
  const scalar_t* src = self.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(lp.rows * lp.width >= yaten::detail::kGilReleaseElements);
  // Each thread adds whole rows into its own columns [b, e), in blocks that keep the accumulator in cache.
  parallel_for(lp.width, std::max<int64_t>(256, kGrainSize / std::max<int64_t>(lp.rows, 1)), [&](int64_t b, int64_t e) {
    constexpr int64_t kBlock = 2048;
    for (int64_t j0 = b; j0 < e; j0 += kBlock) {
      const int64_t j1 = std::min(e, j0 + kBlock);
      acc_t* __restrict__ a = acc.data();
      int64_t r = 0;
      for (; r + 4 <= lp.rows; r += 4) {  // four rows per pass over the accumulator: a quarter of its loads/stores
        const scalar_t* __restrict__ r0 = src + r * lp.width;
        const scalar_t* __restrict__ r1 = r0 + lp.width;
        const scalar_t* __restrict__ r2 = r1 + lp.width;
        const scalar_t* __restrict__ r3 = r2 + lp.width;
        for (int64_t j = j0; j < j1; ++j) {
          a[j] += (static_cast<acc_t>(r0[j]) + static_cast<acc_t>(r1[j])) +
                  (static_cast<acc_t>(r2[j]) + static_cast<acc_t>(r3[j]));
        }
      }
      for (; r < lp.rows; ++r) {
        const scalar_t* __restrict__ row = src + r * lp.width;
        for (int64_t j = j0; j < j1; ++j) a[j] += static_cast<acc_t>(row[j]);
      }
    }
  });
  Tensor out = yaten::empty(reduce_plan::leading_out_shape(self, static_cast<int64_t>(dims.size()), keepdim),
                           out_dtype, self.device());
  visit_out_dtype<scalar_t>("sum", out_dtype, [&](auto tag) {
    using out_t = decltype(tag);
    out_t* dst = out.data<out_t>();
    for (int64_t j = 0; j < lp.width; ++j) {
      dst[j] = narrow<scalar_t, out_t>(divisor == 1 ? acc[j] : static_cast<acc_t>(acc[j] / divisor));
    }
  });
  return out;
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor sum_dim_kernel(const Tensor& input, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                      std::optional<ScalarType> dtype) {
  const std::vector<int64_t> dim = dims.value_or(std::vector<int64_t>{});  // None: every dim
  if constexpr (std::is_same_v<scalar_t, int64_t>) {
    // a mask's count (count_nonzero, sum(mask, dtype=int64)): its bytes summed as uint8, not first widened to an
    // int64 tensor (which took 0.49 of count_nonzero's 0.68 ms for 1M)
    if (input.dtype() == ScalarType::Bool) {
      return sum_dim_kernel<uint8_t>(yaten::view(input, ScalarType::Byte), dims, keepdim, ScalarType::Long);
    }
  }
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_reduction("sum", self, dim, [&](const Tensor& real, const std::vector<int64_t>& dims) {
      return sum_dim_kernel<real_of_t<scalar_t>>(real, dims, keepdim, std::nullopt);
    });
  } else {
    using acc_t = reduce_detail::acc_type<scalar_t>;
    const ScalarType out_dtype = dtype.value_or(is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype());
    const auto lp = reduce_detail::leading_plan(self, dim);
    if (lp.applies) return reduce_detail::leading_sum<scalar_t>(self, lp, dim, keepdim, out_dtype, 1.0);
    const auto p = reduce_detail::plan("sum", self, dim, keepdim);
    return reduce_detail::reduce_blocks<scalar_t>(p, out_dtype, self.device(), [&](const scalar_t* b, int64_t n) {
      return p.outer == 1 ? reduce_detail::parallel_pairwise_sum<acc_t>(b, n) : reduce_detail::pairwise_sum<acc_t>(b, n);
    });
  }
}

template <typename scalar_t>
Tensor sum_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_dim_kernel<scalar_t>(self, {}, false, dtype);
}

template <typename scalar_t>
Tensor mean_dim_kernel(const Tensor& input, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                       std::optional<ScalarType>) {
  const std::vector<int64_t> dim = dims.value_or(std::vector<int64_t>{});  // None: every dim
  const Tensor self = reduce_detail::as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_reduction("mean", self, dim, [&](const Tensor& real, const std::vector<int64_t>& dims) {
      return mean_dim_kernel<real_of_t<scalar_t>>(real, dims, keepdim, std::nullopt);
    });
  } else {
    using acc_t = reduce_detail::acc_type<scalar_t>;
    const auto lp = reduce_detail::leading_plan(self, dim);
    if (lp.applies && lp.rows > 0) {
      return reduce_detail::leading_sum<scalar_t>(self, lp, dim, keepdim, self.dtype(), static_cast<double>(lp.rows));
    }
    const auto p = reduce_detail::plan("mean", self, dim, keepdim);
    return reduce_detail::reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [&](const scalar_t* b, int64_t n) {
      if (n == 0) return std::numeric_limits<acc_t>::quiet_NaN();
      return (p.outer == 1 ? reduce_detail::parallel_pairwise_sum<acc_t>(b, n) : reduce_detail::pairwise_sum<acc_t>(b, n)) /
             acc_t(n);
    });
  }
}

template <typename scalar_t>
Tensor mean_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return mean_dim_kernel<scalar_t>(self, {}, false, dtype);
}

namespace reduce_detail {
// prod over `dims` (all when empty): int64 for integral and bool inputs, as torch.
template <typename scalar_t>
Tensor product(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim, std::optional<ScalarType> dtype) {
  const Tensor self = as_compute_type<scalar_t>(input);
  // complex products in complex<double>, as the real ones in double or float
  using acc_t = std::conditional_t<is_complex_v<scalar_t>, Complex<double>, acc_type<scalar_t>>;
  const ScalarType out_dtype = dtype.value_or(is_integral(input.dtype(), true) ? ScalarType::Long : input.dtype());
  const auto p = plan("prod", self, dims, keepdim);
  return reduce_blocks<scalar_t>(p, out_dtype, self.device(), [](const scalar_t* b, int64_t n) {
    acc_t product = acc_t(1);
    int64_t i = 0;
    if constexpr (!is_complex_v<scalar_t>) {
      // sixteen running products, a vector of them: one product chain, a multiply's latency per element, took 15x
      // torch's time (prod(1) of 1024 x 1024 float32); the order differs from one chain as torch's vector loop does
      constexpr int64_t kParts = 16;
      acc_t part[kParts];
      for (int64_t k = 0; k < kParts; ++k) part[k] = acc_t(1);
      for (; i + kParts <= n; i += kParts) {
        for (int64_t k = 0; k < kParts; ++k) part[k] = wrapping_mul(part[k], convert<acc_t>(b[i + k]));
      }
      for (int64_t k = 0; k < kParts; ++k) product = wrapping_mul(product, part[k]);
    }
    for (; i < n; ++i) product = wrapping_mul(product, convert<acc_t>(b[i]));  // int64 wraps around
    return product;
  });
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor prod_dim_kernel(const Tensor& input, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce_detail::product<scalar_t>(input, {dim}, keepdim, dtype);
}

template <typename scalar_t>
Tensor prod_kernel(const Tensor& input, std::optional<ScalarType> dtype) {
  return reduce_detail::product<scalar_t>(input, {}, false, dtype);
}

namespace reduce_detail {
// The extreme of a float block and whether it holds a NaN, 16 lanes at a time (two vector accumulators).
template <bool kMax>
std::pair<float, bool> float_extreme(const float* b, int64_t n) {
  using vec::vfloat;
  using vec::vint;
  constexpr int L = vec::kLanes;
  vfloat acc0 = vec::splat(b[0]), acc1 = acc0;
  vint nan = vint{} == 1;  // all false
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    const vfloat x0 = vec::load(b + i), x1 = vec::load(b + i + L);
    acc0 = kMax ? vec::max(acc0, x0) : vec::min(acc0, x0);
    acc1 = kMax ? vec::max(acc1, x1) : vec::min(acc1, x1);
    nan |= (x0 != x0) | (x1 != x1);
  }
  acc0 = kMax ? vec::max(acc0, acc1) : vec::min(acc0, acc1);
  float best = acc0[0];
  bool any_nan = false;
  for (int k = 0; k < L; ++k) {
    best = kMax ? std::max(best, acc0[k]) : std::min(best, acc0[k]);
    any_nan |= nan[k] != 0;
  }
  for (; i < n; ++i) {
    best = kMax ? (b[i] > best ? b[i] : best) : (b[i] < best ? b[i] : best);
    any_nan |= b[i] != b[i];
  }
  return {best, any_nan};
}

// The extreme of a block and whether it holds a NaN: float through float_extreme's vector lanes, other dtypes
// through eight independent partial extremes (branch-free, so the loop vectorizes), NaN tracked on the side.
template <typename scalar_t, bool kMax>
std::pair<acc_type<scalar_t>, bool> extreme_value(const scalar_t* b, int64_t n) {
  using acc_t = acc_type<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, float>) {
    return float_extreme<kMax>(b, n);
  } else if constexpr (vec::kSixteenBit<scalar_t>) {
    // widened 512 at a time into float_extreme's lanes (element by element: 2-2.6x torch's time)
    float wide[512], best = 0;
    bool nan = false;
    for (int64_t s = 0; s < n; s += 512) {
      const int64_t len = std::min<int64_t>(512, n - s);
      vec::widen_row(b + s, wide, len);
      const auto [piece, piece_nan] = float_extreme<kMax>(wide, len);
      best = s == 0 ? piece : (kMax ? std::max(best, piece) : std::min(best, piece));
      nan |= piece_nan;
    }
    return {best, nan};
  } else {
    auto pick = [](acc_t a, acc_t v) { return kMax ? (v > a ? v : a) : (v < a ? v : a); };
    acc_t partial[8];
    for (int k = 0; k < 8; ++k) partial[k] = static_cast<acc_t>(b[0]);
    bool nan = false;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) {
        const acc_t v = static_cast<acc_t>(b[i + k]);
        partial[k] = pick(partial[k], v);
        if constexpr (!std::is_integral_v<acc_t>) nan |= v != v;
      }
    }
    acc_t best = partial[0];
    for (int k = 1; k < 8; ++k) best = pick(best, partial[k]);
    for (; i < n; ++i) {
      const acc_t v = static_cast<acc_t>(b[i]);
      best = pick(best, v);
      if constexpr (!std::is_integral_v<acc_t>) nan |= v != v;
    }
    return {best, nan};
  }
}

// amax/amin: NaN wins, as in torch; an empty reduction has no answer.
template <typename scalar_t, bool kMax>
Tensor extreme(const char* op, const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  using acc_t = acc_type<scalar_t>;
  const auto p = plan(op, self, dim, keepdim);
  YATEN_CHECK(p.inner > 0 || p.outer == 0, IndexError, op, "(): Expected reduction dim to have non-zero size.");
  return reduce_blocks<scalar_t>(p, self.dtype(), self.device(), [](const scalar_t* b, int64_t n) {
    const auto [best, nan] = extreme_value<scalar_t, kMax>(b, n);
    return nan ? std::numeric_limits<acc_t>::quiet_NaN() : best;
  });
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor amax_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  return reduce_detail::extreme<scalar_t, true>("amax", self, dim, keepdim);
}

template <typename scalar_t>
Tensor amin_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  return reduce_detail::extreme<scalar_t, false>("amin", self, dim, keepdim);
}

}  // namespace yaten::native::cpu

// max/min over a dim with indices, argmax/argmin, var/mean, all/any.
namespace yaten::native::cpu {

namespace reduce_detail {
// Whether (v, i) beats (best, best_i) for the first extreme: NaN beats everything, then the greater (less) value,
// then the lower index.
template <bool kMax, typename T>
bool beats(T v, int64_t i, T best, int64_t best_i) {
  if (best != best) return v != v && i < best_i;
  if (v != v) return true;
  return (kMax ? v > best : v < best) || (v == best && i < best_i);
}

// float blocks in one pass: each of 32 lanes (four vectors, so the compare-and-select chains overlap) keeps its
// first extreme and that one's index (a strict comparison, so a later equal value never replaces it), and the lanes
// are merged by beats(). NaNs are only noted on the way; a block that holds one is searched again for the first.
template <bool kMax>
std::pair<float, int64_t> float_block_extreme(const float* b, int64_t n) {
  using vec::vfloat;
  using vec::vint;
  constexpr int L = vec::kLanes;
  constexpr int kVectors = 4;
  const vint lane = {0, 1, 2, 3, 4, 5, 6, 7};
  vfloat best[kVectors];
  vint at[kVectors];
  for (int k = 0; k < kVectors; ++k) {
    best[k] = vec::load(b + k * L);
    at[k] = lane + k * L;
  }
  vint nan = best[0] != best[0];
  for (int k = 1; k < kVectors; ++k) nan |= best[k] != best[k];
  int64_t i = kVectors * L;
  for (; i + kVectors * L <= n; i += kVectors * L) {
    for (int k = 0; k < kVectors; ++k) {
      const vfloat x = vec::load(b + i + k * L);
      const vint take = kMax ? x > best[k] : x < best[k];
      best[k] = take ? x : best[k];
      at[k] = take ? lane + static_cast<int32_t>(i + k * L) : at[k];
      nan |= x != x;
    }
  }
  bool any_nan = false;
  for (int k = 0; k < L; ++k) any_nan |= nan[k] != 0;
  for (int64_t j = i; j < n; ++j) any_nan |= b[j] != b[j];
  if (any_nan) {
    for (int64_t j = 0; j < n; ++j) {
      if (b[j] != b[j]) return {b[j], j};
    }
  }
  float value = best[0][0];
  int64_t index = at[0][0];
  for (int v = 0; v < kVectors; ++v) {
    for (int k = 0; k < L; ++k) {
      if (beats<kMax>(best[v][k], at[v][k], value, index)) value = best[v][k], index = at[v][k];
    }
  }
  for (; i < n; ++i) {
    if (beats<kMax>(b[i], i, value, index)) value = b[i], index = i;
  }
  return {value, index};
}

// The index of the first extreme of a block (the first NaN when there is one). float: one pass
// (float_block_extreme); other dtypes: one vectorizable pass for the extreme, a second for its position.
template <typename scalar_t, bool kMax>
std::pair<scalar_t, int64_t> block_extreme(const scalar_t* b, int64_t n) {
  using acc_t = acc_type<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, float>) {
    if (n >= 4 * vec::kLanes && n <= std::numeric_limits<int32_t>::max()) return float_block_extreme<kMax>(b, n);
  }
  const auto [best, nan] = extreme_value<scalar_t, kMax>(b, n);
  for (int64_t j = 0; j < n; ++j) {
    const acc_t v = static_cast<acc_t>(b[j]);
    if (nan ? v != v : v == best) return {b[j], j};
  }
  return {b[0], 0};
}

template <typename scalar_t, bool kMax>
std::tuple<Tensor, Tensor> extreme_with_index(const char* op, const Tensor& self, int64_t dim, bool keepdim) {
  const auto p = plan(op, self, {dim}, keepdim);
  YATEN_CHECK(p.inner > 0 || p.outer == 0, IndexError, op, "(): Expected reduction dim ", dim,
              " to have non-zero size.");
  Tensor values = yaten::empty(p.out_shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(p.out_shape, ScalarType::Long, self.device());
  const scalar_t* src = p.src.data<scalar_t>();
  scalar_t* v = values.data<scalar_t>();
  int64_t* idx = indices.data<int64_t>();
  for_each_block(p.outer, p.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::tie(v[i], idx[i]) = block_extreme<scalar_t, kMax>(src + i * p.inner, p.inner);
  });
  return {values, indices};
}

template <typename scalar_t, bool kMax>
Tensor arg_extreme(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(extreme_with_index<scalar_t, kMax>(op, self, *dim, keepdim));
  YATEN_CHECK(self.numel() > 0, RuntimeError, op, "(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor flat = yaten::reshape(self, {-1});
  Tensor index = std::get<1>(extreme_with_index<scalar_t, kMax>(op, flat, 0, false));
  if (keepdim) return yaten::reshape(index, std::vector<int64_t>(self.dim(), 1));
  return index;
}
}  // namespace reduce_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce_detail::extreme_with_index<scalar_t, true>("max", self, dim, keepdim);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> min_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return reduce_detail::extreme_with_index<scalar_t, false>("min", self, dim, keepdim);
}
template <typename scalar_t>
Tensor argmax_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return reduce_detail::arg_extreme<scalar_t, true>("argmax", self, dim, keepdim);
}
template <typename scalar_t>
Tensor argmin_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return reduce_detail::arg_extreme<scalar_t, false>("argmin", self, dim, keepdim);
}

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

namespace reduce_detail {
// all/any: bool results (uint8 for uint8 input, as torch).
template <typename scalar_t, bool kAll>
Tensor all_any(const char* op, const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const auto p = plan(op, self, dims, keepdim);
  const ScalarType out_dtype = self.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  Tensor out = yaten::empty(p.out_shape, out_dtype, self.device());
  const scalar_t* src = p.src.data<scalar_t>();
  uint8_t* dst = static_cast<uint8_t*>(out.data_ptr());
  for_each_block(p.outer, p.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const scalar_t* x = src + i * p.inner;
      bool result = kAll;
      for (int64_t k = 0; k < p.inner; ++k) {
        const bool nonzero = static_cast<opmath_t<scalar_t>>(x[k]) != opmath_t<scalar_t>(0);
        if (kAll ? !nonzero : nonzero) {
          result = !kAll;
          break;
        }
      }
      dst[i] = result;
    }
  });
  return out;
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor all_kernel(const Tensor& self) { return reduce_detail::all_any<scalar_t, true>("all", self, {}, false); }
template <typename scalar_t>
Tensor any_kernel(const Tensor& self) { return reduce_detail::all_any<scalar_t, false>("any", self, {}, false); }
template <typename scalar_t>
Tensor all_dims_kernel(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim) {
  return reduce_detail::all_any<scalar_t, true>("all", self, dim.value_or(std::vector<int64_t>{}), keepdim);
}
template <typename scalar_t>
Tensor any_dims_kernel(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim) {
  return reduce_detail::all_any<scalar_t, false>("any", self, dim.value_or(std::vector<int64_t>{}), keepdim);
}

}  // namespace yaten::native::cpu

// Scans along one dim: cumsum, cumprod, cummax, cummin. The dim is moved last (a copy unless it already is), each
// row is scanned, and the result is moved back and made contiguous.
namespace yaten::native::cpu {

namespace reduce_detail {
// Calls row(src_row, dst_rows..., length) over the rows of `self` along `dim`; outputs have self's shape.
template <typename scalar_t, typename Row>
std::vector<Tensor> scan(const char* op, const Tensor& self, int64_t dim, std::vector<ScalarType> out_dtypes, Row row) {
  const auto layout = reduce_plan::rows_along(op, self, dim);
  const Tensor& src = layout.src;
  const int64_t len = layout.len, rows = layout.rows;
  std::vector<Tensor> outs;
  for (ScalarType t : out_dtypes) outs.push_back(yaten::empty(src.sizes(), t, self.device()));
  const scalar_t* s = src.data<scalar_t>();
  for_each_block(rows, len, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) row(s + r * len, outs, r * len, len);
  });
  for (Tensor& t : outs) t = reduce_plan::from_rows(t, self, layout);
  return outs;
}

template <typename scalar_t, bool kSum>
Tensor cumulative(const char* op, const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  const Tensor self = as_compute_type<scalar_t>(input);
  const ScalarType out_dtype = dtype.value_or(is_integral(input.dtype(), true) ? ScalarType::Long : input.dtype());
  using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t,
                                   std::conditional_t<is_complex_v<scalar_t>, Complex<double>, double>>;
  return scan<scalar_t>(op, self, dim, {out_dtype}, [&](const scalar_t* x, std::vector<Tensor>& outs, int64_t off,
                                                         int64_t n) {
    visit_out_dtype<scalar_t>(op, out_dtype, [&](auto tag) {
      using out_t = decltype(tag);
      out_t* y = outs[0].data<out_t>() + off;
      acc_t acc = kSum ? acc_t(0) : acc_t(1);
      for (int64_t k = 0; k < n; ++k) {
        if constexpr (kSum) {  // integers wrap around, as in torch
          acc = wrapping_add(acc, convert<acc_t>(x[k]));
        } else {
          acc = wrapping_mul(acc, convert<acc_t>(x[k]));
        }
        y[k] = convert<out_t>(acc);
      }
    });
  })[0];
}

// cummax/cummin: torch's rule, a NaN sticks (and a later NaN takes the index), ties take the later index.
template <typename scalar_t, bool kMax>
std::tuple<Tensor, Tensor> cum_extreme(const char* op, const Tensor& self, int64_t dim) {
  using opmath = opmath_t<scalar_t>;
  auto outs = scan<scalar_t>(op, self, dim, {self.dtype(), ScalarType::Long},
                             [](const scalar_t* x, std::vector<Tensor>& outs, int64_t off, int64_t n) {
    scalar_t* v = outs[0].data<scalar_t>() + off;
    int64_t* idx = outs[1].data<int64_t>() + off;
    if (n == 0) return;
    scalar_t best = x[0];
    int64_t at = 0;
    for (int64_t k = 0; k < n; ++k) {
      const opmath cur = static_cast<opmath>(x[k]), b = static_cast<opmath>(best);
      bool take = kMax ? cur >= b : cur <= b;
      if constexpr (!std::is_integral_v<opmath>) take = cur != cur || (b == b && take);
      if (take) {
        best = x[k];
        at = k;
      }
      v[k] = best;
      idx[k] = at;
    }
  });
  return {outs[0], outs[1]};
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor cumsum_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  reduce_plan::check_cumulative_dtype("cumsum", self, dtype);
  return reduce_detail::cumulative<scalar_t, true>("cumsum", self, dim, dtype);
}
template <typename scalar_t>
Tensor cumprod_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  reduce_plan::check_cumulative_dtype("cumprod", self, dtype);
  return reduce_detail::cumulative<scalar_t, false>("cumprod", self, dim, dtype);
}
// The running log-sum-exp, accumulated in double (complex double) with logaddexp's functor (the CUDA scan uses the
// same one).
template <typename scalar_t>
Tensor logcumsumexp_kernel(const Tensor& self, int64_t dim) {
  using acc_t = std::conditional_t<is_complex_v<scalar_t>, Complex<double>, double>;
  return reduce_detail::scan<scalar_t>("logcumsumexp", self, dim, {self.dtype()},
                                       [](const scalar_t* x, std::vector<Tensor>& outs, int64_t off, int64_t n) {
    scalar_t* y = outs[0].data<scalar_t>() + off;
    acc_t acc = acc_t(-std::numeric_limits<double>::infinity());
    for (int64_t k = 0; k < n; ++k) {
      acc = LogaddexpOp<acc_t>{}(acc, convert<acc_t>(x[k]));
      y[k] = convert<scalar_t>(acc);
    }
  })[0];
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> cummax_kernel(const Tensor& self, int64_t dim) {
  return reduce_detail::cum_extreme<scalar_t, true>("cummax", self, dim);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> cummin_kernel(const Tensor& self, int64_t dim) {
  return reduce_detail::cum_extreme<scalar_t, false>("cummin", self, dim);
}

}  // namespace yaten::native::cpu
