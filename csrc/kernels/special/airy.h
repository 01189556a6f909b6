// The Airy function Ai, from K_{1/3} and J_{1/3}, Y_{1/3}.
#pragma once

#include "kernels/special/bessel_jy.h"
#include "kernels/special/bessel_k.h"

namespace yaten::native {
namespace special {

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

}  // namespace special

// The functors (the macros are special_math.h's).
YATEN_SPECIAL_FUNCTION_1(AiryAiOp, special::airy_ai(x))

}  // namespace yaten::native
