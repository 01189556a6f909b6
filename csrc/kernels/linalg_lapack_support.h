// What the LAPACK kernels (kernels/cpu/lapack.h) and their composites (kernels/composite/linalg_lapack.h) share:
// torch's argument checks and messages, batch shapes, column-major buffers (Note [LAPACK's layout]) and the errors
// raised from LAPACK's `info`.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/all.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty_strided.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/isfinite.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::linalg_support {

// `A` is a batch of matrices (at least 2-D), named `name` in torch's message.
inline void check_matrix(const char* op, const Tensor& a, const char* name) {
  YATEN_CHECK(a.dim() >= 2, RuntimeError, op, ": The input tensor ", name, " must have at least 2 dimensions.");
}

inline void check_square(const char* op, const Tensor& a, const char* name) {
  check_matrix(op, a, name);
  const int64_t d = a.dim();
  YATEN_CHECK(a.sizes()[d - 1] == a.sizes()[d - 2], RuntimeError, op, ": ", name,
              " must be batches of square matrices, but they are ", a.sizes()[d - 2], " by ", a.sizes()[d - 1],
              " matrices");
}

// torch's check of the ops that compute in floating point: float32, float64, complex64 or complex128 (torch's CPU
// linear algebra takes no float16 or bfloat16 either).
inline void check_floating(const char* op, const Tensor& a) {
  const ScalarType t = a.dtype();
  YATEN_CHECK(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::ComplexFloat ||
              t == ScalarType::ComplexDouble, RuntimeError, op, ": Expected a floating point or complex tensor as "
              "input. Got ", dtype_name(t));
}

