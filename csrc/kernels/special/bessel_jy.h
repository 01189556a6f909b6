// The Bessel functions J and Y of integer order and the spherical j0 (kernels/special/common.h says how).
#pragma once

#include "kernels/special/common.h"

namespace yaten::native {
namespace special {

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

YATEN_HOST_DEVICE inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::fabs(x) < 0.5e-3) {
    const double x2 = x * x;
    return 1 - x2 / 6 * (1 - x2 / 20);
  }
  return std::sin(x) / x;
}

}  // namespace special

// The functors (the macros are special_math.h's).
YATEN_SPECIAL_FUNCTION_1(BesselJ0Op, special::bessel_j0(x))
YATEN_SPECIAL_FUNCTION_1(BesselJ1Op, special::bessel_j1(x))
YATEN_SPECIAL_FUNCTION_1(BesselY0Op, special::bessel_y(0, x))
YATEN_SPECIAL_FUNCTION_1(BesselY1Op, special::bessel_y(1, x))
YATEN_SPECIAL_FUNCTION_1(SphericalBesselJ0Op, special::spherical_bessel_j0(x))

}  // namespace yaten::native
