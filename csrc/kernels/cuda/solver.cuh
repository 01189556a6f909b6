// CUDA linear algebra on cuSOLVER (cuda/cusolver.cpp, opened at run time from the nvidia-cusolver wheel) and
// cuBLAS's triangular solve: LU, Cholesky, triangular solves, QR, SVD, Hermitian eigendecomposition and least squares,
// for float32, float64, complex64 and complex128, batched. The CPU's kernels (kernels/cpu/lapack.h) in the same
// arrangement (Note [LAPACK's layout]): the operand copied once into column-major matrices on the device, the
// routine run on each matrix of the batch in place, those buffers returned; the argument checks and torch's messages
// are the CPU's (kernels/linalg_lapack_support.h), and so are the composites and derivatives over these kernels,
// which run on CUDA as they are. Each routine writes its `info` into a device tensor, read back only where an error
// must be raised (check_errors, or a failure to converge).
//
// What differs from the CPU, as in torch: the SVD is cuSOLVER's gesvd (a wide matrix through its adjoint; the
// `driver=` argument takes "gesvd"), and lstsq is QR-based (driver "gels", m >= n). Not on CUDA yet: linalg.eig,
// ldl_factor/ldl_solve and LU without pivoting (NotImplementedError, naming the op); cuSOLVER's batched routines for
// many small matrices (one call per matrix here).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cusolver.h"
#include "kernels/linalg_lapack_grad.h"
#include "kernels/linalg_lapack_support.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/eye.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/squeeze.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/tril.h"
#include "yaten/ops/triu.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/zeros.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::cuda {

namespace solver_detail {
using linalg_support::batch_count;
using linalg_support::broadcast_batch;
using linalg_support::check_matrix;
using linalg_support::check_square;
using linalg_support::fortran_copy;
using linalg_support::fortran_empty;
namespace solver = yaten::cuda::solver;

inline std::vector<int64_t> batch_of(const Tensor& a) {
  return std::vector<int64_t>(a.sizes().begin(), a.sizes().end() - 2);
}
inline std::vector<int64_t> with(std::vector<int64_t> batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}
inline Tensor cpu(const Tensor& t) { return yaten::_to_copy(t, std::nullopt, Device(DeviceType::CPU)); }

// The first min(rows, cols) columns of the identity, in every matrix of a column-major batch on `like`'s device.
inline Tensor fortran_identity(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, const Tensor& like) {
  return fortran_copy(yaten::expand(yaten::eye(rows, cols, like.dtype(), like.device()), with(batch, {rows, cols})),
                      batch);
}

// LinAlgError for an info > 0 of an iterative routine (the SVD's, eigh's), as the CPU kernels raise it.
inline void raise_if_not_converged(const char* op, const Tensor& info, const char* what) {
  const Tensor host = cpu(info);
  const int* d = host.data<int>();
  const int64_t count = host.numel();
  for (int64_t i = 0; i < count; ++i) {
    YATEN_CHECK(d[i] <= 0, LinAlgError, op, ": ", count > 1 ? linalg_support::batch_text(i) : "",
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated ", what, " (error code: ", d[i], ").");
  }
}
}  // namespace solver_detail

// linalg.lu_factor_ex (cusolverDnXgetrf): LU packs L (unit diagonal) and U, pivots are LAPACK's 1-based row swaps
// (int32, converted from cuSOLVER's int64), info 0 or the first zero of U's diagonal.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_kernel(const Tensor& A, bool pivot, bool check_errors) {
  using namespace solver_detail;
  check_matrix("linalg.lu_factor_ex", A, "A");
  YATEN_CHECK(pivot || A.numel() == 0, NotImplementedError, "linalg.lu_factor: LU without pivoting is not "
              "implemented on CUDA");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  Tensor lu = fortran_copy(A, batch);
  Tensor pivots64 = yaten::zeros(with(batch, {k}), ScalarType::Long, A.device());
  Tensor info = yaten::zeros(batch, ScalarType::Int, A.device());
  scalar_t* a = lu.data<scalar_t>();
  int64_t* p = pivots64.data<int64_t>();
  int* inf = info.data<int>();
  if (m > 0 && n > 0) {
    for (int64_t i = 0; i < batch_count(batch); ++i) {
      solver::getrf("linalg.lu_factor_ex", A.dtype(), A.device().index, m, n, a + i * m * n, m, p + i * k, inf + i);
    }
  }
  if (check_errors) linalg_support::raise_for_info("linalg.lu_factor_ex", cpu(info), "lu");
  return {lu, yaten::_to_copy(pivots64, ScalarType::Int), info};
}

