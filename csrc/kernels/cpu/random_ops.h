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
#include <cmath>
#include <optional>
#include <vector>

#include "core/generator.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "kernels/cpu/sort_ops.h"
#include "kernels/random_math.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"

namespace yaten::native::cpu {

namespace random_detail {

using random_math::bits64;
using random_math::narrow;
using random_math::unit_double;

// Calls fill(first_element, count, block_bits) for the Philox blocks that cover n elements, `per_block` elements to
// a block, in parallel.
template <typename Fill>
void for_blocks(const char* op, const std::optional<Generator>& generator, int64_t n, int per_block, Fill fill) {
  if (n <= 0) return;
  const int64_t blocks = (n + per_block - 1) / per_block;
  uint64_t key = 0;
  const uint64_t first = generator_for(op, generator, Device()).reserve(static_cast<uint64_t>(blocks), &key);
  yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
  parallel_for(blocks, 4096, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      const auto bits = philox4x32(key, first + static_cast<uint64_t>(blk));
      const int64_t at = blk * per_block;
      fill(at, std::min<int64_t>(per_block, n - at), bits);
    }
  });
}

// Fills self's elements, in order, with what `element_op` (a functor of kernels/random_math.h, shared with CUDA)
// makes of each Philox block, through a contiguous buffer when self is not contiguous; returns self.
template <typename scalar_t, typename ElementOp>
Tensor fill_random(const char* op, const Tensor& self, const std::optional<Generator>& generator,
                   const ElementOp& element_op) {
  Tensor dst = self.is_contiguous() ? self : yaten::empty(self.sizes(), self.dtype(), self.device());
  scalar_t* out = dst.data<scalar_t>();
  for_blocks(op, generator, dst.numel(), ElementOp::kPerBlock,
             [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
               element_op(r.data(), out + at, at, static_cast<int>(count));
             });
  if (!dst.is_same(self)) yaten::copy_(self, dst);
  return self;
}

}  // namespace random_detail

template <typename scalar_t>
Tensor uniform_kernel(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  random_math::check_uniform<scalar_t>(from, to);
  return random_detail::fill_random<scalar_t>("uniform_", self, generator,
                                              random_math::Uniform<scalar_t>{from, to - from});
}

template <typename scalar_t>
Tensor normal_kernel(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  random_math::check_normal(std);
  return random_detail::fill_random<scalar_t>("normal_", self, generator, random_math::Normal<scalar_t>{mean, std});
}

template <typename scalar_t>
Tensor random_kernel(const Tensor& self, int64_t from, int64_t to, const std::optional<Generator>& generator) {
  const uint64_t range = random_math::checked_range(from, to);
  random_math::check_random_bounds<scalar_t>(from, to);
  return random_detail::fill_random<scalar_t>("random_", self, generator,
                                              random_math::RandomInt<scalar_t>{from, range});
}

template <typename scalar_t>
Tensor bernoulli_float_kernel(const Tensor& self, double p, const std::optional<Generator>& generator) {
  random_math::check_bernoulli(p);
  return random_detail::fill_random<scalar_t>("bernoulli_", self, generator, random_math::Bernoulli<scalar_t>{p});
}

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
  // a stable LSD radix sort of the keys (kernels/cpu/sort_ops.h), carrying the positions
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
