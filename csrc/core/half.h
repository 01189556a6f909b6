// float16 and bfloat16 as types of their own: 16 bits of storage, arithmetic in float.
//
// Conversions from float round to nearest even, as the hardware and PyTorch do; NaN stays NaN.
// Kernels never compute in these types (see Design rule [Opmath]): they load, widen to
// float through opmath_t, and narrow once on store.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__F16C__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#endif

#if defined(__CUDACC__)
#define YATEN_HOST_DEVICE __host__ __device__
#else
#define YATEN_HOST_DEVICE
#endif

namespace yaten {

namespace detail {
YATEN_HOST_DEVICE inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
YATEN_HOST_DEVICE inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// IEEE binary16 <-> binary32, round to nearest even, subnormals preserved, NaN stays NaN (on the host its sign too;
// on the device the hardware's conversion gives its canonical NaN).
YATEN_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  // The device converts in one instruction, with the same rounding. The portable code below took about fifteen
  // there, and made float16's pointwise kernels compute-bound (a.exp() of 128M float16: 0.69x torch on an H100,
  // 1.00x with the instruction).
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#elif defined(__F16C__)
  // The host's one instruction where the build has it (-march=native on x86): the same rounding, NaN quieted with
  // its sign kept; x.half() of 1M floats took 11x torch's time with the portable code below, one element at a time.
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
#else
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal or zero: let float addition do the rounding
    float magic = bits_float(0x3f000000u);  // 0.5: aligns the half subnormal ulp with float's
    float v = bits_float(abs) + magic;
    return static_cast<uint16_t>(sign | (float_bits(v) - 0x3f000000u));
  }
  uint32_t mantissa_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mantissa_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (abs >> 13));
#endif
}

YATEN_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(h)));
  return f;
#elif defined(__F16C__)
  return _cvtsh_ss(h);
#else
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return bits_float(sign);
    float v = static_cast<float>(mantissa) * 5.9604644775390625e-08f;  // 2^-24
    return sign ? -v : v;
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
#endif
}

YATEN_HOST_DEVICE inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding_bias) >> 16);
}

YATEN_HOST_DEVICE inline float bfloat16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}
}  // namespace detail

struct Half {
  uint16_t bits = 0;
  Half() = default;
  YATEN_HOST_DEVICE Half(float f) : bits(detail::float_to_half_bits(f)) {}
  YATEN_HOST_DEVICE operator float() const { return detail::half_bits_to_float(bits); }
  YATEN_HOST_DEVICE static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  YATEN_HOST_DEVICE BFloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}
  YATEN_HOST_DEVICE operator float() const { return detail::bfloat16_bits_to_float(bits); }
  YATEN_HOST_DEVICE static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

}  // namespace yaten
