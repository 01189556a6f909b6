// Vectorized float32 math for the transcendental pointwise ops: exp, exp2, expm1, log, log2, log10, log1p, sin, cos,
// tan, asin, acos, atan, sinh, cosh, tanh, atanh, sigmoid and erf (gelu's too).
//
// Written with GCC/Clang vector types, templated on the vector (V: 8 lanes, `vfloat`, or `wfloat`, 16 lanes where
// the build machine has AVX-512), so one source compiles to AVX-512, AVX2 or SSE2. Each function handles the whole
// float range (inf, NaN, overflow, subnormal inputs and results); its maximum error in ulps, measured over every
// binade by tests/test_vec_math.py, is in docs/cpu-math.md with how the functions are made.
//
// unary_vec_kernel(iter, scalar_f, vec_f) runs vec_f over kWideLanes lanes at a time for float, float16 and bfloat16
// (computing in float; tails and strided rows go through a lane buffer so every element sees the same code), and
// scalar_f for everything else.
//
// The functions a kernel's loop calls, and the pieces they are made of, are always_inline: GCC's size limits left
// some of them out of line in some units (cos, exp, expm1, logaddexp, sinc, float64 expm1's reduction), and a call per
// vector reloads every constant and table the loop would otherwise hold in registers (cos 0.667 -> 0.592 ms per 1M
// floats, 1.26x -> 1.12x NumPy's time). `nm -C libyaten.so | grep ' W yaten::vec::'` lists any left out of line.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__AVX__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "iter/cpu_loops.h"

namespace yaten::vec {

constexpr int kLanes = 8;  // vfloat: the reductions' and softmax's vectors
typedef float vfloat __attribute__((vector_size(32)));
typedef int32_t vint __attribute__((vector_size(32)));
#ifdef __AVX512F__
constexpr int kWideLanes = 16;  // wfloat: the element functions' vectors, one zmm register
#else
constexpr int kWideLanes = 8;
#endif
typedef float wfloat __attribute__((vector_size(4 * kWideLanes)));

// The int32 vector (comparison masks, bit patterns) of the float vector V, and V's lane count.
template <typename V>
struct VecInt {
  typedef int32_t type __attribute__((vector_size(sizeof(V))));
};
template <typename V>
using vint_of = typename VecInt<V>::type;
template <typename V>
struct VecDouble {  // as many doubles as V has floats
  typedef double type __attribute__((vector_size(2 * sizeof(V))));
};
template <typename V>
constexpr int lanes_of = int(sizeof(V) / sizeof(float));

template <typename V>
inline V broadcast(float x) { return V{} + x; }
inline vfloat splat(float x) { return vfloat{} + x; }
template <typename V>
inline vint_of<V> as_int(V x) { return __builtin_bit_cast(vint_of<V>, x); }
template <typename V>
inline V as_float(vint_of<V> x) { return __builtin_bit_cast(V, x); }
inline vfloat as_float(vint x) { return __builtin_bit_cast(vfloat, x); }
template <typename V = vfloat>
inline V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V>
inline void store(float* p, V v) { std::memcpy(p, &v, sizeof v); }

// Note [16-bit rows as float lanes]: float16 by the hardware's conversions (vcvtph2ps, and vcvtps2ph rounding to
// nearest even) where the build has them, bfloat16 by its bits (the upper half of a float; rounded to nearest even,
// a NaN kept quiet, as core/half.h converts one element). One element at a time, through half.h, these conversions
// made float16 and bfloat16 ops 5-8x torch's time (x.half(), h + h, h.exp()).
template <typename V>
inline V load16(const Half* p) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    return reinterpret_cast<V>(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
  }
#endif
#if defined(__F16C__)
  if constexpr (sizeof(V) == 32) return reinterpret_cast<V>(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#endif
  V v;
  for (int k = 0; k < lanes_of<V>; ++k) v[k] = static_cast<float>(p[k]);
  return v;
}
template <typename V>
inline void store16(Half* p, V v) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm512_cvtps_ph(reinterpret_cast<__m512>(v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return;
  }
#endif
#if defined(__F16C__)
  if constexpr (sizeof(V) == 32) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(reinterpret_cast<__m256>(v), _MM_FROUND_TO_NEAREST_INT));
    return;
  }
#endif
  for (int k = 0; k < lanes_of<V>; ++k) p[k] = Half(v[k]);
}
template <typename V>
struct Vec16Bits {  // V's lanes as 16-bit and as unsigned 32-bit integers
  typedef uint16_t narrow __attribute__((vector_size(sizeof(V) / 2)));
  typedef uint32_t wide __attribute__((vector_size(sizeof(V))));
};
template <typename V>
inline V load16(const BFloat16* p) {
  using B = typename Vec16Bits<V>::narrow;
  using U = typename Vec16Bits<V>::wide;
  B b;
  std::memcpy(&b, p, sizeof b);
  return __builtin_bit_cast(V, __builtin_convertvector(b, U) << 16);
}
template <typename V>
inline void store16(BFloat16* p, V v) {
  using B = typename Vec16Bits<V>::narrow;
  using U = typename Vec16Bits<V>::wide;
  const U bits = __builtin_bit_cast(U, v);
  const U rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const U nan = (bits & 0x7fffffffu) > 0x7f800000u;
  const B out = __builtin_convertvector(nan ? (bits >> 16) | 0x40u : rounded, B);
  std::memcpy(static_cast<void*>(p), &out, sizeof out);  // BFloat16 is not trivial to GCC
}
template <typename V>
inline V select(vint_of<V> mask, V a, V b) { return mask ? a : b; }
template <typename V>
inline V abs(V x) {
  return as_float<V>(as_int(x) & 0x7fffffff);
}
template <typename V>
inline V copysign(V magnitude, V sign) {
  return as_float<V>((as_int(magnitude) & 0x7fffffff) | (as_int(sign) & int32_t(0x80000000u)));
}
template <typename V>
inline V min(V a, V b) { return a < b ? a : b; }
template <typename V>
inline V max(V a, V b) { return a > b ? a : b; }
// 2^k for integer-valued k in [-126, 127].
template <typename V>
inline V pow2i(vint_of<V> k) {
  return as_float<V>((k + 127) << 23);
}
// x rounded to the nearest integer (ties to even) for |x| < 2^22, as a float and as an int, by the 1.5 * 2^23 shifter:
// adding it leaves the integer in the low mantissa bits (two float ops and an int op, no conversions).
// Beyond that range (exp meets any x before it clamps) n is garbage, and the int arithmetic on it wraps: it runs in
// unsigned lanes, where wrapping is defined (in int lanes it would be signed overflow, UB that UBSan reports).
template <typename V>
inline vint_of<V> wrapping_add(vint_of<V> a, int32_t b) {
  typedef uint32_t U __attribute__((vector_size(sizeof(V))));
  return __builtin_bit_cast(vint_of<V>, __builtin_bit_cast(U, a) + static_cast<uint32_t>(b));
}
template <typename V>
inline V round_shifted(V x, vint_of<V>& n) {
  const V shifted = x + 12582912.0f;
  n = wrapping_add<V>(as_int(shifted), -0x4b400000);
  return shifted - 12582912.0f;
}

// Whether any lane of a mask is set: one vector test (vptestmd + kortest, or vptest), not a loop over the lanes (GCC
// made 20 instructions of the generic form on AVX-512, a third of exp's cost).
template <typename M>
inline bool any(M mask) {
#if defined(__AVX512F__)
  if constexpr (sizeof(M) == 64) {
    const __m512i bits = reinterpret_cast<__m512i>(mask);
    return _mm512_test_epi32_mask(bits, bits) != 0;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(M) == 32) {
    const __m256i bits = reinterpret_cast<__m256i>(mask);
    return !_mm256_testz_si256(bits, bits);
  }
#endif
  uint64_t parts[sizeof(M) / 8];
  std::memcpy(parts, &mask, sizeof mask);
  uint64_t all = 0;
  for (uint64_t p : parts) all |= p;
  return all != 0;
}
// Whether every lane of x lies strictly between lo and hi (and, with kNonzero, is not zero); NaN lanes do not. On
// AVX-512 the comparisons stay in mask registers (any() of a comparison makes GCC expand the mask into a vector and
// test it again: two instructions more on every vector, 4% of a logarithm); on AVX2 one vmovmskps (or vpmovmskb) of
// the comparisons takes their sign bits, where the generic form inverted the mask and tested it.
template <bool kNonzero = false, typename V, typename T>
inline bool all_between(V x, T lo, T hi) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64 && std::is_integral_v<T>) {
    const __m512i v = reinterpret_cast<__m512i>(x);
    static_assert(!kNonzero);
    return (_mm512_cmpgt_epi32_mask(v, _mm512_set1_epi32(lo)) & _mm512_cmplt_epi32_mask(v, _mm512_set1_epi32(hi))) ==
           __mmask16(0xffff);
  } else if constexpr (sizeof(V) == 64) {
    const __m512 v = reinterpret_cast<__m512>(x);
    __mmask16 inside = _mm512_cmp_ps_mask(v, _mm512_set1_ps(lo), _CMP_GT_OQ) &
                       _mm512_cmp_ps_mask(v, _mm512_set1_ps(hi), _CMP_LT_OQ);
    if constexpr (kNonzero) inside &= _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_OQ);
    return inside == __mmask16(0xffff);
  }
#endif
#if defined(__AVX2__)
  if constexpr (sizeof(V) == 32 && std::is_integral_v<T>) {
    const __m256i v = reinterpret_cast<__m256i>(x);
    static_assert(!kNonzero);
    const __m256i inside = _mm256_and_si256(_mm256_cmpgt_epi32(v, _mm256_set1_epi32(lo)),
                                            _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), v));
    return _mm256_movemask_epi8(inside) == -1;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(V) == 32 && !std::is_integral_v<T>) {  // the comparisons' sign bits at once (vmovmskps)
    const __m256 v = reinterpret_cast<__m256>(x);
    __m256 inside = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_set1_ps(lo), _CMP_GT_OQ),
                                  _mm256_cmp_ps(v, _mm256_set1_ps(hi), _CMP_LT_OQ));
    if constexpr (kNonzero) inside = _mm256_and_ps(inside, _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NEQ_OQ));
    return _mm256_movemask_ps(inside) == 0xff;
  }
#endif
  auto inside = (x > lo) & (x < hi);
  if constexpr (kNonzero) inside &= x != 0;
  return !any(~inside);
}
// a b + c rounded once: one vfmadd where the machine has FMA (GCC keeps the generic loop scalar); elsewhere in double
// lanes, where a b is exact and the sum rounds to double first (so a product's rounding error, the residuals these
// functions take, comes out exact; a general sum may differ from the fused result in its last bit, rarely), not the
// C library's fmaf, which is emulated in software there (a 30-fold slowdown of the logarithms without FMA).
template <typename V>
inline V fma(V a, V b, V c) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    return reinterpret_cast<V>(_mm512_fmadd_ps(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b),
                                               reinterpret_cast<__m512>(c)));
  }
#endif
#if defined(__FMA__)
  if constexpr (sizeof(V) == 32) {
    return reinterpret_cast<V>(_mm256_fmadd_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b),
                                               reinterpret_cast<__m256>(c)));
  }
#endif
  typedef typename VecDouble<V>::type D;
  return __builtin_convertvector(
      __builtin_convertvector(a, D) * __builtin_convertvector(b, D) + __builtin_convertvector(c, D), V);
}
// c[0] + c[1] r + ... + c[N-1] r^(N-1), by Horner's rule (coefficients lowest degree first, as in odd_series).
template <int N, typename V>
inline V horner(V r, const float (&c)[N]) {
  V p = broadcast<V>(c[N - 1]);
  for (int k = N - 2; k >= 0; --k) p = p * r + c[k];
  return p;
}

// e^x 2^kShift: x = n ln2 + r with |r| <= ln2/2 (r and the rounding error of its last step, rlo), a degree-6
// polynomial for e^r, and 2^m, m = n + kShift, as one scaling where m is a normal float's exponent. A vector with a
// lane past that (|x| beyond about 87, infinities, NaN: there n is far out of range, or garbage from the shifter,
// never inside it) is done again with x clamped to [-104, 89] and 2^m applied in two halves, so results that
// overflow become inf and tiny ones subnormal or zero, as expf does; the clamp keeps NaN (its comparisons are false
// for it), which then stays NaN. kShift = -1 gives e^x / 2 without rounding x - ln 2 (cosh, sinh).
constexpr float kExpP[] = {5.0000001201e-1f, 1.6666665459e-1f, 4.1665795894e-2f,
                           8.3334519073e-3f, 1.3981999507e-3f, 1.9875691500e-4f};
