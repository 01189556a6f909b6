// The bodies of the factorization kernels that the CPU (LAPACK, kernels/cpu/lapack.h) and CUDA (cuSOLVER,
// kernels/cuda/solver.cuh) share: lu_factor_ex, lu_solve, cholesky_ex, solve_triangular, geqrf, qr and eigh, written
// once over a backend `be` that runs one matrix's routine (Note [LAPACK's layout]: column-major copies, a routine per
// matrix of the batch, in place). So the CUDA kernels run the code the CPU's tests hold to torch, but for the
// routines themselves. A backend has:
//   kDevice                   "the CPU" or "CUDA", in messages
//   kBatched                  whether it has batched routines for many small matrices; if so, batched(count, n)
//                             says whether `count` n x n matrices take them, and getrf_batched (int32 pivots),
//                             getrs_batched, potrf_batched and syevj_batched run a whole batch in one call
//   pivot_t                   the pivots' integer type of its getrf (int for LAPACK, int64_t for cuSOLVER's 64-bit API)
//   for_each_matrix(count, work, f)   f(i) for each matrix (in parallel on the CPU; work: one call's multiply-adds)
//   readable(t)               t where the host can read it (a copy to the CPU for CUDA)
//   getrf, getrs, potrf, trsm, geqrf, orgqr, syevd   one matrix's routine; `info` points at the matrix's element of
//                             an int tensor on the device, written by the routine (getrs, geqrf and orgqr write 0)
//   zero_other_triangle(a, n, keep_lower) within the loop, and finish_triangle(t, upper) after it: a Cholesky
//                             factor's other triangle zeroed (the CPU in the loop, CUDA by one op after it)
//   upper_rows(work, rows, cols, batch)   the upper triangle of each matrix's first rows x cols (qr's R), zero below
//   identity<T>(batch, rows, cols, like)  the identity's first cols columns, per matrix (qr's Q of no reflector)
#pragma once

#include <algorithm>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernels/linalg_lapack_grad.h"
#include "kernels/linalg_lapack_support.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/zeros.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::linalg_kernels {

using linalg_support::batch_count;
using linalg_support::broadcast_batch;
using linalg_support::check_matrix;
using linalg_support::check_square;
using linalg_support::fortran_copy;
using linalg_support::fortran_empty;

inline std::vector<int64_t> batch_of(const Tensor& a) {
  return std::vector<int64_t>(a.sizes().begin(), a.sizes().end() - 2);
}
inline std::vector<int64_t> with(std::vector<int64_t> batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}
template <typename Backend>
constexpr ScalarType pivot_dtype = std::is_same_v<typename Backend::pivot_t, int> ? ScalarType::Int : ScalarType::Long;

// Whether `count` n x n matrices take the backend's batched routines (Backend::kBatched; never on the CPU).
template <typename Backend>
bool takes_batched(const Backend& be, int64_t count, int64_t n) {
  if constexpr (Backend::kBatched) {
    return be.batched(count, n);
  } else {
    return false;
  }
}

// LinAlgError for an info > 0 of an iterative routine (the SVD's, eigh's, eig's), naming the batch element.
inline void raise_if_not_converged(const char* op, const Tensor& host_info, const char* what) {
  const int* d = host_info.data<int>();
  const int64_t count = host_info.numel();
  for (int64_t i = 0; i < count; ++i) {
    YATEN_CHECK(d[i] <= 0, LinAlgError, op, ": ", count > 1 ? linalg_support::batch_text(i) : "",
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated ", what, " (error code: ", d[i], ").");
  }
}

// linalg.lu_factor_ex: P A = L U with partial pivoting; LU holds L (unit diagonal, not stored) and U, pivots
// LAPACK's 1-based row swaps (int32), info 0 or the (1-based) first zero of U's diagonal.
template <typename scalar_t, typename Backend>
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Backend& be, const Tensor& A, bool pivot, bool check_errors) {
  check_matrix("linalg.lu_factor_ex", A, "A");
  YATEN_CHECK(pivot || A.numel() == 0, NotImplementedError, "linalg.lu_factor: LU without pivoting is not "
              "implemented on ", Backend::kDevice);
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t count = batch_count(batch);
  const bool batched = m == n && takes_batched(be, count, n);
  Tensor lu = fortran_copy(A, batch);
  Tensor pivots = yaten::zeros(with(batch, {k}), batched ? ScalarType::Int : pivot_dtype<Backend>, A.device());
  Tensor info = yaten::zeros(batch, ScalarType::Int, A.device());
  scalar_t* a = lu.data<scalar_t>();
  int* inf = info.data<int>();
  if (batched) {
    if constexpr (Backend::kBatched) be.getrf_batched(n, a, pivots.data<int>(), inf, count);
  } else if (m > 0 && n > 0) {
    auto* p = pivots.data<typename Backend::pivot_t>();
    be.for_each_matrix(count, m * n * k, [&](int64_t i) { be.getrf(m, n, a + i * m * n, m, p + i * k, inf + i); });
  }
  if (check_errors) linalg_support::raise_for_info("linalg.lu_factor_ex", be.readable(info), "lu");
  if (pivots.dtype() != ScalarType::Int) pivots = yaten::_to_copy(pivots, ScalarType::Int, std::nullopt);
  return {lu, pivots, info};
}

