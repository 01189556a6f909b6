// The element math of the special-function and sign/exponent pointwise ops (digamma, lgamma, polygamma, i0, i1,
// sinc, sgn, signbit, copysign, nextafter, xlogy, logaddexp, logaddexp2, heaviside), written once for both
// backends as pointwise_math.h's functors are (Design rule [Shared element math]), in a header of their own so that
// an edit here recompiles only these ops.
//
// The special functions compute in double for every real dtype (float32 and the 16-bit types round once at the
// end), so a float32 result is the correctly rounded double result in all but rare halfway cases.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/pointwise_math.h"

namespace yaten::native {
namespace special {

constexpr double kPi = 3.14159265358979323846;

// log|Gamma(x)|. On the host through lgamma_r, which does not write the global `signgam` that lgamma does (a data
// race when the thread pool runs it); on the device through CUDA's lgamma.
YATEN_HOST_DEVICE inline double lgamma(double x) {
#if defined(__CUDA_ARCH__)
  return ::lgamma(x);
#else
  int sign;
  return ::lgamma_r(x, &sign);
#endif
}

// pi / tan(pi x) for the reflection formulas, with x reduced to x - round(x) in [-1/2, 1/2] first (exact; cot has
// period pi), so arguments near a negative integer and large ones keep their precision.
YATEN_HOST_DEVICE inline double pi_cot_pi(double x) {
  const double r = x - std::nearbyint(x);
  return kPi / std::tan(kPi * r);
}

// digamma (psi), the logarithmic derivative of Gamma: +-0 gives -+inf and the negative integers NaN (torch's and
// SciPy's choices); x < 0 through the reflection psi(1 - x) - pi cot(pi x); x > 0 up by the recurrence
// psi(x) = psi(x + 1) - 1/x to x >= 10, then the asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k), whose
// terms past x^-14 are below 2^-53 of the result.
YATEN_HOST_DEVICE inline double digamma(double x) {
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (std::isnan(x) || x == std::numeric_limits<double>::infinity()) return x;
  double result = 0;
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();  // also -inf
    result = -pi_cot_pi(x);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  // B_2k / (2k) for k = 1..7: 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12
  double series = 1.0 / 12;
  series = ((((((1.0 / 12) * z - 691.0 / 32760) * z + 1.0 / 132) * z - 1.0 / 240) * z + 1.0 / 252) * z -
            1.0 / 120) * z + series;
  return result + std::log(x) - 0.5 / x - z * series;
}

// The Hurwitz zeta function zeta(s, q) = sum_{k >= 0} (q + k)^-s for s > 1: the first terms summed directly until
// q + k >= 10 (and at least 10 of them), then the Euler-Maclaurin tail with Bernoulli numbers to B_24. q <= 0 is
// defined for integer s (the polygamma functions' case) away from the poles at integer q, through three sums over
// positive arguments; s < 1 is NaN, s = 1 inf.
YATEN_HOST_DEVICE inline double zeta_positive(double s, double q) {  // s > 1, q > 0
  double sum = 0, a = q;
  int k = 0;
  for (; k < 10 || a < 10; ++k, a += 1) {
    const double term = std::pow(a, -s);
    sum += term;
    if (k >= 10 && sum != 0 && std::fabs(term) <= std::fabs(sum) * 1e-17) return sum;
  }
  // a = q + k: the tail sum_{j >= 0} (a + j)^-s = a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1)
  const double power = std::pow(a, -s);
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * power;  // a^(1-s) itself: a a^-s underflows first for huge a
  // (2j)! / B_2j for j = 1..12
  constexpr double kFactorialOverBernoulli[] = {12.0,
                                                -720.0,
                                                30240.0,
                                                -1209600.0,
                                                47900160.0,
                                                -1.8924375803183791606e9,
                                                7.47242496e10,
                                                -2.950130727918164224e12,
                                                1.1646782814350067249e14,
                                                -4.5979787224074726105e15,
                                                1.8152105401943546773e17,
                                                -7.1661652561756670113e18};
  double rising = s, apow = power / a;  // s(s+1)...(s+2j-2) and a^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const double term = rising * apow / kFactorialOverBernoulli[j];
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * 1e-17) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    apow /= a * a;
  }
  return sum;
}
YATEN_HOST_DEVICE inline double zeta(double s, double q) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(s) || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (s == 1) return inf;
  if (s < 1 || q == -inf) return std::numeric_limits<double>::quiet_NaN();
  if (s == inf && q > 0) return q == 1 ? 1.0 : (q > 1 ? 0.0 : inf);  // only the term q^-s survives, if any
  if (q == inf) return 0;
  if (q > 0) return zeta_positive(s, q);
  if (q == std::floor(q)) return inf;
  if (s != std::floor(s)) return std::numeric_limits<double>::quiet_NaN();  // (q + k)^-s is not real
  // q = f - m with f in (0, 1): the m negative terms are (-1)^s (j - f)^-s for j = 1..m, so
  // zeta(s, q) = zeta(s, f) + (-1)^s (zeta(s, 1 - f) - zeta(s, m + 1 - f)): three sums over positive arguments, so
  // the work does not grow with |q| (summing from q up took |q| steps: a hang for q = -1e15 + 0.5)
  // 1 - f as -(q + (m - 1)), exact (Sterbenz), where 1 - (q + m) would lose a q just below an integer (-1e-30)
  const double m = -std::floor(q), f = q + m, g = -(q + (m - 1));
  const double sign = std::fmod(s, 2.0) == 0 ? 1.0 : -1.0;
  return zeta_positive(s, f) + sign * (zeta_positive(s, g) - zeta_positive(s, m + g));
}