template <int kShift, typename V>
inline V exp_reduce(V x, vint_of<V>& m, V& rlo) {  // r, with r + rlo = x - n ln2 exactly and m = n + kShift
  vint_of<V> n;
  const V nf = round_shifted(x * 1.44269504088896341f, n);
  const V a = x - nf * 0.693359375f, b = nf * -2.12194440e-4f;  // a exact
  const V r = a - b;
  rlo = (a - r) - b;  // r + rlo = a - b exactly, as in expm1
  m = wrapping_add<V>(n, kShift);
  return r;
}
// e^r (r from exp_reduce) as hi + lo: 1 + r's rounding error and the polynomial's part kept in lo (sinh, cosh and
// tanh, which e^x's own rounding would otherwise reach).
template <int kShift, typename V>
inline void exp_reduce_parts(V x, vint_of<V>& m, V& hi, V& lo) {
  V rlo;
  const V r = exp_reduce<kShift>(x, m, rlo);
  const V one_r = 1.0f + r;
  const V rest = ((1.0f - one_r) + r) + (horner(r, kExpP) * r * r + rlo);
  hi = one_r + rest;
  lo = (one_r - hi) + rest;  // Fast2Sum
}
template <int kShift, typename V>
__attribute__((always_inline)) inline V exp_reduced(V x, vint_of<V>& m) {
  V rlo;
  const V r = exp_reduce<kShift>(x, m, rlo);
  return (horner(r, kExpP) * r * r + rlo) + r + 1.0f;
}
template <int kShift, typename V>
__attribute__((always_inline)) inline V exp_scaled(V x) {
  vint_of<V> m;
  const V p = exp_reduced<kShift>(x, m);
  if (__builtin_expect(all_between(m, -127, 128), 1)) return p * pow2i<V>(m);
  V xc = select(x < -104.0f, broadcast<V>(-104.0f), x);
  xc = select(xc > 89.0f - 0.6931472f * kShift, broadcast<V>(89.0f - 0.6931472f * kShift), xc);
  const V q = exp_reduced<kShift>(xc, m);
  const vint_of<V> half = m >> 1;
  return q * pow2i<V>(half) * pow2i<V>(m - half);
}
template <typename V>
__attribute__((always_inline)) inline V exp(V x) { return exp_scaled<0>(x); }

// An approximation of 1/d (d positive, normal, finite) for correction terms: vrcp14ps (2^-14) on AVX-512 (the
// zero-masked form: the plain one's header passes an undefined vector, which g++ -O1 warns about), a division
// elsewhere.
template <typename V>
inline V recip_approx(V d) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    return reinterpret_cast<V>(_mm512_maskz_rcp14_ps(__mmask16(0xffff), reinterpret_cast<__m512>(d)));
  }
#endif
  return 1.0f / d;
}
// sigmoid from t = e^-|x|: 1 / (1 + t) for x >= 0, t / (1 + t) below, so large negative x gives the tiny (even
// subnormal) result rather than 1 / (1 + inf) = 0.
template <typename V>
inline V sigmoid(V x) {
  const V t = exp(-abs(x));
  const V inv = 1.0f / (1.0f + t);
  return select(x < 0.0f, t * inv, inv);
}

// ------------------------------------------------------------------------------------------------ erf
// erf in double lanes (erf_lanes), for erfc below 2, which needs more than a float32 erf gives (vec::erf itself is
// float32, Note [Float32 erf]): float32's result needs 1e-9 of relative accuracy, which double polynomials
// reach with well-conditioned fits. |x| <= 1: x P(x^2), P of degree 9 in
// u = 2x^2 - 1 (2e-14 relative); 1 < |x| < 3.92: Q(|x|), degree 19 in u = (|x| - 2.46) / 1.46 (6e-12); above, +-1
// (1 - erf(3.92) is below half an ulp of 1). Chebyshev fits made by tools/vec_poly_fit.py. One rounding to
// float at the end: the correctly rounded result but within 1e-9 of a halfway case.
constexpr double kErfSmallP[] = {0.9654687386698857, -0.14053608902272105, 0.019852496688084025,
                                 -0.0022854855610651044, 0.00021751716323646178, -1.7537169883625154e-05,
                                 1.2233626053497206e-06, -7.51146731041164e-08, 4.138784705768922e-09,
                                 -2.0455529087957395e-10};
constexpr double kErfLargeP[] = {0.9994966463547102, 0.003878210963239405, -0.013928981502132776,
                                 0.030595956560064884, -0.04504724562245535, 0.04515114593615488,
                                 -0.028448483535374124, 0.006277971827820895, 0.007354798262060428,
                                 -0.008473304789501476, 0.0033093304067821185, 0.0007977217789755452,
                                 -0.001568709466350893, 0.0006211432421738549, 0.00015359400406744889,
                                 -0.00023077694558249571, 3.886794076990864e-05, 3.3126165453679465e-05,
                                 -9.435177557133578e-06, -1.6060190368607659e-06};
template <int N, typename D>
inline D horner_double(D u, const double (&c)[N]) {
  D p = D{} + c[N - 1];
  for (int k = N - 2; k >= 0; --k) p = p * u + c[k];
  return p;
}
// erf of double lanes d (the two polynomials; +-1 beyond 3.92).
template <typename D>
inline D erf_lanes(D d) {
  const D a = d < 0.0 ? -d : d;
  const D small = d * horner_double(2.0 * d * d - 1.0, kErfSmallP);
  D large = horner_double((a - 2.46) * (1.0 / 1.46), kErfLargeP);
  large = a < 3.92 ? large : D{} + 1.0;
  large = d < 0.0 ? -large : large;
  return a <= 1.0 ? small : large;
}
// Note [Float32 erf]: float lanes, no double. |x| falls in one of sixteen pieces of width 1/4 on [0, 4), each around
// a point m (0 for the first two, the piece's middle elsewhere); with v = |x| - m (exact),
//   erf(|x|) = K_hi + (c1 v + (v R(v) + K_lo))
// where K_hi + K_lo is erf(m) in two floats, c1 erf'(m) rounded to a float and R of degree 5 (its constant term takes
// up c1's rounding). The two outer steps are fused multiply-adds, so the result is K_hi plus a correction rounded
// once, then rounded once more: 0.69 ulp over the whole domain (tools/vec_poly_fit.py fits each piece and models its
// float32 arithmetic; tests/test_vec_math.py measures every binade), within SLEEF's 1.0 that torch's erf keeps. The
// piece is trunc(4 |x|), and its coefficients are picked per lane from 16-entry tables by one permute (vpermps)
// each (on AVX-512; where a register holds 8 floats, erf_core takes eight pieces of width 1/2 with R of degree 8, so
// that a pick is one vpermps there too: kErfPiece8*, below). From 3.921875 erf is +-1 (1 - erf there is below half an
// ulp of 1); the sign is x's; NaN stays NaN. Below 2^-32 the first piece's correction would underflow: there erf is
// (2/sqrt(pi)) x, multiplied in double. Each table is 16 floats, so one aligned load gives a vector of it.
struct alignas(64) Table16 {
  float value[16];
};
constexpr Table16 kErfPieceM = {{0.0f, 0.0f, 0.625f, 0.875f, 1.125f, 1.375f, 1.625f, 1.875f, 2.125f, 2.375f,
                                   2.625f, 2.875f, 3.125f, 3.375f, 3.625f, 3.875f}};
constexpr Table16 kErfPieceKHi = {{0.0f, 0.0f, 0.6232408881187439f, 0.7840750813484192f, 0.8883882164955139f,
                                   0.9481700658798218f, 0.9784437417984009f, 0.9919900298118591f,
                                   0.9973459839820862f, 0.9992170333862305f, 0.999794602394104f,
                                   0.9999521374702454f, 0.9999901056289673f, 0.9999982118606567f,
                                   0.9999997019767761f, 0.9999999403953552f}};
constexpr Table16 kErfPieceKLo = {{0.0f, 0.0f, -5.93032600804122e-09f, -2.0288560165226954e-08f,
                                   1.520619363759579e-08f, 6.902268534503264e-09f, -8.55841708613525e-09f,
                                   2.7858261475444124e-08f, -1.334156873866732e-08f, 2.839587764924545e-08f,
                                   2.1869754007752817e-08f, 7.69001040623607e-09f, -2.3635924328857527e-09f,
                                   -2.7142084135789446e-08f, 2.8830313691941e-09f, 1.7090700410449244e-08f}};
constexpr Table16 kErfPieceC1 = {{1.128379225730896f, 1.128379225730896f, 0.7634995579719543f, 0.5247450470924377f,
                                   0.31827396154403687f, 0.1703597754240036f, 0.08047226071357727f,
                                   0.033545829355716705f, 0.012340820394456387f, 0.004006478004157543f,
                                   0.0011478750966489315f, 0.0002902282867580652f, 6.475868576671928e-05f,
                                   1.2751740541716572e-05f, 2.2159201762406155e-06f, 3.398223782369314e-07f}};
constexpr Table16 kErfPieceR[6] = {  // kErfPieceR[k]: the pieces' coefficients of v^k
    {{-5.558071691780242e-08f, 3.105484211118892e-05f, -1.645317659892953e-08f, 5.93109739099873e-09f,
      9.68063962325516e-10f, -2.3095452217347656e-09f, -4.255509278294767e-09f, -2.9839395399022806e-09f,
      -5.637721400830742e-10f, -9.528801359071082e-11f, 3.1139754663733754e-10f, 2.1643514758196147e-10f,
      1.0897092256323404e-10f, 4.3160690299526294e-11f, 1.3383720347259764e-11f, -4.796647020549605e-13f}},
    {{-8.652550036458706e-07f, -0.0005504275322891772f, -0.47718721628189087f, -0.4591519236564636f,
      -0.35805821418762207f, -0.2342446893453598f, -0.13076741993427277f, -0.0628984272480011f,
      -0.02622424252331257f, -0.009515384212136269f, -0.003013172186911106f, -0.0008344064117409289f,
      -0.0002023709675995633f, -4.303716559661552e-05f, -8.032725418161135e-06f, -1.3168099712856929e-06f}},
    {{-0.37608602643013f, -0.3720659613609314f, -0.05567479133605957f, 0.09291964024305344f, 0.16245028376579285f,
      0.15793800354003906f, 0.11484193056821823f, 0.0674421414732933f, 0.033037807792425156f, 0.013730509206652641f,
      0.004890281707048416f, 0.0015024231979623437f, 0.000399962707888335f, 9.256100020138547e-05f,
      1.8666954929358326e-05f, 3.289156211394584e-06f}},
    {{-0.0006920431042090058f, -0.01609259471297264f, 0.1764601171016693f, 0.11239859461784363f,
      0.02797537110745907f, -0.030499473214149475f, -0.049718763679265976f, -0.042260292917490005f,
      -0.026361210271716118f, -0.013133376836776733f, -0.005414303857833147f, -0.0018817230593413115f,
      -0.0005575434188358486f, -0.00014187292254064232f, -3.116304651484825e-05f, -5.928549398959149e-06f}},
    {{0.11822427809238434f, 0.14940619468688965f, -0.027035050094127655f, -0.06670898199081421f,
      -0.06106109544634819f, -0.030643925070762634f, -0.002303276676684618f, 0.011328012682497501f,
      0.01244421023875475f, 0.008360578678548336f, 0.004236414097249508f, 0.001727707334794104f,
      0.0005842620157636702f, 0.00016657977539580315f, 4.0459581214236096e-05f, 8.018963853828609e-06f}},
    {{-0.01947110705077648f, -0.046244245022535324f, -0.04123933985829353f, -0.010492819361388683f,
      0.015336309559643269f, 0.02203439734876156f, 0.014400050044059753f, 0.004148995969444513f,
      -0.0017796705942600965f, -0.003096141619607806f, -0.002245744690299034f, -0.0011441392125561833f,
      -0.00045566578046418726f, -0.0001480647042626515f, -4.013690704596229e-05f, -1.1576618817343842e-05f}}};
// table[index & 15] in each lane: one vpermps of 16 lanes (which reads only the index's low four bits), or two of 8
// and a blend, where the machine has them.
template <typename V>
inline V pick(const Table16& table, vint_of<V> index) {
  V t;
  std::memcpy(&t, table.value, sizeof t);
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    return reinterpret_cast<V>(_mm512_permutexvar_ps(reinterpret_cast<__m512i>(index), reinterpret_cast<__m512>(t)));
  }
