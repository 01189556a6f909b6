// CPU linear algebra on LAPACK (core/lapack.h): LU, Cholesky, triangular solves, QR, SVD, symmetric and general
// eigendecompositions and least squares, for float32, float64, complex64 and complex128, batched.
//
// Note [LAPACK's layout]: LAPACK reads and writes column-major matrices. Each kernel copies its operand once into a
// batch of column-major matrices (a tensor whose last two dims have strides (1, rows), as torch's results have), runs
// the routine in place on every matrix of the batch, one matrix per call and the calls shared out over yaten's
// threads (each single-threaded: Note [One pool for the BLAS]), and returns those buffers as the results, so a factor
// such as LU is already in the layout that the next routine (lu_solve) reads without a copy. The autograd formulas
// and the composites over these kernels are in kernels/composite/linalg_lapack.h.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "core/blas.h"
#include "core/complex.h"
#include "core/gil.h"
#include "core/lapack.h"
#include "core/parallel.h"
#include "kernels/linalg_lapack_grad.h"  // the formulas its families' autograd kernels call
#include "kernels/linalg_lapack_kernels.h"
#include "kernels/linalg_lapack_support.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/squeeze.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/zeros.h"

namespace yaten::native::cpu {

namespace lapack_detail {
using linalg_support::batch_count;
using linalg_support::broadcast_batch;
using linalg_support::check_matrix;
using linalg_support::check_square;
using linalg_support::copy_into;
using linalg_support::fortran_copy;
using linalg_support::fortran_empty;
using linalg_support::raise_for_info;

// Multiply-adds of one matrix above which a batch smaller than the thread count runs its calls one after the other
// on OpenBLAS's own threads (Note [LAPACK on the BLAS's threads]) rather than one call per thread: about a 100 x 100
// factorization.
constexpr int64_t kThreadedLapackWork = int64_t(1) << 20;

// Runs f(i) for the batch's matrices over the pool, in chunks of about kGrainSize multiply-adds (`work` each), or,
// for a few large matrices, one by one: with OpenBLAS threaded, or, when `shares_out`, as they come (f shares out each
// matrix's work itself).
template <typename F>
void for_each_matrix(int64_t count, int64_t work, const F& f, bool shares_out = false) {
  lapack::check_address_space();
  yaten::detail::ScopedGilRelease release_gil(count * work > kGrainSize);
  if (work >= kThreadedLapackWork && count < get_num_threads()) {
    blas::ThreadedCalls threaded(!shares_out);
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  parallel_for(count, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) f(i);
  });
}

// The triangle of each column-major n x m matrix that LAPACK left untouched, zeroed (lower: zero above the diagonal).
template <typename scalar_t>
void zero_other_triangle(scalar_t* a, int64_t rows, int64_t cols, bool keep_lower) {
  for (int64_t j = 0; j < cols; ++j) {
    scalar_t* col = a + j * rows;
    if (keep_lower) {
      std::fill(col, col + std::min(j, rows), scalar_t(0));
    } else if (j + 1 < rows) {
      std::fill(col + j + 1, col + rows, scalar_t(0));
    }
  }
}

template <typename scalar_t>
real_of_t<scalar_t> abs_squared(const scalar_t& z) {
  if constexpr (is_complex_v<scalar_t>) {
    return z.re * z.re + z.im * z.im;
  } else {
    return z * z;
  }
}

// The CPU's backend of kernels/linalg_lapack_kernels.h: LAPACK's routines on one matrix, the batch over the pool.
struct CpuLapack {
  static constexpr const char* kDevice = "the CPU";
  static constexpr bool kBatched = false;  // LAPACK has no batched routines: for_each_matrix runs them in parallel
  using pivot_t = int;
  template <typename F>
  void for_each_matrix(int64_t count, int64_t work, const F& f) const { lapack_detail::for_each_matrix(count, work, f); }
  const Tensor& readable(const Tensor& t) const { return t; }
  template <typename T>
  void getrf(int64_t m, int64_t n, T* a, int64_t lda, int* ipiv, int* info) const {
    *info = lapack::getrf<T>(m, n, a, lda, ipiv);
  }
  template <typename T>
  void getrs(char trans, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int* ipiv, T* b, int64_t ldb,
             int*) const {
    lapack::getrs<T>(trans, n, nrhs, a, lda, ipiv, b, ldb);
  }
  template <typename T>
  void potrf(bool upper, int64_t n, T* a, int64_t lda, int* info) const {
    *info = lapack::potrf<T>(upper ? 'U' : 'L', n, a, lda);
  }
  template <typename T>
  void trsm(bool left, bool upper, bool unit, int64_t m, int64_t n, const T* a, int64_t lda, T* b,
            int64_t ldb) const {
    lapack::trsm<T>(left ? 'L' : 'R', upper ? 'U' : 'L', 'N', unit ? 'U' : 'N', m, n, a, lda, b, ldb);
  }
  template <typename T>
  void geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau, int*) const {
    lapack::geqrf<T>(m, n, a, lda, tau);
  }
  template <typename T>
  void orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau, int*) const {
    lapack::orgqr<T>(m, n, k, a, lda, tau);
  }
  template <typename T>
  void syevd(bool vectors, bool upper, int64_t n, T* a, int64_t lda, real_of_t<T>* w, int* info) const {
    *info = lapack::syevd<T>(vectors ? 'V' : 'N', upper ? 'U' : 'L', n, a, lda, w);
  }
  template <typename T>
  void zero_other_triangle(T* a, int64_t n, bool keep_lower) const {
    lapack_detail::zero_other_triangle(a, n, n, keep_lower);
  }
  void finish_triangle(const Tensor&, bool) const {}
  // R: the upper triangle of each matrix's first `rows` rows, copied (a loop: ops cost more than the copy for many
  // small matrices)
  Tensor upper_rows(const Tensor& work, int64_t rows, int64_t cols, const std::vector<int64_t>& batch) const {
    Tensor r = linalg_support::fortran_empty(batch, rows, cols, work.dtype(), work.device());
    const int64_t m = work.sizes()[work.dim() - 2], count = linalg_support::batch_count(batch);
    const int64_t ld = count > 1 ? work.strides()[work.dim() - 3] : m * cols, item = element_size(work.dtype());
    const char* w = static_cast<const char*>(work.data_ptr());
    char* rd = static_cast<char*>(r.data_ptr());
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const char* src = w + (i * ld + j * m) * item;
        char* dst = rd + (i * rows * cols + j * rows) * item;
        const int64_t keep = std::min(j + 1, rows);
        std::memcpy(dst, src, size_t(keep * item));
        std::memset(dst + keep * item, 0, size_t((rows - keep) * item));
      }
    }
    return r;
  }
  template <typename T>
  Tensor identity(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, const Tensor& like) const {
    Tensor q = linalg_support::fortran_empty(batch, rows, cols, like.dtype(), like.device());
    const int64_t count = linalg_support::batch_count(batch);
    T* d = q.data<T>();
    std::fill(d, d + count * rows * cols, T(0));
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t j = 0; j < std::min(rows, cols); ++j) d[i * rows * cols + j * rows + j] = T(1);
    }
    return q;
  }
};
}  // namespace lapack_detail

