// CUDA kernels of the unary pointwise ops: each launches the element functor that the CPU kernel of the same name
// runs (kernels/unary_math.h), through gpu_kernel.
#pragma once

#include <optional>

#include "iter/cuda_loops.cuh"
#include "kernels/unary_math.h"
#include "kernels/pointwise_support.h"

namespace yaten::native::cuda {

template <typename scalar_t>
void neg_kernel(const TensorIterator& iter) { gpu_kernel(iter, NegOp<scalar_t>{}); }
template <typename scalar_t>
void conj_physical_kernel(const TensorIterator& iter) { gpu_kernel(iter, ConjOp<scalar_t>{}); }
template <typename scalar_t>
void log_kernel(const TensorIterator& iter) { gpu_kernel(iter, LogOp<scalar_t>{}); }
template <typename scalar_t>
void sqrt_kernel(const TensorIterator& iter) { gpu_kernel(iter, SqrtOp<scalar_t>{}); }
template <typename scalar_t>
void sin_kernel(const TensorIterator& iter) { gpu_kernel(iter, SinOp<scalar_t>{}); }
template <typename scalar_t>
void cos_kernel(const TensorIterator& iter) { gpu_kernel(iter, CosOp<scalar_t>{}); }
template <typename scalar_t>
void expm1_kernel(const TensorIterator& iter) { gpu_kernel(iter, Expm1Op<scalar_t>{}); }
template <typename scalar_t>
void log1p_kernel(const TensorIterator& iter) { gpu_kernel(iter, Log1pOp<scalar_t>{}); }
template <typename scalar_t>
void abs_kernel(const TensorIterator& iter) { gpu_kernel(iter, AbsOp<scalar_t>{}); }
template <typename scalar_t>
void reciprocal_kernel(const TensorIterator& iter) { gpu_kernel(iter, ReciprocalOp<scalar_t>{}); }
template <typename scalar_t>
void floor_kernel(const TensorIterator& iter) { gpu_kernel(iter, FloorOp<scalar_t>{}); }
template <typename scalar_t>
void ceil_kernel(const TensorIterator& iter) { gpu_kernel(iter, CeilOp<scalar_t>{}); }
template <typename scalar_t>
void trunc_kernel(const TensorIterator& iter) { gpu_kernel(iter, TruncOp<scalar_t>{}); }
template <typename scalar_t>
void round_kernel(const TensorIterator& iter) { gpu_kernel(iter, RoundOp<scalar_t>{}); }
template <typename scalar_t>
void relu_kernel(const TensorIterator& iter) { gpu_kernel(iter, ReluOp<scalar_t>{}); }
template <typename scalar_t>
void exp2_kernel(const TensorIterator& iter) { gpu_kernel(iter, Exp2Op<scalar_t>{}); }
template <typename scalar_t>
void log2_kernel(const TensorIterator& iter) { gpu_kernel(iter, Log2Op<scalar_t>{}); }
template <typename scalar_t>
void log10_kernel(const TensorIterator& iter) { gpu_kernel(iter, Log10Op<scalar_t>{}); }
template <typename scalar_t>
void rsqrt_kernel(const TensorIterator& iter) { gpu_kernel(iter, RsqrtOp<scalar_t>{}); }
template <typename scalar_t>
void tan_kernel(const TensorIterator& iter) { gpu_kernel(iter, TanOp<scalar_t>{}); }
template <typename scalar_t>
void asin_kernel(const TensorIterator& iter) { gpu_kernel(iter, AsinOp<scalar_t>{}); }
template <typename scalar_t>
void acos_kernel(const TensorIterator& iter) { gpu_kernel(iter, AcosOp<scalar_t>{}); }
template <typename scalar_t>
void atan_kernel(const TensorIterator& iter) { gpu_kernel(iter, AtanOp<scalar_t>{}); }
template <typename scalar_t>
void sinh_kernel(const TensorIterator& iter) { gpu_kernel(iter, SinhOp<scalar_t>{}); }
template <typename scalar_t>
void cosh_kernel(const TensorIterator& iter) { gpu_kernel(iter, CoshOp<scalar_t>{}); }
template <typename scalar_t>
void asinh_kernel(const TensorIterator& iter) { gpu_kernel(iter, AsinhOp<scalar_t>{}); }
template <typename scalar_t>
void acosh_kernel(const TensorIterator& iter) { gpu_kernel(iter, AcoshOp<scalar_t>{}); }
template <typename scalar_t>
void atanh_kernel(const TensorIterator& iter) { gpu_kernel(iter, AtanhOp<scalar_t>{}); }
template <typename scalar_t>
void erf_kernel(const TensorIterator& iter) { gpu_kernel(iter, ErfOp<scalar_t>{}); }
template <typename scalar_t>
void erfc_kernel(const TensorIterator& iter) { gpu_kernel(iter, ErfcOp<scalar_t>{}); }
template <typename scalar_t>
void erfinv_kernel(const TensorIterator& iter) { gpu_kernel(iter, ErfinvOp<scalar_t>{}); }
template <typename scalar_t>
void frac_kernel(const TensorIterator& iter) { gpu_kernel(iter, FracOp<scalar_t>{}); }
template <typename scalar_t>
void sign_kernel(const TensorIterator& iter) { gpu_kernel(iter, SignOp<scalar_t>{}); }
template <typename scalar_t>
void exp_kernel(const TensorIterator& iter) { gpu_kernel(iter, ExpOp<scalar_t>{}); }
template <typename scalar_t>
void tanh_kernel(const TensorIterator& iter) { gpu_kernel(iter, TanhOp<scalar_t>{}); }
template <typename scalar_t>
void sigmoid_kernel(const TensorIterator& iter) { gpu_kernel(iter, SigmoidOp<scalar_t>{}); }
template <typename scalar_t>
void logit_kernel(const TensorIterator& iter, std::optional<double> eps) { gpu_kernel(iter, logit_op<scalar_t>(eps)); }
template <typename scalar_t>
void round_decimals_kernel(const TensorIterator& iter, int64_t decimals) {
  gpu_kernel(iter, round_decimals_op<scalar_t>(decimals));
}

}  // namespace yaten::native::cuda
