// Vectorized float64 erf and erfinv (Note [Float64 erf]), beside iter/vec_double.h's exp and log, which erfinv builds
// on. In a header of its own, included by the kernels that use it.
//
// Note [Float64 erf]: below 3/4, erf x = x + x P(x^2) (P of degree 11, its constant 2/sqrt(pi) - 1, so x itself is the
// exact leading term). From 3/4 to 2, four pieces 0.3125 wide: erf(m + u) = K + R(u), K = erf(m) rounded and R of
// degree 12 (its constant term erf(m) - K), the piece's row read from 8-entry tables (one vpermpd per coefficient under
// AVX-512). From 2 to 6, erf = 1 - erfc with erfc x = e^-x^2 S(u) to about an ulp of erfc itself: x^2 in two doubles,
// e^-x^2 by exp's reduction with its low parts kept, S a polynomial of degree 15 for erfc(x) e^x^2 on four unit pieces
// (its coefficients picked per lane from 4-entry tables, one vpermps each on AVX2); 1 from 6 on (erfc 6 = 2e-17 is
// below half an ulp of 1). erf(x) - y, which erfinv's Newton step needs, comes from the same parts with y taken from K,
// from x or from 1, differences that are exact where the two are close, so the residual keeps its own precision even
// where erf x is within 1e-15 of 1 and only erfc's relative accuracy can place x. erfinv: a first guess (Note [erfinv's
// central rational], or math::erfinv_guess), then one Newton step on that residual. The polynomials are least squares
// in mpmath's arithmetic (tools/vec_poly_fit.py). erf itself takes cheaper forms of the middle and the tail, which hold
// it to an ulp but not the residual (Note [Float64 erf's tail to an ulp of 1]).
#pragma once

#include "iter/vec_double.h"
#include "kernels/pointwise_math.h"

