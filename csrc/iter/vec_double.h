// Vectorized float64 element functions: floor, ceil, trunc, round (one vrndscalepd/vroundpd), frac, exp, exp2, log,
// log2, log10, expm1, log1p, sigmoid, logaddexp, logaddexp2, fmod, remainder, floor_divide, nextafter and sqrt; the
// double-double steps the other float64 headers share (two_sum, fast_two_sum) and scalar_lanes, for the lanes a
// vector form leaves to the C library; and unary_vec_kernel's and binary_vec_kernel's four-argument forms, which run
// a float64 vector function over float64 rows (vec_detail::double_rows; the float32 machinery of iter/vec.h stays as
// it is). In a header of its own, included by the kernels that use it.
//
// Note [Float64 exp and log]: exp: n = rint(x / ln 2), r = x - n ln2_hi - n ln2_lo (ln2_hi has 32 trailing zero bits,
// so n ln2_hi is exact), e^r = 1 + r + r^2 Q(r) with Q of degree 10 on |r| <= ln2/2 (3e-19 relative to e^r), scaled
// by 2^n in two halves (so results near the overflow and in the subnormal range come out right); x is clamped to
// [-746, 710] first, +-inf and NaN follow. log: x = m 2^k with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by
// 2^54 first), f = m - 1, s = f / (2 + f), log(1 + f) = f - (f^2/2 - s (f^2/2 + s^2 T(s^2))) (fdlibm's arrangement)
// with T of degree 7 (6e-17 relative), plus k ln 2 in two parts. Both within an ulp (tests/test_vec_math.py measures
// them against the C library's float64 functions over every binade and mpmath on samples), as SLEEF's, which
// torch's float64 ops use. The polynomials are least-squares fits on Chebyshev nodes in mpmath's arithmetic
// (tools/vec_poly_fit.py reproduces them).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "iter/vec.h"

namespace yaten::vec {

constexpr int kDoubleLanes = kWideLanes / 2;
typedef double wdouble __attribute__((vector_size(8 * kDoubleLanes)));
template <typename D>
struct VecMask64 {  // the int64 vector (comparison masks, bit patterns) of the double vector D
  typedef int64_t type __attribute__((vector_size(sizeof(D))));
};
template <typename D>
using mask64_of = typename VecMask64<D>::type;
template <typename D>
struct VecUnsigned64 {  // for bit steps that may wrap
  typedef uint64_t type __attribute__((vector_size(sizeof(D))));
};

template <typename D>
inline D abs_double(D x) {
  return __builtin_bit_cast(D, __builtin_bit_cast(mask64_of<D>, x) & 0x7fffffffffffffffLL);
}
template <typename D>
inline D copysign_double(D magnitude, D sign) {
  using M = mask64_of<D>;
  return __builtin_bit_cast(D, (__builtin_bit_cast(M, magnitude) & 0x7fffffffffffffffLL) |
                                   (__builtin_bit_cast(M, sign) & static_cast<int64_t>(0x8000000000000000ULL)));
}

// floor (kMode 0), ceil (1), trunc (2), rint (3): one rounding instruction where the machine has it; otherwise the
// 2^52 shifter, as vec::rounded does for floats.
template <int kMode, typename D>
inline D rounded_double(D x) {
  constexpr int kRounding = (kMode == 0 ? 0x01 : kMode == 1 ? 0x02 : kMode == 2 ? 0x03 : 0x00) | 0x08;  // no exc.
#if defined(__AVX512F__)
  if constexpr (sizeof(D) == 64) {
    return reinterpret_cast<D>(_mm512_roundscale_pd(reinterpret_cast<__m512d>(x), kRounding));
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(D) == 32) return reinterpret_cast<D>(_mm256_round_pd(reinterpret_cast<__m256d>(x), kRounding));
#endif
  constexpr double kShift = 4503599627370496.0;  // 2^52
  const D ax = abs_double(x);
  D r = copysign_double((ax + kShift) - kShift, x);
  if constexpr (kMode == 0) r = r > x ? r - 1.0 : r;
  if constexpr (kMode == 1) r = r < x ? r + 1.0 : r;
  if constexpr (kMode == 2) r = abs_double(r) > ax ? r - copysign_double(D{} + 1.0, x) : r;
  return ax < kShift ? copysign_double(r, x) : x;
}

// a b + c rounded once (one vfmadd where the machine has FMA).
template <typename D>
inline D fma_double(D a, D b, D c) {
#if defined(__AVX512F__)
  if constexpr (sizeof(D) == 64) {
    return reinterpret_cast<D>(_mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b),
                                               reinterpret_cast<__m512d>(c)));
  }
