// Vectorized float32 lgamma (log|Gamma(x)|) and digamma, computed in double lanes: a float32 result needs about 1e-9
// of relative accuracy, which these double polynomials give with room to spare, so the result is the correctly
// rounded one but within 1e-3 ulp of a halfway case (tests/test_vec_math.py measures it over every binade;
// docs/cpu-math.md).
// In a header of its own, included by the special-function kernels alone (an edit here recompiles only them).
//
// Note [Vectorized lgamma]: for z > 0,
//   z >= 5: Stirling's series (z - 1/2)(log z - 1) + (log(2 pi) - 1)/2 + 1/(12z) - 1/(360z^3) + ... (eight terms:
//           the ninth is below 1e-13 of the result at z = 5);
//   else:   n = floor(z - 3/2) steps of the recurrence Gamma(z + 1) = z Gamma(z) (up at most twice, down at most
//           three times) move z into y in [1.5, 2.5), and lgamma(z) = lgamma(y) -+ log(product of the steps);
//           lgamma(2 + t) = t P(t) with P of degree 11 on [-1/2, 1/2] (6e-12 relative), so the zeros at 1 and 2 come
//           out with full relative accuracy (near 1, lgamma(z) = t P(t) - log(z) with t = z - 1 exact: the two are
//           within a factor 2 of the result).
// One logarithm (vec_double.h's) serves both, of z or of the product. For z < 0 the reflection formula
//   lgamma(z) = log(pi) - log|sin(pi z)| - lgamma(1 - z),
// with sin(pi r) for r = z - rint(z) in [-1/2, 1/2] (exact) by a polynomial. Where that difference nearly cancels
// (the zeros of lgamma on the negative axis, -2.457..., -2.747..., ...) its absolute error would be a large relative
// one, so those rare lanes take the C library's double lgamma_r, rounded once. Non-positive integers and +-inf give
// +inf, NaN stays NaN (torch's and C's values).
//
// Note [Vectorized digamma]: for x > 0 in double lanes, n = floor(x) - 1 steps of psi(y + 1) = psi(y) + 1/y (n from
// -1 to 8) take x to y in [1, 2), where psi(y) = (y - y0) P(y) with y0 = 1.46163... its zero in two doubles and P of
// degree 13 (2e-11 relative), so the zero keeps full relative accuracy; the steps' terms are summed as one fraction
// (one division). From 10, the asymptotic series log x - 1/(2x) - sum_k B_2k / (2k x^2k) to k = 6. x <= 0 (the
// reflection formula and the poles), NaN and +inf go to the scalar function lane by lane.
#pragma once

#include <cmath>
#include <cstdint>

#include "iter/vec.h"
#include "iter/vec_double.h"