namespace yaten::vec {

namespace double_detail {
// erf x = x + x P(x^2) on |x| <= 3/4; erf(m + u) = K + R(u) on four pieces m +- 0.15625 from 3/4 to 2, m = kErfMid64,
// K the first row, R's coefficients the rest, lowest degree first (tables of eight, the last four unused);
// erfc(m + u) e^(m + u)^2 = S(u) on four unit pieces from 2 to 6 (kErfcxPiece64, m = 2.5, ..., 5.5).
constexpr double kErfSmall64[] = {0.1283791670955126, -0.37612638903183754, 0.11283791670955087, -0.02686617064511852, 0.005223977625223246, -0.0008548327001223344, 0.00012055331549810692, -1.4925589533723744e-05, 1.6460386405915453e-06, -1.633327165692877e-07, 1.4414195873086809e-08, -9.503863762341979e-10};
constexpr double kErfMid64[8] = {0.90625, 1.21875, 1.53125, 1.84375, 0.0, 0.0, 0.0, 0.0};
constexpr double kErfPiece64[14][8] = {
    {0.800027894164233, 0.9152150038717323, 0.9696516951398422, 0.9908782275068627, 0.0, 0.0, 0.0, 0.0},
    {-4.947178454318784e-17, -1.8563431576408852e-17, 4.4679825114762135e-17, -4.0938819091637024e-17, 0.0, 0.0, 0.0, 0.0},
    {0.4963336857804945, 0.25549068578278905, 0.10818156296067483, 0.03767977408681667, 0.0, 0.0, 0.0, 0.0},
    {-0.44980240273857325, -0.3113792732977742, -0.1656530182835333, -0.0694720834725682, 0.0, 0.0, 0.0, 0.0},
    {0.10631105639437369, 0.16783209762689977, 0.13304360184422706, 0.07283284457273932, 0.0, 0.0, 0.0, 0.0},
    {0.10176193681754314, 0.001520406607899777, -0.04664383490082804, -0.04398541743299084, 0.0, 0.0, 0.0, 0.0},
    {-0.06878201900962687, -0.05109082752647038, -0.011343731680183928, 0.010589391991318503, 0.0, 0.0, 0.0, 0.0},
    {-0.006358614921375566, 0.02035020691347636, 0.018228385690110028, 0.005221380824888491, 0.0, 0.0, 0.0, 0.0},
    {0.01802309759512554, 0.005078252262867344, -0.005274029752310611, -0.005271833479732626, 0.0, 0.0, 0.0, 0.0},
    {-0.002720796294288778, -0.0059080379015683205, -0.0018871186892861836, 0.001311118011863876, 0.0, 0.0, 0.0, 0.0},
    {-0.0029565090848988657, 0.0006125070477146096, 0.0016676183234848967, 0.0004879395440922932, 0.0, 0.0, 0.0, 0.0},
    {0.0010194825772991255, 0.0009009822524793988, -0.00017518751909402825, -0.00041299371483177825, 0.0, 0.0, 0.0, 0.0},
    {0.0003144355195877551, -0.00029523436057259556, -0.00022310882664540913, 5.688363710304649e-05, 0.0, 0.0, 0.0, 0.0},
    {-0.00019961709504667783, -7.557746680310108e-05, 8.252720595958785e-05, 4.452820443756935e-05, 0.0, 0.0, 0.0, 0.0},
};
constexpr double kErfcxPiece64[16][8] = {
    {0.2108063640611436, 0.1552936556088943, 0.12248480427384142, 0.10096221839949909, 0.0, 0.0, 0.0, 0.0},
    {-0.07434734678979467, -0.041323577833252495, -0.026015928630939815, -0.017794764701022602, 0.0, 0.0, 0.0, 0.0},
    {0.024937997086656952, 0.010661133192510577, 0.005413125434612246, 0.00309101254387477, 0.0, 0.0, 0.0, 0.0},
    {-0.008001569382101566, -0.002673074439643652, -0.0011045761167898067, -0.000529463806474246, 0.0, 0.0, 0.0, 0.0},
    {0.0024670368156972673, 0.0006526863268787728, 0.00022126645452905203, 8.948080413320813e-05, 0.0, 0.0, 0.0, 0.0},
    {-0.0007335909371405511, -0.0001554689182270313, -4.3550828563619294e-05, -1.4927753496639643e-05, 0.0, 0.0, 0.0, 0.0},
    {0.00021101982441835922, 3.6181704365378745e-05, 8.42924199777689e-06, 2.459386633909781e-06, 0.0, 0.0, 0.0, 0.0},
    {-5.8868964680032294e-05, -8.237986560401285e-06, -1.6054970212723397e-06, -4.003220029163063e-07, 0.0, 0.0, 0.0, 0.0},
    {1.5961851032141688e-05, 1.8371877882374122e-06, 3.011263475507492e-07, 6.44039042620231e-08, 0.0, 0.0, 0.0, 0.0},
    {-4.214295923247096e-06, -4.0173979382735334e-07, -5.565076520105158e-08, -1.0244561845827456e-08, 0.0, 0.0, 0.0, 0.0},
    {1.08524059850604e-06, 8.622023777516543e-08, 1.0139606106448055e-08, 1.6117645751618735e-09, 0.0, 0.0, 0.0, 0.0},
    {-2.729543811910552e-07, -1.817656474332428e-08, -1.82230245123342e-09, -2.50884923950148e-10, 0.0, 0.0, 0.0, 0.0},
    {6.705556172239043e-08, 3.76450947070414e-09, 3.230880172586892e-10, 3.8641296301032907e-11, 0.0, 0.0, 0.0, 0.0},
    {-1.6156643287067512e-08, -7.676550229460623e-10, -5.6581176654271405e-11, -5.893327512865943e-12, 0.0, 0.0, 0.0, 0.0},
    {4.023238531815493e-09, 1.6019967502303282e-10, 1.0075966276661293e-11, 9.1010600642481e-13, 0.0, 0.0, 0.0, 0.0},
    {-9.234849281273912e-10, -3.150337014116431e-11, -1.7161626311040831e-12, -1.358167781332413e-13, 0.0, 0.0, 0.0, 0.0},
};
// table[index] in each lane, for tables of 8 entries (index in range). One vpermpd on AVX-512; on AVX2, 4 doubles at
// a time by pick4_double. Lane by lane (GCC's form of the generic loop is a load and an insert
// per lane), erfinv took 2.0x torch's time on AVX2.
#if defined(__AVX2__)
// table[index & 7] in each of 4 double lanes: every double as its two 32-bit words, gathered by one vpermps from each
// half of the table and the halves blended by the index's bit 2.
inline __m256d pick4_double(const double* table, __m256i index) {
  const __m256i first = _mm256_slli_epi64(_mm256_and_si256(index, _mm256_set1_epi64x(3)), 1);  // 2 (index & 3)
  const __m256i words = _mm256_or_si256(first, _mm256_slli_epi64(_mm256_add_epi64(first, _mm256_set1_epi64x(1)), 32));
  const __m256 lo = _mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_loadu_pd(table)), words);
  const __m256 hi = _mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_loadu_pd(table + 4)), words);
  return _mm256_blendv_pd(_mm256_castps_pd(lo), _mm256_castps_pd(hi),
                          _mm256_castsi256_pd(_mm256_slli_epi64(index, 61)));  // by bit 2
}
#endif
template <typename D>
inline D pick8_double(const double (&table)[8], mask64_of<D> index) {
#if defined(__AVX512F__)
  if constexpr (sizeof(D) == 64) {
    return reinterpret_cast<D>(_mm512_permutexvar_pd(reinterpret_cast<__m512i>(index), _mm512_loadu_pd(table)));
  }
#endif
#if defined(__AVX2__)
  if constexpr (sizeof(D) == 32) return reinterpret_cast<D>(pick4_double(table, reinterpret_cast<__m256i>(index)));
#endif
  D r;
  for (int k = 0; k < int(sizeof(D) / sizeof(double)); ++k) r[k] = table[index[k] & 7];
  return r;
}
// table[index] for an index below 4 (tables of four pieces padded to eight): one vpermps on AVX2, where
// pick8_double takes two and a blend (a vpermps costs two cycles of throughput on Zen 2: float64 erf 1.08x ->
// 0.96x torch's time, gelu 1.35x -> 1.22x, erfinv 1.70x -> 1.61x). The values are the same.
template <typename D>
inline D pick_first4_double(const double (&table)[8], mask64_of<D> index) {
#if defined(__AVX2__)
  if constexpr (sizeof(D) == 32) {
    const __m256i first = _mm256_slli_epi64(reinterpret_cast<__m256i>(index), 1);  // 2 index, index in [0, 4)
    const __m256i second = _mm256_add_epi64(first, _mm256_set1_epi64x(1));
    const __m256i words = _mm256_or_si256(first, _mm256_slli_epi64(second, 32));  // each double's two words
    return reinterpret_cast<D>(_mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_loadu_pd(table)), words));
  }
