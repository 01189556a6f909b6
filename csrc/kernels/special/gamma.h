// The regularized incomplete gamma functions, the Hurwitz zeta and xlog1py.
#pragma once

#include "kernels/special/common.h"

namespace yaten::native {
namespace special {

// --------------------------------------------------------------------------------- the incomplete gamma functions

// The regularized lower (P) and upper (Q) incomplete gamma functions of a > 0, x > 0, both returned so each caller
// takes the one computed without cancellation:
//   - x < a + 1: the series P = x^a e^-x / Gamma(a+1) sum_n x^n / ((a+1)...(a+n)), and Q = 1 - P, except for
//     a < 1, where Q is small when P is near 1: there Q = -expm1(a log x - lgamma(1+a)) - x^a / Gamma(a) sum_{n>=1}
//     (-x)^n / (n! (a+n)), from Gamma(a, x) = Gamma(a) - gamma(a, x) with the power series of gamma(a, x);
//   - x >= a + 1: Legendre's continued fraction for Q (modified Lentz), P = 1 - Q;
//   - a > 1e7 with x within 30% of a, where both need ~sqrt(a) terms: Temme's uniform expansion to its first
//     correction, whose error is O(a^-3/2) (2e-14 at a = 1e7).
// The factor x^a e^-x / Gamma(a) is formed without the cancellation of a log x - x - lgamma(a) (terms of 2e9 at
// a = 1e8, whose rounding would be the result's relative error): for a >= 10 as sqrt(a / 2pi) e^(-a (mu -
// log1p(mu))) / Gamma*(a) with mu = (x - a)/a and Gamma* Stirling's correction; for a < 1 as
// a x^a e^-x / Gamma(a + 1), whose log-gamma is small.
struct GammaPQ {
  double p, q;
};
// mu - log1p(mu), by its series where the difference would lose digits
YATEN_HOST_DEVICE inline double mu_minus_log1p(double mu) {
  if (std::fabs(mu) >= 0.1) return mu - std::log1p(mu);
  double term = mu * mu, sum = 0;
  for (int k = 2; k < 40; ++k) {
    sum += (k % 2 == 0 ? term : -term) / k;
    term *= mu;
    if (std::fabs(term) < 1e-18 * std::fabs(sum)) break;
  }
  return sum;
}
// lgamma(1 + a) for 0 < a < 1: the series -gamma a + sum_k (-a)^k zeta(k) / k below 0.2 (1 + a would round a away)
YATEN_HOST_DEVICE inline double lgamma1p(double a) {
  if (a >= 0.2) return lgamma(1 + a);
  // zeta(k) for k = 2..40 (a table: the series' 40 powers of 3 cost more than the rest of igamma)
  constexpr double zeta_k[] = {
      1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,   1.0173430619844492,
      1.008349277381923,  1.0040773561979444, 1.0020083928260821, 1.000994575127818,  1.0004941886041194,
      1.000246086553308,  1.0001227133475785, 1.0000612481350588, 1.000030588236307,  1.0000152822594086,
      1.0000076371976379, 1.000003817293265,  1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
      1.0000002384505027, 1.000000119219926,  1.000000059608189,  1.0000000298035034, 1.0000000149015549,
      1.0000000074507118, 1.000000003725334,  1.0000000018626598, 1.0000000009313275, 1.0000000004656628,
      1.000000000232831,  1.0000000001164155, 1.0000000000582077, 1.0000000000291038, 1.000000000014552,
      1.000000000007276,  1.000000000003638,  1.000000000001819,  1.0000000000009095};
  double sum = -kEulerGamma * a, power = -a;  // (-a)^k
  for (int k = 2; k <= 40; ++k) {
    power *= -a;
    const double term = power * zeta_k[k - 2] / k;
    sum += term;
    if (std::fabs(term) < 1e-18 * std::fabs(sum)) break;
  }
  return sum;
}
YATEN_HOST_DEVICE inline double gamma_prefactor(double a, double x) {  // x^a e^-x / Gamma(a)
  if (a < 1) return a * std::exp(a * std::log(x) - x - lgamma1p(a));
  if (a < 10) return std::exp(a * std::log(x) - x - lgamma(a));
  const double inv = 1 / a, inv2 = inv * inv;
  // log Gamma*(a) = 1/(12a) - 1/(360a^3) + 1/(1260a^5) - 1/(1680a^7) + 1/(1188a^9): below 2e-14 of a term at a = 10
  const double log_star =
      inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 * (1.0 / 1680 - inv2 / 1188))));
  return std::sqrt(a / (2 * kPi)) * std::exp(-a * mu_minus_log1p((x - a) / a) - log_star);
}
YATEN_HOST_DEVICE inline GammaPQ incomplete_gamma_temme(double a, double x) {
  const double mu = (x - a) / a;
  const double half_eta2 = mu_minus_log1p(mu);  // eta^2 / 2
  const double eta = std::copysign(std::sqrt(2 * half_eta2), mu);
  // C0(eta) = 1/mu - 1/eta, whose limit at 0 is -1/3 (series -1/3 + eta/12 where the two terms would cancel)
  const double c0 = std::fabs(mu) < 1e-3 ? -1.0 / 3 + eta / 12 : 1 / mu - 1 / eta;
  const double r = std::exp(-a * half_eta2) / std::sqrt(2 * kPi * a) * c0;
  const double z = eta * std::sqrt(0.5 * a);
  return {0.5 * std::erfc(-z) - r, 0.5 * std::erfc(z) + r};
}
// upper: whether Q is wanted (else P): for a < 1 and x < a + 1 they come from different series, and only one is
// summed. tolerance: where the sums stop, relative to what they hold (the float results' ops stop at 1e-12, about 2e-5
// of their ulp: a third of the terms fewer than double precision needs).
YATEN_HOST_DEVICE inline GammaPQ incomplete_gamma(double a, double x, bool upper, double tolerance) {
  if (a > 1e7 && std::fabs(x - a) < 0.3 * a) return incomplete_gamma_temme(a, x);
  if (x < a + 1) {
    if (a < 1 && upper) {  // Q without 1 - P (x < 2)
      const double log_power = a * std::log(x) - lgamma1p(a), power = std::exp(log_power);  // x^a / Gamma(1 + a)
      double t = 1, series = 0;
      for (int n = 1; n < 100; ++n) {
        t *= -x / n;
        const double add = t / (a + n);
        series += add;
        if (std::fabs(add) < 0.01 * tolerance * std::fabs(series)) break;
      }
      const double q = -std::expm1(log_power) - a * power * series;
      return {1 - q, q};
    }
    double term = 1 / a, sum = term, ap = a;
    for (int n = 1; n < 100000; ++n) {
      ap += 1;
      term *= x / ap;
      sum += term;
      if (term < sum * 0.1 * tolerance) break;
    }
    const double p = sum * gamma_prefactor(a, x);
    return {p, 1 - p};
  }
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < tolerance) break;
  }
  const double q = h * gamma_prefactor(a, x);
  return {1 - q, q};
}
// torch's edges: NaN for a < 0 or x < 0; a = 0 gives P = 1 for x > 0; x = 0 gives P = 0 for a > 0; x = inf P = 1,
// a = inf P = 0; both 0 or both inf NaN.
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double gammainc(double a, double x, bool upper, double tolerance = kEps) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  double p;
  if (a == 0) {
    if (x == 0) return kNaN;
    p = 1;
  } else if (x == 0) {
    p = 0;
  } else if (std::isinf(a)) {
    if (std::isinf(x)) return kNaN;
    p = 0;
  } else if (std::isinf(x)) {
    p = 1;
  } else {
    const GammaPQ r = incomplete_gamma(a, x, upper, tolerance);
    return upper ? r.q : r.p;
  }
  return upper ? 1 - p : p;
}

}  // namespace special

// The functors (the macros are special_math.h's).
// float32 and the 16-bit types stop the sums at 1e-12 (special::incomplete_gamma), float64 at its own precision
YATEN_SPECIAL_FUNCTION_2(IgammaOp, special::gammainc(x, y, false, sizeof(om<T>) >= 8 ? special::kEps : 1e-12))
YATEN_SPECIAL_FUNCTION_2(IgammacOp, special::gammainc(x, y, true, sizeof(om<T>) >= 8 ? special::kEps : 1e-12))
YATEN_SPECIAL_FUNCTION_2(ZetaOp, special::zeta(x, y))
YATEN_SPECIAL_FUNCTION_2(Xlog1pyOp, (std::isnan(y) ? y : (x == 0 ? 0.0 : x * std::log1p(y))))

}  // namespace yaten::native