// The n-th derivative of digamma: digamma itself for n = 0, (-1)^(n+1) n! zeta(n + 1, x) above.
YATEN_HOST_DEVICE inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  double factorial = 1;  // inf from n = 171 (and then the loop stops: n may be 2^62)
  for (int64_t k = 2; k <= n && factorial != std::numeric_limits<double>::infinity(); ++k) {
    factorial *= static_cast<double>(k);
  }
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * factorial * zeta(static_cast<double>(n + 1), x);
}

// The modified Bessel functions of the first kind I0 and I1: the power series sum (x/2)^(2k+nu) / (k! (k+nu)!)
// (all terms positive, no cancellation) for |x| <= 30, the asymptotic series e^x / sqrt(2 pi x) sum_k
// (-1)^k prod_{j<=k} (mu - (2j-1)^2) / (k! (8x)^k), mu = 4 nu^2, above (its terms shrink to below 2^-60 before they
// turn). The series for I1 is odd, for I0 even.
// The asymptotic series of I_nu(x) without its e^x, for x > 30 (bessel_i, and kernels/special/bessel_k.h's scaled
// forms): sum_k (-1)^k prod_{j<=k} (mu - (2j-1)^2) / (k! (8x)^k) / sqrt(2 pi x), mu = 4 nu^2.
YATEN_HOST_DEVICE inline double bessel_i_asymptotic(int nu, double ax) {
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (static_cast<double>(k) * 8.0 * ax);
    sum += term;
    if (std::fabs(term) <= sum * 1e-17) break;
  }
  return sum / std::sqrt(2 * kPi * ax);
}
YATEN_HOST_DEVICE inline double bessel_i(int nu, double x) {
  const double ax = std::fabs(x);
  double value;
  if (std::isnan(x)) return x;
  if (ax <= 30) {
    const double q = 0.25 * x * x;
    double term = nu == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= q / (static_cast<double>(k) * static_cast<double>(k + nu));
      sum += term;
      if (term <= sum * 1e-17) break;
    }
    value = sum;
  } else if (ax > 713.987) {  // e^x / sqrt(2 pi x) overflows double
    value = std::numeric_limits<double>::infinity();
  } else {
    // e^x in two halves so e^713 / sqrt(...) does not overflow before the division
    const double half = std::exp(0.5 * ax);
    value = half * (half * bessel_i_asymptotic(nu, ax));
  }
  return (nu == 1 && x < 0) ? -value : value;
}