// X = op(A)^-1 B from A's LU (cusolverDnXgetrs), B's batch broadcast with LU's; left=False through the adjoints.
template <typename scalar_t>
Tensor linalg_lu_solve_kernel(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  using namespace solver_detail;
  linalg_support::check_lu_solve(LU, pivots, B);
  const int64_t n = LU.sizes()[LU.dim() - 1];
  if (!left) {
    using linalg_lapack::mH;  // X op(A) = B is op(A)^H X^H = B^H
    return fortran_copy(mH(linalg_lu_solve_kernel<scalar_t>(LU, pivots, mH(B), true, !adjoint)));
  }
  const int64_t k = B.sizes()[B.dim() - 1];
  linalg_support::check_lu_solve_rows(n, B);
  const std::vector<int64_t> batch = broadcast_batch("linalg.lu_solve", LU, B);
  Tensor x = fortran_copy(B, batch);
  if (n == 0 || k == 0 || x.numel() == 0) return x;
  const Tensor lu = fortran_copy(LU, batch);
  Tensor piv = yaten::empty(with(batch, {n}), ScalarType::Long, LU.device());
  yaten::copy_(piv, yaten::expand(pivots, with(batch, {n})));
  Tensor info = yaten::zeros({1}, ScalarType::Int, LU.device());
  const char trans = !adjoint ? 'N' : is_complex_v<scalar_t> ? 'C' : 'T';
  const scalar_t* a = lu.data<scalar_t>();
  const int64_t* p = piv.data<int64_t>();
  scalar_t* b = x.data<scalar_t>();
  for (int64_t i = 0; i < batch_count(batch); ++i) {
    solver::getrs("linalg.lu_solve", LU.dtype(), LU.device().index, trans, n, k, a + i * n * n, n, p + i * n,
                  b + i * n * k, n, info.data<int>());
  }
  return x;
}

// linalg.cholesky_ex (cusolverDnXpotrf): the factor in the `upper` or lower triangle, the other zeroed; info 0 or
// the order of the first leading minor that is not positive-definite.
template <typename scalar_t>
std::tuple<Tensor, Tensor> linalg_cholesky_ex_kernel(const Tensor& A, bool upper, bool check_errors) {
  using namespace solver_detail;
  check_square("linalg.cholesky_ex", A, "A");
  const int64_t n = A.sizes()[A.dim() - 1];
  const std::vector<int64_t> batch = batch_of(A);
  Tensor l = fortran_copy(A, batch);
  Tensor info = yaten::zeros(batch, ScalarType::Int, A.device());
  if (n > 0) {
    scalar_t* a = l.data<scalar_t>();
    for (int64_t i = 0; i < batch_count(batch); ++i) {
      solver::potrf("linalg.cholesky_ex", A.dtype(), A.device().index, upper, n, a + i * n * n, n,
                    info.data<int>() + i);
    }
    yaten::copy_(l, upper ? yaten::triu(l) : yaten::tril(l));
  }
  if (check_errors) linalg_support::raise_for_info("linalg.cholesky_ex", cpu(info), "cholesky");
  return {l, info};
}

