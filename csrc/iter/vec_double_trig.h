// Vectorized float64 circular and hyperbolic functions and their inverses: sin, cos, tan, sinc, asin, acos, atan,
// atan2, sinh, cosh, tanh, asinh, acosh, atanh and hypot, each within an ulp (tests/test_vec_math.py measures them against the C
// library over every binade and against mpmath on samples). In a header of its own, included by the kernels that use
// it, beside iter/vec_double.h's exp and log, which it builds on.
//
// Note [Float64 sin, cos and tan]: x = n pi/2 + r with n = rint(x 2/pi) and r carried in two doubles: n pi/2 in three
// parts (53 + 53 + 53 bits), x - n p1 exact by one fma (both have 2^-52 as their last bit and the difference is below
// 1), n p2 split exactly by another fma, the sum by Knuth's two-sum; that holds r to far below an ulp for |x| <= 1e6,
// beyond which (and for inf and NaN) the lanes take the C library's function. On |r| <= pi/4: sin r = r + r^3 S(r^2)
// (S of degree 6) and cos r = 1 - r^2/2 + r^4 C(r^2) (degree 5), the low part of r added to first order and r^2/2
// carried exactly so the one rounding is the last; the quadrant n mod 4 chooses and negates. tan = sin r / cos r (or
// -cos r / sin r in odd quadrants), each operand in two doubles and the quotient corrected by its remainder (one fma),
// so that it too rounds once.
//
// Note [Float64 inverse and hyperbolic functions]: atan reduces |x| to |v| <= 7/16 with atan(c) for c = 0, 1/2, 1,
// 3/2 and infinity (v = (t - c) / (1 + c t), or -1/t), its quotient corrected by a remainder, and atan(v) =
// v + v^3 P(v^2) (P of degree 11); the result is summed in two doubles, so atan2 (t = |y| / |x| in two doubles) can
// take pi minus it for negative x without a second rounding. asin: x + x^3 P(x^2) to 1/2 (degree 12), beyond
// pi/2 - 2 asin(sqrt((1 - |x|) / 2)) with the square root's remainder; acos from the same pieces. sinh and cosh below
// 1 by their series' polynomials (degree 6 in x^2), above from e^|x| held in two doubles (exp's reduction with the
// low part of r kept) and its reciprocal; tanh below 0.55 by x + x^3 P(x^2) (degree 10), above as 1 - 2 / (e^2|x| + 1)
// with the quotient corrected; atanh below 1/2 by x + x^3 P(x^2) (degree 12), above as log((1 + |x|) / (1 - |x|)) / 2
// with the quotient's remainder given to log's small terms (log1p's arrangement). hypot: the larger operand scaled
// near 1, the squares and their sum in two doubles, the root corrected by its remainder. The polynomials are least
// squares in mpmath's arithmetic (tools/vec_poly_fit.py).
#pragma once

#include <cmath>

#include "iter/vec_double.h"