// sin(pi x) / (pi x), 1 at 0. Real: sin(pi x) = (-1)^n sin(pi r) with n = round(x) and r = x - n in [-1/2, 1/2]
// (exact), so the integers give exactly 0 and large x keep their precision; +-inf give NaN (sin's), as torch and
// NumPy.
template <typename T>
YATEN_HOST_DEVICE inline T sinc(T x) {
  if constexpr (is_complex_v<T>) {
    using R = decltype(x.re);
    if (x.re == R(0) && x.im == R(0)) return T(R(1), R(0));
    const T px = x * T(R(kPi), R(0));
    return complex_sin(px) / px;
  } else {
    if (x == T(0)) return T(1);
    const T n = std::nearbyint(x), r = x - n;
    const T s = std::sin(T(kPi) * r) / (T(kPi) * x);
    return std::fmod(n, T(2)) != T(0) ? -s : s;
  }
}

// nextafter for the 16-bit float types, on their bit patterns (a float step would skip them).
template <typename T>
YATEN_HOST_DEVICE inline T nextafter_bits(T from, T to) {
  const float a = static_cast<float>(from), b = static_cast<float>(to);
  if (a != a || b != b) return T(std::numeric_limits<float>::quiet_NaN());
  if (a == b) return to;
  if (a == 0) return T::from_bits(static_cast<uint16_t>((b < 0 ? 0x8000 : 0) | 1));  // the smallest subnormal
  const bool away = (a < b) == (a > 0);  // up in magnitude
  return T::from_bits(static_cast<uint16_t>(away ? from.bits + 1 : from.bits - 1));
}
}  // namespace special

// The special functions' functors (here and in kernels/special/): each reads its operands in double and rounds
// its result once to the tensor's dtype; `expr` reads x (and y). Each is long, and CUDA calls it out of line (Note
// [Heavy functors out of line], iter/cuda_loops.cuh).
#define YATEN_SPECIAL_FUNCTION_1(Name, expr)                                  \
  template <typename T>                                                       \
  struct Name {                                                               \
    static constexpr bool out_of_line = true;                                 \
    YATEN_HOST_DEVICE T operator()(T v) const {                               \
      const double x = static_cast<double>(static_cast<om<T>>(v));            \
      return static_cast<T>(static_cast<om<T>>(expr));                        \
    }                                                                         \
  };
#define YATEN_SPECIAL_FUNCTION_2(Name, expr)                                  \
  template <typename T>                                                       \
  struct Name {                                                               \
    static constexpr bool out_of_line = true;                                 \
    YATEN_HOST_DEVICE T operator()(T u, T v) const {                          \
      const double x = static_cast<double>(static_cast<om<T>>(u));            \
      const double y = static_cast<double>(static_cast<om<T>>(v));            \
      return static_cast<T>(static_cast<om<T>>(expr));                        \
    }                                                                         \
  };
YATEN_SPECIAL_FUNCTION_1(DigammaOp, special::digamma(x))
YATEN_SPECIAL_FUNCTION_1(LgammaOp, special::lgamma(x))
YATEN_SPECIAL_FUNCTION_1(I0Op, special::bessel_i(0, x))
YATEN_SPECIAL_FUNCTION_1(I1Op, special::bessel_i(1, x))

template <typename T>
struct PolygammaOp {
  static constexpr bool out_of_line = true;
  int64_t n;
  YATEN_HOST_DEVICE T operator()(T v) const {
    return static_cast<T>(static_cast<om<T>>(special::polygamma(n, static_cast<double>(static_cast<om<T>>(v)))));
  }
};

template <typename T>
struct SincOp {
  static constexpr bool out_of_line = true;
  YATEN_HOST_DEVICE T operator()(T v) const { return static_cast<T>(special::sinc(static_cast<om<T>>(v))); }
};

