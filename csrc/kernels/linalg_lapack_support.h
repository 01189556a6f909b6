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
#include "yaten/ops/empty_strided.h"
#include "yaten/ops/isfinite.h"
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