// X = op(A)^-1 B from A's LU factors (op: A, or its conjugate transpose when adjoint), B's batch broadcast with LU's;
// left=False solves X op(A) = B.
template <typename scalar_t, typename Backend>
Tensor lu_solve(const Backend& be, const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  linalg_support::check_lu_solve(LU, pivots, B);
  const int64_t n = LU.sizes()[LU.dim() - 1];
  if (!left) {
    // X op(A) = B is op(A)^H X^H = B^H
    using linalg_lapack::mH;  // kernels/linalg_lapack_grad.h's (*, m, n) -> (*, n, m), conjugated
    return mH(lu_solve<scalar_t>(be, LU, pivots, mH(B), true, !adjoint));
  }
  const int64_t k = B.sizes()[B.dim() - 1];
  linalg_support::check_lu_solve_rows(n, B);
  const std::vector<int64_t> batch = broadcast_batch("linalg.lu_solve", LU, B);
  Tensor x = fortran_copy(B, batch);
  if (n == 0 || k == 0 || x.numel() == 0) return x;
  const int64_t count = batch_count(batch);
  const bool batched = takes_batched(be, count, n);
  const ScalarType p_dtype = batched ? ScalarType::Int : pivot_dtype<Backend>;
  const std::vector<int64_t> lu_shape = with(batch, {n, n}), p_shape = with(batch, {n});
  const Tensor lu = linalg_support::is_fortran(LU) && LU.sizes() == lu_shape ? LU : fortran_copy(LU, batch);
  const bool usable = p_dtype == ScalarType::Int && pivots.is_contiguous() && pivots.sizes() == p_shape;
  const Tensor piv = usable ? pivots
                            : yaten::copy_(yaten::empty(p_shape, p_dtype, LU.device()), yaten::expand(pivots, p_shape));
  const char trans = !adjoint ? 'N' : is_complex_v<scalar_t> ? 'C' : 'T';
  const scalar_t* a = lu.data<scalar_t>();
  scalar_t* b = x.data<scalar_t>();
  if (batched) {
    if constexpr (Backend::kBatched) be.getrs_batched(trans, n, k, a, piv.data<int>(), b, count);
    return x;
  }
  Tensor info = yaten::zeros({1}, ScalarType::Int, LU.device());  // getrs's: arguments are checked here
  const auto* p = piv.data<typename Backend::pivot_t>();
  be.for_each_matrix(count, n * n * k, [&](int64_t i) {
    be.getrs(trans, n, k, a + i * n * n, n, p + i * n, b + i * n * k, n, info.data<int>());
  });
  return x;
}

// linalg.cholesky_ex: A = L L^H (upper: A = U^H U) of a Hermitian positive-definite A read from that triangle; the
// other triangle zeroed; info 0 or the order of the first leading minor that is not positive-definite.
template <typename scalar_t, typename Backend>
std::tuple<Tensor, Tensor> cholesky_ex(const Backend& be, const Tensor& A, bool upper, bool check_errors) {
  check_square("linalg.cholesky_ex", A, "A");
  const int64_t n = A.sizes()[A.dim() - 1];
  const std::vector<int64_t> batch = batch_of(A);
  Tensor l = fortran_copy(A, batch);
  Tensor info = yaten::zeros(batch, ScalarType::Int, A.device());
  scalar_t* a = l.data<scalar_t>();
  int* inf = info.data<int>();
  const int64_t count = batch_count(batch);
  if (takes_batched(be, count, n)) {
    if constexpr (Backend::kBatched) be.potrf_batched(upper, n, a, inf, count);
    be.finish_triangle(l, upper);
  } else if (n > 0) {
    be.for_each_matrix(count, n * n * n / 3, [&](int64_t i) {
      be.potrf(upper, n, a + i * n * n, n, inf + i);
      be.zero_other_triangle(a + i * n * n, n, !upper);
    });
    be.finish_triangle(l, upper);
  }
  if (check_errors) linalg_support::raise_for_info("linalg.cholesky_ex", be.readable(info), "cholesky");
  return {l, info};
}

