// CUDA linear algebra on cuSOLVER (cuda/cusolver.cpp, opened at run time from the nvidia-cusolver wheel) and
// cuBLAS's triangular solve: LU, Cholesky, triangular solves, QR, SVD, Hermitian eigendecomposition and least squares,
// for float32, float64, complex64 and complex128, batched. LU, lu_solve, Cholesky, triangular solves, QR and eigh are
// the CPU's kernel bodies (kernels/linalg_lapack_kernels.h) on the backend CudaSolver below: the operand copied once
// into column-major matrices on the device, the routine run on each matrix of the batch in place, those buffers
// returned (Note [LAPACK's layout]), with the CPU's checks and torch's messages; the composites and derivatives over
// these kernels run on CUDA as they are. Each routine writes its `info` into a device tensor, read back only where an
// error must be raised (check_errors, or a failure to converge).
//
// What differs from the CPU, as in torch: the SVD is cuSOLVER's gesvdj, Jacobi (gesvd where it does not converge;
// `driver=` takes "gesvdj" and "gesvd"), and lstsq is QR-based (driver "gels", m >= n); their kernels are below. Many
// small matrices take batched routines (Note [Batched routines for small matrices]). Not on CUDA yet: linalg.eig,
// ldl_factor/ldl_solve and LU without pivoting (NotImplementedError, naming the op).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cusolver.h"
#include "kernels/linalg_lapack_grad.h"
#include "kernels/linalg_lapack_kernels.h"
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
using namespace linalg_kernels;  // its helpers (batch_of, with, fortran_copy, ...) and raise_if_not_converged
namespace solver = yaten::cuda::solver;

inline Tensor cpu(const Tensor& t) { return yaten::_to_copy(t, std::nullopt, Device(DeviceType::CPU)); }

// The first min(rows, cols) columns of the identity, in every matrix of a column-major batch on `like`'s device.
inline Tensor fortran_identity(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, const Tensor& like) {
  return fortran_copy(yaten::expand(yaten::eye(rows, cols, like.dtype(), like.device()), with(batch, {rows, cols})),
                      batch);
}