#endif
  return pick8_double<D>(table, index);
}
// coefficient(Lo) + coefficient(Lo + 1) u + ... + coefficient(Lo + Count - 1) u^(Count - 1) by Estrin's scheme,
// powers[k] = u^(2^k): a tree of depth log2(Count) where Horner's rule is a chain of Count - 1 dependent steps
// (erfinv's guess is latency-bound). coefficient(i): the vector of the i-th coefficient.
template <int Lo, int Count, typename D, typename Coefficient>
__attribute__((always_inline)) inline D estrin_by(const D* powers, const Coefficient& coefficient) {
  if constexpr (Count == 1) {
    return coefficient(Lo);
  } else {
    constexpr int kLevel = Count > 8 ? 3 : (Count > 4 ? 2 : (Count > 2 ? 1 : 0));
    constexpr int kHalf = 1 << kLevel;  // the largest power of two below Count
    return fma_double(estrin_by<Lo + kHalf, Count - kHalf>(powers, coefficient), powers[kLevel],
                      estrin_by<Lo, kHalf>(powers, coefficient));
  }
}
// erfc a for 2 <= a <= 6, to about an ulp of itself: e^-a^2 (a^2 in two doubles, exp's reduction with its low parts
// kept) times S(u) = erfc(a) e^a^2 on the unit piece of a (u = a - m, m = 2.5, ..., 5.5), degree 15 by Estrin's
// scheme, each coefficient one vpermps on AVX2 (sixteen pieces of degree 9 took two and a blend, twice, for each).
template <typename D>
inline D erfc_tail(D a) {
  const D piece = rounded_double<2>(a - 2.0);  // trunc
  const D clamped = piece < 3.0 ? piece : D{} + 3.0;  // 6 in the last piece
  const mask64_of<D> index = integer_bits(clamped) & 3;
  const D u = (a - 2.5) - clamped, u2 = u * u, u4 = u2 * u2;  // exact
  const D powers[] = {u, u2, u4, u4 * u4};
  const D s = estrin_by<0, 16>(powers, [&](int i) { return pick_first4_double<D>(kErfcxPiece64[i], index); });
  const D square = a * a, square_error = fma_double(a, a, -square);
  D lo, n;
  const D hi = exp_two(-square, lo, n);
  return ((hi + (lo - hi * square_error)) * s) * pow2(n);  // n >= -53: 2^n normal
}
// One table of coefficients for every lane.
template <int Lo, int Count, typename D, size_t N>
__attribute__((always_inline)) inline D estrin_double(const D* powers, const double (&c)[N]) {
  return estrin_by<Lo, Count>(powers, [&](int i) { return D{} + c[i]; });
}
// Each lane's coefficients from one of two tables: `second` lanes from `b`, the others from `a` (two pieces chosen by
// a blend per coefficient, where a per-lane pick from a table takes shuffles).
template <int Lo, int Count, typename D, size_t N>
__attribute__((always_inline)) inline D estrin_of_two(const D* powers, mask64_of<D> second, const double (&a)[N],
                                                     const double (&b)[N]) {
  return estrin_by<Lo, Count>(powers, [&](int i) { return second ? D{} + b[i] : D{} + a[i]; });
}
// Note [Float64 erf's tail to an ulp of 1]: erf itself, near 1 from 2 on, needs erfc only to about an ulp of 1
// (1.1e-16), not to an ulp of erfc as erfinv's residual does (erfc_tail). So erf (and gelu through it) takes
// erfc a = e^-a^2 S(a) with S on two pieces, [2, 3] and [3, 6], degree 11 in u = a - 2.5 or a - 4.5, chosen by a
// blend per coefficient (estrin_of_two); S fitted by least squares weighted by e^-a^2 (tools/vec_poly_fit.py,
// kErfTail64), which fits erfc's absolute error: at most 0.17 ulp of 1 from the fit; e^-a^2 by exp's reduction and
// polynomial, by Estrin's scheme. From 3/4 to 2 erf takes two pieces m +- 0.3125 of degree 15 (kErfMiddle64), blended
// the same way, where erfinv's residual keeps four of degree 12 picked per lane; below 3/4 its polynomial is Estrin's
// too; and each of the three runs only where a lane needs it. The per-lane picks were most of the time: a vpermps pair
// (two cycles of throughput each on Zen 2) per coefficient of the sixteen tail pieces, one per coefficient of the four
// middle ones; the three paths are chains of dependent steps, which Estrin's scheme shortens. 1M doubles, 1 thread,
// AVX2 (benchmarks/bench_erf_ranges.py), torch's time: on [2, 5.9] 3.64x -> 0.95x, on [3/4, 2] 1.13x -> 0.69x, randn
// 1.60x -> 1.07x. Largest error against mpmath: 0.75 ulp (150,000 samples in [3/4, 0.9], as many over [-4, 6.5]), 0.91
// before R's last two steps went by Horner's rule (0.88 over 3M samples spread wider; one middle piece of degree 22,
// faster, reached 0.97).
constexpr double kErfTail64[2][12] = {
    {0.21080636406115077, -0.07434734678964368, 0.024937997085132543, -0.008001569401693607, 0.0024670368511991534, -0.000733590338178727, 0.0002110198794370945, -5.887583508585281e-05, 1.5956414096462135e-05, -4.180999909145102e-06, 1.1211684768496682e-06, -3.3391078060899093e-07},
    {0.12248480423793395, -0.026015928518554034, 0.0054131292959141404, -0.0011045572542614669, 0.00022129979800061984, -4.3560750072705115e-05, 8.283108530372196e-06, -1.8906517916972295e-06, 7.103763366729151e-09, -2.3584127531076725e-07, -5.386592268759342e-08, -1.2914699069236622e-08},
};
// erfc a for 2 <= a <= 6, within about 0.2 ulp of 1 (Note [Float64 erf's tail to an ulp of 1]).
template <typename D>
inline D erfc_tail_absolute(D a) {
  const mask64_of<D> upper = a >= 3.0;
  const D u = a - (upper ? D{} + 4.5 : D{} + 2.5), u2 = u * u, u4 = u2 * u2;
  const D powers_u[] = {u, u2, u4, u4 * u4};
  const D s = estrin_of_two<0, 12>(powers_u, upper, kErfTail64[0], kErfTail64[1]);
  // e^-a^2 as exp_double's fast path (-36 <= -a^2 <= -4), its polynomial by Estrin's scheme: the path is a chain of
  // dependent steps, and Horner's rule made it the longest (11 fused multiply-adds)
  const D x = -(a * a);
  const D n = rounded_double<3>(x * 1.4426950408889634);
  const D r = (x - n * kLn2HiDouble) - n * kLn2LoDouble, r2 = r * r, r4 = r2 * r2;
  const D powers[] = {r, r2, r4, r4 * r4};
  return ((1.0 + (r + r2 * estrin_double<0, 11>(powers, kExpQ))) * pow2(n)) * s;
}
// math::erfinv_guess's three pieces as 8-entry tables, one per coefficient (the piece in the lane picks it).
struct ErfinvGuessTables {
  double c[13][8];
};
constexpr ErfinvGuessTables erfinv_guess_tables() {
  ErfinvGuessTables t{};
  for (int i = 0; i < 13; ++i) {
    for (int piece = 0; piece < 3; ++piece) t.c[i][piece] = native::math::erfinv_guess(piece, i);
  }
  return t;
}
inline constexpr ErfinvGuessTables kErfinvGuess64 = erfinv_guess_tables();
// Its central piece (w < 5, |y| < 0.9966) alone, for vectors whose lanes are all there.
struct ErfinvCentralPiece {
  double c[13];
};
constexpr ErfinvCentralPiece erfinv_central_piece() {
  ErfinvCentralPiece t{};
  for (int i = 0; i < 13; ++i) t.c[i] = native::math::erfinv_guess(0, i);
  return t;
}
inline constexpr ErfinvCentralPiece kErfinvCentral64 = erfinv_central_piece();
// The logarithm erfinv's w takes (log_for_erfinv): 1/c and log(c) for the eight pieces of m in [sqrt(1/2), sqrt(2)),
// and log1p(r)/r on |r| <= 0.0568, degree 6 (4e-12 relative); tools/vec_poly_fit.py (erfinv_log_tables).
constexpr double kErfinvLogInverse[] = {1.3543587943933948, 1.2486627116004467, 1.1582697000719193,
                                        1.0800806564471377, 1.0,                0.9076769444918119,
                                        0.8151862265755713, 0.7398017063943491};