// X with A X = B (left) or X A = B, A triangular (cuBLAS's trsm, a call per matrix).
template <typename scalar_t>
Tensor linalg_solve_triangular_kernel(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  using namespace solver_detail;
  linalg_support::check_solve_triangular(A, B, left);
  const int64_t n = A.sizes()[A.dim() - 1], rows = B.sizes()[B.dim() - 2], cols = B.sizes()[B.dim() - 1];
  const std::vector<int64_t> batch = broadcast_batch("linalg.solve_triangular", A, B);
  Tensor x = fortran_copy(B, batch);
  if (x.numel() == 0) return x;
  const Tensor a = fortran_copy(A, batch);
  const scalar_t* ad = a.data<scalar_t>();
  scalar_t* bd = x.data<scalar_t>();
  for (int64_t i = 0; i < batch_count(batch); ++i) {
    solver::trsm("linalg.solve_triangular", A.dtype(), A.device().index, left, upper, 'N', unitriangular, rows, cols,
                 ad + i * n * n, n, bd + i * rows * cols, rows);
  }
  return x;
}

// linalg.qr (cusolverDnXgeqrf, then orgqr/ungqr): mode "reduced", "complete" or "r".
template <typename scalar_t>
std::tuple<Tensor, Tensor> linalg_qr_kernel(const Tensor& A, const std::string& mode) {
  using namespace solver_detail;
  linalg_support::check_qr(A, mode);
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = batch_count(batch);
  const bool complete = mode == "complete" && m > n;
  const int64_t q_cols = mode == "complete" ? m : k, r_rows = mode == "complete" ? m : k;
  // complete with m > n: geqrf runs in an m x m buffer whose first n columns are A, so orgqr makes all m columns
  const int64_t work_cols = complete ? m : n;
  Tensor work = fortran_empty(batch, m, work_cols, A.dtype(), A.device());
  linalg_support::copy_into(work, -1, n, A, with(batch, {m, n}));
  Tensor tau = yaten::empty({std::max<int64_t>(1, count * k)}, A.dtype(), A.device());
  Tensor info = yaten::zeros({1}, ScalarType::Int, A.device());
  scalar_t* w = work.data<scalar_t>();
  scalar_t* t = tau.data<scalar_t>();
  if (k > 0) {
    for (int64_t i = 0; i < count; ++i) {
      solver::geqrf("linalg.qr", A.dtype(), A.device().index, m, n, w + i * m * work_cols, m, t + i * k,
                    info.data<int>());
    }
  }
  // R: the upper triangle of the first r_rows rows of A's columns
  Tensor r = fortran_copy(yaten::triu(yaten::narrow(yaten::narrow(work, -1, 0, n), -2, 0, r_rows)), batch);
  if (mode == "r") return {yaten::empty({0}, A.dtype(), A.device()), r};
  if (k == 0) return {fortran_identity(batch, m, q_cols, A), r};  // no reflectors: the identity's first columns
  for (int64_t i = 0; i < count; ++i) {
    solver::orgqr("linalg.qr", A.dtype(), A.device().index, m, q_cols, k, w + i * m * work_cols, m, t + i * k,
                  info.data<int>());
  }
  Tensor q = work_cols == q_cols ? work : fortran_copy(yaten::narrow(work, -1, 0, q_cols), batch);
  return {q, r};
}

// geqrf itself (torch.geqrf): R above the diagonal of `a`, the reflectors below it and in tau.
template <typename scalar_t>
std::tuple<Tensor, Tensor> geqrf_kernel(const Tensor& A) {
  using namespace solver_detail;
  check_matrix("geqrf", A, "input");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  Tensor a = fortran_copy(A, batch);
  Tensor tau = yaten::empty(with(batch, {k}), A.dtype(), A.device());
  Tensor info = yaten::zeros({1}, ScalarType::Int, A.device());
  if (k > 0) {
    scalar_t* ad = a.data<scalar_t>();
    scalar_t* td = tau.data<scalar_t>();
    for (int64_t i = 0; i < batch_count(batch); ++i) {
      solver::geqrf("geqrf", A.dtype(), A.device().index, m, n, ad + i * m * n, m, td + i * k, info.data<int>());
    }
  }
  return {a, tau};
}

