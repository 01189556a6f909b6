// The sort order of values as unsigned integer keys, shared by the CPU (kernels/cpu/sort/) and CUDA
// (kernels/cuda/sort_ops.cuh) sorting kernels: integer order on the keys is torch's order on the values, with NaN
// above +inf, -0.0 equal to +0.0 and negative numbers below positive ones. Stable sorts of the keys (complemented
// for descending order) then give torch's results, ties included, on both backends.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

namespace yaten::native::sorting {

template <typename scalar_t>
using key_t = std::conditional_t<
    sizeof(scalar_t) == 8, uint64_t,
    std::conditional_t<sizeof(scalar_t) == 4, uint32_t, std::conditional_t<sizeof(scalar_t) == 2, uint16_t, uint8_t>>>;

template <typename scalar_t>
YATEN_HOST_DEVICE inline key_t<scalar_t> bits_of(scalar_t x) {
  if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
    return x.bits;
  } else if constexpr (std::is_integral_v<scalar_t>) {
    return static_cast<key_t<scalar_t>>(x);  // two's complement bits
  } else if constexpr (std::is_same_v<scalar_t, float>) {
    return yaten::detail::float_bits(x);
  } else {
#if defined(__CUDA_ARCH__)
    return static_cast<uint64_t>(__double_as_longlong(x));
#else
    uint64_t u;
    std::memcpy(&u, &x, sizeof(u));
    return u;
#endif
  }
}

// The order-preserving unsigned key of a value (see the file comment).
template <typename scalar_t>
YATEN_HOST_DEVICE inline key_t<scalar_t> sort_key(scalar_t x) {
  using K = key_t<scalar_t>;
  constexpr K sign = K(K(1) << (sizeof(K) * 8 - 1));
  if constexpr (std::is_same_v<scalar_t, bool>) {
    return K(x);
  } else if constexpr (std::is_integral_v<scalar_t>) {
    return std::is_signed_v<scalar_t> ? K(bits_of(x) ^ sign) : K(x);
  } else {
    const opmath_t<scalar_t> v = static_cast<opmath_t<scalar_t>>(x);  // float16/bfloat16 widen exactly
    if (v != v) return K(~K(0));  // every NaN: above +inf (whose key is below all ones)
    if (v == 0) return sign;      // -0.0 and +0.0 alike
    const K u = bits_of(x);
    return (u & sign) ? K(~u) : K(u | sign);
  }
}

template <typename scalar_t>
YATEN_HOST_DEVICE inline bool is_nan_key(key_t<scalar_t> k) {
  return !std::is_integral_v<scalar_t> && k == key_t<scalar_t>(~key_t<scalar_t>(0));
}

// histc's arguments: bins > 0 and a finite range [min, max] (min == max == 0: the data's range), checked as given;
// returns the range in the input's dtype, as torch takes it (1e-300 is 0 in float16).
template <typename scalar_t>
std::pair<double, double> histc_range(int64_t bins, const Scalar& min, const Scalar& max) {
  const double lo = min.to<double>(), hi = max.to<double>();
  YATEN_CHECK(bins > 0, RuntimeError, "histc(): bins must be > 0, but got ", bins);
  YATEN_CHECK(!(std::isinf(lo) || std::isinf(hi) || lo != lo || hi != hi), RuntimeError,
              "histc(): range of [", lo, ", ", hi, "] is not finite");
  YATEN_CHECK(lo <= hi, RuntimeError, "histc(): max must be larger than min");
  return {static_cast<double>(min.to<scalar_t>()), static_cast<double>(max.to<scalar_t>())};
}
// histc's bin of x over [lo, hi] (the range in the input's dtype), or -1 for NaN and values outside: computed as
// torch's CPU kernel does, in the input's dtype, (x - lo) * bins / (hi - lo) with every step rounded to it (float16
// and bfloat16 too, whose bins then differ from a float64 division's near bin edges); the maximum falls in the last
// bin. Shared by the CPU and CUDA kernels, so both devices bin alike.
template <typename scalar_t>
YATEN_HOST_DEVICE inline int64_t histc_bin(scalar_t x, scalar_t lo, scalar_t hi, int64_t bins) {
  if (!(x >= lo && x <= hi)) return -1;
  int64_t pos;
  if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
    const auto round = [](float f) { return static_cast<float>(scalar_t(f)); };
    const float offset = round(static_cast<float>(x) - static_cast<float>(lo));
    const float scaled = round(offset * round(static_cast<float>(bins)));
    pos = static_cast<int64_t>(round(scaled / round(static_cast<float>(hi) - static_cast<float>(lo))));
  } else {
    pos = static_cast<int64_t>((x - lo) * static_cast<scalar_t>(bins) / (hi - lo));
  }
  return pos < 0 ? 0 : pos >= bins ? bins - 1 : pos;
}

// searchsorted's boundaries and values: boundaries of at least one dim, and either one row for every value or one
// row per row of values (their leading dims equal). _searchsorted's kernels check it again with the dtypes, which
// they read as one: called by name, the op has no composite in front of it.
inline void check_searchsorted(const char* op, const Tensor& seq, const Tensor& values, bool same_dtype) {
  YATEN_CHECK(seq.dim() >= 1, RuntimeError, op, "(): boundaries tensor should have at least 1 dimension");
  YATEN_CHECK(!same_dtype || seq.dtype() == values.dtype(), RuntimeError, op, ": boundaries and values must have "
              "one dtype, but got ", dtype_name(seq.dtype()), " and ", dtype_name(values.dtype()));
  if (seq.dim() == 1) return;
  bool ok = values.dim() == seq.dim();
  for (int64_t k = 0; ok && k + 1 < seq.dim(); ++k) ok = seq.sizes()[k] == values.sizes()[k];
  YATEN_CHECK(ok, RuntimeError, op, "(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
              "of boundaries tensor and input value tensor must match");
}

// min == max: the range is the data's (NaN when any element is NaN), which must be finite too (torch's check).
inline void check_histc_data_range(double lo, double hi) {
  YATEN_CHECK(std::isfinite(lo) && std::isfinite(hi), RuntimeError, "histc(): range of [", lo, ", ", hi,
              "] is not finite (min == max takes the range of the data)");
}

}  // namespace yaten::native::sorting