#endif
#if defined(__FMA__)
  if constexpr (sizeof(D) == 32) {
    return reinterpret_cast<D>(_mm256_fmadd_pd(reinterpret_cast<__m256d>(a), reinterpret_cast<__m256d>(b),
                                               reinterpret_cast<__m256d>(c)));
  }
#endif
  D r;
  for (int k = 0; k < int(sizeof(D) / sizeof(double)); ++k) r[k] = __builtin_fma(a[k], b[k], c[k]);
  return r;
}
// sqrt, correctly rounded (one vsqrtpd where the machine has it).
template <typename D>
inline D sqrt_double(D x) {
#if defined(__AVX512F__)
  if constexpr (sizeof(D) == 64) return reinterpret_cast<D>(_mm512_sqrt_pd(reinterpret_cast<__m512d>(x)));
#endif
#if defined(__AVX__)
  if constexpr (sizeof(D) == 32) return reinterpret_cast<D>(_mm256_sqrt_pd(reinterpret_cast<__m256d>(x)));
#endif
  D root;
  for (int k = 0; k < int(sizeof(D) / sizeof(double)); ++k) root[k] = __builtin_sqrt(x[k]);
  return root;
}
namespace double_detail {
constexpr double kExpQ[] = {0.5,
                            0.1666666666666667,
                            0.04166666666666668,
                            0.008333333333326141,
                            0.0013888888888879082,
                            0.00019841269874802173,
                            2.4801587336422683e-05,
                            2.755725542387984e-06,
                            2.755726330017862e-07,
                            2.510520706464424e-08,
                            2.091812988660952e-09};
// (e^r - 1 - r) / r^2 on |r| <= ln 2 (expm1's direct range), degree 12: 5e-18 of expm1.
constexpr double kExpm1Q[] = {0.5,
                              0.16666666666666663,
                              0.04166666666666666,
                              0.008333333333335084,
                              0.0013888888888891244,
                              0.0001984126983835635,
                              2.4801587298646745e-05,
                              2.755732130234893e-06,
                              2.755732097207836e-07,
                              2.5051387840094842e-08,
                              2.087622365102185e-09,
                              1.6178879045243213e-10,
                              1.1551387589559027e-11};
constexpr double kLogT[] = {0.6666666666666666,  0.4000000000000088,  0.2857142857080112,  0.2222222239222216,
                            0.18181795590761907, 0.15386242164348365, 0.13268712289333262, 0.13087217031578988};
constexpr double kLn2HiDouble = 0.6931471803691238;  // ln 2 to 32 bits (its low 21 mantissa bits zero)
constexpr double kLn2LoDouble = 1.9082149292705877e-10;

// Whether every lane lies strictly between lo and hi (and, with kNonzero, is not zero); NaN lanes do not. The
// comparisons stay in mask registers on AVX-512 (vec::all_between's double form).
template <bool kNonzero = false, typename D>
inline bool all_between_double(D x, double lo, double hi) {
#if defined(__AVX512F__)
  if constexpr (sizeof(D) == 64) {
    const __m512d v = reinterpret_cast<__m512d>(x);
    __mmask8 inside = _mm512_cmp_pd_mask(v, _mm512_set1_pd(lo), _CMP_GT_OQ) &
                      _mm512_cmp_pd_mask(v, _mm512_set1_pd(hi), _CMP_LT_OQ);
    if constexpr (kNonzero) inside &= _mm512_cmp_pd_mask(v, _mm512_setzero_pd(), _CMP_NEQ_OQ);
    return inside == __mmask8(0xff);
  }
#endif
  mask64_of<D> inside = (x > lo) & (x < hi);
  if constexpr (kNonzero) inside &= x != 0.0;
  return !any(~inside);
}
// 2^k for integer-valued k in [-1022, 1023], from the exponent field.
template <typename D>
inline D pow2(D k) {
  using M = mask64_of<D>;
  // k + 1023 + 2^52 holds the integer in its low mantissa bits; shift it into the exponent field
  const M bits = __builtin_bit_cast(M, k + (4503599627370496.0 + 1023.0));
  return __builtin_bit_cast(D, bits << 52);
}
// s = a + b rounded and error = (a + b) - s exactly (Knuth's two-sum); fast_two_sum when |a| >= |b| or a is 0.
template <typename D>
inline D two_sum(D a, D b, D& error) {
  const D s = a + b, bv = s - a;
  error = (a - (s - bv)) + (b - bv);
  return s;
}
template <typename D>
inline D fast_two_sum(D a, D b, D& error) {
  const D s = a + b;
  error = b - (s - a);
  return s;
}
// The lanes set in `lanes` through the C library's f of the arguments' lanes (what a vector form leaves out: huge or
// special arguments); the others as computed.
template <typename D, typename F, typename... Args>
inline D scalar_lanes(mask64_of<D> lanes, D result, F f, Args... args) {
  if (__builtin_expect(any(lanes), 0)) {
    for (int k = 0; k < int(sizeof(D) / sizeof(double)); ++k) {
      if (lanes[k]) result[k] = f(args[k]...);
    }
  }
  return result;
}
// The low bits of an integer-valued double n (|n| < 2^51) as an int64 lane.
template <typename D>
inline mask64_of<D> integer_bits(D n) {
  return __builtin_bit_cast(mask64_of<D>, n + 6755399441055744.0);  // 1.5 * 2^52
}

// e^x = 2^n (hi + lo), hi = 1 + r exactly and lo the rest, for |x| <= 746: exp's reduction with r's low part kept.
template <typename D>
inline D exp_two(D x, D& lo, D& n) {
  n = rounded_double<3>(x * 1.4426950408889634);
  const D r_head = x - n * kLn2HiDouble;  // exact
  const D p = n * kLn2LoDouble, p_error = fma_double(n, D{} + kLn2LoDouble, -p);
  const D r = r_head - p, r_lo = ((r_head - r) - p) - p_error;
  D e;
  const D hi = fast_two_sum(D{} + 1.0, r, e);
  lo = e + (r * r * horner_double(r, kExpQ) + r_lo * hi);
  return hi;
}
}  // namespace double_detail

