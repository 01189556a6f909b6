// CPU random kernels on the Philox generator (core/generator.h): uniform_, normal_, random_, bernoulli_,
// multinomial, _randperm_. Each draws what its CUDA kernel draws for the same seed (kernels/cuda/random_ops.cuh).
//
// Each call reserves the Philox counters it needs and element i reads the bits of counter first + i / per_block
// (4 elements of 32 bits per block, 2 of 64 bits for float64 and integers), so a tensor's values depend only on the
// generator's state and its size: not on the thread count, nor on the other ops in flight, nor on the device (the
// element math of uniform_, normal_, random_ and bernoulli_ is kernels/random_math.h, which CUDA runs too).
// Non-contiguous destinations are filled through a contiguous buffer.
#pragma once

#include <algorithm>
#include <cstring>
#include <cmath>
#include <optional>
#include <vector>

#include "core/generator.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "iter/vec.h"
#include "kernels/cpu/sort/common.h"
#include "kernels/random_math.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/normal.h"
#include "yaten/ops/uniform.h"
#include "yaten/ops/view_as_real.h"

namespace yaten::native::cpu {

namespace random_detail {

using random_math::bits64;
using random_math::narrow;
using random_math::unit_double;

// Reserves the Philox blocks that cover n elements, `per_block` elements to a block, and calls
// range(begin, end, key, first) for ranges of them in parallel: block b draws counter first + b.
template <typename Range>
void for_block_ranges(const char* op, const std::optional<Generator>& generator, int64_t n, int per_block,
                      Range range) {
  if (n <= 0) return;
  const int64_t blocks = (n + per_block - 1) / per_block;
  uint64_t key = 0;
  const uint64_t first = generator_for(op, generator, Device()).reserve(static_cast<uint64_t>(blocks), &key);
  yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
  parallel_for(blocks, 4096, [&](int64_t b, int64_t e) { range(b, e, key, first); });
}

// Calls fill(first_element, count, block_bits) for the Philox blocks that cover n elements, in parallel.
template <typename Fill>
void for_blocks(const char* op, const std::optional<Generator>& generator, int64_t n, int per_block, Fill fill) {
  for_block_ranges(op, generator, n, per_block, [&](int64_t b, int64_t e, uint64_t key, uint64_t first) {
    for (int64_t blk = b; blk < e; ++blk) {
      const auto bits = philox4x32(key, first + static_cast<uint64_t>(blk));
      const int64_t at = blk * per_block;
      fill(at, std::min<int64_t>(per_block, n - at), bits);
    }
  });
}

#if defined(__AVX512F__) || defined(__FMA__)
// Note [Random numbers in SIMD lanes] (kernels/random_math.h): Philox and the float math of uniform_, normal_ and
// bernoulli_ on vec::kWideLanes blocks at once, lane l drawing block b + l, with the operations the scalar code
// (and CUDA) does, each correctly rounded, so the numbers are the same bits. One block at a time through scalar
// libm-free code, randn of 1M float32 took 13 ms (3.6x torch's time). Needs a fused multiply-add in hardware (the
// fallback of vec::fma is not fused).
constexpr bool kRandomLanes = true;
struct LaneMath {
  using F = vec::wfloat;
  using I = vec::vint_of<F>;
  typedef uint32_t U __attribute__((vector_size(sizeof(F))));
  static F splat(float x) { return x - F{}; }  // x - 0 is x for every x, -0 included
  static U splat_u(uint32_t x) { return U{} + x; }
  static F fma(F a, F b, F c) { return vec::fma(a, b, c); }
  static F div(F a, F b) { return a / b; }
  static F sqrt(F x) { return vec::sqrt(x); }
  static F floor(F x) { return __builtin_convertvector(__builtin_convertvector(x, I), F); }  // x >= 0 here
  static U bits(F x) { return __builtin_bit_cast(U, x); }
  static F from_bits(U x) { return __builtin_bit_cast(F, x); }
  static I to_signed(U x) { return __builtin_bit_cast(I, x); }
  static I to_int(F x) { return __builtin_convertvector(x, I); }
  static F to_float(I x) { return __builtin_convertvector(x, F); }
  template <typename T>
  static T select(I mask, T a, T b) { return mask ? a : b; }
};
constexpr int kLaneBlocks = vec::kWideLanes;

typedef uint64_t LaneU64 __attribute__((vector_size(2 * sizeof(LaneMath::U))));
// `wide` as two vector registers of type R (mul_wide calls it only where LaneU64 is two of them), each multiplied
// by kk with mul.
template <typename R, typename Mul>
inline LaneU64 mul_each_register(const LaneU64& wide, R kk, Mul mul) {
  R half[2];
  std::memcpy(half, &wide, sizeof half);
  half[0] = mul(half[0], kk);
  half[1] = mul(half[1], kk);
  LaneU64 out;
  std::memcpy(&out, half, sizeof out);
  return out;
}
// The 32-bit lanes of c times k as 64-bit products. On AVX-512 by vpmuludq, which multiplies the low halves of 64-bit
// lanes: GCC's vector product of the zero-extended lanes is vpmullq, a full 64-bit multiply at about three times the
// cost (the lanes' Philox rounds took most of randint's time).
inline LaneU64 mul_wide(LaneMath::U c, uint32_t k) {
  const LaneU64 wide = __builtin_convertvector(c, LaneU64);
#if defined(__AVX512F__)
  if constexpr (sizeof(LaneU64) == 128) {
    return mul_each_register(wide, _mm512_set1_epi64(static_cast<long long>(k)),
                             [](__m512i a, __m512i b) { return _mm512_mul_epu32(a, b); });
  }
#endif
#if defined(__AVX2__)
  if constexpr (sizeof(LaneU64) == 64) {
    // AVX2 likewise: GCC's form was a 64-bit multiply built of three vpmuludq and shifts per half (randint of 1M
    // int64 11.3 -> 7.0 ms, 1.24x -> 0.78x torch's time; the same bits)
    return mul_each_register(wide, _mm256_set1_epi64x(static_cast<long long>(k)),
                             [](__m256i a, __m256i b) { return _mm256_mul_epu32(a, b); });
  }
#endif
  return wide * uint64_t(k);
}

// core/generator.h's philox4x32 for counters first, first + 1, ..., one per lane (high word 0).
inline void philox_lanes(uint64_t key, uint64_t first, LaneMath::U out[4]) {
  using U = LaneMath::U;
  using U64 = LaneU64;
  U64 counter;
  for (int l = 0; l < kLaneBlocks; ++l) counter[l] = first + static_cast<uint64_t>(l);
  U c0 = __builtin_convertvector(counter, U), c1 = __builtin_convertvector(counter >> 32, U), c2 = {}, c3 = {};
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < philox::kRounds; ++round) {
    const U64 p0 = mul_wide(c0, philox::kM0);
    const U64 p1 = mul_wide(c2, philox::kM1);
    const U n0 = __builtin_convertvector(p1 >> 32, U) ^ c1 ^ k0;
    const U n2 = __builtin_convertvector(p0 >> 32, U) ^ c3 ^ k1;
    c1 = __builtin_convertvector(p1, U);
    c3 = __builtin_convertvector(p0, U);
    c0 = n0;
    c2 = n2;
    k0 += philox::kW0;
    k1 += philox::kW1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}
#else
constexpr bool kRandomLanes = false;
#endif

// Fills self's elements, in order, with what `element_op` (a functor of kernels/random_math.h, shared with CUDA)
// makes of each Philox block, through a contiguous buffer when self is not contiguous; returns self. Float dtypes
// draw whole groups of blocks in SIMD lanes where the functor has a float form (Note [Random numbers in SIMD lanes]).
template <typename scalar_t, typename ElementOp>
Tensor fill_random(const char* op, const Tensor& self, const std::optional<Generator>& generator,
                   const ElementOp& element_op) {
  Tensor dst = self.is_contiguous() ? self : yaten::empty(self.sizes(), self.dtype(), self.device());
  scalar_t* out = dst.data<scalar_t>();
  const int64_t n = dst.numel();
  const auto block_values = [&](int64_t blk, const uint32_t* bits) {  // what element_op makes of block blk
    const int64_t at = blk * ElementOp::kPerBlock;
    element_op(bits, out + at, at, static_cast<int>(std::min<int64_t>(ElementOp::kPerBlock, n - at)));
  };
  const auto scalar_blocks = [&](int64_t b, int64_t e, uint64_t key, uint64_t first) {
    for (int64_t blk = b; blk < e; ++blk) block_values(blk, philox4x32(key, first + static_cast<uint64_t>(blk)).data());
  };
  constexpr bool kFloat = std::is_same_v<scalar_t, float> || vec::kSixteenBit<scalar_t>;
  if constexpr (kRandomLanes && kFloat && ElementOp::kFloatLanes) {
    bool lanes = true;
    if constexpr (std::is_same_v<ElementOp, random_math::Bernoulli<scalar_t>>) lanes = element_op.probs == nullptr;
    if (lanes) {
      for_block_ranges(op, generator, n, 4, [&](int64_t b, int64_t e, uint64_t key, uint64_t first) {
        int64_t blk = b;
        for (; blk + kLaneBlocks <= e && (blk + kLaneBlocks) * 4 <= n; blk += kLaneBlocks) {
          LaneMath::U r[4];
          LaneMath::F v[4];
          philox_lanes(key, first + static_cast<uint64_t>(blk), r);
          element_op.template values<LaneMath>(r, v);
          scalar_t* o = out + blk * 4;  // element 4 (blk + l) + j is v[j][l]
          for (int l = 0; l < kLaneBlocks; ++l) {
            for (int j = 0; j < 4; ++j) o[4 * l + j] = random_math::narrow_float<scalar_t>(v[j][l]);
          }
        }
        scalar_blocks(blk, e, key, first);
      });
      if (!dst.is_same(self)) yaten::copy_(self, dst);
      return self;
    }
  }
  if constexpr (kRandomLanes) {
    // the other ops (integers, float64, per-element probabilities) take their Philox blocks from the lanes too, and
    // make their values block by block: the same bits, drawn 16 blocks at a time (randint of 1M int64 spent most of
    // its 2.5x torch's time in one block's rounds after another)
    for_block_ranges(op, generator, n, ElementOp::kPerBlock, [&](int64_t b, int64_t e, uint64_t key, uint64_t first) {
      int64_t blk = b;
      for (; blk + kLaneBlocks <= e; blk += kLaneBlocks) {
        LaneMath::U r[4];
        philox_lanes(key, first + static_cast<uint64_t>(blk), r);
        for (int l = 0; l < kLaneBlocks; ++l) {
          const uint32_t bits[4] = {static_cast<uint32_t>(r[0][l]), static_cast<uint32_t>(r[1][l]),
                                    static_cast<uint32_t>(r[2][l]), static_cast<uint32_t>(r[3][l])};
          block_values(blk + l, bits);
        }
      }
      scalar_blocks(blk, e, key, first);
    });
  } else {
    for_block_ranges(op, generator, n, ElementOp::kPerBlock, scalar_blocks);
  }
  if (!dst.is_same(self)) yaten::copy_(self, dst);
  return self;
}

}  // namespace random_detail

#include "kernels/random_kernels.inc"  // uniform_, normal_, random_, bernoulli_(float), the same text on both backends

template <typename scalar_t>
Tensor bernoulli_tensor_kernel(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  if (self.numel() == 0) return self;  // Note [Random ops on empty tensors]: p is not looked at
  random_math::check_bernoulli_dtype(p.dtype());
  const Tensor probs = yaten::contiguous(yaten::_to_copy(yaten::expand(p, self.sizes()), ScalarType::Double,
                                                         std::nullopt));
  const double* pr = probs.data<double>();
  for (int64_t i = 0; i < probs.numel(); ++i) {
    YATEN_CHECK(pr[i] >= 0 && pr[i] <= 1, RuntimeError, "bernoulli_: all elements of p must be in [0, 1], got ",
                pr[i]);
  }
  return random_detail::fill_random<scalar_t>("bernoulli_", self, generator,
                                              random_math::Bernoulli<scalar_t>{0.0, pr});
}

// multinomial: with replacement, inverse-CDF sampling; without, the exponential race (the categories with the
// num_samples smallest -log(u)/w, in that order, are a draw of sequential sampling without replacement).
template <typename scalar_t>
Tensor multinomial_kernel(const Tensor& self, int64_t num_samples, bool replacement,
                          const std::optional<Generator>& generator) {
  const char* op = "multinomial";
  YATEN_CHECK(self.dim() == 1 || self.dim() == 2, RuntimeError, op, ": prob_dist must be 1 or 2 dim, got ",
              self.dim());
  YATEN_CHECK(num_samples > 0, RuntimeError, op, ": cannot sample n_sample <= 0 samples");
  const Tensor probs = yaten::contiguous(yaten::_to_copy(self, ScalarType::Double, std::nullopt));
  const int64_t cats = probs.sizes().back();
  const int64_t rows = self.dim() == 1 ? 1 : self.sizes()[0];
  YATEN_CHECK(replacement || num_samples <= cats, RuntimeError, op, ": cannot sample n_sample > "
              "prob_dist.size(-1) samples without replacement");
  const double* w = probs.data<double>();
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    int64_t positive = 0;
    for (int64_t c = 0; c < cats; ++c) {
      const double v = w[r * cats + c];
      YATEN_CHECK(std::isfinite(v) && v >= 0, RuntimeError, op, ": probability tensor contains either `inf`, `nan` "
                  "or element < 0");
      total += v;
      positive += v > 0;
    }
    YATEN_CHECK(total > 0, RuntimeError, op, ": invalid multinomial distribution (sum of probabilities <= 0)");
    YATEN_CHECK(replacement || positive >= num_samples, RuntimeError, op, ": invalid multinomial distribution (with "
                "replacement=False, not enough non-negative category to sample)");
  }
  const int64_t per_row = replacement ? num_samples : cats;
  std::vector<double> u(static_cast<size_t>(rows * per_row));
  random_detail::for_blocks(op, generator, rows * per_row, 2,
                            [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
    for (int64_t j = 0; j < count; ++j) u[at + j] = random_detail::unit_double(r[2 * j], r[2 * j + 1]);
  });
  std::vector<int64_t> shape = self.sizes();
  shape.back() = num_samples;
  Tensor out = yaten::empty(shape, ScalarType::Long, self.device());
  int64_t* o = out.data<int64_t>();
  parallel_for(rows, 1, [&](int64_t b, int64_t e) {
    std::vector<double> cdf(cats);
    std::vector<std::pair<double, int64_t>> keys(cats);
    for (int64_t r = b; r < e; ++r) {
      const double* row = w + r * cats;
      const double* ur = u.data() + r * per_row;
      if (replacement) {
        double acc = 0;
        for (int64_t c = 0; c < cats; ++c) cdf[c] = acc += row[c];
        for (int64_t s = 0; s < num_samples; ++s) {
          const double target = ur[s] * acc;
          int64_t c = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
          while (c > 0 && row[std::min(c, cats - 1)] == 0) --c;  // rounding at the top: stay on a positive category
          o[r * num_samples + s] = std::min(c, cats - 1);
        }
      } else {
        for (int64_t c = 0; c < cats; ++c) {
          // log(1 - u) (exact 1 - u) with the shared log, so that CUDA computes the same keys
          keys[c] = {row[c] > 0 ? -random_math::log_positive(1.0 - ur[c]) / row[c] : INFINITY, c};
        }
        std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end());
        for (int64_t s = 0; s < num_samples; ++s) o[r * num_samples + s] = keys[s].second;
      }
    }
  });
  return out;
}

