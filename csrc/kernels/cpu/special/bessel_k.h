// The CPU kernels of kernels/special/bessel_k.h's functions, a header of their own (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "iter/cpu_loops.h"
#include "kernels/special/bessel_k.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void modified_bessel_k0_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselK0Op<scalar_t>{}); }
template <typename scalar_t>
void modified_bessel_k1_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselK1Op<scalar_t>{}); }
template <typename scalar_t>
void scaled_modified_bessel_k0_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselK0eOp<scalar_t>{}); }
template <typename scalar_t>
void scaled_modified_bessel_k1_kernel(const TensorIterator& iter) { cpu_kernel(iter, BesselK1eOp<scalar_t>{}); }
template <typename scalar_t>
void i0e_kernel(const TensorIterator& iter) { cpu_kernel(iter, I0eOp<scalar_t>{}); }
template <typename scalar_t>
void i1e_kernel(const TensorIterator& iter) { cpu_kernel(iter, I1eOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
