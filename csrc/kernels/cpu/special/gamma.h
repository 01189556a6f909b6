// The CPU kernels of kernels/special/gamma.h's functions, a header of their own (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "iter/cpu_loops.h"
#include "iter/vec_gamma.h"
#include "kernels/special/gamma.h"

namespace yaten::native::cpu {

// igamma and igammac: float32, float16 and bfloat16 in SIMD lanes (Note [Vectorized incomplete gamma]); float64 by
// the functor, element by element (binary_vec_kernel's scalar form)
template <bool kUpper, typename scalar_t>
void incomplete_gamma_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, std::conditional_t<kUpper, IgammacOp<scalar_t>, IgammaOp<scalar_t>>{},
                              [](vec::wfloat a, vec::wfloat x) {
                                return vec::incomplete_gamma<kUpper>(
                                    a, x, [](double av, double xv) { return special::gammainc(av, xv, kUpper, 1e-12); });
                              });
}
template <typename scalar_t>
void igamma_kernel(const TensorIterator& iter) { incomplete_gamma_kernel<false, scalar_t>(iter); }
template <typename scalar_t>
void igammac_kernel(const TensorIterator& iter) { incomplete_gamma_kernel<true, scalar_t>(iter); }
template <typename scalar_t>
void zeta_kernel(const TensorIterator& iter) { cpu_kernel(iter, ZetaOp<scalar_t>{}); }
template <typename scalar_t>
void xlog1py_kernel(const TensorIterator& iter) { cpu_kernel(iter, Xlog1pyOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