// CUDA's backend of kernels/linalg_lapack_kernels.h: cuSOLVER's routines (cuBLAS's trsm) on one matrix each, on
// the device's current stream, one call after another; `info` stays on the device.
//
// Note [Batched routines for small matrices]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// One cuSOLVER call per matrix costs tens of microseconds of launches and queries whatever the matrix's size: a batch
// of 256 16 x 16 float64 solves took 14.6 ms beside torch's 86 us on an H200 (cholesky 4.7 ms / 53 us, eigh 34 ms /
// 0.2 ms, svd 151 ms / 0.48 ms; benchmarks/results/gpu/2026-11-30-ae43487.json). So, as torch does, two or more
// matrices of at most 32 x 32 go to the batched routines, one call for the batch: cuBLAS's getrfBatched and
// getrsBatched (int32 pivots), cuSOLVER's potrfBatched, syevjBatched (Jacobi) and, in _linalg_svd_kernel,
// gesvdjBatched. The pointer-array routines take a device array of each matrix's address.
struct CudaSolver {
  static constexpr const char* kDevice = "CUDA";
  static constexpr bool kBatched = true;
  using pivot_t = int64_t;
  const char* op;
  ScalarType dtype;
  int device;
  static bool batched(int64_t count, int64_t n) {
    return count >= 2 && n >= 1 && n <= solver::kMaxJacobiBatchedSize;
  }
  // The addresses base, base + stride, ... (count of them), in a device array.
  template <typename T>
  Tensor addresses(T* base, int64_t stride, int64_t count) const {
    Tensor host = yaten::empty({count}, ScalarType::Long, Device(DeviceType::CPU));
    int64_t* p = host.data<int64_t>();
    for (int64_t i = 0; i < count; ++i) p[i] = reinterpret_cast<int64_t>(base + i * stride);
    return yaten::_to_copy(host, std::nullopt, Device(DeviceType::CUDA, device));
  }
  template <typename T>
  void getrf_batched(int64_t n, T* a, int* ipiv, int* info, int64_t count) const {
    const Tensor as = addresses(a, n * n, count);
    solver::getrf_batched(op, dtype, device, n, reinterpret_cast<void* const*>(as.data<int64_t>()), n, ipiv, info,
                          count);
  }
  template <typename T>
  void getrs_batched(char trans, int64_t n, int64_t nrhs, const T* a, const int* ipiv, T* b, int64_t count) const {
    const Tensor as = addresses(a, n * n, count), bs = addresses(b, n * nrhs, count);
    solver::getrs_batched(op, dtype, device, trans, n, nrhs, reinterpret_cast<const void* const*>(as.data<int64_t>()),
                          n, ipiv, reinterpret_cast<void* const*>(bs.data<int64_t>()), n, count);
  }
  template <typename T>
  void potrf_batched(bool upper, int64_t n, T* a, int* info, int64_t count) const {
    const Tensor as = addresses(a, n * n, count);
    solver::potrf_batched(op, dtype, device, upper, n, reinterpret_cast<void**>(as.data<int64_t>()), n, info, count);
  }
  template <typename T>
  void syevj_batched(bool vectors, bool upper, int64_t n, T* a, real_of_t<T>* w, int* info, int64_t count) const {
    solver::syevj_batched(op, dtype, device, vectors, upper, n, a, n, w, info, count);
  }
  template <typename F>
  void for_each_matrix(int64_t count, int64_t, const F& f) const {
    for (int64_t i = 0; i < count; ++i) f(i);
  }
  Tensor readable(const Tensor& t) const { return cpu(t); }
  template <typename T>
  void getrf(int64_t m, int64_t n, T* a, int64_t lda, int64_t* ipiv, int* info) const {
    solver::getrf(op, dtype, device, m, n, a, lda, ipiv, info);
  }
  template <typename T>
  void getrs(char trans, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int64_t* ipiv, T* b, int64_t ldb,
             int* info) const {
    solver::getrs(op, dtype, device, trans, n, nrhs, a, lda, ipiv, b, ldb, info);
  }
  template <typename T>
  void potrf(bool upper, int64_t n, T* a, int64_t lda, int* info) const {
    solver::potrf(op, dtype, device, upper, n, a, lda, info);
  }
  template <typename T>
  void trsm(bool left, bool upper, bool unit, int64_t m, int64_t n, const T* a, int64_t lda, T* b,
            int64_t ldb) const {
    solver::trsm(op, dtype, device, left, upper, 'N', unit, m, n, a, lda, b, ldb);
  }
  template <typename T>
  void geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau, int* info) const {
    solver::geqrf(op, dtype, device, m, n, a, lda, tau, info);
  }
  template <typename T>
  void orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau, int* info) const {
    solver::orgqr(op, dtype, device, m, n, k, a, lda, tau, info);
  }
  template <typename T>
  void syevd(bool vectors, bool upper, int64_t n, T* a, int64_t lda, real_of_t<T>* w, int* info) const {
    solver::syevd(op, dtype, device, vectors, upper, n, a, lda, w, info);
  }
  template <typename T>
  void zero_other_triangle(T*, int64_t, bool) const {}
  void finish_triangle(const Tensor& l, bool upper) const { yaten::copy_(l, upper ? yaten::triu(l) : yaten::tril(l)); }
  Tensor upper_rows(const Tensor& work, int64_t rows, int64_t, const std::vector<int64_t>& batch) const {
    return fortran_copy(yaten::triu(yaten::narrow(work, -2, 0, rows)), batch);
  }
  template <typename T>
  Tensor identity(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, const Tensor& like) const {
    return fortran_identity(batch, rows, cols, like);
  }
};
inline CudaSolver backend(const char* op, const Tensor& a) { return CudaSolver{op, a.dtype(), a.device().index}; }
}  // namespace solver_detail

