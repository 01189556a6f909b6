// The element math of torch.special's remaining functions: Bessel functions of integer order (J0, J1, Y0, Y1, K0,
// K1, their exponentially scaled forms and the scaled I0, I1), the Airy function Ai, the spherical Bessel j0, the
// scaled complementary error function erfcx, the normal distribution's log_ndtr and inverse ndtri, the regularized
// incomplete gamma functions, entr and xlog1py, and the classical orthogonal polynomials of a tensor degree.
// Written once for both backends (Design rule [Shared element math]). Each group of functions that share their
// method has a header beside this one (bessel_jy.h, bessel_k.h, airy.h, normal.h, gamma.h, polynomials.h, with the
// functors of its ops), and so do their CPU kernels (kernels/cpu/special/), so that an edit to one recompiles that
// group's units alone (Note [A header per op], kernels/binary_math.h); kernels/special_functions.h includes them all
// for the CUDA kernels (kernels/cuda/special_functions.cuh), one nvcc unit.
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

}  // namespace special
}  // namespace yaten::native
