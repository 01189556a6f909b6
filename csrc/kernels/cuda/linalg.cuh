// CUDA matrix products: mm and bmm on cuBLAS (cuda/cublas.cpp, opened at run time), one strided-batched GEMM per
// call. cuBLAS counts column-major, and a row-major matrix is its transpose in column-major, so the row-major
// product out = self @ mat2 is computed as out^T = mat2^T @ self^T: mat2 goes first, with each operand passed as it
// is laid out (kernels/linalg_support.h: row-major, transposed, or a contiguous copy). float16 and bfloat16
// accumulate in float; float32 uses TF32 tensor cores only when yaten.set_float32_matmul_precision allows, as torch.
// Integer matmul is not on CUDA (cuBLAS has none; torch's CUDA matmul raises for it too).
#pragma once

#include <algorithm>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "kernels/linalg_support.h"
#include "yaten/ops/addmm.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/zeros.h"

namespace yaten::native::cuda {

namespace linalg_detail {
// out (batch x n x m, or n x m when the batch is 1, contiguous) = a (batch x n x k) @ b (batch x k x m), all on one
// CUDA device.
inline Tensor batched_product(const char* op, const Tensor& a, const Tensor& b, std::vector<int64_t> out_shape) {
  const int64_t batch = a.sizes()[0], n = a.sizes()[1], k = a.sizes()[2], m = b.sizes()[2];
  if (batch == 0 || n == 0 || m == 0 || k == 0) return yaten::zeros(out_shape, a.dtype(), a.device());
  Tensor out = yaten::empty(out_shape, a.dtype(), a.device());
  const linalg::Operand x = linalg::blas_operand(a), y = linalg::blas_operand(b);
  const yaten::cuda::GemmOperand first{y.data, y.ld, batch == 1 ? 0 : y.batch_stride, y.transposed};
  const yaten::cuda::GemmOperand second{x.data, x.ld, batch == 1 ? 0 : x.batch_stride, x.transposed};
  yaten::cuda::gemm(op, a.dtype(), m, n, k, first, second, out.data_ptr(), std::max<int64_t>(1, m), n * m, batch,
                    a.device().index);
  return out;
}
}  // namespace linalg_detail

template <typename scalar_t>
Tensor mm_kernel(const Tensor& self, const Tensor& mat2) {
  linalg::check_mm("mm", self, mat2, 2);
  return linalg_detail::batched_product("mm", yaten::unsqueeze(self, 0), yaten::unsqueeze(mat2, 0),
                                       {self.sizes()[0], mat2.sizes()[1]});
}

template <typename scalar_t>
Tensor bmm_kernel(const Tensor& self, const Tensor& mat2) {
  linalg::check_mm("bmm", self, mat2, 3);
  return linalg_detail::batched_product("bmm", self, mat2, {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]});
}

// _addmm_bias on CUDA: addmm (the cuBLAS product and the broadcast addition), the CPU's one pass being a CPU matter.
template <typename scalar_t>
Tensor _addmm_bias_kernel(const Tensor& bias, const Tensor& mat1, const Tensor& mat2) {
  return yaten::addmm(bias, mat1, mat2, Scalar(int64_t(1)), Scalar(int64_t(1)));
}

}  // namespace yaten::native::cuda