inline int64_t batch_count(const std::vector<int64_t>& batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

// The broadcast of a's and b's batch dims (all but their last two).
inline std::vector<int64_t> broadcast_batch(const char* op, const Tensor& a, const Tensor& b) {
  const std::vector<int64_t> x(a.sizes().begin(), a.sizes().end() - 2), y(b.sizes().begin(), b.sizes().end() - 2);
  const size_t n = std::max(x.size(), y.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t xs = i + x.size() >= n ? x[i + x.size() - n] : 1, ys = i + y.size() >= n ? y[i + y.size() - n] : 1;
    YATEN_CHECK(xs == ys || xs == 1 || ys == 1, RuntimeError, op, ": the batch dimensions of the inputs, ",
                sizes_text(x), " and ", sizes_text(y), ", cannot be broadcast together");
    out[i] = xs == 1 ? ys : xs;
  }
  return out;
}

// An uninitialized batch of column-major rows x cols matrices: strides (..., 1, rows), batches contiguous.
inline Tensor fortran_empty(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, ScalarType dtype,
                            Device device) {
  std::vector<int64_t> shape = batch, strides(batch.size() + 2);
  shape.push_back(rows);
  shape.push_back(cols);
  int64_t step = std::max<int64_t>(1, rows * cols);
  for (size_t i = batch.size(); i-- > 0;) {
    strides[i] = step;
    step *= std::max<int64_t>(1, batch[i]);
  }
  strides[batch.size()] = 1;
  strides[batch.size() + 1] = std::max<int64_t>(1, rows);
  return yaten::empty_strided(shape, strides, dtype, device);
}

// Whether `t` is laid out as fortran_empty lays out its shape.
inline bool is_fortran(const Tensor& t) {
  const int64_t d = t.dim();
  if (d < 2) return false;
  const int64_t rows = t.sizes()[d - 2], cols = t.sizes()[d - 1];
  if ((t.strides()[d - 2] != 1 && rows > 1) || (t.strides()[d - 1] != std::max<int64_t>(1, rows) && cols > 1)) {
    return false;
  }
  int64_t step = rows * cols;
  for (int64_t i = d - 3; i >= 0; --i) {
    if (t.sizes()[size_t(i)] > 1 && t.strides()[size_t(i)] != step) return false;
    step *= t.sizes()[size_t(i)];
  }
  return true;
}

// A column-major copy of `a` (*, m, n) broadcast to `batch` (Note [LAPACK's layout]), always a new buffer: LAPACK
// and cuSOLVER write into it.
inline Tensor fortran_copy(const Tensor& a, const std::vector<int64_t>& batch) {
  const int64_t d = a.dim();
  Tensor out = fortran_empty(batch, a.sizes()[d - 2], a.sizes()[d - 1], a.dtype(), a.device());
  std::vector<int64_t> shape = batch;
  shape.push_back(a.sizes()[d - 2]);
  shape.push_back(a.sizes()[d - 1]);
  yaten::copy_(out, yaten::expand(a, shape));
  return out;
}
inline Tensor fortran_copy(const Tensor& a) {
  return fortran_copy(a, std::vector<int64_t>(a.sizes().begin(), a.sizes().end() - 2));
}

// `src` broadcast to `shape` and copied into the first n rows (dim -2) or columns (dim -1) of `dst`.
inline void copy_into(const Tensor& dst, int64_t dim, int64_t n, const Tensor& src, const std::vector<int64_t>& shape) {
  yaten::copy_(yaten::narrow(dst, dim, 0, n), yaten::expand(src, shape));
}

// ---- the argument checks of the kernels that the CPU (LAPACK) and CUDA (cuSOLVER) both have, in torch's words

inline void check_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B) {
  check_square("linalg.lu_solve", LU, "LU");
  check_matrix("linalg.lu_solve", B, "B");
  YATEN_CHECK(B.dtype() == LU.dtype(), RuntimeError, "linalg.lu_solve: Expected LU and B to have the same dtype, but "
              "found LU of type ", dtype_name(LU.dtype()), " and B of type ", dtype_name(B.dtype()),
              " instead");
  YATEN_CHECK(pivots.dtype() == ScalarType::Int, RuntimeError, "linalg.lu_solve: pivots should be a Tensor of scalar "
              "type int32");
  const int64_t n = LU.sizes()[LU.dim() - 1];
  YATEN_CHECK(pivots.dim() == LU.dim() - 1 && pivots.sizes().back() == n, RuntimeError, "linalg.lu_solve: Expected "
              "pivots of shape LU.shape[:-1], but got ", sizes_text(pivots.sizes()), " for LU of shape ",
              sizes_text(LU.sizes()));
}
// B's rows against A's n, for the left solve (the right one is solved as the left one of the adjoints).
inline void check_lu_solve_rows(int64_t n, const Tensor& B) {
  const int64_t rows = B.sizes()[B.dim() - 2], k = B.sizes()[B.dim() - 1];
  YATEN_CHECK(rows == n, RuntimeError, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (",
              n, "x", n, " and ", rows, "x", k, ")");
}

inline void check_solve_triangular(const Tensor& A, const Tensor& B, bool left) {
  check_square("linalg.solve_triangular", A, "A");
  check_matrix("linalg.solve_triangular", B, "B");
  YATEN_CHECK(B.dtype() == A.dtype(), RuntimeError, "linalg.solve_triangular: Expected A and B to have the same "
              "dtype, but found A of type ", dtype_name(A.dtype()), " and B of type ",
              dtype_name(B.dtype()), " instead");
  const int64_t n = A.sizes()[A.dim() - 1], rows = B.sizes()[B.dim() - 2], cols = B.sizes()[B.dim() - 1];
  YATEN_CHECK((left ? rows : cols) == n, RuntimeError, "linalg.solve_triangular: Incompatible shapes of A and B for "
              "the equation ", left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
}

inline void check_qr(const Tensor& A, const std::string& mode) {
  check_matrix("linalg.qr", A, "A");
  YATEN_CHECK(mode == "reduced" || mode == "complete" || mode == "r", RuntimeError, "qr received unrecognized mode '",
              mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
}

// linalg.eigh's UPLO: whether the upper triangle is read.
inline bool eigh_upper(const std::string& UPLO) {
  YATEN_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", RuntimeError, "Expected UPLO argument to be "
              "'L' or 'U', but got ", UPLO);
  return UPLO == "U" || UPLO == "u";
}

// linalg.lstsq's B (a matrix by now) against A.
inline void check_lstsq(const Tensor& A, const Tensor& B) {
  check_matrix("linalg.lstsq", B, "B");
  YATEN_CHECK(B.dtype() == A.dtype(), RuntimeError, "torch.linalg.lstsq: Expected input and other to have the same "
              "dtype, but got input's dtype ", dtype_name(A.dtype()), " and other's dtype ",
              dtype_name(B.dtype()));
  YATEN_CHECK(B.sizes()[B.dim() - 2] == A.sizes()[A.dim() - 2], RuntimeError, "torch.linalg.lstsq: input.size(-2) "
              "should match other.size(-2)");
}

inline std::string batch_text(int64_t i) { return detail::str_cat("(Batch element ", i, "): "); }

// torch's errors for a nonzero `info` of getrf ("lu"), potrf ("cholesky") or their uses (solve, inv): a LinAlgError
// (a RuntimeError) naming the first failing matrix of a batch.
inline void raise_for_info(const char* op, const Tensor& info, const char* kind) {
  const int* d = info.data<int>();
  const int64_t count = info.numel();
  for (int64_t i = 0; i < count; ++i) {
    if (d[i] == 0) continue;
    const std::string where = count > 1 || info.dim() > 0 ? batch_text(i) : "";
    YATEN_CHECK(d[i] > 0, RuntimeError, op, ": ", where, "Argument ", -d[i], " has illegal value.");
    const std::string k(kind);
    if (k == "cholesky") {
      YATEN_FAIL(LinAlgError, op, ": ", where, "The factorization could not be completed because the input is not "
                 "positive-definite (the leading minor of order ", d[i], " is not positive-definite).");
    }
    if (k == "solve") {
      YATEN_FAIL(LinAlgError, op, ": ", where, "The solver failed because the input matrix is singular.");
    }
    if (k == "ldl") {
      YATEN_FAIL(LinAlgError, op, ": ", where, "The factorization could not be completed because the input is "
                 "singular (D[", d[i], ",", d[i], "] is zero).");
    }
    if (k == "inv") {
      YATEN_FAIL(LinAlgError, op, ": ", where, "The diagonal element ", d[i], " is zero, the inversion could not be "
                 "completed because the input matrix is singular.");
    }
    YATEN_FAIL(LinAlgError, op, ": ", where, "U[", d[i], ",", d[i], "] is zero and using it on lu_solve would result "
               "in a division by zero. If you still want to perform the factorization, consider calling "
               "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
  }
}

// torch's refusal of infinities and NaNs where LAPACK's iterations would not converge on them (the SVD's).
inline void check_finite(const char* op, const Tensor& a) {
  if (a.numel() == 0) return;
  const Tensor ok = yaten::_to_copy(yaten::all(yaten::isfinite(a)), ScalarType::Bool, Device(DeviceType::CPU));
  YATEN_CHECK(*ok.data<bool>(), LinAlgError, op, ": The algorithm failed to converge because the input matrix "
              "contained non-finite values.");
}

}  // namespace yaten::native::linalg_support