// _linalg_svd (cusolverDnXgesvd, which takes m >= n: a wide A is the adjoint of the SVD of A^H). driver: None or
// "gesvd" (torch's CUDA also has gesvdj and gesvda: NotImplementedError here rather than another algorithm quietly).
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _linalg_svd_kernel(const Tensor& A, bool full_matrices, bool compute_uv,
                                                      const std::optional<std::string>& driver) {
  using namespace solver_detail;
  using real_t = real_of_t<scalar_t>;
  check_matrix("linalg.svd", A, "A");
  if (driver.has_value()) {
    YATEN_CHECK(*driver == "gesvd" || *driver == "gesvdj" || *driver == "gesvda", RuntimeError, "linalg.svd: "
                "driver must be one of 'gesvd', 'gesvdj', 'gesvda', or None, but got ", *driver);
    YATEN_CHECK(*driver == "gesvd", NotImplementedError, "linalg.svd: driver='", *driver, "' is not implemented on "
                "CUDA; yaten runs cuSOLVER's gesvd (driver='gesvd' or None)");
  }
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  if (m < n) {
    using linalg_lapack::mH;  // A^H = U' S V'^H, so A = V' S U'^H
    auto [u, s, vh] = _linalg_svd_kernel<scalar_t>(mH(A), full_matrices, compute_uv, driver);
    if (!compute_uv) return {u, s, vh};
    return {fortran_copy(mH(vh)), s, fortran_copy(mH(u))};
  }
  linalg_support::check_finite("linalg.svd", A);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = batch_count(batch), u_cols = full_matrices ? m : k;
  Tensor s = yaten::empty(with(batch, {k}), scalar_type_of<real_t>, A.device());
  Tensor u = yaten::empty({0}, A.dtype(), A.device()), vh = yaten::empty({0}, A.dtype(), A.device());
  if (compute_uv) {
    u = k == 0 ? fortran_identity(batch, m, u_cols, A) : fortran_empty(batch, m, u_cols, A.dtype(), A.device());
    vh = fortran_empty(batch, n, n, A.dtype(), A.device());  // n = k (m >= n); 0 x 0 when n is 0
  }
  if (k == 0) return {u, s, vh};
  Tensor a = fortran_copy(A, batch);
  Tensor info = yaten::zeros({count}, ScalarType::Int, A.device());
  Tensor unused = yaten::empty({1}, A.dtype(), A.device());  // U and VT when not computed (not referenced)
  scalar_t* ad = a.data<scalar_t>();
  real_t* sd = s.data<real_t>();
  for (int64_t i = 0; i < count; ++i) {
    scalar_t* ui = compute_uv ? u.data<scalar_t>() + i * m * u_cols : unused.data<scalar_t>();
    scalar_t* vi = compute_uv ? vh.data<scalar_t>() + i * n * n : unused.data<scalar_t>();
    solver::gesvd("linalg.svd", A.dtype(), A.device().index, !compute_uv ? 'N' : full_matrices ? 'A' : 'S',
                  compute_uv ? 'A' : 'N', m, n, ad + i * m * n, m, sd + i * k, ui, m, vi, n, info.data<int>() + i);
  }
  raise_if_not_converged("linalg.svd", info, "singular values");
  return {u, s, vh};
}

// _linalg_eigh (cusolverDnXsyevd): eigenvalues ascending, orthonormal eigenvectors when compute_v (else empty).
template <typename scalar_t>
std::tuple<Tensor, Tensor> _linalg_eigh_kernel(const Tensor& A, const std::string& UPLO, bool compute_v) {
  using namespace solver_detail;
  using real_t = real_of_t<scalar_t>;
  check_square("linalg.eigh", A, "A");
  const bool upper = linalg_support::eigh_upper(UPLO);
  const int64_t n = A.sizes()[A.dim() - 1];
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = batch_count(batch);
  Tensor v = fortran_copy(A, batch);
  Tensor w = yaten::empty(with(batch, {n}), scalar_type_of<real_t>, A.device());
  if (n > 0) {
    Tensor info = yaten::zeros({count}, ScalarType::Int, A.device());
    scalar_t* vd = v.data<scalar_t>();
    real_t* wd = w.data<real_t>();
    for (int64_t i = 0; i < count; ++i) {
      solver::syevd("linalg.eigh", A.dtype(), A.device().index, compute_v, upper, n, vd + i * n * n, n, wd + i * n,
                    info.data<int>() + i);
    }
    raise_if_not_converged("linalg.eigh", info, "eigenvalues");
  }
  if (!compute_v) v = yaten::empty({0}, A.dtype(), A.device());
  return {w, v};
}