constexpr double kErfinvLogC[] = {-0.30332812786054253, -0.22207314791720112, -0.14692725364994302,
                                  -0.07703572024307226, 0.0,                  0.0968667516930248,
                                  0.20433869297743246,  0.30137309302473897};
constexpr double kErfinvLog1p[] = {0.9999999999999054,   -0.5000000004614051, 0.3333333342713458,
                                   -0.24999885650207007, 0.1999985471757716,  -0.16737475584347336,
                                   0.14357675528325875};
// log(t) for t in (0, 1], normal, to 4e-12 relative: what erfinv's guess needs (itself 7.3e-11), for a third of
// log_double's time, which divides. t = 2^k m with m in [sqrt(1/2), sqrt(2)); the top three bits of m's offset from
// sqrt(1/2) pick c, the middle of its piece (c = 1 for the piece holding 1, so that w = -log(t) keeps its relative
// accuracy as t -> 1, y -> 0); r = m/c - 1 by one fused multiply-add (|r| <= 0.0568); log t = k ln 2 + log c + r S(r).
template <typename D>
inline D log_for_erfinv(D t) {
  using M = mask64_of<D>;
  const M shifted = __builtin_bit_cast(M, t) - 0x3fe6a09e667f3bcdLL;  // less sqrt(1/2)'s bits
  const M k = shifted >> 52, piece = (shifted >> 49) & 7;
  const D m = __builtin_bit_cast(D, (shifted & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL);
  // k as a double without an int64 conversion instruction (as log_parts)
  const D kd = __builtin_bit_cast(D, (k + 1100) | 0x4330000000000000LL) - (4503599627370496.0 + 1100.0);
  const D r = fma_double(m, pick8_double<D>(kErfinvLogInverse, piece), D{} - 1.0);
  const D r2 = r * r;
  const D powers[] = {r, r2, r2 * r2};
  return fma_double(kd, D{} + 0.6931471805599453, pick8_double<D>(kErfinvLogC, piece)) +
         r * estrin_double<0, 7>(powers, kErfinvLog1p);
}
// math::erfinv_guess of y in (-1, 1): w = -log((1 - y)(1 + y)), a polynomial in w - 2.5, sqrt(w) - 3 or
// sqrt(w) - 5 (the piece by w), times y; within 7.3e-11 of erfinv(y), relative, for float32 arguments (mpmath, the
// worst near 0.997). The square root and the per-lane coefficients only where a lane is outside the central piece.
// Always inlined: GCC 12, passing a vector wider than the machine's registers (8 doubles on SSE2) to a call in a
// loop, dropped the stack adjustment after it (64 bytes lost per call, then a stack overflow).
template <typename D>
__attribute__((always_inline)) inline D erfinv_guess_double(D y) {
  const D w = -log_for_erfinv((1.0 - y) * (1.0 + y));
  const mask64_of<D> central = w < 5.0;
  if (__builtin_expect(!any(~central), 1)) {
    const D t = w - 2.5, t2 = t * t, t4 = t2 * t2;
    const D powers[] = {t, t2, t4, t4 * t4};
    return estrin_double<0, 13>(powers, kErfinvCentral64.c) * y;
  }
  const mask64_of<D> deep = w >= 16.0;
  const mask64_of<D> piece = deep ? mask64_of<D>{} + 2 : (central ? mask64_of<D>{} : mask64_of<D>{} + 1);
  const D root = sqrt_double(w);
  const D t = central ? w - 2.5 : (deep ? root - 5.0 : root - 3.0), t2 = t * t, t4 = t2 * t2;
  const D powers[] = {t, t2, t4, t4 * t4};
  return estrin_by<0, 13>(powers, [&](int i) { return pick_first4_double<D>(kErfinvGuess64.c[i], piece); }) * y;
}
// erf from 3/4 to 2 on two pieces m +- 0.3125 (m = 1.0625, 1.6875): erf(m + u) = K + R(u), K = erf(m) rounded (the
// first entry), R of degree 15 (its constant term erf(m) - K); Note [Float64 erf's tail to an ulp of 1].
constexpr double kErfMiddle64[2][17] = {
    {0.8670582694349528, -3.291160663141005e-17, 0.36490289117800395, -0.3877093218766296, 0.1529931392699453, 0.047958835388465085, -0.06628044682118074, 0.010685302139000279, 0.012537306338493252, -0.005619929332901648, -0.0011108820374558528, 0.0012351552056153695, -5.682427159998742e-05, -0.00017701222546229393, 3.689722805182792e-05, 1.7301620840228432e-05, -6.715682405666921e-06},
    {0.982989716601978, 4.886321284639888e-17, 0.06542348334839115, -0.11040212815040999, 0.10239456638641387, -0.04959470600508359, 0.0027580566375548093, 0.011673848077446864, -0.006285142620835359, 0.00015000561383525144, 0.0011658590684597533, -0.00042014388632666505, -6.187128572590576e-05, 8.104477713243091e-05, -1.2291254956878768e-05, -7.63162956120023e-06, 3.098317938646782e-06},
};
// The first two of the four middle pieces as rows (K, then R's coefficients), for vectors whose lanes are all below
// 1.375: there the piece is chosen by a blend per coefficient, with the same values as the per-lane picks.
struct ErfFirstPieces {
  double row[2][14];
};
constexpr ErfFirstPieces erf_first_pieces() {
  ErfFirstPieces t{};
  for (int j = 0; j < 14; ++j) {
    t.row[0][j] = kErfPiece64[j][0];
    t.row[1][j] = kErfPiece64[j][1];
  }
  return t;
}
inline constexpr ErfFirstPieces kErfFirstPieces64 = erf_first_pieces();
// erf x - y for |x| < 3/4 (x - y exact by Sterbenz's lemma, P's term small beside it), by Estrin's scheme: erf's
// paths are chains of dependent steps.
template <typename D>
__attribute__((always_inline)) inline D erf_minus_small(D x, D y) {
  const D z = x * x, z2 = z * z, z4 = z2 * z2;
  const D powers[] = {z, z2, z4, z4 * z4};
  return (x - y) + x * estrin_double<0, 12>(powers, kErfSmall64);
}
// erf a - b for 3/4 <= a < 1.375 and b >= 0 near erf a: the first two middle pieces, chosen by a blend per
// coefficient.
template <typename D>
__attribute__((always_inline)) inline D erf_minus_first_pieces(D a, D b) {
  const mask64_of<D> second = a >= 1.0625;
  const D u = a - (second ? D{} + kErfMid64[1] : D{} + kErfMid64[0]), u2 = u * u, u4 = u2 * u2;
  const D powers[] = {u, u2, u4, u4 * u4};
  const D k = second ? D{} + kErfFirstPieces64.row[1][0] : D{} + kErfFirstPieces64.row[0][0];
  const auto& rows = kErfFirstPieces64.row;
  return (k - b) + estrin_of_two<1, 13>(powers, second, rows[0], rows[1]);
}
// erf(x) - y, y of x's sign or 0 (Note [Float64 erf]); NaN for NaN x. kResidual: erfc to an ulp of itself where
// a >= 2, as erfinv's Newton step needs; else to an ulp of 1, as erf needs (Note [Float64 erf's tail to an ulp of 1]).
template <bool kResidual, typename D>
inline D erf_minus_double(D x, D y) {
  const D a = abs_double(x), ya = abs_double(y);
  D small{};
  if (any(a < 0.75)) small = erf_minus_small(x, y);
  D magnitude = small;
  const mask64_of<D> tail = a >= 2.0;
  if (any(a >= 0.75 & ~tail)) {  // the pieces only where a lane needs them
    const D middle_a = a < 0.75 ? D{} + 0.75 : (a < 2.0 ? a : D{} + 2.0);
    if constexpr (!kResidual) {
      const mask64_of<D> upper = middle_a >= 1.375;
      const D u = middle_a - (upper ? D{} + 1.6875 : D{} + 1.0625), u2 = u * u, u4 = u2 * u2;
      const D powers[] = {u, u2, u4, u4 * u4};
      const D k = upper ? D{} + kErfMiddle64[1][0] : D{} + kErfMiddle64[0][0];
      // R's last two steps by Horner's rule: Estrin's sums at R's own size (up to 0.16) rounded four times, 0.91
      // ulp of erf near 3/4, where these round once and carry the rest scaled by u
      const auto coefficient = [&](int i) { return upper ? D{} + kErfMiddle64[1][i] : D{} + kErfMiddle64[0][i]; };
      const D rest = fma_double(u, estrin_by<3, 14>(powers, coefficient), coefficient(2));
      magnitude = (k - ya) + fma_double(u, rest, coefficient(1));
    } else if (!any(middle_a >= 1.375)) {  // erfinv's residual where |y| < erf(1.375): the first two pieces
      magnitude = erf_minus_first_pieces(middle_a, ya);
    } else {  // erfinv's residual: four pieces, whose smaller R keeps the difference's precision
      const mask64_of<D> index = integer_bits(rounded_double<2>((middle_a - 0.75) * 3.2)) & 3;
      const D u = middle_a - pick_first4_double<D>(kErfMid64, index);
      D r = pick_first4_double<D>(kErfPiece64[13], index);
      for (int j = 12; j >= 1; --j) r = fma_double(r, u, pick_first4_double<D>(kErfPiece64[j], index));
      magnitude = (pick_first4_double<D>(kErfPiece64[0], index) - ya) + r;  // erf|x| - |y|, of either sign
    }
  }
  if (any(tail)) {
    const D clamped = a < 2.0 ? D{} + 2.0 : (a < 6.0 ? a : D{} + 6.0);
    D erfc;
    if constexpr (kResidual) {
      erfc = erfc_tail(clamped);
    } else {
      erfc = erfc_tail_absolute(clamped);
    }
    magnitude = tail ? (1.0 - ya) - erfc : magnitude;
  }
  return a < 0.75 ? small : (x != x ? x : (x < 0.0 ? -magnitude : magnitude));
}
// Note [erfinv's central residual]: where every lane has |y| < 0.948 (erf 1.375 = 0.94817), the central rational's x
// is below 1.375, so erf x - y needs only the small path and the first two middle pieces. Both are computed and
// chosen per lane, with no branch: erf_minus_double<true> asks per vector whether some lane needs the pieces, a branch
// no predictor can learn on random inputs (71% taken on the sweep's), and its mispredictions kept the out-of-order
// core from overlapping one vector's chain of dependent steps with the next (two vectors unrolled by hand ran 17%
// faster where the branch was always taken, no faster on mixed inputs). float64 erfinv, 1M uniform(0.05, 0.95), 1
// thread: 10.0-11.5 -> 7.8 ms, 1.16x -> 0.81-0.90x torch's time; the same values: 0.83 ulp worst against mpmath (at
// y = 0.034, where the small path's rounded constant and Estrin's top-level sums reach 0.35 ulp of x).
// erf x - y for |x| < 1.375, of x's sign (Note [erfinv's central residual]).
template <typename D>
__attribute__((always_inline)) inline D erf_minus_central(D x, D y) {
  const D a = abs_double(x);
  const mask64_of<D> small = a < 0.75;
  const D magnitude = erf_minus_first_pieces(small ? D{} + 0.75 : a, abs_double(y));
  return small ? erf_minus_small(x, y) : (x < 0.0 ? -magnitude : magnitude);
}
}  // namespace double_detail

