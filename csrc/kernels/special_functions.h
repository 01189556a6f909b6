// The element math of torch.special's remaining functions: Bessel functions of integer order (J0, J1, Y0, Y1, K0,
// K1, their exponentially scaled forms and the scaled I0, I1), the Airy function Ai, the spherical Bessel j0, the
// scaled complementary error function erfcx, the normal distribution's log_ndtr and inverse ndtri, the regularized
// incomplete gamma functions, entr and xlog1py, and the classical orthogonal polynomials of a tensor degree.
// Written once for both backends (Design rule [Shared element math]), in a header of their own so that an edit here
// recompiles only these ops (their CPU kernels in kernels/cpu/special_functions.h, CUDA in
// kernels/cuda/special_functions.cuh).
//
// Every function computes in double for every floating dtype (float32 and the 16-bit types round once at the end).
// The methods are the textbook ones, chosen so that no argument costs more than a bounded amount of work:
//   - power series where their terms do not cancel (small arguments),
//   - Steed's continued fractions for the Bessel functions of moderate argument (Barnett et al., Comput. Phys.
//     Commun. 1974; Temme, J. Comput. Phys. 1975, for K): J, Y, K of any order |nu| <= 1/2, so Ai comes from
//     K_{1/3} and J_{1/3}, Y_{1/3} as well as the integer orders from K_0 and J_0, Y_0,
//   - Hankel's asymptotic expansions for large arguments, summed until their terms stop shrinking,
//   - Legendre's continued fraction and the series for the incomplete gamma function, with Temme's uniform
//     expansion for very large a (where both need ~sqrt(a) terms).
// At the edges they follow torch 2.13's CPU results (NaN for J, Y and Ai at +-inf, where the limits are 0; the
// polynomials' conventions for negative degrees and x = +-1): docs/torch-differences.md lists the few places where
// yaten's value differs and why.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/special_math.h"

// The functions the functors call are kept out of line: each is a few hundred instructions of loops, and inlined
// into every loop variant of every dtype's kernel they made the nvcc unit take 55 s.
#if defined(__CUDACC__)
#define YATEN_OUT_OF_LINE __noinline__
#else
#define YATEN_OUT_OF_LINE __attribute__((noinline))
#endif

