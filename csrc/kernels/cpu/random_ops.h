// CPU random kernels on the Philox generator (core/generator.h): uniform_, normal_, random_, bernoulli_,
// multinomial, _randperm_.
//
// Each call reserves the Philox counters it needs and element i reads the bits of counter first + i / per_block
// (4 elements of 32 bits per block, 2 of 64 bits for float64 and integers), so a tensor's values depend only on the
// generator's state and its size: not on the thread count, nor on the other ops in flight. Non-contiguous
// destinations are filled through a contiguous buffer.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/generator.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"

namespace yaten::native::cpu {

namespace random_detail {

inline float unit_float(uint32_t x) { return static_cast<float>(x >> 8) * (1.0f / 16777216.0f); }  // [0, 1)
inline double unit_double(uint32_t lo, uint32_t hi) {                                               // [0, 1)
  return static_cast<double>(((uint64_t(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}
inline uint64_t bits64(uint32_t lo, uint32_t hi) { return (uint64_t(hi) << 32) | lo; }

// Calls fill(first_element, count, block_bits) for the Philox blocks that cover n elements, `per_block` elements to
// a block, in parallel.
template <typename Fill>
void for_blocks(const std::optional<Generator>& generator, int64_t n, int per_block, Fill fill) {
  if (n <= 0) return;
  const int64_t blocks = (n + per_block - 1) / per_block;
  uint64_t key = 0;
  const uint64_t first = generator_or_default(generator).reserve(static_cast<uint64_t>(blocks), &key);
  yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
  parallel_for(blocks, 4096, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      const auto bits = philox4x32(key, first + static_cast<uint64_t>(blk));
      const int64_t at = blk * per_block;
      fill(at, std::min<int64_t>(per_block, n - at), bits);
    }
  });
}

// Runs fill(data, n) on self's elements (through a contiguous buffer when self is not contiguous); returns self.
template <typename scalar_t, typename Fill>
Tensor fill_random(const Tensor& self, Fill fill) {
  Tensor dst = self.is_contiguous() ? self : yaten::empty(self.sizes(), self.dtype(), self.device());
  fill(dst.data<scalar_t>(), dst.numel());
  if (!dst.is_same(self)) yaten::copy_(self, dst);
  return self;
}

template <typename scalar_t>
scalar_t narrow(double v) {
  if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
    return scalar_t(static_cast<float>(v));
  } else {
    return static_cast<scalar_t>(v);
  }
}

}  // namespace random_detail

template <typename scalar_t>
Tensor uniform_kernel(const Tensor& self, double from, double to, const std::optional<Generator>& generator) {
  YATEN_CHECK(from <= to, RuntimeError, "uniform_: expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  YATEN_CHECK(std::isfinite(to - from), RuntimeError, "uniform_: (to - from) must be finite, got from=", from,
              " to=", to);
  using namespace random_detail;
  return fill_random<scalar_t>(self, [&](scalar_t* out, int64_t n) {
    const double span = to - from;
    if constexpr (std::is_same_v<scalar_t, double>) {
      for_blocks(generator, n, 2, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
        for (int64_t j = 0; j < count; ++j) out[at + j] = from + span * unit_double(r[2 * j], r[2 * j + 1]);
      });
    } else {
      for_blocks(generator, n, 4, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
        for (int64_t j = 0; j < count; ++j) out[at + j] = narrow<scalar_t>(from + span * unit_float(r[j]));
      });
    }
  });
}

// normal_: Box-Muller on pairs of uniforms (two normals per pair).
template <typename scalar_t>
Tensor normal_kernel(const Tensor& self, double mean, double std, const std::optional<Generator>& generator) {
  YATEN_CHECK(std >= 0.0, RuntimeError, "normal_: expects std >= 0.0, but found std ", std);
  using namespace random_detail;
  constexpr double kTwoPi = 6.283185307179586;
  return fill_random<scalar_t>(self, [&](scalar_t* out, int64_t n) {
    if constexpr (std::is_same_v<scalar_t, double>) {
      for_blocks(generator, n, 2, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
        const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_double(r[0], r[1])));
        const double angle = kTwoPi * unit_double(r[2], r[3]);
        out[at] = mean + std * radius * std::cos(angle);
        if (count > 1) out[at + 1] = mean + std * radius * std::sin(angle);
      });
    } else {
      for_blocks(generator, n, 4, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
        float z[4];
        for (int p = 0; p < 2; ++p) {
          const float radius = std::sqrt(-2.0f * std::log(1.0f - unit_float(r[2 * p])));
          const float angle = static_cast<float>(kTwoPi) * unit_float(r[2 * p + 1]);
          z[2 * p] = radius * std::cos(angle);
          z[2 * p + 1] = radius * std::sin(angle);
        }
        for (int64_t j = 0; j < count; ++j) out[at + j] = narrow<scalar_t>(mean + std * static_cast<double>(z[j]));
      });
    }
  });
}