template <typename D>
inline D erf_double(D x) {
  return double_detail::erf_minus_double<false>(x, D{});
}
namespace double_detail {
// Note [erfinv's central rational]: erfinv(y) / y = P(y^2) / Q(y^2) for |y| < 0.95, degrees 9 and 9, within
// 1.5e-11 relative (tools/vec_poly_fit.py erfinv_central_rational: linearised least squares with Lawson's weights,
// checked against SciPy on 400,000 points): 0.0003 of a float's ulp, so one rounding of it in double lanes is as good
// as math::erfinv_guess (7.3e-11), without its logarithm and its per-lane tables. A vector whose lanes are all there
// (81% of them for uniform y in (-1, 1)) takes it: float32 erfinv 4.88 -> 1.80 ms per 1M (1 thread; torch 2.60), 1.94x
// -> 0.69x torch's time, the largest error over every third float of [0, 0.95) 0.50024 ulp; and float64 erfinv's
// Newton step starts from it there (its error squared, 2e-22): 11.6 -> 8.5 ms, 1.61x -> 1.17x (Note [erfinv's central
// residual] for the rest of that path and its accuracy).
constexpr double kErfinvRationalP[] = {0.8862269254658478,   -1.1843770209549844, -0.3636580166079031,
                                       0.2844398142579106,   0.4949607481396264,  0.2683465627611466,
                                       -0.19383000289944174, -0.41997864347467545, 0.25515543595302675,
                                       -0.026856146846864125};
constexpr double kErfinvRationalQ[] = {1.0,                  -1.5982257400923985, -0.13586153544645638,
                                       0.48889984027706684,  0.5328187945629878,  0.16518130974937936,
                                       -0.33219133328031014, -0.4529195746754135, 0.4048075412165142,
                                       -0.0723251563497438};
// y P(y^2) / Q(y^2): erfinv for |y| < 0.95.
template <typename D>
inline D erfinv_central_double(D y) {
  const D z = y * y, z2 = z * z, z4 = z2 * z2;
  const D powers[] = {z, z2, z4, z4 * z4};
  return y * estrin_double<0, 10>(powers, kErfinvRationalP) / estrin_double<0, 10>(powers, kErfinvRationalQ);
}
}  // namespace double_detail