namespace yaten::native {
namespace special {

constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kSqrtPi = 1.77245385090551602730;
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 1e-16;

// ---------------------------------------------------------------------------------------------------- Bessel J, Y

// Hankel's expansion: for x large, J_nu(x) = sqrt(2 / (pi x)) (P cos chi - Q sin chi) and
// Y_nu(x) = sqrt(2 / (pi x)) (P sin chi + Q cos chi), chi = x - (nu / 2 + 1/4) pi, with P and Q the even and odd
// parts of sum_k (-1)^[k/2] a_k(nu) / x^k, a_k = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k). The terms shrink
// until k ~ 2x; from x = 25 they reach 1e-17 of the sum long before that.
struct HankelPQ {
  double p, q;
};
YATEN_HOST_DEVICE inline HankelPQ hankel_pq(double nu, double x) {
  const double mu = 4 * nu * nu;
  double p = 1, q = 0, term = 1, previous = kInf;
  for (int k = 1; k < 200; ++k) {
    const double odd = 2.0 * k - 1;
    term *= (mu - odd * odd) / (8.0 * k * x);
    const double size = std::fabs(term);
    if (size > previous) break;  // the series turned: what is left is below its smallest term
    previous = size;
    // k = 1, 2, 3, 4, ...: +q, -p, -q, +p, ... (the sign of (-1)^[k/2] with P taking the even k)
    const int phase = k % 4;
    if (phase == 1) q += term;
    else if (phase == 2) p -= term;
    else if (phase == 3) q -= term;
    else p += term;
    if (size <= kEps * 0.1 * (std::fabs(p) + std::fabs(q))) break;
  }
  return {p, q};
}

// cos(x - phi) and sin(x - phi) from cos x and sin x (whose arguments the library reduces exactly) and phi's own
// cosine and sine, so large x keep their precision.
struct CosSin {
  double c, s;
};
YATEN_HOST_DEVICE inline CosSin shifted_cos_sin(double x, double cos_phi, double sin_phi) {
  const double c = std::cos(x), s = std::sin(x);
  return {c * cos_phi + s * sin_phi, s * cos_phi - c * sin_phi};
}

struct BesselJY {
  double j, y, jp, yp;  // J_nu, Y_nu and their derivatives
};

// Steed's method for x >= 2 and |nu| <= 1/2: the continued fraction CF1 gives f = J'_nu / J_nu (about x terms), the
// complex continued fraction CF2 gives p + iq = (J' + iY') / (J + iY) (few terms for x >= 2), and the Wronskian
// J Y' - J' Y = 2 / (pi x) fixes the scale. Both fractions run by the modified Lentz method.
YATEN_HOST_DEVICE inline BesselJY bessel_jy_steed(double nu, double x) {
  constexpr double tiny = 1e-300;
  const double xi = 1 / x, xi2 = 2 * xi;
  // CF1: J'_nu / J_nu = nu / x - 1 / (2 (nu + 1) / x - 1 / (2 (nu + 2) / x - ...)); the sign of J_nu follows the
  // number of negative denominators
  double h = nu * xi;
  if (std::fabs(h) < tiny) h = tiny;
  double b = xi2 * nu, d = 0, c = h;
  int sign = 1;
  for (int i = 1; i < 100000; ++i) {
    b += xi2;
    d = b - d;
    if (std::fabs(d) < tiny) d = tiny;
    c = b - 1 / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = c * d;
    h *= delta;
    if (d < 0) sign = -sign;
    if (std::fabs(delta - 1) < kEps) break;
  }
  const double f = h;
  // CF2, p + iq
  double a = 0.25 - nu * nu, p = -0.5 * xi, q = 1;
  const double br = 2 * x;
  double bi = 2;
  double fact = a * xi / (p * p + q * q);
  double cr = br + q * fact, ci = bi + p * fact;
  double den = br * br + bi * bi;
  double dr = br / den, di = -bi / den;
  double dlr = cr * dr - ci * di, dli = cr * di + ci * dr;
  double t = p * dlr - q * dli;
  q = p * dli + q * dlr;
  p = t;
  for (int i = 2; i < 100000; ++i) {
    a += 2 * (i - 1);
    bi += 2;
    dr = a * dr + br;
    di = a * di + bi;
    if (std::fabs(dr) + std::fabs(di) < tiny) dr = tiny;
    fact = a / (cr * cr + ci * ci);
    cr = br + cr * fact;
    ci = bi - ci * fact;
    if (std::fabs(cr) + std::fabs(ci) < tiny) cr = tiny;
    den = dr * dr + di * di;
    dr /= den;
    di /= -den;
    dlr = cr * dr - ci * di;
    dli = cr * di + ci * dr;
    t = p * dlr - q * dli;
    q = p * dli + q * dlr;
    p = t;
    if (std::fabs(dlr - 1) + std::fabs(dli) < kEps) break;
  }
  const double gamma = (p - f) / q;
  double j = std::sqrt(xi2 / kPi / ((p - f) * gamma + q));
  if (sign < 0) j = -j;
  const double y = j * gamma;
  return {j, y, f * j, y * (p + q / gamma)};
}

// J0 and J1 (which = 0, 1) and Y0 and Y1 (which = 2, 3) at x > 0: the power series below 2, Steed's method to 25,
// Hankel's expansion above.
YATEN_HOST_DEVICE inline double bessel_jy_integer(int which, double x) {
  const bool is_j = which < 2;
  const int order = which % 2;
  if (x < 2) {
    // J_n = sum_k (-1)^k (x/2)^(2k+n) / (k! (k+n)!); Y0 = (2/pi)(ln(x/2) + gamma) J0 + (2/pi) sum_k (-1)^(k+1)
    // H_k (x^2/4)^k / (k!)^2; Y1 = (2/pi)(ln(x/2) J1 - 1/x) - (x / 2pi) sum_k (-1)^k (psi(k+1) + psi(k+2))
    // (x^2/4)^k / (k! (k+1)!)
    const double q = -0.25 * x * x;
    double term = order == 0 ? 1.0 : 0.5 * x, jsum = term, ysum = 0, harmonic = 0;
    if (order == 0) {
      for (int k = 1; k < 60; ++k) {
        term *= q / (static_cast<double>(k) * k);
        harmonic += 1.0 / k;
        jsum += term;
        ysum -= harmonic * term;
        if (std::fabs(term) < kEps * 1e-2 * std::fabs(jsum)) break;
      }
      if (is_j) return jsum;
      return (2 / kPi) * ((std::log(0.5 * x) + kEulerGamma) * jsum + ysum);
    }
    // order 1: psi(k+1) + psi(k+2) = 2 H_k + 1/(k+1) - 2 gamma; the series term (x^2/4)^k / (k! (k+1)!) is
    // term / (x/2) with term the J1 series' term
    double s = 1.0 - 2 * kEulerGamma;  // k = 0
    double plain = 1.0;                // (-x^2/4)^k / (k! (k+1)!)
    for (int k = 1; k < 60; ++k) {
      term *= q / (static_cast<double>(k) * (k + 1));
      plain *= q / (static_cast<double>(k) * (k + 1));
      harmonic += 1.0 / k;
      jsum += term;
      s += (2 * harmonic + 1.0 / (k + 1) - 2 * kEulerGamma) * plain;
      if (std::fabs(term) < kEps * 1e-2 * std::fabs(jsum)) break;
    }
    if (is_j) return jsum;
    return (2 / kPi) * (std::log(0.5 * x) * jsum - 1 / x) - (x / (2 * kPi)) * s;
  }
  if (x < 25) {
    const BesselJY r = bessel_jy_steed(0.0, x);
    if (order == 0) return is_j ? r.j : r.y;
    return is_j ? -r.jp : -r.yp;  // J1 = -J0', Y1 = -Y0'
  }
  const HankelPQ pq = hankel_pq(order, x);
  // chi = x - pi/4 (order 0) or x - 3pi/4 (order 1)
  constexpr double r = 0.70710678118654752440;
  const CosSin cs = order == 0 ? shifted_cos_sin(x, r, r) : shifted_cos_sin(x, -r, r);
  const double scale = std::sqrt(2 / (kPi * x));
  return is_j ? scale * (pq.p * cs.c - pq.q * cs.s) : scale * (pq.p * cs.s + pq.q * cs.c);
}

YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double bessel_j0(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;  // torch's value at +-inf
  return bessel_jy_integer(0, std::fabs(x));
}
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double bessel_j1(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  if (x == 0) return x;
  const double v = bessel_jy_integer(1, std::fabs(x));
  return x < 0 ? -v : v;
}
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double bessel_y(int order, double x) {
  if (std::isnan(x) || x < 0 || x == kInf) return kNaN;
  if (x == 0) return -kInf;
  return bessel_jy_integer(2 + order, x);
}

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

// ------------------------------------------------------------------------------------------------------- Airy Ai

// Ai(x): the Maclaurin series c1 f(x) - c2 g(x) on [-2.5, 2.5] (terms up to e^zeta, a loss of at most 2^9 at the
// edges); above, Ai(x) = sqrt(x/3) K_{1/3}(zeta) / pi; below, Ai(-x) = sqrt(x)/2 (J_{1/3}(zeta) - Y_{1/3}(zeta)/sqrt3)
// with zeta = 2/3 |x|^(3/2), by Steed's method, or for zeta >= 25 by Hankel's expansion, where it is
// x^(-1/4) / sqrt(pi) (P cos(zeta - pi/4) - Q sin(zeta - pi/4)).
YATEN_HOST_DEVICE YATEN_OUT_OF_LINE inline double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;  // torch's value at +-inf, where the limits are 0
  constexpr double c1 = 0.35502805388781723926, c2 = 0.25881940379280679840;
  if (std::fabs(x) <= 2.5) {
    const double x3 = x * x * x;
    double f = 1, g = x, tf = 1, tg = x;
    for (int k = 1; k < 60; ++k) {
      tf *= x3 / ((3.0 * k - 1) * (3.0 * k));
      tg *= x3 / ((3.0 * k) * (3.0 * k + 1));
      f += tf;
      g += tg;
      if (std::fabs(tf) + std::fabs(tg) < kEps * 1e-2 * (std::fabs(f) + std::fabs(g))) break;
    }
    return c1 * f - c2 * g;
  }
  // zeta = 2/3 |x|^(3/2) as a double-double zeta + delta (sqrt's residual and each product's error by fused
  // multiply-adds): its rounding error, |zeta| eps (2e-13 at x = -200), would otherwise move e^-zeta and the phase
  // zeta - pi/4 by as much
  const double ax = std::fabs(x), root = std::sqrt(ax);
  const double root_lo = std::fma(-root, root, ax) / (2 * root);
  const double prod = ax * root, prod_lo = std::fma(ax, root, -prod) + ax * root_lo;
  constexpr double two_thirds_lo = 3.7007434154171883e-17;  // 2/3 - double(2/3)
  const double zeta = (2.0 / 3.0) * prod;
  const double delta = std::fma(2.0 / 3.0, prod, -zeta) + (2.0 / 3.0) * prod_lo + two_thirds_lo * prod;
  if (x > 0) {
    if (zeta > 745) return 0;  // e^-zeta underflows
    const BesselK r = bessel_k_scaled_cf(1.0 / 3.0, zeta);
    return std::sqrt(ax / 3) * r.k / kPi * (std::exp(-zeta) * (1 - delta));
  }
  if (zeta < 25) {
    const BesselJY r = bessel_jy_steed(1.0 / 3.0, zeta);
    return 0.5 * root * (r.j - r.y / 1.73205080756887729353);
  }
  // the rotation by delta applied to cos and sin of the rounded zeta
  const HankelPQ pq = hankel_pq(1.0 / 3.0, zeta);
  constexpr double r = 0.70710678118654752440;
  CosSin cs = shifted_cos_sin(zeta, r, r);
  cs = {cs.c - delta * cs.s, cs.s + delta * cs.c};
  return (pq.p * cs.c - pq.q * cs.s) / (std::sqrt(root) * kSqrtPi);
}

// sin(x) / x, 1 - x^2/6 + x^4/120 near 0; 0 at +-inf (torch's).
YATEN_HOST_DEVICE inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::fabs(x) < 0.5e-3) {
    const double x2 = x * x;
    return 1 - x2 / 6 * (1 - x2 / 20);
  }
  return std::sin(x) / x;
}

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
YATEN_SPECIAL_FUNCTION_1(AiryAiOp, special::airy_ai(x))
YATEN_SPECIAL_FUNCTION_1(BesselJ0Op, special::bessel_j0(x))
YATEN_SPECIAL_FUNCTION_1(BesselJ1Op, special::bessel_j1(x))
YATEN_SPECIAL_FUNCTION_1(BesselY0Op, special::bessel_y(0, x))
YATEN_SPECIAL_FUNCTION_1(BesselY1Op, special::bessel_y(1, x))
YATEN_SPECIAL_FUNCTION_1(BesselK0Op, special::bessel_k(0, x, false))
YATEN_SPECIAL_FUNCTION_1(BesselK1Op, special::bessel_k(1, x, false))
YATEN_SPECIAL_FUNCTION_1(BesselK0eOp, special::bessel_k(0, x, true))
YATEN_SPECIAL_FUNCTION_1(BesselK1eOp, special::bessel_k(1, x, true))
YATEN_SPECIAL_FUNCTION_1(I0eOp, special::bessel_i_scaled(0, x))
YATEN_SPECIAL_FUNCTION_1(I1eOp, special::bessel_i_scaled(1, x))
YATEN_SPECIAL_FUNCTION_1(SphericalBesselJ0Op, special::spherical_bessel_j0(x))
YATEN_SPECIAL_FUNCTION_1(ErfcxOp, special::erfcx(x))
YATEN_SPECIAL_FUNCTION_1(LogNdtrOp, special::log_ndtr(x))
YATEN_SPECIAL_FUNCTION_1(NdtriOp, special::ndtri(x))
YATEN_SPECIAL_FUNCTION_1(EntrOp, special::entr(x))
// float32 and the 16-bit types stop the sums at 1e-12 (special::incomplete_gamma), float64 at its own precision
YATEN_SPECIAL_FUNCTION_2(IgammaOp, special::gammainc(x, y, false, sizeof(om<T>) >= 8 ? special::kEps : 1e-12))
YATEN_SPECIAL_FUNCTION_2(IgammacOp, special::gammainc(x, y, true, sizeof(om<T>) >= 8 ? special::kEps : 1e-12))
YATEN_SPECIAL_FUNCTION_2(ZetaOp, special::zeta(x, y))
YATEN_SPECIAL_FUNCTION_2(Xlog1pyOp, (std::isnan(y) ? y : (x == 0 ? 0.0 : x * std::log1p(y))))
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
#undef YATEN_OUT_OF_LINE

}  // namespace yaten::native