template <typename D>
__attribute__((always_inline)) inline D exp_double(D x) {
  using double_detail::kExpQ, double_detail::kLn2HiDouble, double_detail::kLn2LoDouble;
  // Note [Float64 exp's fast path]: a vector of lanes in (-708, 709) (no NaN) has every e^x normal and n in
  // [-1021, 1023], so 2^n is one normal factor: no clamp, no split of 2^n in two, no NaN select (the same bits;
  // float64 exp 0.93x -> 0.68x torch's time, exp2 1.08x -> 0.82x, sigmoid through exp too, on AVX2)
  if (__builtin_expect(double_detail::all_between_double(x, -708.0, 709.0), 1)) {
    const D n = rounded_double<3>(x * 1.4426950408889634);
    const D r = (x - n * kLn2HiDouble) - n * kLn2LoDouble;
    return (1.0 + (r + r * r * horner_double(r, kExpQ))) * double_detail::pow2(n);
  }
  const D xc = x < -746.0 ? D{} - 746.0 : (x > 710.0 ? D{} + 710.0 : x);
  const D n = rounded_double<3>(xc * 1.4426950408889634);
  const D r = (xc - n * kLn2HiDouble) - n * kLn2LoDouble;
  const D e = 1.0 + (r + r * r * horner_double(r, kExpQ));
  // 2^n as 2^(n/2) 2^(n - n/2): each factor normal for n in [-1077, 1025], and the product rounds once
  const D half = rounded_double<0>(n * 0.5);
  const D result = e * double_detail::pow2(half) * double_detail::pow2(n - half);
  return x != x ? x : result;
}