// X with A X = B (left) or X A = B, A triangular (only its `upper` triangle read; unit diagonal when unitriangular).
template <typename scalar_t, typename Backend>
Tensor solve_triangular(const Backend& be, const Tensor& A, const Tensor& B, bool upper, bool left,
                        bool unitriangular) {
  linalg_support::check_solve_triangular(A, B, left);
  const int64_t n = A.sizes()[A.dim() - 1], rows = B.sizes()[B.dim() - 2], cols = B.sizes()[B.dim() - 1];
  const std::vector<int64_t> batch = broadcast_batch("linalg.solve_triangular", A, B);
  Tensor x = fortran_copy(B, batch);
  if (x.numel() == 0) return x;
  const Tensor a = fortran_copy(A, batch);
  const scalar_t* ad = a.data<scalar_t>();
  scalar_t* bd = x.data<scalar_t>();
  be.for_each_matrix(batch_count(batch), n * n * (left ? cols : rows), [&](int64_t i) {
    be.trsm(left, upper, unitriangular, rows, cols, ad + i * n * n, n, bd + i * rows * cols, rows);
  });
  return x;
}

// geqrf itself (torch.geqrf): R above the diagonal of `a`, the reflectors below it and in tau.
template <typename scalar_t, typename Backend>
std::tuple<Tensor, Tensor> geqrf(const Backend& be, const Tensor& A) {
  check_matrix("geqrf", A, "input");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  Tensor a = fortran_copy(A, batch);
  Tensor tau = yaten::empty(with(batch, {k}), A.dtype(), A.device());
  if (k > 0) {
    Tensor info = yaten::zeros({1}, ScalarType::Int, A.device());
    scalar_t* ad = a.data<scalar_t>();
    scalar_t* td = tau.data<scalar_t>();
    be.for_each_matrix(batch_count(batch), m * n * k,
                       [&](int64_t i) { be.geqrf(m, n, ad + i * m * n, m, td + i * k, info.data<int>()); });
  }
  return {a, tau};
}

// linalg.qr: A = Q R, mode "reduced" (Q m x k, R k x n, k = min(m, n)), "complete" (Q m x m, R m x n) or "r" (R
// only; Q empty).
template <typename scalar_t, typename Backend>
std::tuple<Tensor, Tensor> qr(const Backend& be, const Tensor& A, const std::string& mode) {
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
  if (m > 0 && n > 0) {
    be.for_each_matrix(count, m * n * k, [&](int64_t i) {
      be.geqrf(m, n, w + i * m * work_cols, m, t + i * k, info.data<int>());
    });
  }
  Tensor r = be.upper_rows(yaten::narrow(work, -1, 0, n), r_rows, n, batch);
  if (mode == "r") return {yaten::empty({0}, A.dtype(), A.device()), r};
  if (m > 0 && k == 0) return {be.template identity<scalar_t>(batch, m, q_cols, A), r};  // no reflectors
  if (m > 0) {
    be.for_each_matrix(count, m * q_cols * k, [&](int64_t i) {
      be.orgqr(m, q_cols, k, w + i * m * work_cols, m, t + i * k, info.data<int>());
    });
  }
  Tensor q = work_cols == q_cols ? work : fortran_copy(yaten::narrow(work, -1, 0, q_cols), batch);
  return {q, r};
}

// _linalg_eigh: the eigenvalues (ascending, real) and, when compute_v, orthonormal eigenvectors (columns) of a
// Hermitian A read from its UPLO ("L" or "U") triangle; eigenvectors empty otherwise.
template <typename scalar_t, typename Backend>
std::tuple<Tensor, Tensor> eigh(const Backend& be, const Tensor& A, const std::string& UPLO, bool compute_v) {
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
    int* inf = info.data<int>();
    if (takes_batched(be, count, n)) {
      if constexpr (Backend::kBatched) be.syevj_batched(compute_v, upper, n, vd, wd, inf, count);
    } else {
      be.for_each_matrix(count, n * n * n * 4, [&](int64_t i) {
        be.syevd(compute_v, upper, n, vd + i * n * n, n, wd + i * n, inf + i);
      });
    }
    raise_if_not_converged("linalg.eigh", be.readable(info), "eigenvalues");
  }
  if (!compute_v) v = yaten::empty({0}, A.dtype(), A.device());
  return {w, v};
}

}  // namespace yaten::native::linalg_kernels
