// The scaled complementary error function erfcx, the normal distribution's log_ndtr and inverse ndtri, entr.
#pragma once

#include "kernels/special/common.h"

namespace yaten::native {
namespace special {

// ------------------------------------------------------------------------------- error function and the normal CDF

// e^(x^2) erfc(x). For |x| < 12 the product itself, with x^2 split exactly into hi + lo (a fused multiply-add) so
// that e^(x^2) carries no error from the square; above, the asymptotic series 1/(x sqrt pi) sum_k (-1)^k (2k-1)!! /
// (2x^2)^k, whose terms fall below 1e-17 after about 16 terms there. Negative x through
// erfcx(x) = 2 e^(x^2) - erfcx(-x), inf once e^(x^2) overflows.
YATEN_HOST_DEVICE inline double exp_square(double x) {
  const double hi = x * x, lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1 + lo);
}
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x < -26.7) return kInf;
    return 2 * exp_square(x) - erfcx(-x);
  }
  if (x < 12) return exp_square(x) * std::erfc(x);
  if (x == kInf) return 0;
  const double inv = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 40; ++k) {
    term *= -(2.0 * k - 1) * inv;
    sum += term;
    if (std::fabs(term) < 1e-17) break;
  }
  return sum / (x * kSqrtPi);
}

// log of the standard normal distribution function: log1p(-ndtr(-x)) above 0 (no loss near 1), log(erfc(-x/sqrt2)/2)
// on [-1, 0], and in the lower tail log(erfcx(-x/sqrt2) / 2) - x^2/2, which keeps its precision to -inf.
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  const double t = x / kSqrt2;
  if (x > 0) return std::log1p(-0.5 * std::erfc(t));
  if (x >= -1) return std::log(0.5 * std::erfc(-t));
  return std::log(0.5 * erfcx(-t)) - 0.5 * x * x;
}

// The quantile of the standard normal distribution. For p <= 1/2 a start from Abramowitz and Stegun's 26.2.23
// (error < 4.5e-4), then Halley's method on log ndtr(x) = log p through the Mills ratio ndtr(x)/phi(x) =
// sqrt(pi/2) erfcx(-x/sqrt2), which does not underflow in the tail. Above 1/2 by symmetry, ndtri(p) = -ndtri(1 - p)
// with 1 - p exact.
YATEN_HOST_DEVICE inline double ndtri_lower(double p) {  // 0 < p <= 1/2
  const double log_p = std::log(p);
  const double t = std::sqrt(-2 * log_p);
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  // Halley's method on f(x) = log ndtr(x) - log p, with f' = m = phi/ndtr (the inverse Mills ratio) and
  // f'' = -m (x + m): cubic convergence, so from the start's 4.5e-4 one step leaves ~1e-10 and a step below 1e-6
  // leaves less than an ulp (two evaluations, where Newton's method needed four)
  for (int i = 0; i < 6; ++i) {
    const double scaled = erfcx(-x / kSqrt2);                  // ndtr(x) = scaled e^(-x^2/2) / 2
    const double log_ndtr_x = x < -1 ? std::log(0.5 * scaled) - 0.5 * x * x : log_ndtr(x);
    const double m = 1 / (1.25331413731550025121 * scaled);    // sqrt(pi/2)
    const double f = log_ndtr_x - log_p;
    const double step = (f / m) / (1 + f * (x + m) / (2 * m));
    x -= step;
    if (std::fabs(step) < 1e-6) break;
  }
  return x;
}
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p == 0.5) return 0;
  if (p < 0.5) return ndtri_lower(p);
  return -ndtri_lower(1 - p);
}

// -x log x: 0 at 0, -inf below (torch's and SciPy's convention).
YATEN_HOST_DEVICE inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  if (x == 0) return 0;
  return -kInf;
}

}  // namespace special

// The functors (the macros are special_math.h's).
YATEN_SPECIAL_FUNCTION_1(ErfcxOp, special::erfcx(x))
YATEN_SPECIAL_FUNCTION_1(LogNdtrOp, special::log_ndtr(x))
YATEN_SPECIAL_FUNCTION_1(NdtriOp, special::ndtri(x))
YATEN_SPECIAL_FUNCTION_1(EntrOp, special::entr(x))

}  // namespace yaten::native