namespace yaten::vec {

namespace double_detail {
// sin r = r + r^3 S(r^2) and cos r = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4.
constexpr double kSin64[] = {-0.16666666666666666,    0.008333333333333331,  -0.00019841269841264943,
                            2.7557319219244494e-06,  -2.5052106199616366e-08, 1.6058526424635128e-10,
                            -7.586391516635473e-13};
constexpr double kCos64[] = {0.041666666666666664,   -0.0013888888888887359, 2.4801587298708396e-05,
                            -2.755731724204128e-07, 2.0876140089178925e-09, -1.1382187942580314e-11};
// sinh x = x + x^3 P(x^2) and cosh x = 1 + x^2/2 + x^4 Q(x^2) on |x| <= 1.
constexpr double kSinh64[] = {0.16666666666666666,    0.008333333333333299,   0.0001984126984132422,
                             2.755731919137273e-06,  2.5052117697660347e-08, 1.605767946801234e-10,
                             7.746183786252816e-13};
constexpr double kCosh64[] = {0.041666666666666664,   0.001388888888888887,   2.480158730161748e-05,
                             2.7557319205885615e-07, 2.0876762156463384e-09, 1.1469988248244595e-11,
                             4.834453967996815e-14};
// tanh x = x + x^3 P(x^2) on |x| <= 0.55.
constexpr double kTanh64[] = {-0.3333333333333333,     0.13333333333332728,    -0.05396825396744951,
                             0.0218694884943202,      -0.008863234411806288,  0.0035921105508989835,
                             -0.0014556631208771447,  0.0005889420415795445,  -0.00023465154066026225,
                             8.513922912617161e-05,   -2.0619991569368582e-05};
// asin x = x + x^3 P(x^2) on |x| <= 1/2.
constexpr double kAsin64[] = {0.16666666666666669,  0.0749999999999834,   0.04464285714653523,  0.03038194412500875,
                             0.022372173467043486, 0.017352380709839098, 0.01397138708310213,  0.011477517005507167,
                             0.01033337215296726,  0.005413184483715509, 0.01751883397953867,  -0.015032162599250314,
                             0.028878362746452394};
// atan v = v + v^3 P(v^2) on |v| <= 7/16.
constexpr double kAtan64[] = {-0.3333333333333333,  0.1999999999999943,   -0.1428571428557081,  0.11111111096969703,
                             -0.09090908369112904, 0.07692285883039952,  -0.06666246894347413, 0.058769948333092806,
                             -0.05216982252306086, 0.04493434205036697,  -0.03315392661556325, 0.014797639441686453};
// atanh x = x + x^3 P(x^2) on |x| <= 1/2.
constexpr double kAtanh64[] = {0.3333333333333334,  0.19999999999988194, 0.14285714288328225, 0.11111110884192196,
                              0.09090919298191692, 0.0769203541410995,  0.0667130632639792,  0.05829728952821972,
                              0.05667726644043411, 0.0265866922653123,  0.11541748925489154, -0.11084621375465858,
                              0.1983432321025662};
// asinh x = x + x^3 P(x^2) on |x| <= 1/2.
constexpr double kAsinh64[] = {-0.16666666666666666,  0.07499999999998694,   -0.04464285714033822,
                               0.030381944253865364,  -0.022372151619209198, 0.01735259086046303,
                               -0.013962272132981152, 0.011526481575822718,  -0.009592750848082943,
                               0.0076261689153596665, -0.004999200912846498, 0.0018901164055805022};
// pi/2 in three parts, pi and pi/2 in two
constexpr double kHalfPi1 = 1.5707963267948966, kHalfPi2 = 6.123233995736766e-17, kHalfPi3 = -1.4973849048591698e-33;
constexpr double kPiHi64 = 3.141592653589793, kPiLo64 = 1.2246467991473532e-16;
constexpr double kTrigVectorMax = 1e6;  // beyond, sin, cos and tan take the C library's

// x = n pi/2 + (hi + lo) for |x| <= kTrigVectorMax (Note [Float64 sin, cos and tan]); n mod 4 in quadrant.
template <typename D>
struct HalfPiReduced {
  D hi, lo;
  mask64_of<D> quadrant;
};
template <typename D>
inline HalfPiReduced<D> reduce_half_pi(D x) {
  const D n = rounded_double<3>(x * 0.6366197723675814);
  const D r1 = fma_double(-n, D{} + kHalfPi1, x);  // exact
  const D p = n * kHalfPi2, p_error = fma_double(n, D{} + kHalfPi2, -p);
  D e, lo;
  const D h = two_sum(r1, -p, e);
  const D hi = fast_two_sum(h, (e - p_error) - n * kHalfPi3, lo);
  return {hi, lo, integer_bits(n) & 3};
}
// sin(hi + lo) = hi + tail and cos(hi + lo) = head + tail, unrounded, for |hi| <= pi/4 and z = hi^2.
template <typename D>
inline D sin_tail(D hi, D lo, D z) {
  return fma_double(hi, z * horner_double(z, kSin64), lo * (1.0 - 0.5 * z));
}
template <typename D>
inline D cos_parts(D hi, D lo, D z, D& tail) {
  const D z_error = fma_double(hi, hi, -z), hz = 0.5 * z, head = 1.0 - hz;
  tail = ((1.0 - head) - hz) + (z * z * horner_double(z, kCos64) - (0.5 * z_error + hi * lo));
  return head;
}
// x + x^3 P(x^2) (z = x^2), the polynomial form of the odd functions below their switch points; -0 stays -0.
template <int N, typename D>
inline D odd_polynomial(D x, D z, const double (&p)[N]) {
  const D a = abs_double(x);
  return copysign_double(fma_double(a, z * horner_double(z, p), a), x);
}
// (a_hi + a_lo) / (b_hi + b_lo) rounded once: the quotient's remainder (one fma) corrects it.
template <typename D>
inline D divide_two(D a_hi, D a_lo, D b_hi, D b_lo) {
  const D inverse = 1.0 / (b_hi + b_lo);
  const D q = (a_hi + a_lo) * inverse;
  return q + (fma_double(-q, b_hi, a_hi) + (a_lo - q * b_lo)) * inverse;
}
// log(x (1 + c)) 2^extra for positive finite x and small c: log's parts with c among the small terms, before its one
// rounding (log1p's arrangement), k raised by extra.
template <typename D>
inline D log_scaled(D x, D c, double extra) {
  if constexpr (kLogByTable<D>) {  // Note [Float64 logarithms by table]
    D s, small;
    log_by_table(x, c, extra, s, small);
    return s + small;
  }
  const LogParts<D> p = log_parts(x);
  const D k = p.k + extra;
  return k * kLn2HiDouble - ((p.hfsq - (p.sr + (k * kLn2LoDouble + c))) - p.f);
}
// atan(t_hi + t_lo) for t >= 0 (not NaN) as hi + lo (Note [Float64 inverse and hyperbolic functions]).
template <typename D>
inline D atan_two(D t, D t_lo, D& lo) {
  using M = mask64_of<D>;
  const M k1 = t >= 0.4375, k2 = t >= 0.6875, k3 = t >= 1.1875, k4 = t >= 2.4375;
  const D c = k3 ? D{} + 1.5 : (k2 ? D{} + 1.0 : (k1 ? D{} + 0.5 : D{}));
  D base_hi = k3 ? D{} + 0.982793723247329 : (k2 ? D{} + 0.7853981633974483 : (k1 ? D{} + 0.4636476090008061 : D{}));
  D base_lo = k3 ? D{} + 1.3903311031230998e-17
                 : (k2 ? D{} + 3.061616997868383e-17 : (k1 ? D{} + 2.2698777452961687e-17 : D{}));
  base_hi = k4 ? D{} + kHalfPi1 : base_hi;
  base_lo = k4 ? D{} + kHalfPi2 : base_lo;
  // v = (t - c) / (1 + c t), or -1 / t
  const D num = k4 ? D{} - 1.0 : t - c;  // exact (Sterbenz) on each interval
  const D num_lo = k4 ? D{} : t_lo;
  const D den = k4 ? t : fma_double(c, t, D{} + 1.0);
  const D den_lo = k4 ? t_lo : c * t_lo;
  const D inverse = 1.0 / den;
  const D v = (num + num_lo) * inverse;
  const D v_lo = t < __builtin_inf() ? (fma_double(-v, den, num) + (num_lo - v * den_lo)) * inverse : D{};
  const D z = v * v;
  D e;
  const D hi = two_sum(base_hi, v, e);
  lo = e + (base_lo + fma_double(v, z * horner_double(z, kAtan64), v_lo * (1.0 - z)));
  return hi;
}
// asin(s + s_lo) - s for 0 <= s <= 1/2, z = s^2: the polynomial's part and the low part's.
template <typename D>
inline D asin_tail(D s, D s_lo, D z) {
  return fma_double(s, z * horner_double(z, kAsin64), s_lo);
}
// e^a / 2 as head + rest (unrounded; e^a = 2^n (hi + lo) from exp_two, scaled by 2^(n-1) in two halves so that
// e^a / 2 is finite up to a = 710.47) and e^-a / 2 as inverse, for 0 <= a (clamped at 711, where both overflow):
// sinh's and cosh's large forms.
template <typename D>
inline D half_exp(D a, D& rest, D& inverse) {
  D lo, n;
  const D hi = exp_two(a < 711.0 ? a : D{} + 711.0, lo, n);
  const D half_n = rounded_double<0>((n - 1.0) * 0.5);
  const D scale_a = pow2(half_n), scale_b = pow2((n - 1.0) - half_n);
  const D n_inverse = n < 1020.0 ? n : D{} + 1020.0;
  inverse = (0.5 / (hi + lo)) * pow2(-n_inverse);
  rest = (lo * scale_a) * scale_b;
  return (hi * scale_a) * scale_b;
}
// log(x + sqrt(w + w_lo)) for x >= 0 and w >= 0: the root's remainder and the sum's rounding given to log's small
// terms (asinh's and acosh's middle forms).
template <typename D>
inline D log_plus_root(D x, D w, D w_lo) {
  const D root = sqrt_double(w);
  const D root_lo = w > 0.0 ? (fma_double(-root, root, w) + w_lo) * recip_approx_double(root + root) : D{};
  D e;
  const D t = two_sum(x, root, e);
  return log_scaled(t, (e + root_lo) * recip_approx_double(t), 0.0);
}
// sqrt((1 - a) / 2) as s + s_lo for 1/2 <= a <= 1 (1 - a exact), and z = (1 - a) / 2.
template <typename D>
inline D half_complement_root(D a, D& s_lo, D& z) {
  z = (1.0 - a) * 0.5;
  const D s = sqrt_double(z);
  s_lo = z > 0.0 ? fma_double(-s, s, z) / (s + s) : D{};  // a = 1: s = 0 exactly
  return s;
}
}  // namespace double_detail

namespace double_detail {
// sin x (kShift 0) or cos x = sin(x + pi/2) (kShift 1: the quadrant one further), for |x| <= kTrigVectorMax.
template <int kShift, typename D>
inline D sin_or_cos(D x) {
  const HalfPiReduced<D> r = reduce_half_pi(x);
  const D z = r.hi * r.hi;
  D cos_tail;
  const D s = r.hi + sin_tail(r.hi, r.lo, z), c = cos_parts(r.hi, r.lo, z, cos_tail) + cos_tail;
  const mask64_of<D> quadrant = r.quadrant + kShift;
  const D result = (quadrant & 1) != 0 ? c : s;
  return (quadrant & 2) != 0 ? -result : result;
}
}  // namespace double_detail

template <typename D>
inline D sin_double(D x) {
  using namespace double_detail;
  const D result = x == 0.0 ? x : sin_or_cos<0>(x);  // -0 stays
  return scalar_lanes(~(abs_double(x) <= kTrigVectorMax), result, [](double v) { return std::sin(v); }, x);
}
template <typename D>
inline D cos_double(D x) {
  using namespace double_detail;
  return scalar_lanes(~(abs_double(x) <= kTrigVectorMax), sin_or_cos<1>(x), [](double v) { return std::cos(v); }, x);
}
template <typename D>
inline D tan_double(D x) {
  using namespace double_detail;
  const HalfPiReduced<D> r = reduce_half_pi(x);
  const D z = r.hi * r.hi;
  D cos_tail;
  const D sin_lo = sin_tail(r.hi, r.lo, z), cos_hi = cos_parts(r.hi, r.lo, z, cos_tail);
  const mask64_of<D> odd = (r.quadrant & 1) != 0;
  D result = divide_two(odd ? -cos_hi : r.hi, odd ? -cos_tail : sin_lo, odd ? r.hi : cos_hi, odd ? sin_lo : cos_tail);
  result = x == 0.0 ? x : result;
  return scalar_lanes(~(abs_double(x) <= kTrigVectorMax), result, [](double v) { return std::tan(v); }, x);
}
// sinc as its functor computes it (special::sinc): sin(pi r) / (pi x) for r = x - rint(x), negated for odd rint(x).
template <typename D>
inline D sinc_double(D x) {
  const D n = rounded_double<3>(x), half = n * 0.5;
  const D s = sin_double((x - n) * 3.141592653589793) / (x * 3.141592653589793);
  const D result = rounded_double<2>(half) != half ? -s : s;
  return x == 0.0 ? D{} + 1.0 : result;
}

template <typename D>
inline D atan_double(D x) {
  D lo;
  const D hi = double_detail::atan_two(abs_double(x), D{}, lo);
  const D result = copysign_double(hi + lo, x);
  return x != x ? x : result;
}
// atan2 on t = |y| / |x| in two doubles, pi minus it for negative x, y's sign; zeros, infinities and NaN (and
// quotients beyond the exponent range) through the C library's atan2.
template <typename D>
inline D atan2_double(D y, D x) {
  using namespace double_detail;
  const D ay = abs_double(y), ax = abs_double(x);
  const D t = ay / ax, t_lo = fma_double(-t, ax, ay) / ax;
  D lo;
  D hi = atan_two(t, t_lo, lo);
  D e;
  const D flipped = two_sum(D{} + kPiHi64, -hi, e);
  const D flipped_lo = e + (kPiLo64 - lo);
  const mask64_of<D> negative = x < 0.0;
  const D result = copysign_double(negative ? flipped + flipped_lo : hi + lo, y);
  const D big = D{} + 1e300, small = D{} + 1e-300;
  const mask64_of<D> special = ~((ax < big) & (ay < big) & (ax > small) & (ay > small) & (t < big) & (t > small));
  return scalar_lanes(special, result, [](double b, double a) { return std::atan2(b, a); }, y, x);
}
template <typename D>
inline D asin_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  const D z = a * a;
  const D small = a + asin_tail(a, D{}, z);
  if (all_between_double(a, -1.0, 0.5)) return copysign_double(small, x);  // every lane on the polynomial
  D s_lo, w;
  const D s = half_complement_root(a, s_lo, w);
  // pi/2 - 2 asin(s)
  D e;
  const D head = two_sum(D{} + kHalfPi1, -(s + s), e);
  const D large = head + (e + (kHalfPi2 - 2.0 * asin_tail(s, s_lo, w)));
  return copysign_double(a <= 0.5 ? small : large, x);  // |x| > 1: the root of a negative number, NaN
}
template <typename D>
inline D acos_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  D e;
  // pi/2 - asin(x) for |x| <= 1/2
  const D head = two_sum(D{} + kHalfPi1, -x, e);
  const D middle = head + (e + (kHalfPi2 - asin_tail(x, D{}, x * x)));
  if (all_between_double(a, -1.0, 0.5)) return middle;
  // 2 asin(s) for x > 1/2, pi - 2 asin(s) for x < -1/2
  D s_lo, w;
  const D s = half_complement_root(a, s_lo, w);
  const D twice_tail = 2.0 * asin_tail(s, s_lo, w);
  const D right = (s + s) + twice_tail;
  const D left_head = two_sum(D{} + kPiHi64, -(s + s), e);
  const D left = left_head + (e + (kPiLo64 - twice_tail));
  return a <= 0.5 ? middle : (x > 0.0 ? right : left);
}