// linalg.lu_factor_ex, lu_solve, cholesky_ex and solve_triangular: the bodies shared with CUDA
// (kernels/linalg_lapack_kernels.h) on LAPACK.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_kernel(const Tensor& A, bool pivot, bool check_errors) {
  return linalg_kernels::lu_factor_ex<scalar_t>(lapack_detail::CpuLapack{}, A, pivot, check_errors);
}
template <typename scalar_t>
Tensor linalg_lu_solve_kernel(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return linalg_kernels::lu_solve<scalar_t>(lapack_detail::CpuLapack{}, LU, pivots, B, left, adjoint);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> linalg_cholesky_ex_kernel(const Tensor& A, bool upper, bool check_errors) {
  return linalg_kernels::cholesky_ex<scalar_t>(lapack_detail::CpuLapack{}, A, upper, check_errors);
}
template <typename scalar_t>
Tensor linalg_solve_triangular_kernel(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return linalg_kernels::solve_triangular<scalar_t>(lapack_detail::CpuLapack{}, A, B, upper, left, unitriangular);
}

// torch's linalg.ldl_factor_ex: A = L D L^T (L D L^H when hermitian) of a symmetric A read from its lower
// triangle, by Bunch-Kaufman pivoting (sytrf, hetrf): LD holds L and the blocks of D in its lower triangle (the upper
// zeroed, as torch's), pivots LAPACK's (int32; a negative pair marks a 2 x 2 block), info 0 or the first zero of D.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex_kernel(const Tensor& A, bool hermitian, bool check_errors) {
  using namespace lapack_detail;
  check_square("torch.linalg.ldl_factor_ex", A, "A");
  const int64_t n = A.sizes()[A.dim() - 1];
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  Tensor ld = fortran_copy(A, batch);
  std::vector<int64_t> p_shape = batch;
  p_shape.push_back(n);
  Tensor pivots = yaten::zeros(p_shape, ScalarType::Int, A.device());
  Tensor info = yaten::zeros(batch, ScalarType::Int, A.device());
  scalar_t* a = ld.data<scalar_t>();
  int* p = pivots.data<int>();
  int* inf = info.data<int>();
  if (n > 0) {
    for_each_matrix(batch_count(batch), n * n * n / 3, [&](int64_t i) {
      inf[i] = lapack::sytrf<scalar_t>(hermitian, n, a + i * n * n, n, p + i * n);
      zero_other_triangle(a + i * n * n, n, n, true);
    });
  }
  if (check_errors) raise_for_info("torch.linalg.ldl_factor_ex", info, "ldl");
  return {ld, pivots, info};
}