// erfinv as math::erfinv computes it: a first guess, the central rational where every lane has |y| < 0.948, else
// math::erfinv_guess in w = -log((1 - y)(1 + y)) (three pieces), then one Newton step x -= (erf x - y) sqrt(pi)/2
// e^(x^2), with erf x - y from erf_minus_central or erf_minus_double.
template <typename D>
inline D erfinv_double(D y) {
  // 1/erf'(x) = sqrt(pi)/2 e^(x^2) to 1e-7 (2^f by its Taylor series to f^6, |f| <= 1/2) and no division: it scales
  // a step of at most 7.3e-11 x (the guess's error), so its own error moves x by 1e-17 of itself.
  const auto newton = [](D x, D residual) {
    constexpr double kLn2 = 0.6931471805599453;
    constexpr double kExp2Short[] = {1.0,
                                     kLn2,
                                     kLn2 * kLn2 / 2,
                                     kLn2 * kLn2 * kLn2 / 6,
                                     kLn2 * kLn2 * kLn2 * kLn2 / 24,
                                     kLn2 * kLn2 * kLn2 * kLn2 * kLn2 / 120,
                                     kLn2 * kLn2 * kLn2 * kLn2 * kLn2 * kLn2 / 720};
    const D t = (x * x) * 1.4426950408889634, n = rounded_double<3>(t);
    const D slope = horner_double(t - n, kExp2Short) * double_detail::pow2(n);
    return x - residual * (0.886226925452758 * slope);
  };
  // the central rational where every lane has it (Note [erfinv's central rational], 1.5e-11), and its residual
  // without a branch (Note [erfinv's central residual])
  if (double_detail::all_between_double(y, -0.948, 0.948)) {
    const D x = double_detail::erfinv_central_double(y);
    return newton(x, double_detail::erf_minus_central(x, y));
  }
  const D ya = abs_double(y);
  const D inside = ya < 1.0 ? y : D{};  // log's argument positive for every lane
  const D guess = double_detail::erfinv_guess_double(inside);
  D x = newton(guess, double_detail::erf_minus_double<true>(guess, inside));
  const D inf = D{} + __builtin_inf();
  x = ya == 1.0 ? copysign_double(inf, y) : x;
  return ya <= 1.0 ? x : D{} + __builtin_nan("");  // |y| > 1 and NaN
}