template <typename D>
inline D sinh_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  const D z = x * x;
  const D small = odd_polynomial(x, z, kSinh64);
  if (all_between_double(a, -1.0, 1.0)) return small;  // every lane on the polynomial (NaN takes the long way)
  // (e^a - e^-a) / 2, one rounding
  D rest, inverse;
  const D large = half_exp(a, rest, inverse) + (rest - inverse);
  const D result = copysign_double(large, x);
  return a < 1.0 ? small : (x != x ? x : result);
}
template <typename D>
inline D cosh_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  const D z = x * x, z_error = fma_double(x, x, -z);
  // 1 + z/2 + z^2 Q(z), 1 + z/2 summed exactly
  D e;
  const D head = fast_two_sum(D{} + 1.0, 0.5 * z, e);
  const D small = head + (e + fma_double(z * z, horner_double(z, kCosh64), 0.5 * z_error));
  if (all_between_double(a, -1.0, 1.0)) return small;
  D rest, inverse;
  const D large = half_exp(a, rest, inverse) + (rest + inverse);
  return a < 1.0 ? small : (x != x ? x : large);
}
template <typename D>
inline D tanh_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  const D z = x * x;
  const D small = odd_polynomial(x, z, kTanh64);
  if (all_between_double(a, -1.0, 0.55)) return small;
  // 1 - 2 / (e^2a + 1), e^2a = 2^n (hi + lo) and the denominator in two doubles; tanh rounds to 1 from 19.1
  D lo, n;
  const D hi = exp_two(a < 20.0 ? a + a : D{} + 40.0, lo, n);
  const D scale = pow2(n);
  D e;
  const D den = fast_two_sum(hi * scale, D{} + 1.0, e);
  const D large = copysign_double(1.0 - divide_two(D{} + 2.0, D{}, den, e + lo * scale), x);
  return a < 0.55 ? small : (x != x ? x : large);
}
template <typename D>
inline D atanh_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  const D z = x * x;
  D small{};
  if constexpr (!kLogByTable<D>) {
    small = odd_polynomial(x, z, kAtanh64);
    if (all_between_double(a, -1.0, 0.5)) return small;
  }
  // log(u / v) / 2 for u = 1 + a and v = 1 - a (each in two doubles): the quotient y and its remainder's share c.
  // With the table's logarithm (which keeps y - 1 exact near 1, and takes c to first order) this serves every |x| < 1;
  // without it, only from 1/2 up (the polynomial below).
  D u_lo;
  const D u = fast_two_sum(D{} + 1.0, a, u_lo);
  const D v = 1.0 - a, v_lo = (1.0 - v) - a;
  const D y = u / v;
  const D remainder = fma_double(-y, v, u) + (u_lo - y * v_lo);  // u - y v, v's low part in
  const D ys = a < 1.0 ? y : D{} + 2.0;  // log's parts only of positive finite numbers
  D large = 0.5 * log_scaled(ys, remainder * recip_approx_double(u), 0.0);
  large = a == 1.0 ? D{} + __builtin_inf() : (a > 1.0 ? D{} + __builtin_nan("") : large);
  large = x != x ? x : copysign_double(large, x);
  if constexpr (kLogByTable<D>) return large;
  return a < 0.5 ? small : large;
}
// asinh: below 1/2 by x + x^3 P(x^2) (degree 11; not with the table logarithm, which serves it); up to 2^28 as log(a + sqrt(a^2 + 1)), the square, the root and the
// sum in two doubles and the low part given to log's small terms; beyond, log(2a) (log's k raised by one, so the
// largest doubles do not overflow).
template <typename D>
inline D asinh_double(D x) {
  using namespace double_detail;
  const D a = abs_double(x);
  const D z = x * x;
  D small{};
  if constexpr (!kLogByTable<D>) {
    small = odd_polynomial(x, z, kAsinh64);
    if (all_between_double(a, -1.0, 0.5)) return small;
  }
  // the middle form serves small |x| too with the table's logarithm (t - 1 exact near 1, t's low part to first order)
  const D am = a < 0x1p28 ? a : D{} + 1.0;  // the middle form's lanes; the others a harmless 1
  const D square = am * am, square_error = fma_double(am, am, -square);
  D e;
  const D w = two_sum(square, D{} + 1.0, e);
  D result = log_plus_root(am, w, e + square_error);
  if (__builtin_expect(any(~(a < 0x1p28)), 0)) {  // log(2a) only for vectors with such lanes (and NaN)
    const D large = log_scaled(a < __builtin_inf() ? a : D{} + 1.0, D{}, 1.0);
    result = a < 0x1p28 ? result : large;
    result = a == __builtin_inf() ? a : result;
  }
  result = x != x ? x : copysign_double(result, x);
  if constexpr (kLogByTable<D>) return result;
  return a < 0.5 ? small : result;
}
// acosh: log(x + sqrt(x^2 - 1)) below 2^28, x^2 - 1 (exact near 1, where it cancels), the root and the sum in two
// doubles and the low part given to log's small terms; beyond, log(2x). NaN below 1, 0 at 1, inf at inf.
template <typename D>
inline D acosh_double(D x) {
  using namespace double_detail;
  const D xm = (x >= 1.0) & (x < 0x1p28) ? x : D{} + 2.0;  // the middle form's lanes; the others a harmless 2
  const D square = xm * xm, square_error = fma_double(xm, xm, -square);
  D e;
  const D w = two_sum(square, D{} - 1.0, e);
  D result = log_plus_root(xm, w, e + square_error);
  if (__builtin_expect(any(~(x < 0x1p28)), 0)) {  // log(2x) only for vectors with such lanes (and NaN)
    const D large = log_scaled((x >= 0x1p28) & (x < __builtin_inf()) ? x : D{} + 1.0, D{}, 1.0);
    result = x < 0x1p28 ? result : large;
    result = x == __builtin_inf() ? x : result;
  }
  return x >= 1.0 ? result : D{} + __builtin_nan("");  // NaN below 1 and for NaN
}
// hypot: the larger magnitude b and the smaller s scaled together (by 2^-600 or 2^600 beyond 2^+-500),
// sqrt(b^2 + s^2) with the squares and their sum in two doubles and the root corrected by its remainder; inf if
// either is, else NaN if either is.
template <typename D>
inline D hypot_double(D x, D y) {
  using namespace double_detail;
  const D ax = abs_double(x), ay = abs_double(y);
  D b = ax > ay ? ax : ay, s = ax > ay ? ay : ax;
  const mask64_of<D> huge = b > 0x1p500, tiny = b < 0x1p-500;  // the squares then stay normal
  const D scale = huge ? D{} + 0x1p-600 : (tiny ? D{} + 0x1p600 : D{} + 1.0);
  b = b * scale;
  s = s * scale;
  const D b2 = b * b, b2_error = fma_double(b, b, -b2);
  const D s2 = s * s, s2_error = fma_double(s, s, -s2);
  D e;
  const D sum = fast_two_sum(b2, s2, e);
  const D sum_lo = e + (b2_error + s2_error);
  const D root = sqrt_double(sum);
  D result = root + (fma_double(-root, root, sum) + sum_lo) / (root + root);
  result = root == 0.0 ? root : result;
  result = result / scale;
  const D inf = D{} + __builtin_inf();
  result = (ax != ax) | (ay != ay) ? D{} + __builtin_nan("") : result;
  return (ax == inf) | (ay == inf) ? inf : result;
}

}  // namespace yaten::vec