// X with A X = B from ldl_factor's LD and pivots, B's batch broadcast with LD's.
template <typename scalar_t>
Tensor linalg_ldl_solve_kernel(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  using namespace lapack_detail;
  check_square("torch.linalg.ldl_solve", LD, "LD");
  check_matrix("torch.linalg.ldl_solve", B, "B");
  YATEN_CHECK(B.dtype() == LD.dtype(), RuntimeError, "torch.linalg.ldl_solve: Expected LD and B to have the same "
              "dtype, but found LD of type ", dtype_name(LD.dtype()), " and B of type ", dtype_name(B.dtype()),
              " instead");
  YATEN_CHECK(pivots.dtype() == ScalarType::Int, RuntimeError, "torch.linalg.ldl_solve: pivots should be a Tensor of "
              "scalar type int32");
  const int64_t n = LD.sizes()[LD.dim() - 1], k = B.sizes()[B.dim() - 1];
  YATEN_CHECK(pivots.dim() == LD.dim() - 1 && pivots.sizes().back() == n, RuntimeError, "torch.linalg.ldl_solve: "
              "Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
              sizes_text(pivots.sizes()), " instead");
  YATEN_CHECK(B.sizes()[B.dim() - 2] == n, RuntimeError, "torch.linalg.ldl_solve: Incompatible shapes of A and B "
              "for the equation AX = B (", n, "x", n, " and ", B.sizes()[B.dim() - 2], "x", k, ")");
  const std::vector<int64_t> batch = broadcast_batch("torch.linalg.ldl_solve", LD, B);
  Tensor x = fortran_copy(B, batch);
  if (n == 0 || k == 0 || x.numel() == 0) return x;
  const Tensor ld = fortran_copy(LD, batch);
  std::vector<int64_t> p_shape = batch;
  p_shape.push_back(n);
  const Tensor piv = yaten::copy_(yaten::empty(p_shape, ScalarType::Int, LD.device()), yaten::expand(pivots, p_shape));
  const int* pd = piv.data<int>();
  // the pivots must be LAPACK's: an index in [1, n], or a negative one naming a 2 x 2 block
  for (int64_t i = 0; i < piv.numel(); ++i) {
    YATEN_CHECK(pd[i] != 0 && pd[i] >= -n && pd[i] <= n, RuntimeError, "torch.linalg.ldl_solve: pivots must come from "
                "ldl_factor (entries in [-n, n], not 0), but got ", pd[i]);
  }
  const scalar_t* a = ld.data<scalar_t>();
  scalar_t* b = x.data<scalar_t>();
  for_each_matrix(batch_count(batch), n * n * k, [&](int64_t i) {
    lapack::sytrs<scalar_t>(hermitian, n, k, a + i * n * n, n, pd + i * n, b + i * n * k, n);
  });
  return x;
}