// linalg.lstsq on CUDA, as torch's: driver "gels" (the default here), A of full rank with m >= n; X = R^-1 (Q^H B)
// from geqrf, ormqr/unmqr and trsm. The residuals (m > n) are the squared norms of (Q^H B)'s last m - n rows; rank
// and singular values are empty, as torch's gels gives them.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq_kernel(const Tensor& A, const Tensor& B,
                                                                std::optional<double> rcond,
                                                                const std::optional<std::string>& driver) {
  using namespace solver_detail;
  using real_t = real_of_t<scalar_t>;
  check_matrix("linalg.lstsq", A, "A");
  if (B.dim() == A.dim() - 1 && B.dim() >= 1 && B.sizes().back() == A.sizes()[A.dim() - 2]) {
    auto [x, residuals, rank, s] = linalg_lstsq_kernel<scalar_t>(A, yaten::unsqueeze(B, -1), rcond, driver);
    return {yaten::squeeze(x, -1), residuals, rank, s};
  }
  linalg_support::check_lstsq(A, B);
  YATEN_CHECK(driver.value_or("gels") == "gels", RuntimeError, "torch.linalg.lstsq: `driver` other than `gels` is "
              "not supported on CUDA");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = B.sizes()[B.dim() - 1];
  YATEN_CHECK(m >= n, RuntimeError, "torch.linalg.lstsq: only overdetermined systems (input.size(-2) >= "
              "input.size(-1)) are allowed on CUDA");
  linalg_support::check_finite("torch.linalg.lstsq", A);
  const std::vector<int64_t> batch = broadcast_batch("torch.linalg.lstsq", A, B);
  const int64_t count = batch_count(batch);
  Tensor a = fortran_copy(A, batch);
  Tensor b = fortran_copy(B, batch);  // m x k: Q^H B, then the solution in its first n rows
  if (n > 0 && k > 0) {
    Tensor tau = yaten::empty({count * n}, A.dtype(), A.device());
    Tensor info = yaten::zeros({1}, ScalarType::Int, A.device());
    scalar_t* ad = a.data<scalar_t>();
    scalar_t* bd = b.data<scalar_t>();
    scalar_t* td = tau.data<scalar_t>();
    const int dev = A.device().index;
    for (int64_t i = 0; i < count; ++i) {
      scalar_t* ai = ad + i * m * n;
      scalar_t* bi = bd + i * m * k;
      solver::geqrf("torch.linalg.lstsq", A.dtype(), dev, m, n, ai, m, td + i * n, info.data<int>());
      solver::ormqr_left("torch.linalg.lstsq", A.dtype(), dev, 'C', m, k, n, ai, m, td + i * n, bi, m,
                         info.data<int>());
      solver::trsm("torch.linalg.lstsq", A.dtype(), dev, true, true, 'N', false, n, k, ai, m, bi, m);
    }
  } else {
    b = yaten::zeros(b.sizes(), A.dtype(), A.device());  // the least-norm solution of an empty system
  }
  Tensor residuals = yaten::empty({0}, scalar_type_of<real_t>, A.device());
  if (m > n) {
    const Tensor rest = yaten::abs(yaten::narrow(b, -2, n, m - n));
    residuals = yaten::sum(yaten::mul(rest, rest), std::vector<int64_t>{-2});
  }
  Tensor solution = m == n ? b : fortran_copy(yaten::narrow(b, -2, 0, n), batch);
  return {solution, residuals, yaten::empty({0}, ScalarType::Long, A.device()),
          yaten::empty({0}, scalar_type_of<real_t>, A.device())};
}

}  // namespace yaten::native::cuda