namespace double_detail {
// 1/d (d positive, normal, finite) to about 2^-56, for correction terms: vrcp14pd and two Newton steps on AVX-512
// (vdivpd's throughput there is 11 cycles per vector, the steps' four fmas pipeline), a division elsewhere. A
// correction can be as large as the result (log(1 + a + low) for tiny a: low / (1 + a) is most of it), so 2^-28 would
// not do.
template <typename D>
inline D recip_approx_double(D d) {
#if defined(__AVX512F__)
  if constexpr (sizeof(D) == 64) {
    D q = reinterpret_cast<D>(_mm512_maskz_rcp14_pd(__mmask8(0xff), reinterpret_cast<__m512d>(d)));
    q = fma_double(q, fma_double(-d, q, D{} + 1.0), q);
    return fma_double(q, fma_double(-d, q, D{} + 1.0), q);
  }
#endif
  return 1.0 / d;
}
// Note [Float64 logarithms by table]: on AVX-512 (where vpermt2pd picks one of 16 doubles per lane in one
// instruction) the logarithms take iter/vec.h's arrangement (Note [Vectorized logarithms]) in double: x = m 2^e with
// m in [1, 2) by vgetmantpd/vgetexppd, m = c (1 + r) for c of m's sixteenth (c = 1 first, 2 last), r + rlo = m/c - 1
// exactly, log1p(r) = r - r^2/2 + r^3 P(r) with P of degree 8 (0.011 ulp on [-1/32, 1/16]), e ln2_hi + (ln c)_hi
// exact ((ln c)_hi on a grid of 2^-32, as ln2_hi), and the result as s + small: no division (log_parts' s = f / (2 +
// f) took a third of the time: the divider's throughput is 11 cycles per vector here). Tables and P from
// tools/vec_poly_fit.py (float64_log_tables).
constexpr double kLogInverse64[16] = {
    1.0, 0.9142857142857143, 0.8648648648648649, 0.8205128205128205, 0.7804878048780488, 0.7441860465116279,
    0.7111111111111111, 0.6808510638297872, 0.6530612244897959, 0.6274509803921569, 0.6037735849056604,
    0.5818181818181818, 0.5614035087719298, 0.5423728813559322, 0.5245901639344263, 0.5};
constexpr double kLogCHi64[16] = {
    0.0, 0.0896121587138623, 0.14518200978636742, 0.19782574335113168, 0.24783616396598518, 0.2954642130061984,
    0.3409265868831426, 0.3844116989057511, 0.4260843952652067, 0.466089729918167, 0.5045560107100755,
    0.5415972825139761, 0.5773153649643064, 0.6118015411775559, 0.6451379614882171, kLn2HiDouble};
constexpr double kLogCLo64[16] = {
    0.0, -2.417513607415438e-11, 5.8130425388947895e-11, -2.1211762570521887e-11, -6.140395686131549e-11,
    -1.123625159550127e-10, 8.745058161840661e-11, 4.580954897688746e-12, 4.569344831885847e-11,
    6.432243387884106e-12, 4.23198275949667e-11, -8.123167695813396e-11, 7.051730530655821e-11,
    -7.156301169420577e-11, -1.1463246577869747e-10, kLn2LoDouble};
constexpr double kLog1pP64[] = {0.3333333333333333,  -0.2500000000000632, 0.20000000000095175,
                                -0.1666666662421831, 0.1428571353478552,  -0.12500069888433765,
                                0.11112805863306695, -0.09973724022670497, 0.08035413803935944};
#if defined(__AVX512F__)
template <typename D>
constexpr bool kLogByTable = sizeof(D) == 64;
inline __m512d pick16_double(const double (&table)[16], __m512i index) {  // table[index & 15]
  return _mm512_permutex2var_pd(_mm512_loadu_pd(table), index, _mm512_loadu_pd(table + 8));
}
// x = m 2^e (m in [1, 2)), m's piece `index`, and r + rlo = m/c - 1 exactly, for x > 0 finite.
template <typename D>
inline void log_table_reduce(D x, D& e, __m512i& index, D& r, D& rlo) {
  const __m512d v = reinterpret_cast<__m512d>(x);
  const D m = reinterpret_cast<D>(_mm512_getmant_pd(v, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero));
  e = reinterpret_cast<D>(_mm512_getexp_pd(v));
  index = _mm512_srli_epi64(reinterpret_cast<__m512i>(m), 48);
  const D inverse = reinterpret_cast<D>(pick16_double(kLogInverse64, index));
  const D p = m * inverse;
  rlo = fma_double(m, inverse, -p);
  r = p - 1.0;
}
// ln(c 2^e) + log1p(r + rlo) + c_extra as s + small (c_extra: a first-order term not to be scaled by 1 - r).
template <typename D>
inline void log_table_finish(D e, __m512i index, D r, D rlo, D c_extra, D& s, D& small) {
  const D a = fma_double(e, D{} + kLn2HiDouble, reinterpret_cast<D>(pick16_double(kLogCHi64, index)));  // exact
  const D b = fma_double(e, D{} + kLn2LoDouble, reinterpret_cast<D>(pick16_double(kLogCLo64, index)));
  s = a + r;
  const D s_error = (a - s) + r;
  const D q = fma_double(r, horner_double(r, kLog1pP64), D{} - 0.5);
  small = fma_double(r * r, q, (s_error + b) + (fma_double(-r, rlo, rlo) + c_extra));
}
// ln(x (1 + c)) + extra ln 2 as s + small for x > 0 finite and small c.
template <typename D>
inline void log_by_table(D x, D c, double extra, D& s, D& small) {
  D e, r, rlo;
  __m512i index;
  log_table_reduce(x, e, index, r, rlo);
  log_table_finish(e + extra, index, r, rlo, c, s, small);
}
#else
template <typename D>
constexpr bool kLogByTable = false;
template <typename D>
inline void log_by_table(D, D, double, D&, D&) {}
#endif
// log(x) = k ln 2 + (f - hfsq + s (hfsq + r)) for positive finite x (Note [Float64 exp and log]).
template <typename D>
struct LogParts {
  D k, f, hfsq, sr;  // sr = s (hfsq + r)
};
template <typename D>
inline LogParts<D> log_parts(D x) {
  using M = mask64_of<D>;
  const M tiny = x < 2.2250738585072014e-308;
  const D xs = tiny ? x * 18014398509481984.0 : x;  // 2^54: subnormals normal
  const M shifted = (__builtin_bit_cast(M, xs) & 0x7fffffffffffffffLL) - 0x3fe6a09e667f3bcdLL;  // less sqrt(1/2)
  const M k = (shifted >> 52) - (tiny & 54);
  const D m = __builtin_bit_cast(D, (shifted & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL);
  // k as a double without an int64 conversion instruction: k + 1100 is in [0, 2^12), placed in the mantissa of 2^52
  const D kd = __builtin_bit_cast(D, (k + 1100) | 0x4330000000000000LL) - (4503599627370496.0 + 1100.0);
  const D f = m - 1.0, s = f / (2.0 + f), z = s * s, hfsq = 0.5 * f * f;
  return {kd, f, hfsq, s * (hfsq + z * horner_double(z, kLogT))};
}
// log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays: the result for the lanes outside (0, inf)
template <typename D>
inline D log_special(D x, D result) {
  if (__builtin_expect(all_between_double(x, 0.0, __builtin_inf()), 1)) return result;  // nearly every vector
  const D inf = D{} + __builtin_inf();
  const D special = x == 0.0 ? D{} - __builtin_inf() : (x < 0.0 ? D{} + __builtin_nan("") : x);
  return (x > 0.0) & (x < inf) ? result : special;
}
// log_b(x) = k log_b(2) + log(m) / ln(b) with f - hfsq split in a 32-bit head and the rest, each times 1/ln(b) in two
// parts, and the sum with k log_b(2) carried exactly (the way fdlibm's log2 and log10 are made): within an ulp.
template <typename D>
inline D log_base(D x, double inv_hi, double inv_lo, double k_hi, double k_lo) {
  using M = mask64_of<D>;
  if constexpr (kLogByTable<D>) {  // (s + small) (k + k_lo) with s k's rounding error kept, k = 1/ln b rounded
    const double k = inv_hi + inv_lo, k_rest = (inv_hi - k) + inv_lo;  // inv_hi - k exact
    D s, small;
    log_by_table(x, D{}, 0.0, s, small);
    const D h = s * k;
    const D h_error = fma_double(s, D{} + k, -h);
    return log_special(x, h + fma_double(small, D{} + k, fma_double(s, D{} + k_rest, h_error)));
  }
  const LogParts<D> p = log_parts(x);
  const D hi = __builtin_bit_cast(D, __builtin_bit_cast(M, p.f - p.hfsq) & static_cast<int64_t>(0xffffffff00000000ULL));
  const D lo = ((p.f - hi) - p.hfsq) + p.sr;
  D val_hi = hi * inv_hi;
  D val_lo = p.k * k_lo + ((lo + hi) * inv_lo + lo * inv_hi);
  const D y = p.k * k_hi;  // exact: k has 11 bits, k_hi 32
  const D w = y + val_hi;
  val_lo = val_lo + ((y - w) + val_hi);
  return log_special(x, val_lo + w);
}

}  // namespace double_detail

template <typename D>
__attribute__((always_inline)) inline D log_double(D x) {
  using double_detail::kLn2HiDouble, double_detail::kLn2LoDouble;
  if constexpr (double_detail::kLogByTable<D>) {
    D s, small;
    double_detail::log_by_table(x, D{}, 0.0, s, small);
    return double_detail::log_special(x, s + small);
  }
  const double_detail::LogParts<D> p = double_detail::log_parts(x);
  return double_detail::log_special(x, p.k * kLn2HiDouble - ((p.hfsq - (p.sr + p.k * kLn2LoDouble)) - p.f));
}
template <typename D>
inline D log2_double(D x) {
  return double_detail::log_base(x, 1.4426950407214463, 1.6751713164886512e-10, 1.0, 0.0);
}
template <typename D>
inline D log10_double(D x) {
  return double_detail::log_base(x, 0.4342944818781689, 2.5082946711645275e-11, 0.3010299955494702,
                                 1.1451100898021838e-10);
}
// 2^x: n = rint(x), r = (x - n) ln 2 (x - n exact, |r| <= ln2/2), then exp's polynomial and scaling.
template <typename D>
inline D exp2_double(D x) {
  using double_detail::kExpQ, double_detail::pow2;
  if (__builtin_expect(double_detail::all_between_double(x, -1021.0, 1023.0), 1)) {  // Note [Float64 exp's fast path]
    const D n = rounded_double<3>(x);
    const D r = (x - n) * 0.6931471805599453;
    return (1.0 + (r + r * r * horner_double(r, kExpQ))) * pow2(n);
  }
  const D xc = x < -1076.0 ? D{} - 1076.0 : (x > 1025.0 ? D{} + 1025.0 : x);
  const D n = rounded_double<3>(xc);
  const D r = (xc - n) * 0.6931471805599453;
  const D e = 1.0 + (r + r * r * horner_double(r, kExpQ));
  const D half = rounded_double<0>(n * 0.5);
  const D result = e * pow2(half) * pow2(n - half);
  return x != x ? x : result;
}
// sigmoid as the functor computes it, 1 / (1 + e^-x).
template <typename D>
inline D sigmoid_double(D x) { return 1.0 / (1.0 + exp_double(-x)); }

// expm1: below ln 2 in magnitude x + x^2 Q(x) directly (no 1 to cancel); beyond, n = rint(x / ln 2) and r as exp's,
// expm1(x) = (2^n - 1) + 2^n (r + r^2 Q'(r)), the first two terms summed exactly, one rounding at the end; e^x from
// 700 (expm1 = e^x there), -1 below -40 (e^x below half an ulp of 1). Within an ulp (tests/test_vec_math.py).
template <typename D>
__attribute__((always_inline)) inline D expm1_double(D x) {
  using double_detail::kExpQ, double_detail::kExpm1Q, double_detail::pow2;
  const D direct = x + x * x * horner_double(x, kExpm1Q);
  // every lane direct (and no zero, whose sign the sum would lose)
  if (double_detail::all_between_double<true>(x, -0.6931471805599453, 0.6931471805599453)) return direct;
  // (2^n - 1) + 2^n r exactly in two doubles (Knuth's two-sum), then the polynomial's part: one rounding at the end
  const auto reduced = [](D xc) __attribute__((always_inline)) {
    const D n = rounded_double<3>(xc * 1.4426950408889634);
    const D r = (xc - n * double_detail::kLn2HiDouble) - n * double_detail::kLn2LoDouble;
    const D t = pow2(n);
    D error;
    const D sum = double_detail::two_sum(t - 1.0, t * r, error);
    return sum + (t * (r * r * horner_double(r, kExpQ)) + error);
  };
  const mask64_of<D> small = abs_double(x) < 0.6931471805599453;  // direct there (the reduced form: 1.4 ulp at 0.38)
  // a vector inside (-40, 700) without zero or NaN needs none of the fixes below
  if (double_detail::all_between_double<true>(x, -40.0, 700.0)) return small ? direct : reduced(x);
  D result = reduced(x < -40.0 ? D{} - 40.0 : (x > 700.0 ? D{} + 700.0 : x));
  result = small ? direct : result;
  if (any(x > 700.0)) result = x > 700.0 ? exp_double(x) : result;
  result = x < -40.0 ? D{} - 1.0 : result;
  return (x != x) | (x == 0.0) ? x : result;  // NaN, and the zeros' signs
}
// log1p: log's parts of u = 1 + x rounded, with the rounding's share c = (x - (u - 1)) / u (or (1 - (u - x)) / u
// where u >= 2) added among the small terms, before the one rounding (fdlibm's log1p arrangement); x itself where u
// is 1.
template <typename D>
inline D log1p_double(D x) {
  using double_detail::kLn2HiDouble, double_detail::kLn2LoDouble;
#if defined(__AVX512F__)
  if constexpr (double_detail::kLogByTable<D>) {
    // u = 1 + x reduced by the table; where u is in the pieces beside 1 (c = 1 or 2, ln c cancelling e ln 2) r is x
    // itself, exactly; elsewhere u's rounding enters as (1 + x - u) / u, far below the result's ulp there
    const D u = 1.0 + x;
    D e, r, rlo, s, small;
    __m512i index;
    double_detail::log_table_reduce(u, e, index, r, rlo);
    const mask64_of<D> near = (u >= 0.96875) & (u < 1.0625);
    const D lost = u >= 2.0 ? 1.0 - (u - x) : x - (u - 1.0);  // 1 + x - u, exactly
    const D c = near ? D{} : lost * double_detail::recip_approx_double(u);
    double_detail::log_table_finish(e, index, near ? x : r, near ? D{} : rlo, c, s, small);
    // x = -1: -inf, x < -1: NaN, inf: inf, NaN stays (log's special values of u); -0 stays
    return x == 0.0 ? x : double_detail::log_special(u, s + small);
  }
#endif
  const D u = 1.0 + x;
  const double_detail::LogParts<D> p = double_detail::log_parts(u);
  const D c = (u >= 2.0 ? 1.0 - (u - x) : x - (u - 1.0)) / u;
  const D result = p.k * kLn2HiDouble - ((p.hfsq - (p.sr + (p.k * kLn2LoDouble + c))) - p.f);
  // x = -1: -inf, x < -1: NaN, inf: inf, NaN stays (log's special values of u)
  return u == 1.0 ? x : double_detail::log_special(u, result);
}

// logaddexp and logaddexp2 as their functors compute them: max + log1p(e^-|a - b|) (log1p(2^-|a - b|) / ln 2); equal
// operands give a + ln 2 (a + 1); NaN stays.
template <bool kBase2, typename D>
inline D logaddexp_any_double(D a, D b) {
  const D m = a > b ? a : b, d = abs_double(a - b);
  const D r = kBase2 ? m + log1p_double(exp2_double(-d)) * 1.4426950408889634 : m + log1p_double(exp_double(-d));
  const D same = a == b ? a + (kBase2 ? 1.0 : 0.6931471805599453) : r;
  return (a != a) | (b != b) ? a + b : same;
}
template <typename D>
inline D logaddexp_double(D a, D b) { return logaddexp_any_double<false>(a, b); }
template <typename D>
inline D logaddexp2_double(D a, D b) { return logaddexp_any_double<true>(a, b); }

// Note [Float32 pow in double lanes]: x^y for float lanes as e^(y ln x) in double lanes (log_double and exp_double,
// each within an ulp of a double), so the product's error, at most |y ln x| 2^-52 < 2^-45 where the float result is
// finite and nonzero, stays far below a float's half ulp: one rounding to float, 0.5 ulp but where the exact value
// lies within 2^-45 of a halfway point. A negative x gives |x|^y, negated for an odd integer y, NaN for a y that is
// no integer (every float from 2^24 up is an even integer). Lanes with a zero, infinite or NaN x or an infinite or
// NaN y take the C library's double pow, which is exact for those, rounded once too.
template <typename V>
inline V pow(V x, V y) {
  return in_float_halves([](auto hx, auto hy) {
    using H = decltype(hx);
    using D = typename VecDouble<H>::type;
    const D a = __builtin_convertvector(hx, D), b = __builtin_convertvector(hy, D);
    const D r = exp_double(b * log_double(abs_double(a)));
    const mask64_of<D> integer = rounded_double<3>(b) == b;
    const mask64_of<D> odd = integer & (abs_double(b) < 16777216.0) & ((double_detail::integer_bits(b) & 1) != 0);
    D result = a < 0.0 ? (integer ? (odd ? -r : r) : D{} + __builtin_nan("")) : r;
    const mask64_of<D> special = ~(a != 0.0) | ~(abs_double(a) < __builtin_inf()) | ~(abs_double(b) < __builtin_inf());
    result = double_detail::scalar_lanes(special, result, [](double u, double v) { return std::pow(u, v); }, a, b);
    return __builtin_convertvector(result, H);
  }, x, y);
}

// fmod, exactly, as vec::fmod does for floats (its argument holds for doubles with 2^51 in place of 2^22); the lanes
// outside (zero or infinite y, infinite x, NaN, quotients of 2^51 and up) take the C library's fmod.
template <typename D>
inline D fmod_double(D x, D y) {
  const D ax = abs_double(x), ay = abs_double(y);
  const D q = rounded_double<2>(ax / ay);
  D r = fma_double(-q, ay, ax);
  r = r < 0.0 ? r + ay : r;
  D result = copysign_double(r, x);
  const mask64_of<D> special = ~(q < 2251799813685248.0) | ~(ay < __builtin_inf());
  return double_detail::scalar_lanes(special, result, [](double a, double b) { return std::fmod(a, b); }, x, y);
}
// remainder (Python's %) and floor_divide from fmod, the functors' steps (RemainderOp, math::floor_divide_float).
template <typename D>
inline D remainder_double(D x, D y) {
  const D r = fmod_double(x, y);
  return (r != 0.0) & ((y < 0.0) != (r < 0.0)) ? r + y : r;
}
template <typename D>
inline D floor_divide_double(D a, D b) {
  const D mod = fmod_double(a, b);
  D div = (a - mod) / b;
  div = (mod != 0.0) & ((b < 0.0) != (mod < 0.0)) ? div - 1.0 : div;
  D floored = rounded_double<0>(div);
  floored = div - floored > 0.5 ? floored + 1.0 : floored;
  const D quotient = a / b;
  floored = div == 0.0 ? copysign_double(D{}, quotient) : floored;
  return b == 0.0 ? quotient : floored;
}
// nextafter on the bits, as vec::nextafter does for floats.
template <typename D>
inline D nextafter_double(D x, D y) {
  using M = mask64_of<D>;
  using U = typename VecUnsigned64<D>::type;
  const U bits = __builtin_bit_cast(U, x);
  const M away = (y > x) == (x > 0.0);
  D r = __builtin_bit_cast(D, away ? bits + 1 : bits - 1);
  r = x == 0.0 ? copysign_double(__builtin_bit_cast(D, M{} + 1), y) : r;
  r = x == y ? y : r;
  return (x != x) | (y != y) ? x + y : r;
}

}  // namespace yaten::vec