// random_(from, to): integers uniform in [from, to) (randint), from 64 random bits each.
template <typename scalar_t>
Tensor random_kernel(const Tensor& self, int64_t from, int64_t to, const std::optional<Generator>& generator) {
  YATEN_CHECK(from < to, RuntimeError, "random_: expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  using namespace random_detail;
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return fill_random<scalar_t>(self, [&](scalar_t* out, int64_t n) {
    for_blocks(generator, n, 2, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
      for (int64_t j = 0; j < count; ++j) {
        const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(from) + bits64(r[2 * j], r[2 * j + 1]) % range);
        if constexpr (std::is_same_v<scalar_t, bool>) {
          out[at + j] = v != 0;
        } else if constexpr (std::is_integral_v<scalar_t>) {
          out[at + j] = static_cast<scalar_t>(v);
        } else {
          out[at + j] = narrow<scalar_t>(static_cast<double>(v));
        }
      }
    });
  });
}

template <typename scalar_t>
Tensor bernoulli_float_kernel(const Tensor& self, double p, const std::optional<Generator>& generator) {
  YATEN_CHECK(p >= 0 && p <= 1, RuntimeError, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  using namespace random_detail;
  return fill_random<scalar_t>(self, [&](scalar_t* out, int64_t n) {
    for_blocks(generator, n, 4, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
      for (int64_t j = 0; j < count; ++j) out[at + j] = static_cast<scalar_t>(unit_float(r[j]) < p ? 1 : 0);
    });
  });
}

template <typename scalar_t>
Tensor bernoulli_tensor_kernel(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  YATEN_CHECK(is_floating_point(p.dtype()), TypeError, "bernoulli_: expected a floating probability tensor, got ",
              dtype_name(p.dtype()));
  const Tensor probs = yaten::contiguous(yaten::_to_copy(yaten::expand(p, self.sizes()), ScalarType::Double,
                                                         std::nullopt));
  const double* pr = probs.data<double>();
  for (int64_t i = 0; i < probs.numel(); ++i) {
    YATEN_CHECK(pr[i] >= 0 && pr[i] <= 1, RuntimeError, "bernoulli_: all elements of p must be in [0, 1], got ",
                pr[i]);
  }
  using namespace random_detail;
  return fill_random<scalar_t>(self, [&](scalar_t* out, int64_t n) {
    for_blocks(generator, n, 4, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
      for (int64_t j = 0; j < count; ++j) out[at + j] = static_cast<scalar_t>(unit_float(r[j]) < pr[at + j] ? 1 : 0);
    });
  });
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
  random_detail::for_blocks(generator, rows * per_row, 2,
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
          keys[c] = {row[c] > 0 ? -std::log1p(-ur[c]) / row[c] : INFINITY, c};
        }
        std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end());
        for (int64_t s = 0; s < num_samples; ++s) o[r * num_samples + s] = keys[s].second;
      }
    }
  });
  return out;
}

// _randperm_: self (1-D, n elements) becomes a random permutation of 0..n-1 (Fisher-Yates).
template <typename scalar_t>
Tensor randperm_kernel(const Tensor& self, const std::optional<Generator>& generator) {
  YATEN_CHECK(self.dim() == 1, RuntimeError, "randperm: expected a 1-D destination");
  const int64_t n = self.numel();
  if (n > 0) {
    const double top = static_cast<double>(n - 1);
    YATEN_CHECK(static_cast<double>(random_detail::narrow<scalar_t>(top)) == top, RuntimeError, "randperm: n is too "
                "large for result tensor type: '", dtype_name(self.dtype()), "'");
  }
  std::vector<uint64_t> draws(static_cast<size_t>(std::max<int64_t>(n - 1, 0)));
  random_detail::for_blocks(generator, n - 1, 2, [&](int64_t at, int64_t count, const std::array<uint32_t, 4>& r) {
    for (int64_t j = 0; j < count; ++j) draws[at + j] = random_detail::bits64(r[2 * j], r[2 * j + 1]);
  });
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[draws[i - 1] % static_cast<uint64_t>(i + 1)]);
  return random_detail::fill_random<scalar_t>(self, [&](scalar_t* out, int64_t) {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<scalar_t>) {
        out[i] = static_cast<scalar_t>(perm[i]);
      } else {
        out[i] = random_detail::narrow<scalar_t>(static_cast<double>(perm[i]));
      }
    }
  });
}

}  // namespace yaten::native::cpu