#endif
#if defined(__AVX2__)
  if constexpr (sizeof(V) == 32) {
    V upper;
    std::memcpy(&upper, table.value + 8, sizeof upper);
    const __m256i i = reinterpret_cast<__m256i>(index);
    const V lo = reinterpret_cast<V>(_mm256_permutevar8x32_ps(reinterpret_cast<__m256>(t), i));
    const V hi = reinterpret_cast<V>(_mm256_permutevar8x32_ps(reinterpret_cast<__m256>(upper), i));
    return select((index & 8) != 0, hi, lo);
  }
#endif
  V r;
  for (int k = 0; k < lanes_of<V>; ++k) r[k] = table.value[index[k] & 15];
  return r;
}
// Note [Float32 erf]'s layout for 8-float registers (AVX2): eight pieces of width 1/2 (m = 0 for the first, the
// middle elsewhere), R of degree 8 (tools/vec_poly_fit.py, ERF_PIECES8; degree 7 was 0.79 ulp on the first piece,
// where the sixteen have two), and each coefficient one 8-entry table, picked by one vpermps where the sixteen-entry
// tables take two and a blend (erf took torch's time on AVX2, gelu 1.8x torch's, each pick three instructions of
// about 45).
struct alignas(32) Table8 {
  float value[8];
};
constexpr Table8 kErfPiece8M = {{0.0f, 0.75f, 1.25f, 1.75f, 2.25f, 2.75f, 3.25f, 3.75f}};
constexpr Table8 kErfPiece8KHi = {{0.0f, 0.7111556529998779f, 0.9229001402854919f, 0.9866716861724854f,
                                   0.9985373020172119f, 0.9998993873596191f, 0.9999957084655762f,
                                   0.9999998807907104f}};
constexpr Table8 kErfPiece8KLo = {{0.0f, -1.9346362734040667e-08f, -1.202903376906761e-08f,
                                   -1.4953302596154572e-08f, -1.8603893536806027e-08f, -9.281738932997996e-09f,
                                   -1.1245039566176729e-08f, 5.482033049730717e-09f}};
constexpr Table8 kErfPiece8C1 = {{1.128379225730896f, 0.6429310441017151f, 0.23652112483978271f,
                                  0.05277499556541443f, 0.00714231887832284f, 0.0005862772231921554f,
                                  2.9189024644438177e-05f, 8.814321859063057e-07f}};
constexpr Table8 kErfPiece8R[9] = {  // kErfPiece8R[k]: the pieces' coefficients of v^k
    {{-5.8661505875079456e-08f, 2.5096833056181822e-08f, -2.400030618687765e-09f, 3.6514713475099825e-10f,
      1.44362452547675e-10f, 2.3743606039627885e-11f, 7.087396533371482e-13f, 5.127376726866452e-14f}},
    {{8.181458177602963e-09f, -0.4821982979774475f, -0.2956514060497284f, -0.09235624223947525f,
      -0.01607021689414978f, -0.0016122624510899186f, -9.486432827543467e-05f, -3.305370910311467e-06f}},
    {{-0.37612682580947876f, 0.02678879350423813f, 0.16753579676151276f, 0.09015728533267975f,
      0.021724553778767586f, 0.002760388655588031f, 0.0001958097273018211f, 7.969598300405778e-06f}},
    {{8.605747098044958e-06f, 0.15068699419498444f, -0.0061592720448970795f, -0.048102281987667084f,
      -0.019083386287093163f, -0.0032581044360995293f, -0.0002865696733351797f, -1.3841203326592222e-05f}},
    {{0.11275164037942886f, -0.05324258655309677f, -0.047181181609630585f, 0.006624365225434303f,
      0.010657697916030884f, 0.0027558039873838425f, 0.000313796364935115f, 1.8372902559349313e-05f}},
    {{0.000481113966088742f, -0.02687389776110649f, 0.02129492536187172f, 0.008966539986431599f,
      -0.0029042400419712067f, -0.0016577692003920674f, -0.0002635119017213583f, -1.9272845747764222e-05f}},
    {{-0.02841073088347912f, 0.018429409712553024f, 0.0036305126268416643f, -0.006058798637241125f,
      -0.0006711541209369898f, 0.0006462071323767304f, 0.00017002304957713932f, 1.6195122952922247e-05f}},
    {{0.002754626329988241f, 0.0023286105133593082f, -0.0055771637707948685f, 0.0006634497549384832f,
      0.0009973932756111026f, -8.062730921665207e-05f, -8.197334682336077e-05f, -1.1232968972763047e-05f}},
    {{0.002969062654301524f, -0.0038678247947245836f, 0.0008149135974235833f, 0.0008938629180192947f,
      -0.0003582069184631109f, -7.389663369394839e-05f, 2.54112237598747e-05f, 7.274607924045995e-06f}},
};
// table[index & 7] in each lane: one vpermps (which reads only the index's low three bits) where the machine has it.
template <typename V>
inline V pick8(const Table8& table, vint_of<V> index) {
#if defined(__AVX2__)
  if constexpr (sizeof(V) == 32) {
    V t;
    std::memcpy(&t, table.value, sizeof t);
    return reinterpret_cast<V>(_mm256_permutevar8x32_ps(reinterpret_cast<__m256>(t), reinterpret_cast<__m256i>(index)));
  }
#endif
  V r;
  for (int k = 0; k < lanes_of<V>; ++k) r[k] = table.value[index[k] & 7];
  return r;
}
// erf(a) for 0 <= a < 3.921875 by the eight pieces (NaN and larger lanes get some piece, their results replaced).
template <typename V>
__attribute__((always_inline)) inline V erf_pieces8(V a) {
  const vint_of<V> piece = __builtin_convertvector(min(a, broadcast<V>(3.75f)) * 2.0f, vint_of<V>);  // trunc(2a)
  const V v = a - pick8<V>(kErfPiece8M, piece);
  V p = pick8<V>(kErfPiece8R[8], piece);  // R's terms above the constant, (R(v) - R_0) / v, by Horner's rule
  for (int k = 7; k >= 1; --k) p = fma(p, v, pick8<V>(kErfPiece8R[k], piece));
  const V inner = fma(v, fma(p, v, pick8<V>(kErfPiece8R[0], piece)), pick8<V>(kErfPiece8KLo, piece));
  return pick8<V>(kErfPiece8KHi, piece) + fma(v, pick8<V>(kErfPiece8C1, piece), inner);
}
// Note [Float32 tanh]: erf's pieces (Note [Float32 erf]) for tanh, in a layout that follows its curve: the piece is
// picked by |x| + 1's exponent and two leading mantissa bits, so it is |x| + 1 in a quarter of a binade, four pieces
// of width 1/4 on [0, 1), four of 1/2 on [1, 3), four of 1 on [3, 7) and one from 7 to 9.0109, from where tanh rounds
// to 1 (the last three table entries repeat it). The rounding of |x| + 1 may move a lane just across a boundary,
// which the fits cover. On the first piece m = 0 and c1 = 1, so tanh(x) = x exactly where x^3/3 is below half an ulp
// (subnormals too) and no lane needs a special path. 0.79 ulp over the whole domain (tools/vec_poly_fit.py fits and
// models each piece; tests/test_vec_math.py measures every binade), where the previous 1 - 2 / (e^{2|x|} + 1) with
// its remainder kept was 0.69 ulp at twice the cost (0.77 -> 0.38 ms per 1M floats, 16 lanes; NumPy's SVML loop, 1.37
// ulp, 0.37).
constexpr Table16 kTanhPieceM = {{0.0f, 0.375f, 0.625f, 0.875f, 1.25f, 1.75f, 2.25f, 2.75f, 3.5f, 4.5f, 5.5f, 6.5f,
                                  8.0f, 8.0f, 8.0f, 8.0f}};
constexpr Table16 kTanhPieceKHi = {{0.0f, 0.35835739970207214f, 0.5545997023582458f, 0.7039055824279785f,
                                    0.8482836484909058f, 0.9413755536079407f, 0.9780260920524597f, 0.9918597340583801f,
                                    0.9981778860092163f, 0.9997532367706299f, 0.9999666213989258f, 0.9999954700469971f,
                                    0.9999997615814209f, 0.9999997615814209f, 0.9999997615814209f,
                                    0.9999997615814209f}};
constexpr Table16 kTanhPieceKLo = {{0.0f, -1.3512861940512266e-09f, 1.9991135857821973e-08f, 2.150864197858482e-08f,
                                    -8.5333926591602e-09f, -1.5110654061345485e-08f, 2.268635412860931e-08f,
                                    -9.490172203641123e-09f, 1.1601982485842655e-08f, -2.5922602731043298e-08f,
                                    -2.424262213196471e-08f, 9.304407022625583e-09f, 1.3348254945810822e-08f,
                                    1.3348254945810822e-08f, 1.3348254945810822e-08f, 1.3348254945810822e-08f}};
constexpr Table16 kTanhPieceC1 = {{1.0f, 0.8715800046920776f, 0.692419171333313f, 0.5045168995857239f,
                                   0.280414879322052f, 0.11381209641695023f, 0.043464917689561844f,
                                   0.016214286908507347f, 0.003640884766355157f, 0.0004935173783451319f,
                                   6.680456863250583e-05f, 9.04127682588296e-06f, 4.5014058969172766e-07f,
                                   4.5014058969172766e-07f, 4.5014058969172766e-07f, 4.5014058969172766e-07f}};