// linalg.lu_factor_ex, lu_solve, cholesky_ex, solve_triangular, qr, geqrf and _linalg_eigh: the CPU's bodies
// (kernels/linalg_lapack_kernels.h) on cuSOLVER's getrf/getrs/potrf/geqrf/orgqr/syevd and cuBLAS's trsm. The pivots
// come back as int32 (cuSOLVER's 64-bit API takes int64).
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_kernel(const Tensor& A, bool pivot, bool check_errors) {
  return linalg_kernels::lu_factor_ex<scalar_t>(solver_detail::backend("linalg.lu_factor_ex", A), A, pivot,
                                                check_errors);
}
template <typename scalar_t>
Tensor linalg_lu_solve_kernel(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return linalg_kernels::lu_solve<scalar_t>(solver_detail::backend("linalg.lu_solve", LU), LU, pivots, B, left,
                                            adjoint);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> linalg_cholesky_ex_kernel(const Tensor& A, bool upper, bool check_errors) {
  return linalg_kernels::cholesky_ex<scalar_t>(solver_detail::backend("linalg.cholesky_ex", A), A, upper,
                                               check_errors);
}
template <typename scalar_t>
Tensor linalg_solve_triangular_kernel(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return linalg_kernels::solve_triangular<scalar_t>(solver_detail::backend("linalg.solve_triangular", A), A, B,
                                                    upper, left, unitriangular);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> linalg_qr_kernel(const Tensor& A, const std::string& mode) {
  return linalg_kernels::qr<scalar_t>(solver_detail::backend("linalg.qr", A), A, mode);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> geqrf_kernel(const Tensor& A) {
  return linalg_kernels::geqrf<scalar_t>(solver_detail::backend("geqrf", A), A);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> _linalg_eigh_kernel(const Tensor& A, const std::string& UPLO, bool compute_v) {
  return linalg_kernels::eigh<scalar_t>(solver_detail::backend("linalg.eigh", A), A, UPLO, compute_v);
}

// _linalg_svd, as torch's CUDA: driver None or "gesvdj" runs cuSOLVER's Jacobi SVD (gesvdj; gesvdjBatched for many
// small matrices, Note [Batched routines for small matrices]), and with None a matrix it does not converge on is
// done again by gesvd, QR-based; "gesvd" runs gesvd alone; "gesvda" (an approximation for tall matrices) raises
// NotImplementedError rather than running another algorithm quietly. Both routines take m >= n here: a wide A is the
// adjoint of the SVD of A^H. gesvdj returns V, gesvd V^H.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _linalg_svd_kernel(const Tensor& A, bool full_matrices, bool compute_uv,
                                                      const std::optional<std::string>& driver) {
  using namespace solver_detail;
  using linalg_lapack::mH;
  using real_t = real_of_t<scalar_t>;
  const char* op = "linalg.svd";
  check_matrix(op, A, "A");
  if (driver.has_value()) {
    YATEN_CHECK(*driver == "gesvd" || *driver == "gesvdj" || *driver == "gesvda", RuntimeError, "linalg.svd: "
                "driver must be one of 'gesvd', 'gesvdj', 'gesvda', or None, but got ", *driver);
    YATEN_CHECK(*driver != "gesvda", NotImplementedError, "linalg.svd: driver='gesvda' is not implemented on CUDA; "
                "yaten runs cuSOLVER's gesvdj (driver='gesvdj' or None) and gesvd (driver='gesvd')");
  }
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  if (m < n) {  // A^H = U' S V'^H, so A = V' S U'^H
    auto [u, s, vh] = _linalg_svd_kernel<scalar_t>(mH(A), full_matrices, compute_uv, driver);
    if (!compute_uv) return {u, s, vh};
    return {fortran_copy(mH(vh)), s, fortran_copy(mH(u))};
  }
  linalg_support::check_finite(op, A);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = batch_count(batch), u_cols = full_matrices ? m : k;
  Tensor s = yaten::empty(with(batch, {k}), scalar_type_of<real_t>, A.device());
  Tensor u = yaten::empty({0}, A.dtype(), A.device()), vh = yaten::empty({0}, A.dtype(), A.device());
  if (compute_uv) {
    u = k == 0 ? fortran_identity(batch, m, u_cols, A) : fortran_empty(batch, m, u_cols, A.dtype(), A.device());
    vh = fortran_empty(batch, n, n, A.dtype(), A.device());  // n = k (m >= n); 0 x 0 when n is 0
  }
  if (k == 0) return {u, s, vh};
  const ScalarType dtype = A.dtype();
  const int device = A.device().index;
  Tensor a = fortran_copy(A, batch);
  Tensor info = yaten::zeros({count}, ScalarType::Int, A.device());
  Tensor unused = yaten::empty({1}, dtype, A.device());  // U and V when not computed (not referenced)
  real_t* sd = s.data<real_t>();
  // gesvd on matrix i of `from` (a fresh copy: the routines destroy it), into s, u and vh
  auto by_qr = [&](const Tensor& from, int64_t i, int* inf) {
    scalar_t* ui = compute_uv ? u.data<scalar_t>() + i * m * u_cols : unused.data<scalar_t>();
    scalar_t* vi = compute_uv ? vh.data<scalar_t>() + i * n * n : unused.data<scalar_t>();
    solver::gesvd(op, dtype, device, !compute_uv ? 'N' : full_matrices ? 'A' : 'S', compute_uv ? 'A' : 'N', m, n,
                  from.data<scalar_t>() + i * m * n, m, sd + i * k, ui, m, vi, n, inf);
  };
  if (driver.has_value() && *driver == "gesvd") {
    for (int64_t i = 0; i < count; ++i) by_qr(a, i, info.data<int>() + i);
    raise_if_not_converged(op, cpu(info), "singular values");
    return {u, s, vh};
  }
  Tensor v = compute_uv ? fortran_empty(batch, n, n, dtype, A.device()) : unused;  // V, n = k
  if (CudaSolver::batched(count, m)) {  // full U (m x m) whatever full_matrices says
    Tensor uu = compute_uv ? fortran_empty(batch, m, m, dtype, A.device()) : unused;
    solver::gesvdj_batched(op, dtype, device, compute_uv, m, n, a.data<scalar_t>(), m, sd, uu.data<scalar_t>(), m,
                           v.data<scalar_t>(), n, info.data<int>(), count);
    if (compute_uv) u = full_matrices ? uu : fortran_copy(yaten::narrow(uu, -1, 0, k), batch);
  } else {
    for (int64_t i = 0; i < count; ++i) {
      solver::gesvdj(op, dtype, device, compute_uv, !full_matrices, m, n, a.data<scalar_t>() + i * m * n, m,
                     sd + i * k, compute_uv ? u.data<scalar_t>() + i * m * u_cols : unused.data<scalar_t>(), m,
                     compute_uv ? v.data<scalar_t>() + i * n * n : unused.data<scalar_t>(), n,
                     info.data<int>() + i);
    }
  }
  if (compute_uv) vh = fortran_copy(mH(v), batch);
  const Tensor jacobi_info = cpu(info);
  if (driver.has_value()) {  // "gesvdj" asked for by name: no other algorithm
    raise_if_not_converged(op, jacobi_info, "singular values");
    return {u, s, vh};
  }
  const int* failed = jacobi_info.data<int>();
  if (std::any_of(failed, failed + count, [](int f) { return f != 0; })) {  // as torch: gesvd where Jacobi failed
    const Tensor again = fortran_copy(A, batch);
    Tensor qr_info = yaten::zeros({count}, ScalarType::Int, A.device());
    for (int64_t i = 0; i < count; ++i) {
      if (failed[i] != 0) by_qr(again, i, qr_info.data<int>() + i);
    }
    raise_if_not_converged(op, cpu(qr_info), "singular values");
  }
  return {u, s, vh};
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
