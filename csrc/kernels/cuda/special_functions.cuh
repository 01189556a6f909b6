// CUDA kernels of torch.special's Bessel, Airy, error-function, incomplete-gamma and polynomial functions: each
// launches the element functor from kernels/special_functions.h that the CPU kernel of the same name
// (kernels/cpu/special/) runs.
#pragma once

#include "iter/cuda_loops.cuh"
#include "kernels/special_functions.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void airy_ai_kernel(const TensorIterator& iter) { gpu_kernel(iter, AiryAiOp<scalar_t>{}); }
template <typename scalar_t>
void bessel_j0_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselJ0Op<scalar_t>{}); }
template <typename scalar_t>
void bessel_j1_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselJ1Op<scalar_t>{}); }
template <typename scalar_t>
void bessel_y0_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselY0Op<scalar_t>{}); }
template <typename scalar_t>
void bessel_y1_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselY1Op<scalar_t>{}); }
template <typename scalar_t>
void modified_bessel_k0_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselK0Op<scalar_t>{}); }
template <typename scalar_t>
void modified_bessel_k1_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselK1Op<scalar_t>{}); }
template <typename scalar_t>
void scaled_modified_bessel_k0_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselK0eOp<scalar_t>{}); }
template <typename scalar_t>
void scaled_modified_bessel_k1_kernel(const TensorIterator& iter) { gpu_kernel(iter, BesselK1eOp<scalar_t>{}); }
template <typename scalar_t>
void i0e_kernel(const TensorIterator& iter) { gpu_kernel(iter, I0eOp<scalar_t>{}); }
template <typename scalar_t>
void i1e_kernel(const TensorIterator& iter) { gpu_kernel(iter, I1eOp<scalar_t>{}); }
template <typename scalar_t>
void spherical_bessel_j0_kernel(const TensorIterator& iter) { gpu_kernel(iter, SphericalBesselJ0Op<scalar_t>{}); }
template <typename scalar_t>
void erfcx_kernel(const TensorIterator& iter) { gpu_kernel(iter, ErfcxOp<scalar_t>{}); }
template <typename scalar_t>
void log_ndtr_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogNdtrOp<scalar_t>{}); }
template <typename scalar_t>
void ndtri_kernel(const TensorIterator& iter) { gpu_kernel(iter, NdtriOp<scalar_t>{}); }
template <typename scalar_t>
void entr_kernel(const TensorIterator& iter) { gpu_kernel(iter, EntrOp<scalar_t>{}); }
template <typename scalar_t>
void igamma_kernel(const TensorIterator& iter) { gpu_kernel(iter, IgammaOp<scalar_t>{}); }
template <typename scalar_t>
void igammac_kernel(const TensorIterator& iter) { gpu_kernel(iter, IgammacOp<scalar_t>{}); }
template <typename scalar_t>
void zeta_kernel(const TensorIterator& iter) { gpu_kernel(iter, ZetaOp<scalar_t>{}); }
template <typename scalar_t>
void xlog1py_kernel(const TensorIterator& iter) { gpu_kernel(iter, Xlog1pyOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_t_kernel(const TensorIterator& iter) { gpu_kernel(iter, ChebyshevTOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_u_kernel(const TensorIterator& iter) { gpu_kernel(iter, ChebyshevUOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_v_kernel(const TensorIterator& iter) { gpu_kernel(iter, ChebyshevVOp<scalar_t>{}); }
template <typename scalar_t>
void chebyshev_polynomial_w_kernel(const TensorIterator& iter) { gpu_kernel(iter, ChebyshevWOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_t_kernel(const TensorIterator& iter) { gpu_kernel(iter, ShiftedChebyshevTOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_u_kernel(const TensorIterator& iter) { gpu_kernel(iter, ShiftedChebyshevUOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_v_kernel(const TensorIterator& iter) { gpu_kernel(iter, ShiftedChebyshevVOp<scalar_t>{}); }
template <typename scalar_t>
void shifted_chebyshev_polynomial_w_kernel(const TensorIterator& iter) { gpu_kernel(iter, ShiftedChebyshevWOp<scalar_t>{}); }
template <typename scalar_t>
void hermite_polynomial_h_kernel(const TensorIterator& iter) { gpu_kernel(iter, HermiteHOp<scalar_t>{}); }
template <typename scalar_t>
void hermite_polynomial_he_kernel(const TensorIterator& iter) { gpu_kernel(iter, HermiteHeOp<scalar_t>{}); }
template <typename scalar_t>
void laguerre_polynomial_l_kernel(const TensorIterator& iter) { gpu_kernel(iter, LaguerreLOp<scalar_t>{}); }
template <typename scalar_t>
void legendre_polynomial_p_kernel(const TensorIterator& iter) { gpu_kernel(iter, LegendrePOp<scalar_t>{}); }

}  // namespace yaten::native::cuda