constexpr Table16 kTanhPieceR[6] = {  // kTanhPieceR[k]: the pieces' coefficients of v^k
    {{5.61000490506558e-09f, -2.4457136760247522e-08f, -1.1048795656165566e-08f, 5.793529211928217e-09f,
      -1.330889887185549e-07f, -5.340608666415392e-08f, -1.6787679024687918e-09f, 2.682353228422585e-09f,
      7.118467948430407e-08f, 1.083674749935426e-08f, 1.4887135968422172e-09f, 2.0139988288203625e-10f,
      7.153442282969991e-10f, 7.153442282969991e-10f, 7.153442282969991e-10f, 7.153442282969991e-10f}},
    {{-1.5962642692102236e-06f, -0.31233713030815125f, -0.3840155005455017f, -0.3551322817802429f,
      -0.23787133395671844f, -0.10713987052440643f, -0.04250981658697128f, -0.016082298010587692f,
      -0.0036342772655189037f, -0.0004934001481160522f, -6.680297519778833e-05f, -9.041322300618049e-06f,
      -4.503802131239354e-07f, -4.503802131239354e-07f, -4.503802131239354e-07f, -4.503802131239354e-07f}},
    {{-0.33325839042663574f, -0.17860101163387299f, -0.017837824299931526f, 0.08180493116378784f, 0.10832613706588745f,
      0.06292824447154999f, 0.027087777853012085f, 0.010546261444687843f, 0.002411725465208292f, 0.0003284229023847729f,
      4.4484517275122926e-05f, 6.021008175594034e-06f, 2.944887285138975e-07f, 2.944887285138975e-07f,
      2.944887285138975e-07f, 2.944887285138975e-07f}},
    {{-0.0012953619007021189f, 0.1681119203567505f, 0.13790033757686615f, 0.06079655513167381f, -0.012586482800543308f,
      -0.02352377399802208f, -0.01232297345995903f, -0.005099988542497158f, -0.0011975493980571628f,
      -0.00016411289107054472f, -2.2247832021093927e-05f, -3.011605031133513e-06f, -1.4851569574148016e-07f,
      -1.4851569574148016e-07f, -1.4851569574148016e-07f, -1.4851569574148016e-07f}},
    {{0.1435418426990509f, 0.01900266669690609f, -0.05433562025427818f, -0.05854729935526848f, -0.01969098672270775f,
      0.0034821759909391403f, 0.003976817708462477f, 0.0019148170249536633f, 0.0004903762019239366f,
      6.830440543126315e-05f, 9.279809091822244e-06f, 1.2565423048727098e-06f, 7.086947562129353e-08f,
      7.086947562129353e-08f, 7.086947562129353e-08f, 7.086947562129353e-08f}},
    {{-0.03765491023659706f, -0.06914807856082916f, -0.024262169376015663f, 0.012920945882797241f,
      0.015111790969967842f, 0.002089553978294134f, -0.0007184272399172187f, -0.000545509101357311f,
      -0.00015708283171989024f, -2.2508733309223317e-05f, -3.0693915960000595e-06f, -4.15821915566994e-07f,
      -2.2755934026008617e-08f, -2.2755934026008617e-08f, -2.2755934026008617e-08f, -2.2755934026008617e-08f}},
};
template <typename V>
__attribute__((always_inline)) inline V tanh(V x) {  // inlined, so a loop loads its 10 tables once
  const V a = abs(x);
  const vint_of<V> piece = (as_int(a + 1.0f) >> 21) - 508;  // (127 << 2): |x| + 1 in [1, 2) is piece 0 to 3
  const V v = a - pick<V>(kTanhPieceM, piece);
  V p = pick<V>(kTanhPieceR[5], piece);
  for (int k = 4; k >= 0; --k) p = fma(p, v, pick<V>(kTanhPieceR[k], piece));
  const V inner = fma(v, p, pick<V>(kTanhPieceKLo, piece));
  const V r = pick<V>(kTanhPieceKHi, piece) + fma(v, pick<V>(kTanhPieceC1, piece), inner);
  const V result = copysign(select(a < 9.010913848876953f, r, broadcast<V>(1.0f)), x);  // inf: 1; -0 stays -0
  return select(x != x, x, result);
}
// The piece of a (|x| < 4; NaN and larger lanes get some piece, their results replaced), v = a - m, and R's terms
// above the constant: returns (R(v) - R_0) / v, by Horner's rule.
template <typename V>
__attribute__((always_inline)) inline V erf_upper_terms(V a, vint_of<V>& piece, V& v) {
  piece = __builtin_convertvector(min(a, broadcast<V>(3.9375f)) * 4.0f, vint_of<V>);  // trunc(4a)
  v = a - pick<V>(kErfPieceM, piece);
  V p = pick<V>(kErfPieceR[5], piece);
  for (int k = 4; k >= 1; --k) p = fma(p, v, pick<V>(kErfPieceR[k], piece));
  return p;
}
// inner = v R(v) + K_lo: erf(a) = K_hi + (c1 v + inner).
template <typename V>
__attribute__((always_inline)) inline V erf_inner(V a, vint_of<V>& piece, V& v) {
  const V p = erf_upper_terms(a, piece, v);
  return fma(v, fma(p, v, pick<V>(kErfPieceR[0], piece)), pick<V>(kErfPieceKLo, piece));
}
// erf without its guards when kGuarded is false, for a caller that scales it by a multiple of x (gelu's
// x/2 (1 + erf(x/sqrt 2))): below 2^-32 the piece's result (rounded to about 2^-24 relative) is far below the ulp
// of the x/2 it is added to, and a NaN lane yields +-1, which x's NaN then carries.
template <bool kGuarded, typename V>
__attribute__((always_inline)) inline V erf_core(V x) {
  const V a = abs(x);
  V r;
  if constexpr (sizeof(V) == 32) {  // 8 lanes: the eight pieces, a pick each one instruction
    r = erf_pieces8(a);
  } else {
    vint_of<V> piece;
    V v;
    const V inner = erf_inner(a, piece, v);
    r = pick<V>(kErfPieceKHi, piece) + fma(v, pick<V>(kErfPieceC1, piece), inner);
  }
  if constexpr (kGuarded) {
    // below 2^-32, erf(a) = (2/sqrt(pi)) a to float precision, where c1's correction a R(0) would underflow: the
    // product in double, rounded once (rare lanes)
    const vint_of<V> tiny = a < 2.3283064365386963e-10f;
    if (__builtin_expect(any(tiny), 0)) {
      for (int k = 0; k < lanes_of<V>; ++k) {
        if (tiny[k]) r[k] = static_cast<float>(static_cast<double>(a[k]) * 1.1283791670955126);
      }
    }
  }
  const V result = copysign(select(a < 3.921875f, r, broadcast<V>(1.0f)), x);
  return kGuarded ? select(x != x, x, result) : result;
}
template <typename V>
__attribute__((always_inline)) inline V erf(V x) {  // inlined, so a loop loads its 10 tables once
  return erf_core<true>(x);
}
// Note [Gelu's erf as one rational function]: gelu on 8-float registers (AVX2) takes erf(x / sqrt 2) as
// x P(x^2) / Q(x^2), P of degree 5 and Q of degree 6, every coefficient positive (so Q >= 1 on the range: no pole and
// no cancellation), fitted to 2.3e-8 of erf on |x| <= 4 sqrt 2, +-1 beyond (erfc 4 = 1.5e-8); tools/vec_poly_fit.py,
// gelu_rationals. Eleven fused multiply-adds and a division where the eight pieces (Table8) take 13 picks, and a
// vpermps costs two cycles of throughput on Zen 2: the picks were 26 of gelu's 34 cycles per 8 lanes (1.35 ms per 1M
// floats, 1.3x torch's oneDNN kernel; this form 0.65 ms). The float evaluation rounds both polynomials step by step,
// so this erf is within 3.4e-7 where the pieces hold 6e-8: gelu is within 2.6 ulp for x >= 0 and 4.1 on [-1, 0) (the
// pieces 0.94 and 2.3; torch's float32 gelu 7.4 and 8.8) and within 2.1e-7 |x| absolute on [-3, -1), where 1 + erf
// cancels (the pieces 7.7e-8 |x|; torch 1.2e-7 |x|: 678 ulp at worst there against torch's 548, the mean square
// error half of torch's). Below -3, where that cancellation would cost more (10^4 to 10^8 ulp), a vector with such a
// lane also takes Phi(x) = e^(-x^2/2) R(-x), R = P/Q of degrees 4 and 5 fitted to 2.2e-8 relative on [0, 14.5] (half
// of erfcx(a / sqrt 2)), x^2 held exactly as a sum of two floats: within 10 ulp down to the subnormal results (torch
// 10^4 and more), on every machine. AVX-512 keeps the sixteen pieces above -3. The erf op keeps its pieces.
constexpr float kGeluErfP[] = {0.7978845834732056f, 0.06808928400278091f, 0.00987011007964611f,
                               0.0003739096282515675f, 1.8414590158499777e-05f, 1.549023807001504e-07f};
constexpr float kGeluErfQ[] = {1.0f, 0.25200405716896057f, 0.029370713979005814f, 0.0020401605870574713f,
                               8.930451440392062e-05f, 2.3171546672529075e-06f, 4.254426588801152e-09f};
constexpr float kGeluTailP[] = {0.5f, 0.43829700350761414f, 0.18323644995689392f, 0.04063360393047333f,
                                0.004116346128284931f};
constexpr float kGeluTailQ[] = {1.0f, 1.6744790077209473f, 1.2025090456008911f, 0.46947401762008667f,
                                0.10185978561639786f, 0.010318029671907425f};
template <typename V>
__attribute__((always_inline)) inline V gelu(V x) {  // x Phi(x) = x/2 (1 + erf(x / sqrt 2))
  const V half = 0.5f * x;
  V r;
  if constexpr (sizeof(V) == 32) {
    constexpr float kTop = 5.656854152679443f;  // 4 sqrt 2
    const V clamped = max(min(x, broadcast<V>(kTop)), broadcast<V>(-kTop));
    const V u = clamped * clamped;
    const V e = select(abs(x) < kTop, clamped * horner(u, kGeluErfP) / horner(u, kGeluErfQ),
                       copysign(broadcast<V>(1.0f), x));  // NaN: +-1, and x/2 carries the NaN
    r = fma(half, e, half);
  } else {  // the sixteen pieces (Note [Float32 erf]), without erf's guards, which x/2 makes needless
    r = fma(half, erf_core<false>(x * 0.70710678118654752f), half);
  }
  const vint_of<V> tail = x < -3.0f;
  if (__builtin_expect(any(tail), 0)) {
    const V a = min(-x, broadcast<V>(14.5f));  // below -14.5 Phi(x) x is below the smallest subnormal: -0
    const V hi = a * a, lo = fma(a, a, -hi);
    const V ratio = horner(a, kGeluTailP) / horner(a, kGeluTailQ);
    const V phi = exp(hi * -0.5f) * fma(ratio, lo * -0.5f, ratio);  // e^(-(hi + lo)/2) R(a)
    r = select(tail, x * select(x > -14.5f, phi, broadcast<V>(0.0f)), r);  // -inf: -inf * 0, NaN as torch's
  }
  return r;
}
// erf(a) - b for a < 3.921875, to about 2^-30 of erf plus one rounding (erfc): the piece's
// polynomial with its last two steps' rounding errors recovered by fused multiply-adds, the correction c1 v + inner
// carried in two floats (the product's error by a fused multiply-add), and K_hi - b and the sums after it by Knuth's
// two-sum, every error gathered into one small term added before the last rounding.
template <typename V>
__attribute__((always_inline)) inline V two_sum_error(V a, V b, V sum) {  // a + b - sum, exactly
  const V back = sum - a;
  return (a - (sum - back)) + (b - back);
}
template <typename V>
__attribute__((always_inline)) inline V erf_minus(V a, V b) {
  vint_of<V> piece;
  V v, p, p_error = V{}, r0, k_lo, c1, k_hi;
  if constexpr (sizeof(V) == 32) {
    // 8 lanes: the eight pieces (Table8), one vpermps a pick where the sixteen take two and a blend (erfc 1.10x ->
    // 0.96x torch's time on Zen 2, whose vpermps costs two cycles). Their fits hold 2.2e-9 of erfc on [0, 1); v is
    // twice as wide, so the step to R_1 keeps its rounding error too (without it 0.65 ulp on [0, 1), with it 0.56; the
    // sixteen pieces 0.51).
    piece = __builtin_convertvector(min(a, broadcast<V>(3.75f)) * 2.0f, vint_of<V>);  // trunc(2a)
    v = a - pick8<V>(kErfPiece8M, piece);
    V upper = pick8<V>(kErfPiece8R[8], piece);
    for (int k = 7; k >= 2; --k) upper = fma(upper, v, pick8<V>(kErfPiece8R[k], piece));
    const V r1 = pick8<V>(kErfPiece8R[1], piece);
    p = fma(upper, v, r1), p_error = fma(upper, v, r1 - p);
    r0 = pick8<V>(kErfPiece8R[0], piece), k_lo = pick8<V>(kErfPiece8KLo, piece);
    c1 = pick8<V>(kErfPiece8C1, piece), k_hi = pick8<V>(kErfPiece8KHi, piece);
  } else {
    p = erf_upper_terms(a, piece, v);
    r0 = pick<V>(kErfPieceR[0], piece), k_lo = pick<V>(kErfPieceKLo, piece);
    c1 = pick<V>(kErfPieceC1, piece), k_hi = pick<V>(kErfPieceKHi, piece);
  }
  const V poly = fma(p, v, r0), poly_error = fma(p, v, r0 - poly) + v * p_error;
  const V inner = fma(v, poly, k_lo);
  const V inner_error = fma(v, poly, k_lo - inner) + v * poly_error;
  const V product = v * c1, product_error = fma(v, c1, -product);
  const V sum = product + inner, sum_error = two_sum_error(product, inner, sum);
  const V minus_b = -b;
  const V head = k_hi + minus_b, head_error = two_sum_error(k_hi, minus_b, head);
  const V total = head + sum, total_error = two_sum_error(head, sum, total);
  return total + ((total_error + head_error) + (sum_error + (product_error + inner_error)));
}

// ------------------------------------------------------------------------------------------------ logarithms
// Note [Vectorized logarithms]: x = m 2^e with m in [1, 2) (vgetmantps and vgetexpps on AVX-512; the bits
// elsewhere, subnormals scaled by 2^23 first), and m = c (1 + r) for the c of m's sixteenth of [1, 2) (its
// mantissa's top four bits pick it; c = 1 for the first and c = 2 for the last, whose ln c is e's ln2_hi + ln2_lo
// exactly, so for x just below 1 (e = -1) the two cancel to 0 and results near 0 keep their relative accuracy). 1/c is
// a float from a table and r + rlo = m (1/c) - 1 exactly (the product and its error by one fused multiply-add, then a
// subtraction Sterbenz makes exact), -1/32 <= r < 1/16. Then
//   ln x = e ln2 + ln c + log1p(r + rlo),  log1p(r) = r - r^2/2 + r^3 P(r), P of degree 2 (0.05 ulp),
// with e ln2_hi + (ln c)_hi exact (ln2_hi has 9 bits and (ln c)_hi is on a grid of 2^-17), the sum with r kept with
// its rounding error (Fast2Sum: that sum is 0 or at least 3 |r|), and rlo entering to second order (rlo (1 - r)).
// The result comes as s + small, |small| far below s's ulp, so log2 and log10 scale it with the product's rounding
// error kept, and every function rounds once at the end: 0.56 ulp worst (log, log2, log10, log1p). The tables and
// P are made by tools/vec_poly_fit.py (log_tables). Special values: log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr Table16 kLogInverse = {{
    1.0f, 0.9142857193946838f, 0.8648648858070374f, 0.8205128312110901f, 0.7804877758026123f, 0.7441860437393188f,
    0.7111111283302307f, 0.6808510422706604f, 0.6530612111091614f, 0.6274510025978088f, 0.6037735939025879f,
    0.581818163394928f, 0.5614035129547119f, 0.5423728823661804f, 0.5245901346206665f, 0.5f}};
