// The classical orthogonal polynomials of a tensor degree.
#pragma once

#include "kernels/special/common.h"

namespace yaten::native {
namespace special {

// -------------------------------------------------------------------------------------------- orthogonal polynomials
// Of a degree n given as a tensor (truncated to an integer, as torch does): 0 for n < 0. The three-term recurrences
// for small degrees; for large ones the closed forms in x = cos t (|x| < 1) or x = +-cosh t (|x| > 1), so the work
// is bounded for any n (torch's loop is not: 9e18 steps for T_n(2) with n = 9e18). Laguerre's and Legendre's stay
// bounded on their orthogonality intervals and have no cheap closed form: degrees above 1e7 there give NaN rather
// than ten million steps per element.
// Hermite's overflow within a few hundred steps for any x, where the recurrence stops.

constexpr int64_t kRecurrenceLimit = 10000000;

YATEN_HOST_DEVICE inline int64_t polynomial_degree(double n) {
  if (n >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (n <= -9.2e18) return -1;
  return static_cast<int64_t>(n);
}


// sinh(a)/sinh(b) and cosh(a)/cosh(b) for a, b >= 0 without overflowing before the quotient does
YATEN_HOST_DEVICE inline double sinh_ratio(double a, double b) {
  return std::exp(a - b) * std::expm1(-2 * a) / std::expm1(-2 * b);
}
YATEN_HOST_DEVICE inline double cosh_ratio(double a, double b) {
  return std::exp(a - b) * (1 + std::exp(-2 * a)) / (1 + std::exp(-2 * b));
}

// kind: 0 T, 1 U, 2 V, 3 W (Chebyshev polynomials of the first to fourth kind)
YATEN_HOST_DEVICE inline double chebyshev(int kind, double x, int64_t n) {
  if (n < 0) return 0;
  if (std::isnan(x)) return x;
  const bool odd = n % 2 == 1;
  const double dn = static_cast<double>(n);
  if (std::fabs(x) == 1) {
    // T_n(+-1) = (+-1)^n; U_n(1) = n + 1; V_n(1) = 1, V_n(-1) = (-1)^n (2n+1); W_n(1) = 2n + 1, W_n(-1) = (-1)^n
    const double sign = (x < 0 && odd) ? -1.0 : 1.0;
    switch (kind) {
      case 0: return sign;
      case 1: return sign * (dn + 1);
      case 2: return x > 0 ? 1.0 : sign * (2 * dn + 1);
      default: return x > 0 ? 2 * dn + 1 : sign;
    }
  }
  if (n == 0) return 1;
  // the recurrence up to torch's thresholds (degree 6 for T, 8 for U, V, W) inside [-1, 1], so small degrees give
  // its exact zeros, and to 64 outside
  if (n <= (kind == 0 ? 6 : 8) || (std::fabs(x) > 1 && n <= 64)) {
    double p = 1, q = kind == 0 ? x : (kind == 1 ? 2 * x : (kind == 2 ? 2 * x - 1 : 2 * x + 1));
    for (int64_t k = 2; k <= n; ++k) {
      const double r = 2 * x * q - p;
      p = q;
      q = r;
    }
    return q;
  }
  if (std::fabs(x) < 1) {
    const double t = std::acos(x);
    switch (kind) {
      case 0: return std::cos(dn * t);
      case 1: {
        const double s = std::sin(t);
        return std::sin((dn + 1) * t) / s;
      }
      case 2: return std::cos((dn + 0.5) * t) / std::cos(0.5 * t);
      default: return std::sin((dn + 0.5) * t) / std::sin(0.5 * t);
    }
  }
  if (std::isinf(x)) {
    const double sign = (x < 0 && odd) ? -1.0 : 1.0;
    return sign * kInf;
  }
  // |x| > 1: x = s cosh t, s = +-1; P_n(-y) = (-1)^n P_n(y) for T and U, V_n(-y) = (-1)^n W_n(y)
  const double t = std::acosh(std::fabs(x));
  const double sign = (x < 0 && odd) ? -1.0 : 1.0;
  int k = kind;
  if (x < 0 && kind >= 2) k = 5 - kind;
  switch (k) {
    case 0: return sign * std::cosh(dn * t);
    case 1: return sign * sinh_ratio((dn + 1) * t, t);
    case 2: return sign * cosh_ratio((dn + 0.5) * t, 0.5 * t);
    default: return sign * sinh_ratio((dn + 0.5) * t, 0.5 * t);
  }
}

// Hermite's H_n (physicists', scale 2) and He_n (probabilists', scale 1): H_{k+1} = 2x H_k - 2k H_{k-1},
// He_{k+1} = x He_k - k He_{k-1}; the recurrence stops at a NaN, which an overflow becomes within two steps (an inf
// minus an inf, as in torch's loop), and every x overflows within a few hundred steps.
YATEN_HOST_DEVICE inline double hermite(bool physicists, double x, int64_t n) {
  if (n < 0) return 0;
  if (n == 0) return 1;
  const double s = physicists ? 2.0 : 1.0;
  double p = 1, q = s * x;
  for (int64_t k = 1; k < n; ++k) {
    const double r = s * (x * q - static_cast<double>(k) * p);
    p = q;
    q = r;
    if (std::isnan(q)) return q;  // absorbing: an overflow turns into inf - inf within two steps
  }
  return q;
}

// Laguerre's L_{k+1} = ((2k + 1 - x) L_k - k L_{k-1}) / (k + 1); 1 at x = 0.
YATEN_HOST_DEVICE inline double laguerre(double x, int64_t n) {
  if (n < 0) return 0;
  if (x == 0 || n == 0) return 1;
  if (n > kRecurrenceLimit && x > 0) return kNaN;
  double p = 1, q = 1 - x;
  for (int64_t k = 1; k < n; ++k) {
    const double dk = static_cast<double>(k);
    const double r = ((2 * dk + 1 - x) * q - dk * p) / (dk + 1);
    p = q;
    q = r;
    if (std::isnan(q)) return q;
  }
  return q;
}

// Legendre's P_{k+1} = ((2k + 1) x P_k - k P_{k-1}) / (k + 1); (+-1)^n at x = +-1.
YATEN_HOST_DEVICE inline double legendre(double x, int64_t n) {
  if (n < 0) return 0;
  if (std::fabs(x) == 1) return (x < 0 && n % 2 == 1) ? -1.0 : 1.0;
  if (n == 0) return 1;
  if (n > kRecurrenceLimit && std::fabs(x) < 1) return kNaN;
  double p = 1, q = x;
  for (int64_t k = 1; k < n; ++k) {
    const double dk = static_cast<double>(k);
    const double r = ((2 * dk + 1) * x * q - dk * p) / (dk + 1);
    p = q;
    q = r;
    if (std::isnan(q)) return q;
  }
  return q;
}

// The twelve polynomials by number: 0-3 Chebyshev T, U, V, W; 4-7 the same at 2x - 1 (shifted); 8 Hermite H, 9 He;
// 10 Laguerre; 11 Legendre. A NaN or +inf degree gives NaN (torch's cast of them to an integer is undefined: on x86
// it makes them negative, so 0); -inf is a negative degree, 0.
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double polynomial(int which, double x, double n) {
  if (std::isnan(n) || n == kInf) return kNaN;
  const int64_t degree = polynomial_degree(n);
  if (which < 4) return chebyshev(which, x, degree);
  if (which < 8) return chebyshev(which - 4, 2 * x - 1, degree);
  if (which < 10) return hermite(which == 8, x, degree);
  return which == 10 ? laguerre(x, degree) : legendre(x, degree);
}

}  // namespace special

// The functors (the macros are special_math.h's).
YATEN_SPECIAL_FUNCTION_2(ChebyshevTOp, special::polynomial(0, x, y))
YATEN_SPECIAL_FUNCTION_2(ChebyshevUOp, special::polynomial(1, x, y))
YATEN_SPECIAL_FUNCTION_2(ChebyshevVOp, special::polynomial(2, x, y))
YATEN_SPECIAL_FUNCTION_2(ChebyshevWOp, special::polynomial(3, x, y))
YATEN_SPECIAL_FUNCTION_2(ShiftedChebyshevTOp, special::polynomial(4, x, y))
YATEN_SPECIAL_FUNCTION_2(ShiftedChebyshevUOp, special::polynomial(5, x, y))
YATEN_SPECIAL_FUNCTION_2(ShiftedChebyshevVOp, special::polynomial(6, x, y))
YATEN_SPECIAL_FUNCTION_2(ShiftedChebyshevWOp, special::polynomial(7, x, y))
YATEN_SPECIAL_FUNCTION_2(HermiteHOp, special::polynomial(8, x, y))
YATEN_SPECIAL_FUNCTION_2(HermiteHeOp, special::polynomial(9, x, y))
YATEN_SPECIAL_FUNCTION_2(LaguerreLOp, special::polynomial(10, x, y))
YATEN_SPECIAL_FUNCTION_2(LegendrePOp, special::polynomial(11, x, y))

}  // namespace yaten::native
