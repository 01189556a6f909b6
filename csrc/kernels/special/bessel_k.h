// The modified Bessel functions K of integer order, their exponentially scaled forms, and the scaled I0, I1.
#pragma once

#include "kernels/special/common.h"

namespace yaten::native {
namespace special {

// ------------------------------------------------------------------------------------------------------ Bessel K

// K_nu(x) and K_{nu+1}(x) for x >= 2 and |nu| <= 1/2 by Temme's continued fraction (Steed's CF2 for K), scaled by
// e^x, so that the scaled functions never overflow and the unscaled ones underflow only at the end.
struct BesselK {
  double k, k1;
};
YATEN_HOST_DEVICE inline BesselK bessel_k_scaled_cf(double nu, double x) {
  double b = 2 * (1 + x), d = 1 / b, h = d, delh = d;
  double q1 = 0, q2 = 1;
  const double a1 = 0.25 - nu * nu;
  double q = a1, c = a1, a = -a1;
  double s = 1 + q * delh;
  for (int i = 2; i < 100000; ++i) {
    a -= 2 * (i - 1);
    c = -a * c / i;
    const double qnew = (q1 - b * q2) / a;
    q1 = q2;
    q2 = qnew;
    q += c * qnew;
    b += 2;
    d = 1 / (b + a * d);
    delh = (b * d - 1) * delh;
    h += delh;
    const double dels = q * delh;
    s += dels;
    if (std::fabs(dels / s) < kEps) break;
  }
  h *= a1;
  const double k = std::sqrt(kPi / (2 * x)) / s;
  return {k, k * (nu + x + 0.5 - h) / x};
}

// K0 (order 0) or K1 (order 1) at x > 0, times e^x when scaled. Below 2 the series
// K0 = -(ln(x/2) + gamma) I0 + sum_k H_k (x^2/4)^k / (k!)^2 and
// K1 = 1/x + ln(x/2) I1 - (x/4) sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!), all terms of one sign.
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double bessel_k(int order, double x, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (x == kInf) return 0;
  if (x >= 2) {
    const BesselK r = bessel_k_scaled_cf(0.0, x);
    const double v = order == 0 ? r.k : r.k1;
    return scaled ? v : v * std::exp(-x);
  }
  const double q = 0.25 * x * x;
  double value;
  if (order == 0) {
    double term = 1, sum = 0, harmonic = 0;
    for (int k = 1; k < 60; ++k) {
      term *= q / (static_cast<double>(k) * k);
      harmonic += 1.0 / k;
      sum += harmonic * term;
      if (term < kEps * 1e-2 * sum) break;
    }
    value = -(std::log(0.5 * x) + kEulerGamma) * bessel_i(0, x) + sum;
  } else {
    double plain = 1, harmonic = 0, s = 1.0 - 2 * kEulerGamma;
    for (int k = 1; k < 60; ++k) {
      plain *= q / (static_cast<double>(k) * (k + 1));
      harmonic += 1.0 / k;
      const double term = (2 * harmonic + 1.0 / (k + 1) - 2 * kEulerGamma) * plain;
      s += term;
      if (std::fabs(term) < kEps * 1e-2 * std::fabs(s)) break;
    }
    value = 1 / x + std::log(0.5 * x) * bessel_i(1, x) - 0.25 * x * s;
  }
  return scaled ? value * std::exp(x) : value;
}

// e^-|x| I0(x) and e^-|x| I1(x): special_math.h's bessel_i times e^-|x| to 30, its asymptotic series without the
// e^x above (so no overflow).
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double bessel_i_scaled(int nu, double x) {
  const double ax = std::fabs(x);
  if (std::isnan(x)) return x;
  if (ax <= 30) return bessel_i(nu, x) * std::exp(-ax);
  const double value = bessel_i_asymptotic(nu, ax);
  return (nu == 1 && x < 0) ? -value : value;
}

}  // namespace special

// The functors (the macros are special_math.h's).
YATEN_SPECIAL_FUNCTION_1(BesselK0Op, special::bessel_k(0, x, false))
YATEN_SPECIAL_FUNCTION_1(BesselK1Op, special::bessel_k(1, x, false))
YATEN_SPECIAL_FUNCTION_1(BesselK0eOp, special::bessel_k(0, x, true))
YATEN_SPECIAL_FUNCTION_1(BesselK1eOp, special::bessel_k(1, x, true))
YATEN_SPECIAL_FUNCTION_1(I0eOp, special::bessel_i_scaled(0, x))
YATEN_SPECIAL_FUNCTION_1(I1eOp, special::bessel_i_scaled(1, x))

}  // namespace yaten::native