constexpr Table16 kLogCHi = {{
    0.0f, 0.0896148681640625f, 0.14517974853515625f, 0.19782257080078125f, 0.247833251953125f, 0.29546356201171875f,
    0.3409271240234375f, 0.3844146728515625f, 0.42608642578125f, 0.46608734130859375f, 0.5045547485351562f,
    0.541595458984375f, 0.5773162841796875f, 0.6118011474609375f, 0.6451416015625f, kLn2Hi}};
constexpr Table16 kLogCLo = {{
    0.0f, -2.7150622372573707e-06f, 2.237095031887293e-06f, 3.1594906886311946e-06f, 2.949204372271197e-06f,
    6.546073905155936e-07f, -5.612672566712718e-07f, -2.9422762963804416e-06f, -2.0099812445550924e-06f,
    2.3532256818725727e-06f, 1.247316049557412e-06f, 1.8551132825450622e-06f, -9.265954190595949e-07f,
    3.9178240740511683e-07f, -3.5843095247400925e-06f, kLn2Lo}};
constexpr float kLog1pP[] = {0.33334457874298096f, -0.2500738501548767f, 0.18858884274959564f};

// m in [1, 2) and e (as a float) with x = m 2^e, for x > 0 finite (subnormals too).
template <typename V>
inline void log_reduce(V x, V& m, V& e) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    const __m512 bits = reinterpret_cast<__m512>(x);
    m = reinterpret_cast<V>(_mm512_getmant_ps(bits, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero));
    e = reinterpret_cast<V>(_mm512_getexp_ps(bits));
    return;
  }
#endif
  const vint_of<V> tiny = x < 1.17549435e-38f;
  const V xs = select(tiny, x * 8388608.0f, x);
  const vint_of<V> bits = as_int(xs) & 0x7fffffff;  // a negative x's sign cleared (its result is NaN, put in later)
  e = __builtin_convertvector((bits >> 23) - (127 + (tiny & 23)), V);
  m = as_float<V>((bits & 0x007fffff) | 0x3f800000);
}
// m's piece (the low four bits of `index`) and r + rlo = m / c - 1, exactly.
template <typename V>
inline void log_piece(V m, vint_of<V>& index, V& r, V& rlo) {
  index = as_int(m) >> 19;
  const V inverse = pick<V>(kLogInverse, index);
  const V p = m * inverse;
  rlo = fma(m, inverse, -p);
  r = p - 1.0f;
}
// ln(c 2^e) + log1p(r + rlo) + extra as s + small (extra: a first-order term that is not to be scaled by 1 - r).
template <typename V>
inline void log_from_piece(vint_of<V> index, V e, V r, V rlo, V extra, V& s, V& small) {
  const V a = fma(e, broadcast<V>(kLn2Hi), pick<V>(kLogCHi, index));  // exact
  const V b = fma(e, broadcast<V>(kLn2Lo), pick<V>(kLogCLo, index));
  s = a + r;
  const V s_error = (a - s) + r;
  const V q = fma(r, fma(r, fma(r, broadcast<V>(kLog1pP[2]), broadcast<V>(kLog1pP[1])), broadcast<V>(kLog1pP[0])),
                  broadcast<V>(-0.5f));
  small = fma(r * r, q, (s_error + b) + (fma(-r, rlo, rlo) + extra));
}
template <int kTwice = 0, typename V>
inline void log_sum(V x, V& s, V& small) {  // ln x (ln 2x with kTwice) = s + small for x > 0 finite
  V m, e, r, rlo;
  log_reduce(x, m, e);
  if constexpr (kTwice != 0) e = e + 1.0f;
  vint_of<V> index;
  log_piece(m, index, r, rlo);
  log_from_piece(index, e, r, rlo, broadcast<V>(0.0f), s, small);
}
template <typename V>
inline V log_special(V x, V result) {
  // nearly every vector holds only positive finite numbers (subnormals included): no fixing
  if (__builtin_expect(all_between(x, 0.0f, __builtin_inff()), 1)) return result;
  result = select(x == 0.0f, broadcast<V>(-__builtin_inff()), result);
  result = select(x < 0.0f, broadcast<V>(__builtin_nanf("")), result);
  return select((x == __builtin_inff()) | (x != x), x, result);
}
template <typename V>
inline V log(V x) {
  V s, small;
  log_sum(x, s, small);
  return log_special(x, s + small);
}
// log2 and log10: (s + small) k with k = 1/ln 2 or 1/ln 10 as hi + lo, s hi's product kept with its rounding error.
template <int kBase, typename V>
inline V log_base(V x) {
  V s, small;
  log_sum(x, s, small);
  constexpr float hi = kBase == 2 ? 1.44269502162933349609375f : 0.4342944920063018798828125f;
  constexpr float lo = kBase == 2 ? 1.925963033500011e-8f : -1.0103049781210992e-8f;
  const V h = s * hi;
  const V h_error = fma(s, broadcast<V>(hi), -h);
  return log_special(x, h + fma(small, broadcast<V>(hi), fma(s, broadcast<V>(lo), h_error)));
}
template <typename V>
__attribute__((always_inline)) inline V log2(V x) { return log_base<2>(x); }
template <typename V>
__attribute__((always_inline)) inline V log10(V x) { return log_base<10>(x); }
// log(1 + x + xlo) for x > -1 finite (|xlo| at most about an ulp of x): u = 1 + x rounded, reduced as log's
// argument; where u is within the pieces beside 1 (c = 1, e = 0) r is x itself, exactly; elsewhere the rounding of
// u enters as ((1 + x - u) + xlo) / u, the numerator exact (Fast2Sum), the quotient a correction far below the
// result's ulp.
template <typename V>
inline V log1p_sum(V x, V xlo) {
  const V u = x + 1.0f;
  V m, e, r, rlo, s, small;
  log_reduce(u, m, e);
  vint_of<V> index;
  log_piece(m, index, r, rlo);
  const vint_of<V> near = (u >= 0.96875f) & (u < 1.0625f);
  const V lost = select(x > 1.0f, (x - u) + 1.0f, x - (u - 1.0f));  // 1 + x - u, exactly
  const V c = (lost + xlo) * recip_approx(u);
  log_from_piece(index, e, select(near, x, r), select(near, xlo, rlo), select(near, broadcast<V>(0.0f), c), s,
                 small);
  return s + small;
}
template <typename V>
inline V log1p(V x) {
  const V result = log1p_sum(x, broadcast<V>(0.0f));
  if (__builtin_expect(all_between<true>(x, -1.0f, __builtin_inff()), 1)) return result;
  V fixed = select(x == 0.0f, x, result);  // log1p(-0) = -0 (the sum in log_from_piece gives +0)
  fixed = select(x == -1.0f, broadcast<V>(-__builtin_inff()), fixed);
  fixed = select(x < -1.0f, broadcast<V>(__builtin_nanf("")), fixed);
  return select((x == __builtin_inff()) | (x != x), x, fixed);
}
// ln(2x) for x > 0 finite: asinh's and acosh's lanes beyond 2^28.
template <typename V>
inline V log_twice(V x) {
  V s, small;
  log_sum<1>(x, s, small);
  return s + small;
}

// ------------------------------------------------------------------------------------------------ exponentials
// 2^x: x = n + r with |r| <= 1/2 exact, 2^r by its Taylor series in r ln 2 to degree 7 (the next term is below
// 2^-30), then 2^n: one scaling where every lane's n is a normal float's exponent (-126.5 < x < 127.5: NaN is not),
// else with x clamped and 2^n in two halves as exp does, so overflow gives inf and tiny results subnormals or 0.
template <typename V>
inline V exp2_reduced(V x, vint_of<V>& n) {
  const V r = x - round_shifted(x, n);
  constexpr float c[] = {1.0f,
                         6.9314718055994531e-1f,
                         2.4022650695910071e-1f,
                         5.5504108664821580e-2f,
                         9.6181291076284772e-3f,
                         1.3333558146428443e-3f,
                         1.5403530393381608e-4f,
                         1.5252733804059840e-5f};
  return horner(r, c);
}
template <typename V>
inline V exp2(V x) {
  vint_of<V> n;
  if (__builtin_expect(all_between(x, -126.5f, 127.5f), 1)) return exp2_reduced(x, n) * pow2i<V>(n);
  const V p = exp2_reduced(min(max(x, broadcast<V>(-152.0f)), broadcast<V>(129.0f)), n);
  const vint_of<V> half = n >> 1;
  return select(x != x, x, p * pow2i<V>(half) * pow2i<V>(n - half));
}
// e^x - 1: x = n ln2 + r with |r| <= ln2/2, e^r - 1 by its Taylor series to degree 8 (next term below 2^-31 of the
// result), then 2^n (e^r - 1) + (2^n - 1) with the sum's rounding error kept; e^x itself past 88 (where 2^n would
// overflow: the 1 is far below its last bit), -1 below -17.5.
template <typename V>
__attribute__((always_inline)) inline V expm1(V x) {
  // e^x - 1 for x already in [-18, 88]; t = 2^n, t hi and t lo for the two large-x forms below
  const auto core = [](V xc, V& nf, V& t, V& th, V& tlo) __attribute__((always_inline)) {
    vint_of<V> n;
    nf = round_shifted(xc * 1.44269504088896341f, n);
    const V a = xc - nf * kLn2Hi, b = nf * kLn2Lo;  // a exact (n has 8 bits, ln2_hi 9)
    const V r = a - b, rlo = (a - r) - b;  // r + rlo = a - b exactly (|a| >= |b|)
    constexpr float c[] = {0.5f, 1.0f / 6.0f, 1.0f / 24.0f, 1.0f / 120.0f, 1.0f / 720.0f, 1.0f / 5040.0f,
                           1.0f / 40320.0f};
    // e^(r + rlo) - 1 = (e^r - 1) + rlo to first order, as hi + lo (Fast2Sum: |r| >= |the rest|)
    const V rest = horner(r, c) * r * r + rlo;
    const V hi = r + rest, lo = (r - hi) + rest;
    // 2^n (hi + lo) + (2^n - 1): the scalings and 2^n - 1 are exact, and the sum keeps its rounding error
    // (Fast2Sum: |2^n - 1| >= |2^n hi| unless n = 0, when 2^n - 1 = 0), so lo is not lost against 2^n hi's ulp
    t = pow2i<V>(n);
    th = t * hi;
    tlo = t * lo;
    const V t1 = t - 1.0f, sum = t1 + th;
    return sum + (((t1 - sum) + th) + tlo);
  };
  V nf, t, th, tlo;
  // vectors inside (-17.5, 16), no zero (whose sign the sums lose) and no NaN: that form alone
  if (__builtin_expect(all_between<true>(x, -17.5f, 16.0f), 1)) return core(x, nf, t, th, tlo);
  V result = core(min(max(x, broadcast<V>(-18.0f)), broadcast<V>(88.0f)), nf, t, th, tlo);
  // from n = 24, 2^n - 1 rounds: 2^n + 2^n hi with its rounding error (|hi| < 1/2), the 1 with the small terms
  const V big = t + th;
  result = select(nf >= 24.0f, big + (((t - big) + th) + (tlo - 1.0f)), result);
  if (any(x > 88.0f)) result = select(x > 88.0f, exp(x), result);  // 2^128 would overflow before the product
  result = select(x < -17.5f, broadcast<V>(-1.0f), result);
  return select((x != x) | (x == 0.0f), x, result);  // NaN, and the zeros with their signs
}