// sgn: sign for real numbers (NaN gives 0, as sign), z / |z| for complex ones (0 at 0).
template <typename T>
struct SgnOp {
  YATEN_HOST_DEVICE T operator()(T v) const {
    if constexpr (is_complex_v<T>) {
      using R = decltype(v.re);
      const R r = AbsOp<T>{}(v);
      if (r == R(0)) return T(R(0), R(0));
      return T(v.re / r, v.im / r);
    } else {
      return SignOp<T>{}(v);
    }
  }
};

// signbit: the sign bit, so -0.0 and -NaN are negative; false for unsigned types and bool.
template <typename T>
struct SignbitOp {
  YATEN_HOST_DEVICE bool operator()(T v) const {
    if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
      return false;
    } else if constexpr (std::is_integral_v<T>) {
      return v < 0;
    } else if constexpr (std::is_same_v<T, float>) {
      return std::signbit(v);
    } else if constexpr (std::is_same_v<T, double>) {
#ifdef __CUDA_ARCH__
      return std::signbit(v);
#else
      return (__builtin_bit_cast(uint64_t, v) >> 63) != 0;  // GCC's loop over std::signbit(double) stays scalar
#endif
    } else {
      // float16 and bfloat16 from their bits: no conversion (and g++ 12 fails to compile the vectorized
      // convert-then-signbit of bfloat16, an internal compiler error)
      return (v.bits & 0x8000) != 0;
    }
  }
};

template <typename T>
struct CopysignOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    return static_cast<T>(std::copysign(static_cast<om<T>>(a), static_cast<om<T>>(b)));
  }
};

template <typename T>
struct NextafterOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return std::nextafter(a, b);
    } else {
      return special::nextafter_bits(a, b);
    }
  }
};

// x log y, 0 where x is 0 unless y is NaN (torch's and SciPy's choice).
template <typename T>
struct XlogyOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    if (y != y) return static_cast<T>(y);
    if (x == om<T>(0)) return static_cast<T>(om<T>(0));
    return static_cast<T>(x * std::log(y));
  }
};

// log(e^a + e^b) = max + log1p(e^-|a - b|); equal operands give a + ln 2 (the infinities themselves, where
// inf - inf would be NaN).
template <typename T>
struct LogaddexpOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    if (x == y) return static_cast<T>(x + om<T>(0.693147180559945309));
    const om<T> m = x > y ? x : y;  // NaN: the difference below is NaN
    return static_cast<T>(m + std::log1p(std::exp(-std::fabs(x - y))));
  }
};
// Complex numbers: the one with the larger real part factored out, as for real ones; an infinite real part gives
// that number (both -inf: e^a + e^b = 0).
template <typename T>
struct LogaddexpOp<Complex<T>> {
  YATEN_HOST_DEVICE Complex<T> operator()(Complex<T> a, Complex<T> b) const {
    const bool a_first = a.re >= b.re || b.re != b.re;
    const Complex<T> hi = a_first ? a : b, lo = a_first ? b : a;
    if (std::isinf(hi.re)) return hi;
    return hi + math::log1p(math::exp(lo - hi));
  }
};
// log2(2^a + 2^b) = max + log1p(2^-|a - b|) / ln 2; equal operands give a + 1 exactly (as NumPy).
template <typename T>
struct Logaddexp2Op {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    if (x == y) return static_cast<T>(x + om<T>(1));
    const om<T> m = x > y ? x : y;
    return static_cast<T>(m + std::log1p(std::exp2(-std::fabs(x - y))) * om<T>(1.4426950408889634));
  }
};

// heaviside(x, values): 0 below 0, values at 0, 1 above; NaN gives 0, as in torch (NumPy gives NaN).
template <typename T>
struct HeavisideOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a ? true : b;  // x >= 0 always: 0 gives values, 1 gives 1
    } else {
      const om<T> x = static_cast<om<T>>(a);
      if (x == om<T>(0)) return b;
      return static_cast<T>(x > om<T>(0) ? om<T>(1) : om<T>(0));
    }
  }
};

}  // namespace yaten::native