namespace yaten::native {

namespace vec_detail {
// Float64 rows of kInputs operands through vec_f64 (kDoubleLanes at a time): contiguous rows straight from memory,
// their tails and strided or broadcast rows through lane buffers (every element sees the same code).
template <size_t kInputs, typename VecF64>
void double_rows(const TensorIterator& iter, VecF64 vec_f64) {
  using vec::wdouble;
  constexpr int kLanes = vec::kDoubleLanes;
  iter.for_each_row([&](char** data, const int64_t* strides, int64_t n) {
    const VecF64 f = vec_f64;  // Note [A local copy of the vector function] (iter/vec.h)
    const auto apply = [&](const double* const* rows, double* out) {
      std::array<wdouble, kInputs> v;
      for (size_t k = 0; k < kInputs; ++k) std::memcpy(&v[k], rows[k], sizeof(wdouble));
      const wdouble r = std::apply(f, v);
      std::memcpy(out, &r, sizeof r);
    };
    int64_t i = 0;
    bool contiguous = true;
    for (size_t k = 0; k <= kInputs; ++k) contiguous &= strides[k] == sizeof(double);
    if (contiguous) {
      for (; i + kLanes <= n; i += kLanes) {
        const double* rows[kInputs];
        for (size_t k = 0; k < kInputs; ++k) rows[k] = reinterpret_cast<const double*>(data[k + 1]) + i;
        apply(rows, reinterpret_cast<double*>(data[0]) + i);
      }
    }
    double buffer[kInputs + 1][kLanes];
    for (; i < n; i += kLanes) {
      const int64_t m = n - i < kLanes ? n - i : kLanes;
      const double* rows[kInputs];
      for (size_t k = 0; k < kInputs; ++k) {
        for (int64_t j = 0; j < kLanes; ++j) {
          buffer[k][j] = j < m ? *reinterpret_cast<const double*>(data[k + 1] + (i + j) * strides[k + 1]) : 1.0;
        }
        rows[k] = buffer[k];
      }
      apply(rows, buffer[kInputs]);
      for (int64_t j = 0; j < m; ++j) *reinterpret_cast<double*>(data[0] + (i + j) * strides[0]) = buffer[kInputs][j];
    }
  });
}
}  // namespace vec_detail

// unary_vec_kernel and binary_vec_kernel with a float64 vector function too (vec_detail::double_rows); other dtypes
// as their three-argument forms.
template <typename scalar_t, typename ScalarF, typename VecF, typename VecF64>
void unary_vec_kernel(const TensorIterator& iter, ScalarF scalar_f, VecF vec_f, VecF64 vec_f64) {
  if constexpr (std::is_same_v<scalar_t, double>) {
    vec_detail::double_rows<1>(iter, vec_f64);
  } else {
    unary_vec_kernel<scalar_t>(iter, scalar_f, vec_f);
  }
}
template <typename scalar_t, typename ScalarF, typename VecF, typename VecF64>
void binary_vec_kernel(const TensorIterator& iter, ScalarF scalar_f, VecF vec_f, VecF64 vec_f64) {
  if constexpr (std::is_same_v<scalar_t, double>) {
    vec_detail::double_rows<2>(iter, vec_f64);
  } else {
    binary_vec_kernel<scalar_t>(iter, scalar_f, vec_f);
  }
}

}  // namespace yaten::native
