// The element math of the random ops, written once for the CPU (kernels/cpu/random_ops.h) and CUDA
// (kernels/cuda/random_ops.cuh), so that one seed gives the same numbers, bit for bit, on both.
//
// A random op reserves Philox blocks (core/generator.h) and turns block b's 128 bits into elements b * kPerBlock to
// b * kPerBlock + kPerBlock - 1: four elements from 32 bits each, or two from 64 bits each (float64 and integers).
//
// Note [Same bits on every device]: +, -, *, / and sqrt are correctly rounded on both backends, but a libm's log,
// cos and sin are not (glibc and CUDA differ in the last bit), and compilers fuse a * b + c into one rounding
// where the target has FMA (nvcc always; g++ with -march=native), even across statements. So this file computes
// only with correctly rounded operations, never adds or subtracts a product (every such product is inside an
// explicit fma, which no compiler splits or re-fuses; products by powers of two are exact and exempt), and brings
// its own log and sin/cos (below: polynomial kernels with fdlibm's published minimax coefficients, within about
// 1 ulp in double precision). Keep to that rule when editing this file.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar_type.h"

namespace yaten::native::random_math {

YATEN_HOST_DEVICE inline float unit_float(uint32_t x) {  // [0, 1), 24 bits
  return static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
}
YATEN_HOST_DEVICE inline double unit_double(uint32_t lo, uint32_t hi) {  // [0, 1), 53 bits
  return static_cast<double>(((uint64_t(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}
YATEN_HOST_DEVICE inline uint64_t bits64(uint32_t lo, uint32_t hi) { return (uint64_t(hi) << 32) | lo; }

// x mod d, exactly, without a 64-bit division (which bounded random_'s throughput at 2.5x torch's time): with
// m = floor((2^64 - 1) / d), computed once, m >= (2^64 - d) / d, so x m / 2^64 lies in (x/d - 1, x/d] and its floor is
// floor(x / d) or one less: one correction step. d >= 1.
YATEN_HOST_DEVICE inline uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
struct Mod64 {
  uint64_t d, m;
  explicit Mod64(uint64_t divisor) : d(divisor), m(~uint64_t(0) / divisor) {}
  YATEN_HOST_DEVICE uint64_t operator()(uint64_t x) const {
    const uint64_t r = x - mulhi64(x, m) * d;
    return r >= d ? r - d : r;
  }
};

YATEN_HOST_DEVICE inline uint64_t double_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}
YATEN_HOST_DEVICE inline double bits_double(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

YATEN_HOST_DEVICE inline double fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

YATEN_HOST_DEVICE inline float fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
YATEN_HOST_DEVICE inline float sqrt_rn(float x) {  // correctly rounded on both, whatever nvcc's -prec-sqrt says
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}
YATEN_HOST_DEVICE inline float div_rn(float a, float b) {  // likewise for -prec-div
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
// A double to the element type, rounding once to float first for float16/bfloat16 (as the CPU always has).
template <typename scalar_t>
YATEN_HOST_DEVICE inline scalar_t narrow(double v) {
  if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
    return scalar_t(static_cast<float>(v));
  } else if constexpr (std::is_same_v<scalar_t, bool>) {
    return v != 0;
  } else {
    return static_cast<scalar_t>(v);
  }
}

// A float to a float element type.
template <typename scalar_t>
YATEN_HOST_DEVICE inline scalar_t narrow_float(float v) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    return v;
  } else {
    return scalar_t(v);
  }
}

// log(x) for a positive normal double (Note [Same bits on every device]): x = 2^k * (1 + f) with 1 + f in
// [sqrt(2)/2, sqrt(2)), s = f / (2 + f), log(1 + f) = f - f^2/2 + s * (f^2/2 + R(s^2)).
YATEN_HOST_DEVICE inline double log_positive(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  const uint64_t bits = double_bits(x);
  int k = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  uint64_t mantissa = bits & 0x000fffffffffffffull;
  // Move 1 + f into [sqrt(2)/2, sqrt(2)): mantissas at or above sqrt(2)'s take the exponent one higher.
  if (mantissa >= 0x6a09e667f3bcdull) {
    ++k;
    mantissa |= 0x3fe0000000000000ull;  // [0.707, 1)
  } else {
    mantissa |= 0x3ff0000000000000ull;  // [1, 1.414)
  }
  const double m = bits_double(mantissa);
  const double f = m - 1.0;  // exact
  const double s = f / (2.0 + f);
  const double z = s * s, w = z * z;
  const double r = fma(z, fma(w, fma(w, fma(w, kLg7, kLg5), kLg3), kLg1), w * fma(w, fma(w, kLg6, kLg4), kLg2));
  const double hf = 0.5 * f;  // exact; hf * f is fdlibm's f^2/2, kept inside fmas
  const double dk = static_cast<double>(k);
  const double inner = fma(hf, f, -fma(s, fma(hf, f, r), dk * kLn2Lo)) - f;
  return fma(dk, kLn2Hi, -inner);
}

// sin(2 pi v) and cos(2 pi v) for v in [0, 1) (Note [Same bits on every device]): v = q / 4 + r exactly with
// |r| <= 1/8, so the angle is q quarter turns plus x = 2 pi r in [-pi/4, pi/4], where short polynomials suffice.
YATEN_HOST_DEVICE inline void sincos_turns(double v, double* sin_out, double* cos_out) {
  constexpr double kTwoPi = 6.28318530717958623200e+00;
  constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                   kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                   kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
  constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                   kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                   kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
  const double quarters = std::floor(fma(v, 4.0, 0.5));  // v * 4 is exact; the nearest quarter turn
  const int q = static_cast<int>(quarters) & 3;
  const double r = fma(quarters, -0.25, v);  // exact
  const double x = r * kTwoPi;
  const double z = x * x;
  const double sin_poly = fma(z, fma(z, fma(z, fma(z, fma(z, kS6, kS5), kS4), kS3), kS2), kS1);
  const double sin_x = fma(x * z, sin_poly, x);
  const double cos_r = z * fma(z, fma(z, fma(z, fma(z, fma(z, kC6, kC5), kC4), kC3), kC2), kC1);
  const double one_minus = fma(-0.5, z, 1.0);  // 1 - z/2, and below what its rounding lost
  const double cos_x = one_minus + fma(z, cos_r, fma(-0.5, z, 1.0 - one_minus));
  // the quadrant, without branches (q is random: a switch mispredicts three times in four): odd quadrants swap
  // sin and cos, quadrants 2 and 3 negate the sine, 1 and 2 the cosine
  const auto s0 = (q & 1) ? cos_x : sin_x, c0 = (q & 1) ? sin_x : cos_x;
  *sin_out = (q & 2) ? -s0 : s0;
  *cos_out = ((q + 1) & 2) ? -c0 : c0;
}

// Two standard normals from two uniforms in [0, 1) (Box-Muller): sqrt(-2 log(1 - u)) times cos and sin of 2 pi v.
YATEN_HOST_DEVICE inline void box_muller(double u, double v, double* z0, double* z1) {
  const double radius = std::sqrt(-2.0 * log_positive(1.0 - u));
  double s, c;
  sincos_turns(v, &s, &c);
  *z0 = radius * c;
  *z1 = radius * s;
}

// The same three in single precision, for the normals of float32, float16 and bfloat16 (float arithmetic is what
// torch uses for them too; double cost the CPU twice torch's time and CUDA half torch's speed). The polynomials are
// FreeBSD's e_logf.c and k_sinf/k_cosf minimax coefficients for float, with the reductions above; within about
// 1 ulp of float.
//
// Note [Random numbers in SIMD lanes]: these are written once over `M`, the arithmetic of one float (FloatMath,
// below: both devices) or of a vector of float lanes (the CPU's, kernels/cpu/random_ops.h), with the same operations
// in the same order: every one correctly rounded (the fmas explicit, as above), so a lane gives the bits that one
// float gives. M has the types F (floats), U and I (their bits, unsigned and signed), splat (a float constant as an
// F; a no-op for one float), fma, div, sqrt, floor of a positive F, bits/from_bits, to_int/to_float, and select.
struct FloatMath {
  using F = float;
  using U = uint32_t;
  using I = int32_t;
  YATEN_HOST_DEVICE static F splat(float x) { return x; }
  YATEN_HOST_DEVICE static U splat_u(uint32_t x) { return x; }
  YATEN_HOST_DEVICE static F fma(F a, F b, F c) { return random_math::fma(a, b, c); }
  YATEN_HOST_DEVICE static F div(F a, F b) { return div_rn(a, b); }
  YATEN_HOST_DEVICE static F sqrt(F x) { return sqrt_rn(x); }
  YATEN_HOST_DEVICE static F floor(F x) { return std::floor(x); }
  YATEN_HOST_DEVICE static U bits(F x) { return yaten::detail::float_bits(x); }
  YATEN_HOST_DEVICE static F from_bits(U x) { return yaten::detail::bits_float(x); }
  YATEN_HOST_DEVICE static I to_signed(U x) { return static_cast<I>(x); }
  YATEN_HOST_DEVICE static I to_int(F x) { return static_cast<I>(x); }
  YATEN_HOST_DEVICE static F to_float(I x) { return static_cast<F>(x); }
  template <typename T>
  YATEN_HOST_DEVICE static T select(bool c, T a, T b) { return c ? a : b; }
};

template <typename M>
YATEN_HOST_DEVICE inline typename M::F log_positive_lanes(typename M::F x) {
  using F = typename M::F;
  using U = typename M::U;
  using I = typename M::I;
  constexpr float kLn2Hi = 6.9313812256e-01f, kLn2Lo = 9.0580006145e-06f;
  constexpr float kLg1 = 6.6666662693e-01f, kLg2 = 4.0000972152e-01f, kLg3 = 2.8498786688e-01f,
                  kLg4 = 2.4279078841e-01f;
  const U bits = M::bits(x);
  U mantissa = bits & 0x7fffffu;
  // sqrt(2)'s mantissa and above: 1 + f moves into [sqrt(2)/2, 1), the exponent one higher
  const auto big = mantissa >= 0x3504f3u;
  const I e = M::to_signed((bits >> 23) & 0xffu) - 127;
  const I k = M::select(big, e + 1, e);
  mantissa = mantissa | M::select(big, M::splat_u(0x3f000000u), M::splat_u(0x3f800000u));
  const F f = M::from_bits(mantissa) - 1.0f;  // exact
  const F s = M::div(f, 2.0f + f);
  const F z = s * s, w = z * z;
  const F r = M::fma(z, M::fma(w, M::splat(kLg3), M::splat(kLg1)), w * M::fma(w, M::splat(kLg4), M::splat(kLg2)));
  const F hf = 0.5f * f;
  const F dk = M::to_float(k);
  const F inner = M::fma(hf, f, -M::fma(s, M::fma(hf, f, r), dk * kLn2Lo)) - f;
  return M::fma(dk, M::splat(kLn2Hi), -inner);
}

template <typename M>
YATEN_HOST_DEVICE inline void sincos_turns_lanes(typename M::F v, typename M::F* sin_out, typename M::F* cos_out) {
  using F = typename M::F;
  using I = typename M::I;
  constexpr float kTwoPi = 6.28318530718f;
  constexpr float kS1 = -1.6666667163e-01f, kS2 = 8.3333337680e-03f, kS3 = -1.9841270114e-04f,
                  kS4 = 2.7557314297e-06f;
  constexpr float kC1 = 4.1666667908e-02f, kC2 = -1.3888889225e-03f, kC3 = 2.4801587642e-05f,
                  kC4 = -2.7557314297e-07f;
  const F quarters = M::floor(M::fma(v, M::splat(4.0f), M::splat(0.5f)));  // v * 4 is exact; the nearest quarter
  const I q = M::to_int(quarters) & 3;
  const F r = M::fma(quarters, M::splat(-0.25f), v);  // exact
  const F x = r * kTwoPi;
  const F z = x * x;
  const F sin_poly = M::fma(z, M::fma(z, M::fma(z, M::splat(kS4), M::splat(kS3)), M::splat(kS2)), M::splat(kS1));
  const F sin_x = M::fma(x * z, sin_poly, x);
  const F cos_r = z * M::fma(z, M::fma(z, M::fma(z, M::splat(kC4), M::splat(kC3)), M::splat(kC2)), M::splat(kC1));
  const F one_minus = M::fma(M::splat(-0.5f), z, M::splat(1.0f));
  const F cos_x = one_minus + M::fma(z, cos_r, M::fma(M::splat(-0.5f), z, 1.0f - one_minus));
  // the quadrant, without branches (q is random: a switch mispredicts three times in four): odd quadrants swap
  // sin and cos, quadrants 2 and 3 negate the sine, 1 and 2 the cosine
  const auto odd = (q & 1) != 0;
  const F s0 = M::select(odd, cos_x, sin_x), c0 = M::select(odd, sin_x, cos_x);
  *sin_out = M::select((q & 2) != 0, -s0, s0);
  *cos_out = M::select(((q + 1) & 2) != 0, -c0, c0);
}

template <typename M>
YATEN_HOST_DEVICE inline void box_muller_lanes(typename M::F u, typename M::F v, typename M::F* z0,
                                               typename M::F* z1) {
  using F = typename M::F;
  const F radius = M::sqrt(-2.0f * log_positive_lanes<M>(1.0f - u));
  F s, c;
  sincos_turns_lanes<M>(v, &s, &c);
  *z0 = radius * c;
  *z1 = radius * s;
}

// unit_float in M's arithmetic: the top 24 bits as a float (exact), times 2^-24.
template <typename M>
YATEN_HOST_DEVICE inline typename M::F unit_float_lanes(typename M::U x) {
  return M::to_float(M::to_signed(x >> 8)) * (1.0f / 16777216.0f);
}

YATEN_HOST_DEVICE inline float log_positive(float x) { return log_positive_lanes<FloatMath>(x); }
YATEN_HOST_DEVICE inline void sincos_turns(float v, float* sin_out, float* cos_out) {
  sincos_turns_lanes<FloatMath>(v, sin_out, cos_out);
}
YATEN_HOST_DEVICE inline void box_muller(float u, float v, float* z0, float* z1) {
  box_muller_lanes<FloatMath>(u, v, z0, z1);
}

// ---- one functor per op: from one Philox block's bits, the elements at, at + 1, ..., at + count - 1 of the
// tensor (count is kPerBlock but in the last block), written to out[0 .. count). Their loops run kPerBlock times and
// skip what is past `count`: with a loop of `count` trips, r[j] and z[j] take a runtime index, and CUDA keeps such
// arrays in local memory (a 16-byte stack frame in every philox_fill kernel; 0 bytes with the constant count).

template <typename scalar_t>
inline constexpr int kWide = std::is_same_v<scalar_t, double> ? 2 : 4;  // elements per block for a float dtype

// uniform_(from, to): from + (to - from) * u, in double for float64 and in float (one rounding, an fma) otherwise.
template <typename scalar_t>
struct Uniform {
  static constexpr int kPerBlock = kWide<scalar_t>;
  static constexpr bool kFloatLanes = kPerBlock == 4;  // has values<M> (Note [Random numbers in SIMD lanes])
  double from, span;
  YATEN_HOST_DEVICE void operator()(const uint32_t r[4], scalar_t* out, int64_t, int count) const {
    if constexpr (kPerBlock == 2) {
      for (int j = 0; j < kPerBlock; ++j) {
        if (j < count) out[j] = narrow<scalar_t>(fma(span, unit_double(r[2 * j], r[2 * j + 1]), from));
      }
    } else {
      float v[4];
      values<FloatMath>(r, v);
      for (int j = 0; j < kPerBlock; ++j) {
        if (j < count) out[j] = narrow_float<scalar_t>(v[j]);
      }
    }
  }
  // The float path's four values of a block, in M's arithmetic (Note [Random numbers in SIMD lanes]).
  template <typename M>
  YATEN_HOST_DEVICE void values(const typename M::U r[4], typename M::F v[4]) const {
    const float from_f = static_cast<float>(from), span_f = static_cast<float>(span);
    for (int j = 0; j < 4; ++j) v[j] = M::fma(M::splat(span_f), unit_float_lanes<M>(r[j]), M::splat(from_f));
  }
};

// normal_(mean, std): mean + std * z, z standard normal: Box-Muller on 53-bit uniforms in double for float64, on
// 24-bit ones in float otherwise.
template <typename scalar_t>
struct Normal {
  static constexpr int kPerBlock = kWide<scalar_t>;
  static constexpr bool kFloatLanes = kPerBlock == 4;
  double mean, std;
  YATEN_HOST_DEVICE void operator()(const uint32_t r[4], scalar_t* out, int64_t, int count) const {
    if constexpr (kPerBlock == 2) {
      double z[2];
      box_muller(unit_double(r[0], r[1]), unit_double(r[2], r[3]), &z[0], &z[1]);
      for (int j = 0; j < kPerBlock; ++j) {
        if (j < count) out[j] = narrow<scalar_t>(fma(std, z[j], mean));
      }
    } else {
      float v[4];
      values<FloatMath>(r, v);
      for (int j = 0; j < kPerBlock; ++j) {
        if (j < count) out[j] = narrow_float<scalar_t>(v[j]);
      }
    }
  }
  // The float path's four values of a block, in M's arithmetic (Note [Random numbers in SIMD lanes]).
  template <typename M>
  YATEN_HOST_DEVICE void values(const typename M::U r[4], typename M::F v[4]) const {
    typename M::F z[4];
    box_muller_lanes<M>(unit_float_lanes<M>(r[0]), unit_float_lanes<M>(r[1]), &z[0], &z[1]);
    box_muller_lanes<M>(unit_float_lanes<M>(r[2]), unit_float_lanes<M>(r[3]), &z[2], &z[3]);
    const float mean_f = static_cast<float>(mean), std_f = static_cast<float>(std);
    for (int j = 0; j < 4; ++j) v[j] = M::fma(M::splat(std_f), z[j], M::splat(mean_f));
  }
};

// random_(from, to): integers uniform in [from, to), from 64 random bits each.
template <typename scalar_t>
struct RandomInt {
  static constexpr int kPerBlock = 2;
  static constexpr bool kFloatLanes = false;
  int64_t from;
  Mod64 range;
  YATEN_HOST_DEVICE void operator()(const uint32_t r[4], scalar_t* out, int64_t, int count) const {
    for (int j = 0; j < kPerBlock; ++j) {
      if (j >= count) break;
      const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(from) + range(bits64(r[2 * j], r[2 * j + 1])));
      if constexpr (std::is_same_v<scalar_t, bool>) {
        out[j] = v != 0;
      } else if constexpr (std::is_integral_v<scalar_t>) {
        out[j] = static_cast<scalar_t>(v);
      } else {
        out[j] = narrow<scalar_t>(static_cast<double>(v));
      }
    }
  }
};

// bernoulli_(p): 1 where a 24-bit uniform is below p. `p` is one probability, or (with `probs`) one per element,
// read at the element's index.
template <typename scalar_t>
struct Bernoulli {
  static constexpr int kPerBlock = 4;
  static constexpr bool kFloatLanes = true;  // for one probability p (probs null)
  double p;
  const double* probs = nullptr;
  YATEN_HOST_DEVICE void operator()(const uint32_t r[4], scalar_t* out, int64_t at, int count) const {
    for (int j = 0; j < kPerBlock; ++j) {
      if (j >= count) break;
      const double pj = probs != nullptr ? probs[at + j] : p;
      out[j] = static_cast<scalar_t>(static_cast<double>(unit_float(r[j])) < pj ? 1 : 0);
    }
  }
  // For one probability p, the four 0s and 1s of a block in M's arithmetic (Note [Random numbers in SIMD lanes]):
  // a float u is below p (as doubles) exactly when it is below t, the least float at or above p.
  template <typename M>
  void values(const typename M::U r[4], typename M::F v[4]) const {
    float t = static_cast<float>(p);
    if (static_cast<double>(t) < p) t = std::nextafter(t, std::numeric_limits<float>::infinity());
    for (int j = 0; j < 4; ++j) v[j] = M::select(unit_float_lanes<M>(r[j]) < t, M::splat(1.0f), M::splat(0.0f));
  }
};

// ---- the arguments' rules, checked on the host before either backend draws

// The lowest and highest finite values of scalar_t, as doubles.
template <typename scalar_t>
std::pair<double, double> finite_range() {
  if constexpr (std::is_same_v<scalar_t, bool>) {
    return {0, 1};
  } else if constexpr (std::is_same_v<scalar_t, Half>) {
    return {-65504.0, 65504.0};
  } else if constexpr (std::is_same_v<scalar_t, BFloat16>) {
    return {-3.3895313892515355e38, 3.3895313892515355e38};
  } else {
    return {static_cast<double>(std::numeric_limits<scalar_t>::lowest()),
            static_cast<double>(std::numeric_limits<scalar_t>::max())};
  }
}
// uniform_'s bounds, as torch checks them: both values of the dtype (NaN is not), from <= to, and to - from no
// larger than the dtype's largest value.
template <typename scalar_t>
void check_uniform(double from, double to) {
  const auto [lo, hi] = finite_range<scalar_t>();
  const char* name = dtype_name(CppTypeToScalarType<scalar_t>::value);
  YATEN_CHECK(from >= lo && from <= hi, RuntimeError, "uniform_: from is out of bounds for ", name);
  YATEN_CHECK(to >= lo && to <= hi, RuntimeError, "uniform_: to is out of bounds for ", name);
  YATEN_CHECK(from <= to, RuntimeError, "uniform_: expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  YATEN_CHECK(to - from <= hi, RuntimeError, "uniform_: expects to - from <= the largest ", name, ", but found to=",
              to, " and from=", from);
}
inline void check_normal(double std) {
  YATEN_CHECK(std >= 0.0, RuntimeError, "normal_: expects std >= 0.0, but found std ", std);
}
// random_'s bounds, as torch's check_from_to_in_range: `from` and `to - 1` must be values of the dtype (after
// checked_range, so to - 1 does not overflow).
template <typename scalar_t>
void check_random_bounds(int64_t from, int64_t to) {
  const auto [lo, hi] = finite_range<scalar_t>();
  const char* name = dtype_name(CppTypeToScalarType<scalar_t>::value);
  YATEN_CHECK(double(from) >= lo && double(from) <= hi, RuntimeError, "random_: from is out of bounds for ", name);
  YATEN_CHECK(double(to - 1) >= lo && double(to - 1) <= hi, RuntimeError, "random_: to - 1 is out of bounds for ",
              name);
}
inline uint64_t checked_range(int64_t from, int64_t to) {  // random_'s range size
  YATEN_CHECK(from < to, RuntimeError, "random_: expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  return static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
}
inline void check_bernoulli(double p) {
  YATEN_CHECK(p >= 0 && p <= 1, RuntimeError, "bernoulli_: expects p to be in [0, 1], but got p=", p);
}
inline void check_bernoulli_dtype(ScalarType p) {
  YATEN_CHECK(is_floating_point(p), TypeError, "bernoulli_: expected a floating probability tensor, got ",
              dtype_name(p));
}

}  // namespace yaten::native::random_math