namespace yaten::vec {
namespace gamma_detail {

// Fitted by tools/vec_poly_fit.py (Chebyshev interpolants as power series), lowest degree first.
// lgamma(2 + t) / t in u = 2t, t in [-1/2, 1/2].
constexpr double kLgammaNearTwo[] = {0.4227843350998142,     0.16123351670999958,    -0.016838075359795864,
                                     0.002572601110760043,   -0.0004615958212729339, 9.032799293995068e-05,
                                     -1.864150097209743e-05, 3.983335555229796e-06,  -8.627484853911918e-07,
                                     1.9172935513258662e-07, -5.15597380963261e-08,  1.1958900926394066e-08};
// Stirling's series for z >= 5, B_2k / (2k (2k - 1)) for k = 1..8, in w^2 (times w = 1/z): the ninth term is below
// 1e-13 of lgamma(5).
constexpr double kStirling[] = {1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156,
                                -3617.0 / 122400};
// sin(pi r) / r in u = 8 r^2 - 1, r in [0, 1/2].
constexpr double kSinPi[] = {2.534324262661598,       -0.5697036803087356,   0.036453105597102804,
                             -0.0010924319966740133,  1.895682914217106e-05, -2.144893291175985e-07,
                             1.7070527609082928e-09};

// digamma(y) / (y - y0) in u = 2y - 3, y in [1, 2), y0 = 1.4616321449683622 + 9.55e-17 its zero (2e-11 relative;
// tools/vec_poly_fit.py).
// B_2k / (2k) for k = 1..6, digamma's asymptotic series in 1/x^2 (the seventh term is below 2e-14 of it at 10).
constexpr double kDigammaAsymptotic[] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760};
constexpr double kDigammaZeroHi = 1.4616321449683622, kDigammaZeroLo = 9.549995429965697e-17;
constexpr double kDigammaNearZero[] = {0.9510558760498402,     -0.21181371068689211,   0.06013561931086689,
                                       -0.018550613674192033,  0.005936822944599455,   -0.0019350848819750914,
                                       0.0006367246896757426,  -0.0002106631274577468, 7.04057987136284e-05,
                                       -2.346149487816261e-05, 7.0990590656744885e-06, -2.322970310777454e-06,
                                       1.2901818939525906e-06, -4.426106671435613e-07};

// lgamma(z) for z > 0, finite, in double lanes (Note [Vectorized lgamma]).
template <typename D>
inline D lgamma_positive(D z) {
  using M = mask64_of<D>;
  const M big = z >= 5.0;
  // n = floor(z - 3/2) (-2, -1, 0, 1, 2 or 3 below 5) steps of the recurrence take z to y = z - n in [1.5, 2.5):
  // lgamma(z) = lgamma(y) - log(z (z + 1)) for n = -2, - log(z) for n = -1, + log((z - 1) ... (z - n)) for n > 0
  const D n = big ? D{} : rounded_double<0>(z - 1.5);
  const D y = z - n;
  const D first = n >= 1.0 ? z - 1.0 : (n <= -1.0 ? z : D{} + 1.0);
  const D second = n >= 2.0 ? z - 2.0 : (n == -2.0 ? z + 1.0 : D{} + 1.0);
  const D third = n >= 3.0 ? z - 3.0 : D{} + 1.0;
  const D logged = log_double(big ? z : first * second * third);
  const D t = y - 2.0;
  const D near_two = t * horner_double(2.0 * t, kLgammaNearTwo) + (n < 0.0 ? -logged : logged);
  const D w = 1.0 / z, w2 = w * w;
  const D series = w * horner_double(w2, kStirling);
  const D stirling = (z - 0.5) * (logged - 1.0) + (0.4189385332046727 + series);  // (log(2 pi) - 1) / 2
  return big ? stirling : near_two;
}

// lgamma of 8 float lanes (V = 8 floats; D = 8 doubles).
template <typename V>
inline V lgamma8(V x) {
  using D = typename VecDouble<V>::type;
  using M = mask64_of<D>;
  const D xd = __builtin_convertvector(x, D);
  const vint_of<V> negative = x < 0.0f;
  const D z = __builtin_convertvector(negative, D) != 0.0 ? 1.0 - xd : xd;  // 1 - x for the reflection
  const D positive = lgamma_positive(z);
  V result = __builtin_convertvector(positive, V);
  if (any(negative)) {
    const D r = xd - rounded_double<3>(xd);  // x - rint(x)
    const D sin_pi = r * horner_double(8.0 * r * r - 1.0, kSinPi);
    const D reflected = 1.1447298858494002 - log_double(sin_pi < 0.0 ? -sin_pi : sin_pi);  // log(pi) - log|sin|
    const D sum = reflected - positive;
    result = select(negative, __builtin_convertvector(sum, V), result);
    // near a zero of lgamma the difference keeps too few digits: the C library there (rare lanes)
    const D scale = (reflected < 0.0 ? -reflected : reflected) + positive + 1.0;
    const M cancels = (sum < 0.0 ? -sum : sum) < 1e-4 * scale;
    const vint_of<V> redo = __builtin_convertvector(cancels & (r != 0.0), vint_of<V>) & negative;
    if (__builtin_expect(any(redo), 0)) {
      for (int k = 0; k < lanes_of<V>; ++k) {
        if (!redo[k]) continue;
        int sign;
        result[k] = static_cast<float>(::lgamma_r(static_cast<double>(x[k]), &sign));
      }
    }
  }
  const V inf = broadcast<V>(__builtin_inff());
  result = select((abs(x) == __builtin_inff()) | ((x <= 0.0f) & (rounded<2>(x) == x)), inf, result);
  return select(x != x, x, result);
}


// digamma of 8 float lanes (Note [Vectorized digamma]); scalar(double) serves the lanes at or below 0 and inf.
template <typename V, typename F>
inline V digamma8(V x, F scalar) {
  using D = typename VecDouble<V>::type;
  using M = mask64_of<D>;
  const D z = __builtin_convertvector(x, D);
  // n = floor(z) - 1 in [-1, 8] moves z to y = z - n in [1, 2)
  D n = rounded_double<0>(z - 1.0);
  n = n < -1.0 ? D{} - 1.0 : (n > 8.0 ? D{} + 8.0 : n);
  const D y = z - n;
  // the recurrence's terms as one fraction: sum_{k < n} 1 / (y + k), or -1/z for n = -1
  D num = n < 0.0 ? D{} - 1.0 : D{}, den = n < 0.0 ? z : D{} + 1.0;
  for (int k = 0; k < 8; ++k) {
    const M step = D{} + double(k) < n;
    const D t = y + double(k);
    num = step ? num * t + den : num;
    den = step ? den * t : den;
  }
  const D near_zero = ((y - kDigammaZeroHi) - kDigammaZeroLo) * horner_double(2.0 * y - 3.0, kDigammaNearZero);
  D result = near_zero + num / den;
  const M big = z >= 10.0;
  if (any(__builtin_convertvector(big, vint_of<V>))) {  // log z - 1/(2z) - sum_k B_2k / (2k z^2k), k <= 6
    const D w = 1.0 / z, w2 = w * w;
    const D series = w2 * horner_double(w2, kDigammaAsymptotic);
    const D safe = big ? z : D{} + 1.0;  // log of the other lanes' z is not wanted (nor always defined)
    result = big ? log_double(safe) - 0.5 * w - series : result;
  }
  V out = __builtin_convertvector(result, V);
  // z <= 0 (the reflection, and the poles) and the non-finite values by the scalar function, lane by lane (rare)
  const vint_of<V> other = ~(x > 0.0f) | (x == __builtin_inff());
  if (__builtin_expect(any(other), 0)) {
    for (int k = 0; k < lanes_of<V>; ++k) {
      if (other[k]) out[k] = static_cast<float>(scalar(static_cast<double>(x[k])));
    }
  }
  return out;
}

// Note [Vectorized incomplete gamma]: P(a, x) and Q(a, x) of 8 float lanes in 8 double lanes, the scalar
// incomplete_gamma's three forms (kernels/special/gamma.h) run in lockstep: each lane's form is chosen as there
// (the power series of P where x < a + 1, that of Q instead where Q is wanted and a < 1, Legendre's continued fraction
// for Q elsewhere), and every loop runs until all of its lanes have converged (1e-12 relative, as the scalar float
// ops), so a vector costs its slowest lane. The prefactor x^a e^-x / Gamma(a) is exp(a log x - x - lgamma(a)) in
// double lanes: for a < 50 the exponent's terms are below 250, whose rounding (3e-14) and lgamma's 6e-12 are far
// below a float's ulp. Lanes outside 0 < a < 50, 0 < x < inf (and any lane a loop did not settle in 500 steps) take
// the scalar function.
template <bool kUpper, typename V, typename F>
inline V incomplete_gamma8(V av, V xv, F scalar) {
  using D = typename VecDouble<V>::type;
  using M = mask64_of<D>;
  constexpr double kTolerance = 1e-12, kTiny = 1e-300;
  constexpr int kSteps = 500;
  const D a_in = __builtin_convertvector(av, D), x_in = __builtin_convertvector(xv, D);
  const M regular = (a_in > 0.0) & (a_in < 50.0) & (x_in > 0.0) & (x_in < __builtin_inf());
  const D a = regular ? a_in : D{} + 1.0, x = regular ? x_in : D{} + 1.0;  // harmless values elsewhere
  const M below = x < a + 1.0;
  const M q_series = kUpper ? below & (a < 1.0) : M{};
  const M p_series = below & ~q_series;
  const M fraction = ~below;
  const D log_x = log_double(x);
  const D log_gamma = lgamma_positive(a);
  const D log_prefactor = a * log_x - x - log_gamma;
  D result{};
  M unsettled{};
  if (any(p_series & regular)) {  // P = x^a e^-x / Gamma(a) sum_n x^n / (a (a + 1) ... (a + n))
    D term = 1.0 / a, sum = term, ap = a;
    M active = p_series & regular;
    for (int n = 0; n < kSteps && any(active); ++n) {
      ap += 1.0;
      term *= x / ap;
      sum += term;
      active &= term >= sum * (0.1 * kTolerance);
    }
    unsettled |= active;
    const D p = sum * exp_double(log_prefactor);
    result = p_series ? (kUpper ? 1.0 - p : p) : result;
  }
  if (kUpper && any(q_series & regular)) {  // Q without 1 - P for a < 1: x^a / Gamma(1 + a) and sum (-x)^n / (n! (a + n))
    const D log_power = a * log_x - (log_gamma + log_double(a));  // lgamma(1 + a) = lgamma(a) + log a
    D t = D{} + 1.0, series{};
    M active = q_series & regular;
    for (int n = 1; n < kSteps && any(active); ++n) {
      t *= -x / static_cast<double>(n);
      const D add = t / (a + static_cast<double>(n));
      series += add;
      active &= abs_double(add) >= 0.01 * kTolerance * abs_double(series);
    }
    unsettled |= active;
    const D q = -expm1_double(log_power) - a * exp_double(log_power) * series;
    result = q_series ? q : result;
  }
  if (any(fraction & regular)) {  // Q by Legendre's continued fraction (modified Lentz), for x >= a + 1
    D b = x + 1.0 - a, c = D{} + 1.0 / kTiny, d = 1.0 / b, h = d;
    M active = fraction & regular;
    for (int i = 1; i < kSteps && any(active); ++i) {
      const D an = -static_cast<double>(i) * (static_cast<double>(i) - a);
      b += 2.0;
      d = an * d + b;
      d = abs_double(d) < kTiny ? D{} + kTiny : d;
      c = b + an / c;
      c = abs_double(c) < kTiny ? D{} + kTiny : c;
      d = 1.0 / d;
      const D delta = d * c;
      h *= delta;
      active &= abs_double(delta - 1.0) >= kTolerance;
    }
    unsettled |= active;
    const D q = h * exp_double(log_prefactor);
    result = fraction ? (kUpper ? q : 1.0 - q) : result;
  }
  V out = __builtin_convertvector(result, V);
  const vint_of<V> other = __builtin_convertvector(~regular | unsettled, vint_of<V>);
  if (__builtin_expect(any(other), 0)) {
    for (int k = 0; k < lanes_of<V>; ++k) {
      if (other[k]) out[k] = static_cast<float>(scalar(static_cast<double>(av[k]), static_cast<double>(xv[k])));
    }
  }
  return out;
}

}  // namespace gamma_detail

// lgamma(x) of float lanes (Note [Vectorized lgamma]): in 8-lane halves on AVX-512, so the double lanes fill one
// register.
template <typename V>
inline V lgamma(V x) {
  return in_float_halves([](auto h) { return gamma_detail::lgamma8(h); }, x);
}

// digamma(x) of float lanes (Note [Vectorized digamma]), in 8-lane halves on AVX-512; scalar(double) is the
// element function the lanes at or below 0 and +inf take (the kernels pass special::digamma).
template <typename V, typename F>
inline V digamma(V x, F scalar) {
  return in_float_halves([&scalar](auto h) { return gamma_detail::digamma8(h, scalar); }, x);
}

// igamma (P, kUpper false) and igammac (Q) of float lanes (Note [Vectorized incomplete gamma]), in 8-lane halves on
// AVX-512; scalar(a, x) is the element function the lanes outside its range take (the kernels pass
// special::gammainc at the float ops' tolerance).
template <bool kUpper, typename V, typename F>
inline V incomplete_gamma(V a, V x, F scalar) {
  return in_float_halves([&scalar](auto ha, auto hx) { return gamma_detail::incomplete_gamma8<kUpper>(ha, hx, scalar); },
                         a, x);
}

}  // namespace yaten::vec