// ------------------------------------------------------------------------------------------------ sin and cos
// Note [Vectorized sin and cos]: x = j pi/2 + r, |r| <= pi/4, with pi/2 in three parts (Cody and Waite: the first
// two with few enough bits that j times them is exact for |j| < 2^12); sin r and cos r by their Taylor series to
// degrees 9 and 10 (the next terms below 2^-28); the quadrant j mod 4 picks sin r, cos r and the sign. Lanes with
// |x| >= 2^12 (where the reduction would lose bits) or near a multiple of pi/2 take the C library's sin and cos,
// lane by lane.
// sin(r + rlo) and cos(r + rlo) for the reduced argument and the rounding error of its last step (|rlo| <= ulp(r)/2):
// sin(r) + rlo and cos(r) - r rlo to first order.
template <typename V>
inline V sin_poly(V r, V z, V rlo) {
  V p = broadcast<V>(2.7557319223985893e-6f);
  p = p * z - 1.9841269841269841e-4f;
  p = p * z + 8.3333333333333333e-3f;
  p = p * z - 1.6666666666666667e-1f;
  return r + (p * z * r + rlo);
}
// cos r = 1 - z/2 + z^2 P(z): w = 1 - z/2 rounds, and ((1 - w) - z/2) is that rounding's error exactly (fdlibm's
// cos), added back with the small term
template <typename V>
inline V cos_poly(V z, V r, V rlo) {
  V p = broadcast<V>(-2.7557319223985891e-7f);
  p = p * z + 2.4801587301587302e-5f;
  p = p * z - 1.3888888888888889e-3f;
  p = p * z + 4.1666666666666667e-2f;
  const V hz = 0.5f * z, w = 1.0f - hz;
  return w + (((1.0f - w) - hz) + (p * z * z - r * rlo));
}
// x = j pi/2 + r + rlo, |r| <= pi/4, for sin, cos and tan. `big` marks the lanes the reduction cannot serve: |x| >=
// 2^12 or NaN, and lanes near a nonzero multiple of pi/2: the first two products are exact (8 + 12 and 11 + 12 bits)
// and so are both subtractions; the third product's rounding and the split's own error leave r within 1.2e-11 of
// x - j pi/2, more than a quarter ulp of r where |r| < 1e-3 (about 1 in 800 random arguments).
template <typename V>
inline bool reduce_half_pi(V x, vint_of<V>& j, V& r, V& rlo, vint_of<V>& big) {
  // whether any lane needs the C library (and then which, in big): |x| >= 4096 or NaN, or near a multiple of pi/2;
  // the common vector's tests stay in mask registers (all_between, and the near test below on AVX-512)
  const bool inside = all_between(x, -4096.0f, 4096.0f);
  const vint_of<V> huge = inside ? vint_of<V>{} : ~(abs(x) < 4096.0f);  // also NaN
  const V xr = inside ? x : select(huge, broadcast<V>(0.0f), x);
  const V jf = round_shifted(xr * 0.636619772367581343f, j);
  const V r2 = (xr - jf * 1.5703125f) - jf * 4.837512969970703125e-4f, t = jf * 7.54978995489188216e-8f;
  r = r2 - t;
  rlo = (r2 - r) - t;  // r + rlo = r2 - t exactly (|r2| >= |t| or both 0)
  bool near_any;
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    const __mmask16 near = _mm512_cmpneq_epi32_mask(reinterpret_cast<__m512i>(j), _mm512_setzero_si512()) &
                           _mm512_cmp_ps_mask(reinterpret_cast<__m512>(abs(r)), _mm512_set1_ps(1e-3f), _CMP_LT_OQ);
    near_any = near != 0;
  } else
#endif
  {
    near_any = any((j != 0) & (abs(r) < 1e-3f));
  }
  if (__builtin_expect(inside && !near_any, 1)) return false;
  big = huge | ((j != 0) & (abs(r) < 1e-3f));
  return true;
}
template <bool kCos, typename V>
__attribute__((always_inline)) inline V sin_cos(V x) {
  vint_of<V> j, big;
  V r, rlo;
  const bool any_big = reduce_half_pi(x, j, r, rlo, big);
  const V z = r * r;
  const V s = sin_poly(r, z, rlo), c = cos_poly(z, r, rlo);
  const vint_of<V> q = kCos ? j + 1 : j;  // cos x = sin(x + pi/2)
  V result = select((q & 1) != 0, c, s);
  result = select((q & 2) != 0, -result, result);
  if (__builtin_expect(any_big, 0)) {
    for (int k = 0; k < lanes_of<V>; ++k) {
      if (big[k]) result[k] = kCos ? std::cos(x[k]) : std::sin(x[k]);
    }
  }
  return kCos ? result : select(x == 0.0f, x, result);  // sin(-0) = -0
}
template <typename V>
__attribute__((always_inline)) inline V sin(V x) { return sin_cos<false>(x); }
template <typename V>
__attribute__((always_inline)) inline V cos(V x) { return sin_cos<true>(x); }


// ------------------------------------------------------------------------------------------------ odd polynomials
// x + x^3 P(x^2) with P's coefficients lowest degree first (fitted by tools/vec_poly_fit.py).
template <int N, typename V>
inline V odd_series(V x, V z, const float (&c)[N]) {
  return x + x * z * horner(z, c);
}
constexpr float kAtanP[] = {-0.33333301544189453f, 0.19998574256896973f, -0.14264392852783203f,
                            0.10952533036470413f,  -0.08403480052947998f, 0.057945046573877335f,
                            -0.03115503303706646f, 0.010897884145379066f, -0.0017890612361952662f};
constexpr float kAsinP[] = {0.16666661202907562f, 0.07500449568033218f, 0.04452658072113991f,
                            0.03173262998461723f, 0.014706604182720184f, 0.03715885058045387f};
constexpr float kTanP[] = {0.33333346247673035f, 0.13332754373550415f, 0.05405068397521973f, 0.021325865760445595f,
                           0.01073072012513876f, 0.0002143796009477228f, 0.004318146500736475f};
constexpr float kSinhP[] = {0.1666666716337204f, 0.008333349600434303f, 0.00019836274441331625f,
                            2.8163715342088835e-06f};
constexpr float kHalfPiHi = 1.5707963705062866f, kHalfPiLo = -4.371139000186243e-8f;  // pi/2 = hi + lo
constexpr float kPiHi = 3.1415927410125732f, kPiLo = -8.742278000372485e-8f;

// c + (t + tz p + extra), the inverse trigonometric functions' last step (signs folded into t, tz and extra): c =
// c_hi + c_lo is 0 or a multiple of pi/2 at least |t| (so c_hi + t is a Fast2Sum whose error is exact) and tz p the
// polynomial's term, fused with the small parts; one rounding at the end and the term's own error (it is at most a
// third of t) are all that reach the result.
template <typename V>
inline V offset_sum(V c_hi, V c_lo, V t, V tz, V p, V extra) {
  const V s = c_hi + t;
  const V e = (c_hi - s) + t;
  return s + fma(tz, p, (e + extra) + c_lo);
}
// atan: |x| > 1 through pi/2 - atan(1/|x|); the polynomial on [0, 1] (0.10 ulp), t + tail with the tail
// t^3 P(t^2) + tlo / (1 + t^2) summed last; the sign put back.
// For |x| > 1, 1/|x| rounds: its error tlo = t (1 - t |x|) (the residual exact where the product and the
// subtraction fuse) enters as atan(t + tlo) = atan t + tlo / (1 + t^2).
template <typename V>
inline V atan(V x) {
  const V a = abs(x);
  const vint_of<V> big = a > 1.0f;
  const V inv = 1.0f / a;
  const V t = select(big, inv, a);
  const V tlo = select(big & (inv != 0.0f), inv * (1.0f - inv * a), broadcast<V>(0.0f));  // not for |x| = inf
  const V z = t * t, tz = t * z, p = horner(z, kAtanP), extra = tlo / (1.0f + z);
  const V upper = offset_sum(broadcast<V>(kHalfPiHi), broadcast<V>(kHalfPiLo), -t, -tz, p, -extra);
  return copysign(select(big, upper, fma(tz, p, t + extra)), x);  // extra = 0 there: one rounding
}
// asin: the polynomial on [0, 1/2] (0.01 ulp); above, asin a = pi/2 - 2 asin(sqrt((1 - a) / 2)), where 1 - a and
// the halving are exact. Outside [-1, 1] the square root's NaN.
// The vector square root instruction where the target has one (GCC's vector types are the intrinsics' types),
// lane by lane otherwise.
template <typename V>
inline V sqrt(V x) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) return reinterpret_cast<V>(_mm512_sqrt_ps(reinterpret_cast<__m512>(x)));
#endif
#if defined(__AVX__)
  if constexpr (sizeof(V) == 32) return reinterpret_cast<V>(_mm256_sqrt_ps(reinterpret_cast<__m256>(x)));
#endif
  V root;
  for (int k = 0; k < lanes_of<V>; ++k) root[k] = __builtin_sqrtf(x[k]);
  return root;
}
// 2 asin(sqrt((1 - a) / 2)) for a in [1/2, 1], as 2 root + (the rest): root's rounding error c = (zz - root^2) /
// (2 root) enters the rest, and 2 root is exact.
template <typename V>
inline void asin_upper(V a, V& twice_root, V& rest) {
  const V zz = (1.0f - a) * 0.5f;
  const V root = sqrt(zz);
  const V c = select(root > 0.0f, (zz - root * root) / (root + root), broadcast<V>(0.0f));  // not at |x| = 1
  twice_root = root + root;
  rest = 2.0f * (root * zz * horner(zz, kAsinP) + c);
}
// asin and acos end in offset_sum: pi/2 - (2 root + rest), pi/2 - (x + tail), pi - (2 root + rest), each rounded once.
template <typename V>
inline V asin(V x) {
  const V a = abs(x);
  V twice_root, rest;
  asin_upper(a, twice_root, rest);
  const V upper = offset_sum(broadcast<V>(kHalfPiHi), broadcast<V>(kHalfPiLo), -twice_root, -rest,
                             broadcast<V>(1.0f), broadcast<V>(0.0f));
  const V z = a * a;
  const V lower = a + a * z * horner(z, kAsinP);
  return copysign(select(a <= 0.5f, lower, upper), x);
}
// acos: pi/2 - asin(x) within [-1/2, 1/2]; 2 asin(sqrt((1 - x) / 2)) above, pi - that for -x below.
template <typename V>
inline V acos(V x) {
  const V a = abs(x);
  V twice_root, rest;
  asin_upper(a, twice_root, rest);
  const V z = x * x;
  const V middle =
      offset_sum(broadcast<V>(kHalfPiHi), broadcast<V>(kHalfPiLo), -x, -(x * z), horner(z, kAsinP), broadcast<V>(0.0f));
  const V outer = select(x > 0.0f, twice_root + rest,
                         offset_sum(broadcast<V>(kPiHi), broadcast<V>(kPiLo), -twice_root, -rest, broadcast<V>(1.0f),
                                    broadcast<V>(0.0f)));
  return select(a <= 0.5f, middle, outer);
}
// tan: sin and cos's reduction (Note [Vectorized sin and cos]), the polynomial on [0, pi/4] (0.05 ulp) plus the
// reduction's rounding error rlo (tan(r + rlo) = tan r + rlo (1 + tan^2 r) to first order: the factor is 2 near pi/4,
// and leaving it out cost 0.5 ulp), and -1/tan r in the odd quadrants.
template <typename V>
__attribute__((always_inline)) inline V tan(V x) {
  vint_of<V> j, big;
  V r, rlo;
  const bool any_big = reduce_half_pi(x, j, r, rlo, big);
  // tan r - r = r^3 P(z), z = r^2: r^3 as p + p_lo (each product's error by an fma) and P = c0 + z Q(z), so the
  // largest term p c0 rounds once and the rest, a fifth of it, carries the other roundings (r z P in floats was up
  // to 3 ulps of the tail, 0.5 ulp of the result near pi/4)
  const V z = r * r, z_lo = fma(r, r, -z);
  const V p = r * z, p_lo = fma(r, z, -p) + r * z_lo;
  constexpr float tan_q[] = {kTanP[1], kTanP[2], kTanP[3], kTanP[4], kTanP[5], kTanP[6]};
  const V head = p * kTanP[0];
  const V tail = head + fma(p * z, horner(z, tan_q), p_lo * kTanP[0]);
  const V approx = r + tail;  // tan r, for the derivative
  const V rest = fma(rlo, fma(approx, approx, broadcast<V>(1.0f)), tail);
  const V hi = r + rest, lo = (r - hi) + rest;  // tan(r + rlo) = hi + lo (Fast2Sum: |r| >= |rest|)
  // -1/(hi + lo) = q + q (1 + q hi) + lo q^2 to first order, q = -1/hi rounded (its residual exact where fused)
  const V q = -1.0f / hi;
  V result = select((j & 1) != 0, q + (q * (1.0f + q * hi) + lo * q * q), hi + lo);
  if (__builtin_expect(any_big, 0)) {
    for (int k = 0; k < lanes_of<V>; ++k) {
      if (big[k]) result[k] = static_cast<float>(std::tan(static_cast<double>(x[k])));  // tanf was 1.37 ulp off
    }
  }
  return select(x == 0.0f, x, result);  // tan(-0) = -0
}

