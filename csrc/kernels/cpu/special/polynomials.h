// The CPU kernels of kernels/special/polynomials.h's functions, a header of their own (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "iter/cpu_loops.h"
#include "kernels/special/polynomials.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void chebyshev_polynomial_t_kernel(const TensorIterator& iter) { cpu_kernel(iter, ChebyshevTOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_u_kernel(const TensorIterator& iter) { cpu_kernel(iter, ChebyshevUOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_v_kernel(const TensorIterator& iter) { cpu_kernel(iter, ChebyshevVOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_w_kernel(const TensorIterator& iter) { cpu_kernel(iter, ChebyshevWOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_t_kernel(const TensorIterator& iter) { cpu_kernel(iter, ShiftedChebyshevTOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_u_kernel(const TensorIterator& iter) { cpu_kernel(iter, ShiftedChebyshevUOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_v_kernel(const TensorIterator& iter) { cpu_kernel(iter, ShiftedChebyshevVOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_w_kernel(const TensorIterator& iter) { cpu_kernel(iter, ShiftedChebyshevWOp<scalar_t>{}); }
template <typename scalar_t>
void hermite_polynomial_h_kernel(const TensorIterator& iter) { cpu_kernel(iter, HermiteHOp<scalar_t>{}); }
template <typename scalar_t>
void hermite_polynomial_he_kernel(const TensorIterator& iter) { cpu_kernel(iter, HermiteHeOp<scalar_t>{}); }
template <typename scalar_t>
void laguerre_polynomial_l_kernel(const TensorIterator& iter) { cpu_kernel(iter, LaguerreLOp<scalar_t>{}); }
template <typename scalar_t>
void legendre_polynomial_p_kernel(const TensorIterator& iter) { cpu_kernel(iter, LegendrePOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