namespace double_detail {
// erfinv of 8 float lanes (V = 8 floats, D = 8 doubles): the central rational or the guess, rounded once to float.
template <typename V>
inline V erfinv8(V y) {
  using D = typename VecDouble<V>::type;
  if (__builtin_expect(all_between(y, -0.95f, 0.95f), 1)) {
    return __builtin_convertvector(erfinv_central_double(__builtin_convertvector(y, D)), V);
  }
  const V a = abs(y);
  const D inside = __builtin_convertvector(a < 1.0f ? y : V{}, D);
  const V x = __builtin_convertvector(erfinv_guess_double(inside), V);
  const V inf = broadcast<V>(__builtin_inff()), nan = broadcast<V>(__builtin_nanf(""));
  return select(a < 1.0f, x, select(a == 1.0f, copysign(inf, y), nan));  // |y| > 1 and NaN: NaN
}
}  // namespace double_detail

// erfinv of float lanes: the central rational or math::erfinv_guess in double lanes (7.3e-11 relative, 0.0012 of a
// float ulp), rounded once, so within 0.5012 ulp and needing no Newton step; in 8-lane halves on AVX-512, so the
// doubles fill one register. erfinv(+-0) = +-0, +-1 give +-inf, |y| > 1 and NaN give NaN.
template <typename V>
inline V erfinv(V y) {
  return in_float_halves([](auto h) { return double_detail::erfinv8(h); }, y);
}

}  // namespace yaten::vec