// _randperm_: self (1-D, n elements) becomes a random permutation of 0..n-1: the positions 0..n-1 in the order of n
// random 64-bit keys (ties kept in position order). Unlike Fisher-Yates, this parallelizes, and the CUDA kernel
// sorts the same keys the same way (cub::DeviceRadixSort, stable), so both devices give the same permutation. On
// the CPU it costs more than Fisher-Yates (eight passes of a radix sort over 16 bytes per element).
template <typename scalar_t>
Tensor randperm_kernel(const Tensor& self, const std::optional<Generator>& generator) {
  YATEN_CHECK(self.dim() == 1, RuntimeError, "randperm: expected a 1-D destination");
  const int64_t n = self.numel();
  if (n > 0) {
    const double top = static_cast<double>(n - 1);
    YATEN_CHECK(static_cast<double>(random_detail::narrow<scalar_t>(top)) == top, RuntimeError, "randperm: n is too "
                "large for result tensor type: '", dtype_name(self.dtype()), "'");
  }
  std::vector<uint64_t> keys(static_cast<size_t>(n));
  random_detail::for_blocks("randperm", generator, n, 2,
                            [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
    for (int64_t j = 0; j < count; ++j) keys[at + j] = random_detail::bits64(r[2 * j], r[2 * j + 1]);
  });
  // a stable LSD radix sort of the keys (kernels/cpu/sort/common.h), carrying the positions
  std::vector<uint64_t> keys_tmp(static_cast<size_t>(n));
  std::vector<int64_t> positions(static_cast<size_t>(n)), positions_tmp(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) positions[i] = i;
  const int64_t* order = positions.data();
  {
    yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
    order = sort_detail::radix_sort<uint64_t>(keys.data(), positions.data(), keys_tmp.data(), positions_tmp.data(),
                                              n).second;
  }
  Tensor dst = self.is_contiguous() ? self : yaten::empty(self.sizes(), self.dtype(), self.device());
  scalar_t* out = dst.data<scalar_t>();
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<scalar_t>) {
      out[i] = static_cast<scalar_t>(order[i]);
    } else {
      out[i] = random_detail::narrow<scalar_t>(static_cast<double>(order[i]));
    }
  }
  if (!dst.is_same(self)) yaten::copy_(self, dst);
  return self;
}

}  // namespace yaten::native::cpu
