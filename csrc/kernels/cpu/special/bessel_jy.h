// The CPU kernels of kernels/special/bessel_jy.h's functions, a header of their own (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "iter/cpu_loops.h"
#include "kernels/special/bessel_jy.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void bessel_j0_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselJ0Op<scalar_t>{}); }
template <typename scalar_t>
void bessel_j1_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselJ1Op<scalar_t>{}); }
template <typename scalar_t>
void bessel_y0_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselY0Op<scalar_t>{}); }
template <typename scalar_t>
void bessel_y1_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselY1Op<scalar_t>{}); }
template <typename scalar_t>
void spherical_bessel_j0_kernel(const TensorIterator& iter) { cpu_kernel(iter, SphericalBesselJ0Op<scalar_t>{}); }

}  // namespace yaten::native::cpu