// linalg.qr and geqrf: the bodies shared with CUDA (kernels/linalg_lapack_kernels.h) on LAPACK.
template <typename scalar_t>
std::tuple<Tensor, Tensor> linalg_qr_kernel(const Tensor& A, const std::string& mode) {
  return linalg_kernels::qr<scalar_t>(lapack_detail::CpuLapack{}, A, mode);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> geqrf_kernel(const Tensor& A) {
  return linalg_kernels::geqrf<scalar_t>(lapack_detail::CpuLapack{}, A);
}

// torch's _linalg_svd: A = U diag(S) Vh by divide and conquer (gesdd); U and Vh empty unless compute_uv.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _linalg_svd_kernel(const Tensor& A, bool full_matrices, bool compute_uv,
                                                      const std::optional<std::string>& driver) {
  using namespace lapack_detail;
  using real_t = real_of_t<scalar_t>;
  check_matrix("linalg.svd", A, "A");
  linalg_support::check_finite("linalg.svd", A);
  YATEN_CHECK(!driver.has_value(), ValueError, "linalg.svd: keyword argument `driver=` is only supported on CUDA "
              "inputs with cuSOLVER backend.");
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  const int64_t u_cols = full_matrices ? m : k, v_rows = full_matrices ? n : k;
  Tensor a = fortran_copy(A, batch);
  std::vector<int64_t> s_shape = batch;
  s_shape.push_back(k);
  Tensor s = yaten::empty(s_shape, scalar_type_of<real_t>, A.device());
  Tensor u = compute_uv ? fortran_empty(batch, m, u_cols, A.dtype(), A.device())
                        : yaten::empty({0}, A.dtype(), A.device());
  Tensor vh = compute_uv ? fortran_empty(batch, v_rows, n, A.dtype(), A.device())
                         : yaten::empty({0}, A.dtype(), A.device());
  const int64_t count = batch_count(batch);
  if (compute_uv && (m == 0 || n == 0)) {  // the SVD of an empty matrix: identities for the full factors
    for (Tensor* f : {&u, &vh}) {
      const int64_t rows = f->sizes()[f->dim() - 2], cols = f->sizes()[f->dim() - 1];
      scalar_t* d = f->template data<scalar_t>();
      std::fill(d, d + count * rows * cols, scalar_t(0));
      for (int64_t i = 0; i < count; ++i) {
        for (int64_t j = 0; j < std::min(rows, cols); ++j) d[i * rows * cols + j * rows + j] = scalar_t(1);
      }
    }
  }
  if (k == 0) return {u, s, vh};
  const char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  scalar_t* ad = a.data<scalar_t>();
  real_t* sd = s.data<real_t>();
  scalar_t* ud = compute_uv ? u.data<scalar_t>() : nullptr;
  scalar_t* vd = compute_uv ? vh.data<scalar_t>() : nullptr;
  std::vector<int> info(size_t(count), 0);
  std::vector<scalar_t> dummy(compute_uv ? 0 : 2);
  // Note [An SVD whose bidiagonalization shares out] (core/householder.cpp): such a matrix shares out its own work
  bool shares_out = false;
  if constexpr (!is_complex_v<scalar_t>) shares_out = lapack::svd_shares_out(m, n);
  for_each_matrix(count, m * n * k * 4, [&](int64_t i) {
    info[size_t(i)] = lapack::gesdd<scalar_t>(jobz, m, n, ad + i * m * n, m, sd + i * k,
                                              compute_uv ? ud + i * m * u_cols : dummy.data(), m,
                                              compute_uv ? vd + i * v_rows * n : dummy.data(), v_rows);
  }, shares_out);
  for (int64_t i = 0; i < count; ++i) {
    YATEN_CHECK(info[size_t(i)] <= 0, LinAlgError, "linalg.svd: ", count > 1 ? linalg_support::batch_text(i) : "",
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated singular values (error code: ", info[size_t(i)], ").");
  }
  return {u, s, vh};
}

// _linalg_eigh: the body shared with CUDA (kernels/linalg_lapack_kernels.h) on LAPACK's syevd/heevd.
template <typename scalar_t>
std::tuple<Tensor, Tensor> _linalg_eigh_kernel(const Tensor& A, const std::string& UPLO, bool compute_v) {
  return linalg_kernels::eigh<scalar_t>(lapack_detail::CpuLapack{}, A, UPLO, compute_v);
}

// The eigenvalues and, when compute_v, right eigenvectors (columns of unit norm) of a general square A, both complex
// (complex64 for float32 and complex64 inputs); eigenvectors empty otherwise.
template <typename scalar_t>
std::tuple<Tensor, Tensor> _linalg_eig_kernel(const Tensor& A, bool compute_v) {
  using namespace lapack_detail;
  using real_t = real_of_t<scalar_t>;
  using complex_t = Complex<real_t>;
  check_square("linalg.eig", A, "A");
  if (A.numel() > 0) {
    const Tensor ok = yaten::_to_copy(yaten::all(yaten::isfinite(A)), ScalarType::Bool, Device(DeviceType::CPU));
    YATEN_CHECK(*ok.data<bool>(), RuntimeError, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  }
  const int64_t n = A.sizes()[A.dim() - 1];
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  Tensor a = fortran_copy(A, batch);
  const ScalarType ctype = scalar_type_of<complex_t>;
  std::vector<int64_t> w_shape = batch;
  w_shape.push_back(n);
  Tensor w = yaten::empty(w_shape, ctype, A.device());
  Tensor v = compute_v ? fortran_empty(batch, n, n, ctype, A.device()) : yaten::empty({0}, ctype, A.device());
  const int64_t count = batch_count(batch);
  std::vector<int> info(size_t(count), 0);
  scalar_t* ad = a.data<scalar_t>();
  complex_t* wd = w.data<complex_t>();
  complex_t* vd = compute_v ? v.data<complex_t>() : nullptr;
  if (n > 0) {
    for_each_matrix(count, n * n * n * 10, [&](int64_t i) {
      info[size_t(i)] = lapack::geev<scalar_t>(n, ad + i * n * n, n, wd + i * n, compute_v ? vd + i * n * n : nullptr,
                                               n);
    });
  }
  for (int64_t i = 0; i < count; ++i) {
    YATEN_CHECK(info[size_t(i)] <= 0, LinAlgError, "linalg.eig: ", count > 1 ? linalg_support::batch_text(i) : "",
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated eigenvalues (error code: ", info[size_t(i)], ").");
  }
  return {w, v};
}

// torch's linalg.lstsq: the least-squares solution of A X = B (B's batch broadcast with A's), with the squared
// residuals (m > n, full rank, drivers other than gelsy), the effective rank (not gels) and the singular values
// (gelsd, gelss); each of those three empty where torch's is. driver: "gelsy" (the default), "gelsd", "gelss",
// "gels"; rcond: singular values below rcond * the largest count as zero (default: eps * max(m, n)).
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq_kernel(const Tensor& A, const Tensor& B,
                                                                std::optional<double> rcond,
                                                                const std::optional<std::string>& driver) {
  using namespace lapack_detail;
  using real_t = real_of_t<scalar_t>;
  check_matrix("linalg.lstsq", A, "A");
  linalg_support::check_finite("torch.linalg.lstsq", A);
  if (B.dim() == A.dim() - 1 && B.dim() >= 1 && B.sizes().back() == A.sizes()[A.dim() - 2]) {
    // a vector (or a batch of vectors) B: one column, the solution's squeezed again (the residuals keep it, as torch's)
    auto [x, residuals, rank, s] = linalg_lstsq_kernel<scalar_t>(A, yaten::unsqueeze(B, -1), rcond, driver);
    return {yaten::squeeze(x, -1), residuals, rank, s};
  }
  linalg_support::check_lstsq(A, B);
  const std::string name = driver.value_or("gelsy");
  YATEN_CHECK(name == "gelsy" || name == "gelsd" || name == "gelss" || name == "gels", RuntimeError,
              "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const char drv = name == "gelsy" ? 'y' : name == "gelsd" ? 'd' : name == "gelss" ? 's' : 'g';
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = B.sizes()[B.dim() - 1];
  const std::vector<int64_t> batch = broadcast_batch("torch.linalg.lstsq", A, B);
  const int64_t count = batch_count(batch), rows = std::max(m, n), mn = std::min(m, n);
  Tensor a = fortran_copy(A, batch);
  // B in the first m rows of a max(m, n) x k buffer; the solution comes back in its first n rows
  Tensor b = fortran_empty(batch, rows, k, A.dtype(), A.device());
  {
    std::vector<int64_t> shape = batch;
    shape.insert(shape.end(), {m, k});
    copy_into(b, -2, m, B, shape);
  }
  const bool has_s = drv == 'd' || drv == 's';
  const bool has_rank = drv != 'g';
  std::vector<int64_t> s_shape = batch, r_shape = batch;
  s_shape.push_back(mn);
  Tensor s = has_s ? yaten::empty(s_shape, scalar_type_of<real_t>, A.device())
                   : yaten::empty({0}, scalar_type_of<real_t>, A.device());
  Tensor rank = has_rank ? yaten::zeros(r_shape, ScalarType::Long, A.device())
                         : yaten::empty({0}, ScalarType::Long, A.device());
  const real_t cond = rcond.has_value() ? real_t(*rcond)
                                        : std::numeric_limits<real_t>::epsilon() * real_t(std::max<int64_t>(1, rows));
  std::vector<int> info(size_t(count), 0);
  scalar_t* ad = a.data<scalar_t>();
  scalar_t* bd = b.data<scalar_t>();
  real_t* sd = has_s ? s.data<real_t>() : nullptr;
  int64_t* rd = has_rank ? rank.data<int64_t>() : nullptr;
  if (mn > 0 && k > 0) {
    for_each_matrix(count, m * n * std::max(mn, k), [&](int64_t i) {
      info[size_t(i)] = lapack::gels<scalar_t>(drv, m, n, k, ad + i * m * n, m, bd + i * rows * k, rows, cond,
                                               has_rank ? rd + i : nullptr, has_s ? sd + i * mn : nullptr);
    });
  } else if (mn == 0 || k == 0) {
    std::fill(bd, bd + count * rows * k, scalar_t(0));  // the least-norm solution of an empty system
    if (has_s && mn > 0) {  // k == 0: the singular values still exist
      for_each_matrix(count, m * n * mn, [&](int64_t i) {
        info[size_t(i)] = lapack::gels<scalar_t>(drv, m, n, 0, ad + i * m * n, m, bd + i * rows * k,
                                                 std::max<int64_t>(1, rows), cond, rd + i, sd + i * mn);
      });
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    YATEN_CHECK(info[size_t(i)] <= 0, LinAlgError, "torch.linalg.lstsq: ",
                count > 1 ? linalg_support::batch_text(i) : "", drv == 'g'
                    ? "The least squares solution could not be computed because the input matrix does not have full "
                      "rank (error code: "
                    : "The algorithm failed to converge (error code: ", info[size_t(i)], ").");
  }
  // residuals: the squared norms of rows n..m of each solved column, when every matrix had full rank
  Tensor residuals = yaten::empty({0}, scalar_type_of<real_t>, A.device());
  bool full_rank = true;
  for (int64_t i = 0; has_rank && i < count; ++i) full_rank = full_rank && rd[i] == n;
  if (m > n && drv != 'y' && full_rank) {
    std::vector<int64_t> res_shape = batch;
    res_shape.push_back(k);
    residuals = yaten::empty(res_shape, scalar_type_of<real_t>, A.device());
    real_t* res = residuals.data<real_t>();
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        const scalar_t* col = bd + i * rows * k + j * rows;
        real_t sum = 0;
        for (int64_t r = n; r < m; ++r) sum += abs_squared(col[r]);
        res[i * k + j] = sum;
      }
    }
  }
  Tensor solution = rows == n ? b : fortran_copy(yaten::narrow(b, -2, 0, n), batch);
  return {solution, residuals, rank, s};
}

}  // namespace yaten::native::cpu