// atan2(y, x): atan of min(|x|, |y|) / max(|x|, |y|) in [0, 1] (the division's rounding error carried as in atan),
// then pi/2 - a when |y| > |x|, pi - a when x < 0, and y's sign. Lanes with a zero on both sides, an infinity or a
// NaN take the C library's atan2 and its special values.
template <typename V>
__attribute__((always_inline)) inline V atan2(V y, V x) {
  const V ay = abs(y), ax = abs(x);
  const vint_of<V> swap = ay > ax;
  const V big = select(swap, ay, ax), small = select(swap, ax, ay);
  const V t = small / big;
  const V tlo = (small - t * big) / big;
  const V z = t * t, tz = t * z, p = horner(z, kAtanP), extra = tlo / (1.0f + z);
  // c + sign atan(t): c = 0, pi/2 (|y| > |x|), pi (x < 0) or pi/2 again (both, as pi - (pi/2 - atan t)); the sign
  // negative where exactly one of the two holds
  const vint_of<V> negative = x < 0.0f;
  const V c_hi = select(swap, broadcast<V>(kHalfPiHi), select(negative, broadcast<V>(kPiHi), broadcast<V>(0.0f)));
  const V c_lo = select(swap, broadcast<V>(kHalfPiLo), select(negative, broadcast<V>(kPiLo), broadcast<V>(0.0f)));
  const vint_of<V> minus = swap ^ negative;
  V result = copysign(offset_sum(c_hi, c_lo, select(minus, -t, t), select(minus, -tz, tz), p,
                                 select(minus, -extra, extra)), y);
  const vint_of<V> special = (big == 0.0f) | ~(ax < __builtin_inff()) | ~(ay < __builtin_inff());
  if (__builtin_expect(any(special), 0)) {
    for (int k = 0; k < lanes_of<V>; ++k) {
      if (special[k]) result[k] = std::atan2(y[k], x[k]);
    }
  }
  return result;
}
// floor (kMode 0), ceil (1), trunc (2) and round half to even (3): the nearest integer, rint(|x|) by the 2^23
// shifter (|x| + 2^23 lands where floats are one apart) with x's sign, moved by one toward the mode's side when it
// passed x; the sign stays x's (floor(-0.0) and ceil(-0.5) are -0). Floats of 2^23 and up are integers already,
// and infinities and NaN stay. (GCC leaves floorf loops scalar unless -fno-trapping-math.)
template <int kMode, typename V>
inline V rounded(V x) {
  // one rounding instruction where the machine has it (signed zeros, infinities and NaN as the generic form)
  constexpr int kRounding = (kMode == 0 ? 0x01 : kMode == 1 ? 0x02 : kMode == 2 ? 0x03 : 0x00) | 0x08;  // no exc.
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    return reinterpret_cast<V>(_mm512_roundscale_ps(reinterpret_cast<__m512>(x), kRounding));
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(V) == 32) return reinterpret_cast<V>(_mm256_round_ps(reinterpret_cast<__m256>(x), kRounding));
#endif
  const V ax = abs(x);
  V r = copysign((ax + 8388608.0f) - 8388608.0f, x);
  if constexpr (kMode == 0) r = select(r > x, r - 1.0f, r);
  if constexpr (kMode == 1) r = select(r < x, r + 1.0f, r);
  if constexpr (kMode == 2) r = select(abs(r) > ax, r - copysign(broadcast<V>(1.0f), x), r);
  return select(ax < 8388608.0f, copysign(r, x), x);
}
// sinc(x) = sin(pi x) / (pi x), as special::sinc computes it in float: sin of pi r for r = x - rint(x) in
// [-1/2, 1/2] (exact), the sign of (-1)^n, 1 at 0.
template <typename V>
__attribute__((always_inline)) inline V sinc(V x) {
  constexpr float kPiF = 3.14159265358979323846f;
  const V n = rounded<3>(x), r = x - n;
  const V s = sin(kPiF * r) / (kPiF * x);
  const V half = n * 0.5f;
  return select(x == 0.0f, broadcast<V>(1.0f), select(half != rounded<2>(half), -s, s));
}
// x - trunc(x), as torch's frac (NaN for infinities).
template <typename V>
__attribute__((always_inline)) inline V frac(V x) { return x - rounded<2>(x); }
// nextafter(x, y) on the bits: one step away from zero when y lies beyond x on x's side, toward it otherwise; the
// smallest subnormal with y's sign from a zero, y itself when equal, NaN when either is.
template <typename V>
inline V nextafter(V x, V y) {
  const vint_of<V> bits = as_int(x);
  const vint_of<V> away = (y > x) == (x > 0.0f);
  V r = as_float<V>(away ? wrapping_add<V>(bits, 1) : wrapping_add<V>(bits, -1));
  r = select(x == 0.0f, copysign(as_float<V>(vint_of<V>{} + 1), y), r);
  r = select(x == y, y, r);
  return select((x != x) | (y != y), x + y, r);
}
// fmod(x, y), exactly (C's fmod is exact: its result is a float), on |x| and |y| then with x's sign. While
// q = trunc(|x| / |y|) is below 2^22, the rounded quotient is within a quarter of the exact one and can only have
// rounded up onto the next integer, so q is the exact quotient's truncation k or k + 1; |x| - q |y| (an exact
// value a float holds: the remainder, or the remainder minus |y|) comes exact out of one fused multiply-add, and
// adding |y| back when it is negative is exact too. Lanes outside that (y zero or infinite, x infinite, NaN,
// quotients of 2^22 and up) take the C library's fmod.
template <typename V>
inline V fmod(V x, V y) {
  const V ax = abs(x), ay = abs(y);
  V q = ax / ay;
  q = rounded<2>(q);
  V r = fma(-q, ay, ax);
  r = select(r < 0.0f, r + ay, r);
  V result = copysign(r, x);
  const vint_of<V> special = ~(q < 4194304.0f) | ~(ay < __builtin_inff());
  if (__builtin_expect(any(special), 0)) {
    for (int k = 0; k < lanes_of<V>; ++k) {
      if (special[k]) result[k] = std::fmod(x[k], y[k]);
    }
  }
  return result;
}
// remainder(x, y) (Python's %: the divisor's sign), from fmod as RemainderOp computes it.
template <typename V>
inline V remainder(V x, V y) {
  const V r = fmod(x, y);
  return select((r != 0.0f) & ((y < 0.0f) != (r < 0.0f)), r + y, r);
}
// floor_divide(a, b), torch's formula (math::floor_divide_float) lane by lane: the same float steps, so the same
// results as the scalar functor.
template <typename V>
inline V floor_divide(V a, V b) {
  const V mod = fmod(a, b);
  V div = (a - mod) / b;
  div = select((mod != 0.0f) & ((b < 0.0f) != (mod < 0.0f)), div - 1.0f, div);
  V floored = rounded<0>(div);
  floored = select(div - floored > 0.5f, floored + 1.0f, floored);
  const V quotient = a / b;
  floored = select(div == 0.0f, copysign(V{}, quotient), floored);
  return select(b == 0.0f, quotient, floored);
}
// hypot(a, b): sqrt(a^2 + b^2) in double, whose range holds every float's square, rounded once (so no scaling and
// nearly always the correctly rounded result); an infinity on either side gives inf even beside a NaN, as C's.
template <typename V>
inline V hypot(V a, V b) {
  using D = typename VecDouble<V>::type;
  const D da = __builtin_convertvector(a, D), db = __builtin_convertvector(b, D);
  const D sum = da * da + db * db;
  D root;
  for (int k = 0; k < lanes_of<V>; ++k) root[k] = __builtin_sqrt(sum[k]);
  const V result = __builtin_convertvector(root, V);
  return select((abs(a) == __builtin_inff()) | (abs(b) == __builtin_inff()), broadcast<V>(__builtin_inff()), result);
}

// logaddexp and logaddexp2: max + log1p(e^-|a - b|) (log1p(2^-|a - b|) / ln 2), as their functors in
// kernels/special_math.h; equal operands give a + ln 2 (a + 1), exact for base 2 and for the infinities (whose
// difference would be NaN); NaN stays NaN.
template <bool kBase2, typename V>
__attribute__((always_inline)) inline V logaddexp_any(V a, V b) {
  const V m = max(a, b), d = abs(a - b);
  const V r = kBase2 ? m + log1p_sum(exp2(-d), broadcast<V>(0.0f)) * 1.44269504088896341f
                     : m + log1p_sum(exp(-d), broadcast<V>(0.0f));
  const V same = select(a == b, a + (kBase2 ? 1.0f : 0.693147180559945309f), r);
  return select((a != a) | (b != b), a + b, same);
}
template <typename V>
__attribute__((always_inline)) inline V logaddexp(V a, V b) { return logaddexp_any<false>(a, b); }
template <typename V>
__attribute__((always_inline)) inline V logaddexp2(V a, V b) { return logaddexp_any<true>(a, b); }

// f over the float lanes of x (and y) in parts whose doubles fill one vector register (f takes and returns float
// vectors of any width): for the float32 functions computed in double lanes (erfc below 2, lgamma, digamma, erfinv,
// igamma, pow). On AVX-512 x's 16 floats go as two 8-float halves (8 doubles, one zmm register); on AVX2 its 8 floats
// as two 4-float halves (4 doubles, one ymm). Given all 8 at once there, GCC lowered the 64-byte double vectors'
// comparisons and selects lane by lane, through the stack: lgamma took 2.1x torch's time, igammac 4.0x, erfinv 2.7x.
template <typename V, typename F, typename... W>
inline V in_float_halves(F f, V x, W... y);
namespace vec_detail {
template <typename V, typename F, size_t... I, typename... W>
inline V apply_in_halves(F& f, std::index_sequence<I...>, V x, W... y) {
  typedef float H __attribute__((vector_size(sizeof(V) / 2)));
  constexpr size_t kHalf = sizeof...(I);
  const H lo = in_float_halves(f, H(__builtin_shufflevector(x, x, I...)), H(__builtin_shufflevector(y, y, I...))...);
  const H hi = in_float_halves(f, H(__builtin_shufflevector(x, x, (I + kHalf)...)),
                               H(__builtin_shufflevector(y, y, (I + kHalf)...))...);
  return __builtin_shufflevector(lo, hi, I..., (I + kHalf)...);
}
}  // namespace vec_detail
template <typename V, typename F, typename... W>
inline V in_float_halves(F f, V x, W... y) {
  if constexpr (2 * sizeof(V) > sizeof(wfloat) && lanes_of<V> > 1) {  // its doubles would take two registers
    return vec_detail::apply_in_halves(f, std::make_index_sequence<lanes_of<V> / 2>{}, x, y...);
  } else {
    return f(x, y...);
  }
}

// ------------------------------------------------------------------------------------------------ erfc
// erfc in float lanes where 1 - erf keeps its digits: -(erf(x) - 1) for 0 <= x < 1 (erfc > 0.157) and 1 + erf(|x|) for
// x < 0, both by erf_minus (erf's pieces, every rounding error carried to one last rounding): 0.51 ulp (0.56 with
// AVX2's eight pieces). Vectors with a lane at 1 or above take the double path there: 1 - erf(x) in double lanes
// (erf_lanes) below 2, where erfc(x) > 0.0046 keeps erf's 6e-12 absolute error below 1.3e-9 relative, rounded once;
// from 2 (the tail, where 1 - erf cancels) the C library's double erfc, lane by lane, rounded once too. NaN stays NaN;
// erfc(-inf) = 2, erfc(inf) = 0.
template <typename V>
inline V erfc_near(V x) {  // 1 - erf(x) for every lane, in double
  return in_float_halves([](auto h) {
    using D = typename VecDouble<decltype(h)>::type;
    return __builtin_convertvector(1.0 - erf_lanes(__builtin_convertvector(h, D)), decltype(h));
  }, x);
}
template <typename V>
inline V erfc(V x) {
  const vint_of<V> negative = x < 0.0f;
  const V one = select(negative, broadcast<V>(-1.0f), broadcast<V>(1.0f));
  const V e = erf_minus(min(abs(x), broadcast<V>(3.921875f)), one);
  V r = select(negative, select(x > -3.921875f, e, broadcast<V>(2.0f)), -e);
  const vint_of<V> far = x >= 1.0f;
  if (any(far)) {
    r = select(far, erfc_near(x), r);
    const vint_of<V> tail = x >= 2.0f;
    if (any(tail)) {
      for (int k = 0; k < lanes_of<V>; ++k) {
        if (tail[k]) r[k] = static_cast<float>(std::erfc(static_cast<double>(x[k])));
      }
    }
  }
  return select(x != x, x, r);
}

