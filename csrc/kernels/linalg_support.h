// What the CPU (kernels/cpu/linalg.h) and CUDA (kernels/cuda/linalg.cuh) matrix products share: the argument checks
// and how a matrix is handed to a BLAS without a copy. A BLAS takes a matrix whose rows (or, transposed, columns)
// are contiguous and evenly spaced, so a row-major operand, its transpose (m.t()) and a slice of rows are passed as
// they are laid out, and anything else as a contiguous copy.
#pragma once

#include <algorithm>

#include "core/error.h"
#include "core/tensor.h"
#include "yaten/ops/contiguous.h"

namespace yaten::native::linalg {

// A matrix operand as a BLAS takes it: data, leading dimension, whether it is stored transposed, and (for a batch
// of matrices) the step from one matrix to the next.
struct Operand {
  Tensor keep;  // owns the data (a contiguous copy when the strides were not usable)
  const void* data;
  int64_t ld;
  bool transposed;
  int64_t batch_stride = 0;
};

// `m` is 2-D (rows, cols), or 3-D (batch, rows, cols) with every matrix laid out alike.
inline Operand blas_operand(const Tensor& m) {
  const int64_t d = m.dim();
  const int64_t rows = m.sizes()[d - 2], cols = m.sizes()[d - 1];
  const int64_t s0 = m.strides()[d - 2], s1 = m.strides()[d - 1];
  const int64_t step = d == 3 ? m.strides()[0] : 0;
  if ((s1 == 1 || cols == 1) && s0 >= std::max<int64_t>(1, cols)) return {m, m.data_ptr(), s0, false, step};
  if ((s0 == 1 || rows == 1) && s1 >= std::max<int64_t>(1, rows)) return {m, m.data_ptr(), s1, true, step};
  Tensor c = yaten::contiguous(m);
  return {c, c.data_ptr(), std::max<int64_t>(1, cols), false, rows * cols};
}

// mm (dims 2) and bmm (dims 3): ranks, dtypes, devices, inner sizes and batch sizes agree, with torch's messages.
inline void check_mm(const char* op, const Tensor& a, const Tensor& b, int64_t dims) {
  YATEN_CHECK(a.dim() == dims, RuntimeError, op, ": self must be a ", dims, "-D tensor, but got ", a.dim(), "-D");
  YATEN_CHECK(b.dim() == dims, RuntimeError, op, ": mat2 must be a ", dims, "-D tensor, but got ", b.dim(), "-D");
  YATEN_CHECK(a.dtype() == b.dtype(), RuntimeError, op, ": expected m1 and m2 to have the same dtype, but got: ",
              dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
  YATEN_CHECK(a.device() == b.device(), RuntimeError, op, ": expected all tensors to be on the same device, but "
              "found at least two devices, ", a.device().str(), " and ", b.device().str());
  YATEN_CHECK(a.sizes()[dims - 1] == b.sizes()[dims - 2], RuntimeError, op, ": mat1 and mat2 shapes cannot be "
              "multiplied (", a.sizes()[dims - 2], "x", a.sizes()[dims - 1], " and ", b.sizes()[dims - 2], "x",
              b.sizes()[dims - 1], ")");
  if (dims == 3) {
    YATEN_CHECK(a.sizes()[0] == b.sizes()[0], RuntimeError, "bmm: batch1 and batch2 must have the same batch size, "
                "but got ", a.sizes()[0], " and ", b.sizes()[0]);
  }
}

}  // namespace yaten::native::linalg