// ------------------------------------------------------------------------------------------------ hyperbolic
// asinh, acosh and atanh as log1p of an argument held as a sum of two floats (log1p_sum takes its low part among
// its small terms), so that argument's own rounding does not reach the result: 0.79, 0.56 and 0.58 ulp.
// asinh: log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a = |x| up to 2^28 (the sum a + f with its rounding error), log(2a)
// beyond; the sign put back. NaN stays NaN through the arithmetic.
template <typename V>
inline V asinh(V x) {
  const V a = abs(x);
  const V a2 = a * a, a2_error = fma(a, a, -a2);
  const V den = 1.0f + sqrt(1.0f + a2);
  const V f = a2 / den;
  // the square's and the quotient's rounding errors kept (the denominator's own are damped: 1.01 -> 0.8 ulp)
  const V f_error = (fma(-f, den, a2) + a2_error) * recip_approx(den);
  const V t = a + f, t_error = ((a - t) + f) + f_error;
  V r = log1p_sum(t, t_error);
  if (__builtin_expect(!all_between(a, -1.0f, 268435456.0f), 0)) {  // lanes beyond 2^28, inf, NaN (which stays NaN)
    r = select(a > 268435456.0f, select(a == __builtin_inff(), a, log_twice(a)), r);
  }
  return copysign(r, x);
}
// acosh: log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact up to 2), the square root's argument and the square root
// each with its rounding error (a residual by a fused multiply-add, divided by 2 sqrt approximately), the sum with
// t's; log(2x) beyond 2^28; below 1 (and at NaN) NaN.
template <typename V>
inline V acosh(V x) {
  const V t = x - 1.0f;
  const V twice = t + t;
  const V w = fma(t, t, twice);
  const V w_error = fma(t, t, twice - w);
  const V g = sqrt(w);
  const V g_error = (fma(-g, g, w) + w_error) * recip_approx(g + g);
  const V s = g + t, s_error = ((g - s) + t) + g_error;
  V r = log1p_sum(s, s_error);
  if (__builtin_expect(!all_between(x, 1.0f, 268435456.0f), 0)) {
    r = select(x > 268435456.0f, select(x == __builtin_inff(), x, log_twice(x)), r);
    r = select(x == 1.0f, broadcast<V>(0.0f), r);  // g = 0 there, and its correction 0 * (1/0)
    r = select(x >= 1.0f, r, broadcast<V>(__builtin_nanf("")));
  }
  return r;
}
// h -+ 1/(4h) for h = e^a / 2, a >= 0 (sinh with kMinus, and cosh, beyond 1): h = 2^m (hi + lo) from exp's reduction
// with 1 + r's rounding error and hi + lo's kept in lo, so that h's own rounding (0.9 ulp, which reached sinh's
// result as 1.6 ulp) does not: H = 2^m hi, q = 1/(4H) (at most a sixth of the result), H -+ q by Fast2Sum, the small
// parts (its error, 2^m lo) added last, one rounding. Vectors with a lane where 2^m is not a normal float (|x| beyond 88,
// NaN) take h -+ 1/(4h) from exp_scaled.
template <bool kMinus, typename V>
inline V half_exp_sum(V a) {
  vint_of<V> m;
  V hi, lo;
  exp_reduce_parts<-1>(a, m, hi, lo);
  if (__builtin_expect(all_between(m, -127, 128), 1)) {
    const V scale = pow2i<V>(m);
    const V big = hi * scale;
    const V q = (kMinus ? -0.25f : 0.25f) / big;
    const V sum = big + q, error = (big - sum) + q;
    return sum + (error + lo * scale);
  }
  const V h = exp_scaled<-1>(a);
  return kMinus ? h - 0.25f / h : h + 0.25f / h;
}
// sinh: below 1 an odd polynomial; above, h - 1/(4h) with h = e^|x|/2. A vector all below 1 skips the second.
template <typename V>
inline V sinh(V x) {
  const V a = abs(x);
  const V small = odd_series(a, a * a, kSinhP);  // below 1: x + x^3 P(x^2) (0.10 ulp)
  if (all_between(a, -1.0f, 1.0f)) return copysign(small, x);
  return copysign(select(a < 1.0f, small, half_exp_sum<true>(a)), x);
}
// cosh: h + 1/(4h) with h = e^|x|/2 (finite up to 89.4, where e^|x| itself would overflow); a vector all below 1 by
// its Taylor series, 1 + (z/2 + z^2 P(z)) for z = x^2 (the terms to z^6 / 12!, 2e-9 at 1).
template <typename V>
inline V cosh(V x) {
  const V a = abs(x);
  if (all_between(a, -1.0f, 1.0f)) {
    constexpr float c[] = {1.0f / 24, 1.0f / 720, 1.0f / 40320, 1.0f / 3628800, 1.0f / 479001600};
    const V z = a * a;
    return 1.0f + fma(z * z, horner(z, c), 0.5f * z);
  }
  return half_exp_sum<false>(a);
}
// atanh: log1p(2a / (1 - a)) / 2 for a = |x|, 1 - a and the quotient each with its rounding error; +-inf at +-1, NaN
// beyond; the sign put back.
template <typename V>
inline V atanh(V x) {
  const V a = abs(x);
  const V d = 1.0f - a, d_error = (1.0f - d) - a;
  const V q = (a + a) / d;
  const V q_error = (fma(-q, d, a + a) - q * d_error) * recip_approx(d);
  V r = 0.5f * log1p_sum(q, q_error);
  if (__builtin_expect(!all_between(a, -1.0f, 1.0f), 0)) {
    r = select(a == 1.0f, broadcast<V>(__builtin_inff()), r);
    r = select(a > 1.0f, broadcast<V>(__builtin_nanf("")), r);
  }
  return copysign(r, x);
}

// float16 and bfloat16 rows widened into float and rounded back (once), a vector at a time: kernels that compute a
// 16-bit row in float lanes (softmax, layer_norm's backward, the 16-bit sums and products) run their float code on
// the buffer. kSixteenBit names the dtypes they serve.
template <typename T>
inline constexpr bool kSixteenBit = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// A vector of kWideLanes floats from float, float16 or bfloat16 memory, and back (rounded once).
template <typename T>
inline wfloat load_lanes(const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    return load<wfloat>(p);
  } else {
    return load16<wfloat>(p);
  }
}
template <typename T>
inline void store_lanes(T* p, wfloat v) {
  if constexpr (std::is_same_v<T, float>) {
    store(p, v);
  } else {
    store16(p, v);
  }
}
template <typename scalar_t>
inline void widen_row(const scalar_t* x, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + kWideLanes <= n; i += kWideLanes) store(out + i, load_lanes(x + i));
  for (; i < n; ++i) out[i] = static_cast<float>(x[i]);
}
template <typename scalar_t>
inline void narrow_row(const float* x, scalar_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + kWideLanes <= n; i += kWideLanes) store_lanes(out + i, load<wfloat>(x + i));
  for (; i < n; ++i) out[i] = static_cast<scalar_t>(x[i]);
}

}  // namespace yaten::vec

namespace yaten::native {

namespace vec_detail {
template <typename T>
constexpr bool kVectorizable = std::is_same_v<T, float> || vec::kSixteenBit<T>;
}

template <typename scalar_t, typename ScalarF, typename VecF>
void unary_vec_kernel(const TensorIterator& iter, ScalarF scalar_f, VecF vec_f) {
  if constexpr (!vec_detail::kVectorizable<scalar_t>) {
    cpu_kernel(iter, [scalar_f](scalar_t x) -> scalar_t {
      return static_cast<scalar_t>(scalar_f(static_cast<opmath_t<scalar_t>>(x)));
    });
  } else {
    using vec::wfloat;
    constexpr int kLanes = vec::kWideLanes;
    iter.for_each_row([&](char** data, const int64_t* strides, int64_t n) {
      // Note [A local copy of the vector function]: the loop runs a copy of vec_f held in this frame, whose address
      // never escapes. Through the caller's closure, whose captures (broadcast constants, float vectors) a store to
      // the output may alias, GCC reloaded them and the row pointers after every vector: nan_to_num, a test and a
      // copy, took 0.18 ms per 1M floats where a copy takes 0.12 (1.3x torch's time).
      const VecF f = vec_f;
      char* out = data[0];
      const char* in = data[1];
      int64_t i = 0;
      // contiguous rows; float16/bfloat16 in float lanes (Note [16-bit rows as float lanes])
      if (strides[0] == sizeof(scalar_t) && strides[1] == sizeof(scalar_t)) {
        scalar_t* o = reinterpret_cast<scalar_t*>(out);
        const scalar_t* x = reinterpret_cast<const scalar_t*>(in);
        for (; i + kLanes <= n; i += kLanes) vec::store_lanes(o + i, f(vec::load_lanes(x + i)));
      }
      // Tails, strided rows and reduced precision: through a lane buffer.
      float buffer[kLanes];
      for (; i < n; i += kLanes) {
        const int64_t m = n - i < kLanes ? n - i : kLanes;
        for (int64_t k = 0; k < kLanes; ++k) {
          buffer[k] = k < m ? static_cast<float>(*reinterpret_cast<const scalar_t*>(in + (i + k) * strides[1])) : 0.f;
        }
        vec::store(buffer, f(vec::load<wfloat>(buffer)));
        for (int64_t k = 0; k < m; ++k) {
          *reinterpret_cast<scalar_t*>(out + (i + k) * strides[0]) = static_cast<scalar_t>(buffer[k]);
        }
      }
    });
  }
}

// binary_vec_kernel: unary_vec_kernel's scheme for ops of two inputs (atan2, hypot): vec_f over contiguous rows (one
// operand may be a number along the row), the lane buffer for the rest (strided rows, tails).
template <typename scalar_t, typename ScalarF, typename VecF>
void binary_vec_kernel(const TensorIterator& iter, ScalarF scalar_f, VecF vec_f) {
  if constexpr (!vec_detail::kVectorizable<scalar_t>) {
    cpu_kernel(iter, [scalar_f](scalar_t a, scalar_t b) -> scalar_t {
      return static_cast<scalar_t>(scalar_f(static_cast<opmath_t<scalar_t>>(a), static_cast<opmath_t<scalar_t>>(b)));
    });
  } else {
    using vec::wfloat;
    constexpr int kLanes = vec::kWideLanes;
    iter.for_each_row([&](char** data, const int64_t* strides, int64_t n) {
      const VecF f = vec_f;  // Note [A local copy of the vector function]
      int64_t i = 0;
      // contiguous rows, or one operand a number along the row, loaded once: the second (pow's exponent, atan2's x)
      // or the first (a gradient that is sum()'s, expanded: gelu's backward after x.sum() took 3.0 ms per 1M floats
      // through the lane buffer below, 1.5x torch's time); float16/bfloat16 in float lanes (Note [16-bit rows as
      // float lanes])
      constexpr int64_t w = sizeof(scalar_t);
      if (strides[0] == w && (strides[1] == w || strides[1] == 0) && (strides[2] == w || strides[2] == 0) &&
          (strides[1] | strides[2]) != 0) {
        scalar_t* o = reinterpret_cast<scalar_t*>(data[0]);
        const scalar_t* a = reinterpret_cast<const scalar_t*>(data[1]);
        const scalar_t* b = reinterpret_cast<const scalar_t*>(data[2]);
        if (strides[1] == 0) {
          const wfloat av = vec::broadcast<wfloat>(static_cast<float>(*a));
          for (; i + kLanes <= n; i += kLanes) vec::store_lanes(o + i, f(av, vec::load_lanes(b + i)));
        } else if (strides[2] == 0) {
          const wfloat bv = vec::broadcast<wfloat>(static_cast<float>(*b));
          for (; i + kLanes <= n; i += kLanes) vec::store_lanes(o + i, f(vec::load_lanes(a + i), bv));
        } else {
          for (; i + kLanes <= n; i += kLanes) {
            vec::store_lanes(o + i, f(vec::load_lanes(a + i), vec::load_lanes(b + i)));
          }
        }
      }
      float left[kLanes], right[kLanes];
      for (; i < n; i += kLanes) {
        const int64_t m = n - i < kLanes ? n - i : kLanes;
        for (int64_t k = 0; k < kLanes; ++k) {
          left[k] = k < m ? static_cast<float>(*reinterpret_cast<const scalar_t*>(data[1] + (i + k) * strides[1])) : 1.f;
          right[k] = k < m ? static_cast<float>(*reinterpret_cast<const scalar_t*>(data[2] + (i + k) * strides[2])) : 1.f;
        }
        vec::store(left, f(vec::load<wfloat>(left), vec::load<wfloat>(right)));
        for (int64_t k = 0; k < m; ++k) {
          *reinterpret_cast<scalar_t*>(data[0] + (i + k) * strides[0]) = static_cast<scalar_t>(left[k]);
        }
      }
    });
  }
}

}  // namespace yaten::native
