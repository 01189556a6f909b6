// torch.linalg over the factorizations of kernels/cpu/lapack.h: solve, inv, det, slogdet, the unpacked LU, pinv,
// matrix_rank, the matrix norms, cond, matrix_power, matrix_exp, cross, multi_dot, vander and torch's older names
// (torch.svd, torch.qr, cholesky_solve, triangular_solve, lu_solve, lu_unpack, ...). The derivative formulas of the
// composites that own one (_linalg_solve_ex, _linalg_det, _linalg_slogdet, linalg_pinv) are in
// kernels/linalg_lapack_grad.h with the factorizations'.
#pragma once

#include "kernels/linalg_lapack_grad.h"
#include "yaten/ops/_linalg_det.h"
#include "yaten/ops/_linalg_slogdet.h"
#include "yaten/ops/_linalg_solve_ex.h"
#include "yaten/ops/linalg_ldl_factor_ex.h"
#include "yaten/ops/maximum.h"

namespace yaten::native {

// ---------------------------------------------------------------------------------------------------- composites

inline std::tuple<Tensor, Tensor> linalg_lu_factor_impl(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = yaten::linalg_lu_factor_ex(A, pivot, false);
  linalg_support::raise_for_info("linalg.lu_factor", yaten::_to_copy(info, std::nullopt, Device(DeviceType::CPU)), "lu");
  return {LU, pivots};
}

inline std::tuple<Tensor, Tensor> linalg_ldl_factor_impl(const Tensor& self, bool hermitian) {
  auto [LD, pivots, info] = yaten::linalg_ldl_factor_ex(self, hermitian, false);
  linalg_support::raise_for_info("torch.linalg.ldl_factor", yaten::_to_copy(info, std::nullopt, Device(DeviceType::CPU)),
                                 "ldl");
  return {LD, pivots};
}

// torch's lu_unpack: P, L (unit lower, m x k) and U (upper, k x n) from LU's packed factors.
inline std::tuple<Tensor, Tensor, Tensor> lu_unpack_impl(const Tensor& LU, const Tensor& pivots, bool unpack_data,
                                                         bool unpack_pivots) {
  linalg_support::check_matrix("torch.lu_unpack", LU, "LU_data");
  using namespace linalg_lapack;
  const int64_t m = rows(LU), n = cols(LU), k = std::min(m, n);
  YATEN_CHECK(!unpack_pivots || pivots.dtype() == ScalarType::Int, RuntimeError, "torch.lu_unpack: LU_pivots is "
              "expected to be a contiguous tensor of torch.int32 dtype.");
  YATEN_CHECK(!unpack_pivots || pivots.dim() == LU.dim() - 1 && pivots.sizes().back() == k &&
              std::equal(pivots.sizes().begin(), pivots.sizes().end() - 1, LU.sizes().begin()), RuntimeError,
              "torch.lu_unpack: LU_pivots of shape ", sizes_text(pivots.sizes()), " do not match LU_data of shape ",
              sizes_text(LU.sizes()), " (expected LU_data.shape[:-2] + (min(m, n),))");
  Tensor L, U, P;
  if (unpack_data) {
    const Tensor lower = yaten::narrow(LU, -1, 0, k);
    L = yaten::add(yaten::tril(lower, -1), yaten::narrow(yaten::eye(m, k, LU.dtype(), LU.device()), 0, 0, m));
    U = yaten::triu(yaten::narrow(LU, -2, 0, k));
  } else {
    L = yaten::empty({0}, LU.dtype(), LU.device());
    U = yaten::empty({0}, LU.dtype(), LU.device());
  }
  P = unpack_pivots ? pivots_to_permutation(pivots, m, LU.dtype(), LU.device())
                    : yaten::empty({0}, LU.dtype(), LU.device());
  return {P, L, U};
}

inline std::tuple<Tensor, Tensor, Tensor> linalg_lu_impl(const Tensor& A, bool pivot) {
  const auto [LU, pivots, info] = yaten::linalg_lu_factor_ex(A, pivot, false);
  return lu_unpack_impl(LU, pivots, true, pivot);  // without pivoting, P is empty (torch's)
}

// torch.lu_solve(b, LU_data, LU_pivots)
inline Tensor lu_solve_impl(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return yaten::linalg_lu_solve(LU_data, LU_pivots, self, true, false);
}

// A X = B (X B = A for left=False) through A's LU; B a matrix here (linalg_solve_ex handles vectors).
inline std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_solve_ex_impl(const Tensor& A, const Tensor& B, bool left,
                                                                         bool check_errors) {
  linalg_support::check_square("linalg.solve", A, "A");
  auto [LU, pivots, info] = yaten::linalg_lu_factor_ex(A, true, false);
  if (check_errors) {
    linalg_support::raise_for_info("linalg.solve", yaten::_to_copy(info, std::nullopt, Device(DeviceType::CPU)), "solve");
  }
  Tensor X = yaten::linalg_lu_solve(LU, pivots, B, left, false);
  return {X, LU, pivots, info};
}

inline std::tuple<Tensor, Tensor> linalg_solve_ex_impl(const Tensor& A, const Tensor& B, bool left,
                                                       bool check_errors) {
  linalg_support::check_square("linalg.solve", A, "A");
  YATEN_CHECK(A.dtype() == B.dtype(), RuntimeError, "linalg.solve: Expected A and B to have the same dtype, but found "
              "A of type ", dtype_name(A.dtype()), " and B of type ", dtype_name(B.dtype()), " instead");
  const bool vector = linalg_lapack::vector_rhs(A, B);
  YATEN_CHECK(!vector || left, RuntimeError, "linalg.solve: Vector broadcasting of the left hand side is not "
              "supported for left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
  const Tensor b = vector ? yaten::unsqueeze(B, -1) : B;
  YATEN_CHECK(b.dim() >= 2, RuntimeError, "linalg.solve: The input tensor B must have at least 2 dimensions.");
  auto [X, LU, pivots, info] = yaten::_linalg_solve_ex(A, b, left, check_errors);
  return {vector ? yaten::squeeze(X, -1) : X, info};
}

inline Tensor linalg_solve_impl(const Tensor& A, const Tensor& B, bool left) {
  return std::get<0>(linalg_solve_ex_impl(A, B, left, true));
}

inline std::tuple<Tensor, Tensor> linalg_inv_ex_impl(const Tensor& A, bool check_errors) {
  linalg_support::check_square("linalg.inv", A, "A");
  const int64_t n = linalg_lapack::cols(A);
  const Tensor I = yaten::expand(yaten::eye(n, A.dtype(), A.device()), A.sizes());
  auto [X, LU, pivots, info] = yaten::_linalg_solve_ex(A, I, true, false);
  if (check_errors) {
    linalg_support::raise_for_info("linalg.inv", yaten::_to_copy(info, std::nullopt, Device(DeviceType::CPU)), "inv");
  }
  return {X, info};
}

inline Tensor linalg_inv_impl(const Tensor& A) { return std::get<0>(linalg_inv_ex_impl(A, true)); }

inline Tensor inverse_impl(const Tensor& self) { return linalg_inv_impl(self); }

inline Tensor linalg_cholesky_impl(const Tensor& A, bool upper) {
  auto [L, info] = yaten::linalg_cholesky_ex(A, upper, false);
  linalg_support::raise_for_info("linalg.cholesky", yaten::_to_copy(info, std::nullopt, Device(DeviceType::CPU)), "cholesky");
  return L;
}

inline Tensor cholesky_impl(const Tensor& self, bool upper) { return linalg_cholesky_impl(self, upper); }

// torch.cholesky_solve(B, L, upper): A X = B for A = L L^H (upper: U^H U), two triangular solves.
inline Tensor cholesky_solve_impl(const Tensor& self, const Tensor& input2, bool upper) {
  using linalg_lapack::mH;
  if (upper) {
    const Tensor y = yaten::linalg_solve_triangular(mH(input2), self, false, true, false);
    return yaten::linalg_solve_triangular(input2, y, true, true, false);
  }
  const Tensor y = yaten::linalg_solve_triangular(input2, self, false, true, false);
  return yaten::linalg_solve_triangular(mH(input2), y, true, true, false);
}

// torch.cholesky_inverse(L, upper): (L L^H)^-1.
inline Tensor cholesky_inverse_impl(const Tensor& self, bool upper) {
  linalg_support::check_square("cholesky_inverse", self, "input");
  linalg_support::check_floating("cholesky_inverse", self);
  {  // torch's check: a zero on L's diagonal makes A singular
    const Tensor zero = yaten::eq(yaten::diagonal(self, 0, -2, -1), Scalar(0.0));
    const Tensor cpu = yaten::_to_copy(zero, ScalarType::Bool, Device(DeviceType::CPU));
    const int64_t n = linalg_lapack::cols(self), count = n > 0 ? cpu.numel() / n : 0;
    const bool* z = cpu.data<bool>();
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < n; ++i) {
        YATEN_CHECK(!z[b * n + i], LinAlgError, "cholesky_inverse: ", self.dim() > 2 ? linalg_support::batch_text(b)
                    : "", "The diagonal element ", i + 1, " is zero, the inversion could not be completed because the "
                    "input matrix is singular.");
      }
    }
  }
  const int64_t n = linalg_lapack::cols(self);
  const Tensor I = yaten::expand(yaten::eye(n, self.dtype(), self.device()), self.sizes());
  return cholesky_solve_impl(I, self, upper);
}

// torch.triangular_solve(b, A, upper=True, transpose=False, unitriangular=False): (solution, a copy of A).
inline std::tuple<Tensor, Tensor> triangular_solve_impl(const Tensor& self, const Tensor& A, bool upper,
                                                        bool transpose, bool unitriangular) {
  const Tensor a = transpose ? linalg_lapack::mT(A) : A;
  Tensor x = yaten::linalg_solve_triangular(a, self, transpose ? !upper : upper, true, unitriangular);
  return {x, yaten::clone(A)};
}

inline std::tuple<Tensor, Tensor, Tensor> _linalg_det_impl(const Tensor& A) {
  linalg_support::check_square("linalg.det", A, "A");
  auto [LU, pivots, info] = yaten::linalg_lu_factor_ex(A, true, false);
  const Tensor det = yaten::mul(yaten::prod(yaten::diagonal(LU, 0, -2, -1), -1, false, std::nullopt),
                                linalg_lapack::permutation_sign(pivots, A.dtype()));
  return {det, LU, pivots};
}

inline Tensor linalg_det_impl(const Tensor& A) { return std::get<0>(yaten::_linalg_det(A)); }
inline Tensor det_impl(const Tensor& self) { return linalg_det_impl(self); }

// sign(det) and log|det| from the LU: sign(P) prod(sgn(u_ii)), sum(log|u_ii|) (-inf and sign 0 when singular).
inline std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet_impl(const Tensor& A) {
  linalg_support::check_square("linalg.slogdet", A, "A");
  auto [LU, pivots, info] = yaten::linalg_lu_factor_ex(A, true, false);
  const Tensor d = yaten::diagonal(LU, 0, -2, -1);
  const Tensor sign = yaten::mul(yaten::prod(yaten::sgn(d), -1, false, std::nullopt),
                                 linalg_lapack::permutation_sign(pivots, A.dtype()));
  const Tensor logabsdet = yaten::sum(yaten::log(yaten::abs(d)), std::vector<int64_t>{-1}, false, std::nullopt);
  return {sign, logabsdet, LU, pivots};
}

inline std::tuple<Tensor, Tensor> linalg_slogdet_impl(const Tensor& A) {
  auto [sign, logabsdet, LU, pivots] = yaten::_linalg_slogdet(A);
  return {sign, logabsdet};
}
inline std::tuple<Tensor, Tensor> slogdet_impl(const Tensor& self) { return linalg_slogdet_impl(self); }

// torch.logdet: log(det); NaN for a negative real determinant, log(sign) + log|det| for complex ones.
inline Tensor logdet_impl(const Tensor& self) {
  auto [sign, logabsdet, LU, pivots] = yaten::_linalg_slogdet(self);
  if (is_complex(self.dtype())) return yaten::add(yaten::log(sign), logabsdet);
  return yaten::where(yaten::lt(sign, Scalar(0.0)), Scalar(std::numeric_limits<double>::quiet_NaN()), logabsdet);
}

inline std::tuple<Tensor, Tensor, Tensor> linalg_svd_impl(const Tensor& A, bool full_matrices,
                                                          const std::optional<std::string>& driver) {
  return yaten::_linalg_svd(A, full_matrices, true, driver);
}

// The singular values; U and V computed too only when a gradient will need them (as torch does).
inline Tensor linalg_svdvals_impl(const Tensor& A, const std::optional<std::string>& driver) {
  return std::get<1>(yaten::_linalg_svd(A, false, linalg_lapack::wants_grad(A), driver));
}

// torch.svd: V rather than V^H; with compute_uv=False, U and V zero-filled m x m and n x n.
inline std::tuple<Tensor, Tensor, Tensor> svd_impl(const Tensor& self, bool some, bool compute_uv) {
  using namespace linalg_lapack;
  if (!compute_uv) {
    linalg_support::check_matrix("svd", self, "input");
    const Tensor S = linalg_svdvals_impl(self, std::nullopt);
    std::vector<int64_t> u_shape(self.sizes().begin(), self.sizes().end() - 2), v_shape = u_shape;
    u_shape.insert(u_shape.end(), {rows(self), rows(self)});
    v_shape.insert(v_shape.end(), {cols(self), cols(self)});
    return {yaten::zeros(u_shape, self.dtype(), self.device()), S, yaten::zeros(v_shape, self.dtype(), self.device())};
  }
  auto [U, S, Vh] = yaten::_linalg_svd(self, !some, true, std::nullopt);
  return {U, S, mH(Vh)};
}

inline std::tuple<Tensor, Tensor> linalg_eigh_impl(const Tensor& A, const std::string& UPLO) {
  return yaten::_linalg_eigh(A, UPLO, true);
}
inline Tensor linalg_eigvalsh_impl(const Tensor& A, const std::string& UPLO) {
  return std::get<0>(yaten::_linalg_eigh(A, UPLO, linalg_lapack::wants_grad(A)));
}
inline std::tuple<Tensor, Tensor> linalg_eig_impl(const Tensor& A) { return yaten::_linalg_eig(A, true); }
inline Tensor linalg_eigvals_impl(const Tensor& A) {
  return std::get<0>(yaten::_linalg_eig(A, linalg_lapack::wants_grad(A)));
}

// torch.qr(A, some=True)
inline std::tuple<Tensor, Tensor> qr_impl(const Tensor& self, bool some) {
  return yaten::linalg_qr(self, some ? "reduced" : "complete");
}

namespace linalg_lapack {
// torch's tolerance for pinv and matrix_rank: max(atol, rtol * the largest singular value), per matrix, atol and rtol
// broadcast with the batch; rtol defaults to eps * max(m, n) where atol is absent or not positive, else to 0.
// `largest` is (*) in the singular values' dtype; the result is (*, 1), ready to compare with them.
inline Tensor tolerance(const Tensor& A, const Tensor& largest, const Tensor& atol, const Tensor& rtol) {
  const ScalarType real = largest.dtype();
  const double eps = real == ScalarType::Float ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  const Scalar default_rtol(eps * double(std::max(rows(A), cols(A))));
  Tensor r;
  if (rtol.defined()) {
    r = yaten::_to_copy(rtol, real);
  } else if (atol.defined()) {
    r = yaten::where(yaten::gt(atol, Scalar(0.0)), Scalar(0.0), yaten::full({}, default_rtol, real, A.device()));
  } else {
    r = yaten::full({}, default_rtol, real, A.device());
  }
  // as torch: atol and rtol broadcast against the values' batch, each with a trailing dim of 1
  Tensor tol = yaten::mul(yaten::unsqueeze(largest, -1), yaten::unsqueeze(r, -1));
  if (atol.defined()) tol = yaten::maximum(tol, yaten::unsqueeze(yaten::_to_copy(atol, real), -1));
  return tol;
}
// A Python number given for atol or rtol, as a 0-dim tensor.
inline Tensor number_tensor(const std::optional<double>& v, const Tensor& A) {
  return v.has_value() ? yaten::full({}, Scalar(*v), ScalarType::Double, A.device()) : Tensor();
}
// The largest of each matrix's values (*, k), 0 for an empty matrix.
inline Tensor largest_or_zero(const Tensor& values) {
  if (values.sizes().back() > 0) return yaten::amax(values, {-1}, false);
  return yaten::zeros(std::vector<int64_t>(values.sizes().begin(), values.sizes().end() - 1), values.dtype(),
                      values.device());
}
}  // namespace linalg_lapack

// The pseudo-inverse from the SVD (or, hermitian, the eigendecomposition), singular values at or below the
// tolerance treated as zero; its derivative is linalg_grad::pinv_backward.
inline Tensor linalg_pinv_tensor_impl(const Tensor& A, const Tensor& atol, const Tensor& rtol, bool hermitian) {
  using namespace linalg_lapack;
  linalg_support::check_matrix("linalg.pinv", A, "A");
  linalg_support::check_floating("linalg.pinv", A);
  if (A.numel() == 0) {
    std::vector<int64_t> shape = A.sizes();
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return yaten::zeros(shape, A.dtype(), A.device());
  }
  if (hermitian) {
    auto [w, V] = yaten::_linalg_eigh(A, "L", true);
    const Tensor mag = yaten::abs(w);
    const Tensor tol = tolerance(A, yaten::amax(mag, {-1}, false), atol, rtol);
    const Tensor inv = yaten::where(yaten::gt(mag, tol), yaten::reciprocal(w), Scalar(0.0));
    return yaten::matmul(scale_columns(V, yaten::_to_copy(inv, A.dtype())), mH(V));
  }
  auto [U, S, Vh] = yaten::_linalg_svd(A, false, true, std::nullopt);
  const Tensor tol = tolerance(A, yaten::amax(S, {-1}, false), atol, rtol);
  const Tensor inv = yaten::where(yaten::gt(S, tol), yaten::reciprocal(S), Scalar(0.0));
  return yaten::matmul(scale_columns(mH(Vh), yaten::_to_copy(inv, A.dtype())), mH(U));
}

// rcond: rtol's older name.
inline Tensor linalg_pinv_impl(const Tensor& A, std::optional<double> rcond, bool hermitian, std::optional<double> atol,
                               std::optional<double> rtol) {
  using linalg_lapack::number_tensor;
  YATEN_CHECK(!(rcond.has_value() && (atol.has_value() || rtol.has_value())), TypeError, "linalg.pinv() takes "
              "either rcond or atol and rtol, not both");
  return linalg_pinv_tensor_impl(A, number_tensor(atol, A), number_tensor(rtol.has_value() ? rtol : rcond, A),
                                 hermitian);
}

inline Tensor pinverse_impl(const Tensor& self, double rcond) {
  return yaten::linalg_pinv(self, std::nullopt, false, std::nullopt, rcond);
}

// The number of singular values (|eigenvalues| when hermitian) above the tolerance.
inline Tensor linalg_matrix_rank_tensor_impl(const Tensor& A, const Tensor& atol, const Tensor& rtol, bool hermitian) {
  using namespace linalg_lapack;
  linalg_support::check_matrix("linalg.matrix_rank", A, "A");
  linalg_support::check_floating("linalg.matrix_rank", A);
  if (A.numel() == 0) {  // torch's: rank 0, whatever the tolerances' shapes
    return yaten::zeros(std::vector<int64_t>(A.sizes().begin(), A.sizes().end() - 2), ScalarType::Long, A.device());
  }
  const Tensor values = hermitian ? yaten::abs(std::get<0>(yaten::_linalg_eigh(A, "L", false)))
                                  : std::get<1>(yaten::_linalg_svd(A, false, false, std::nullopt));
  const Tensor tol = tolerance(A, largest_or_zero(values), atol, rtol);
  return yaten::sum(yaten::gt(values, tol), std::vector<int64_t>{-1}, false, ScalarType::Long);
}

// tol: torch's older name of atol (with rtol 0).
inline Tensor linalg_matrix_rank_impl(const Tensor& A, std::optional<double> tol, bool hermitian,
                                      std::optional<double> atol, std::optional<double> rtol) {
  using linalg_lapack::number_tensor;
  YATEN_CHECK(!(tol.has_value() && (atol.has_value() || rtol.has_value())), TypeError, "linalg.matrix_rank() takes "
              "either tol or atol and rtol, not both");
  const std::optional<double> r = tol.has_value() && !rtol.has_value() ? std::optional<double>(0.0) : rtol;
  return linalg_matrix_rank_tensor_impl(A, number_tensor(atol.has_value() ? atol : tol, A), number_tensor(r, A),
                                        hermitian);
}

namespace linalg_lapack {
// A with dims (d0, d1) moved last (last_two), for the norms computed from singular values; and back with keepdim.
// torch's dtypes for the norms: floating (float16 and bfloat16 too) or complex.
inline void check_norm_input(const char* op, const Tensor& A) {
  YATEN_CHECK(is_floating_point(A.dtype()) || is_complex(A.dtype()), RuntimeError, op, ": Expected a floating point "
              "or complex tensor as input. Got ", dtype_name(A.dtype()));
}
// A matrix norm's checks (at least 2 dims, the dtype, two different dims), and those dims made non-negative.
inline std::pair<int64_t, int64_t> matrix_dims(const char* op, const Tensor& A, const std::vector<int64_t>& dim) {
  YATEN_CHECK(A.dim() >= 2, RuntimeError, op, ": The input tensor A must have at least 2 dimensions.");
  check_norm_input(op, A);
  YATEN_CHECK(dim.size() == 2, RuntimeError, op, ": dim must be a 2-tuple. Got ", sizes_text(dim));
  const int64_t d0 = wrap_dim(op, dim[0], A.dim()), d1 = wrap_dim(op, dim[1], A.dim());
  YATEN_CHECK(d0 != d1, RuntimeError, op, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  return {d0, d1};
}
inline Tensor keep_dims(Tensor r, int64_t d0, int64_t d1, bool keepdim) {
  if (!keepdim) return r;
  r = yaten::unsqueeze(r, std::min(d0, d1));
  return yaten::unsqueeze(r, std::max(d0, d1));
}
inline Tensor last_two(const Tensor& A, int64_t d0, int64_t d1) {
  return yaten::movedim(A, std::vector<int64_t>{d0, d1}, std::vector<int64_t>{-2, -1});
}
}  // namespace linalg_lapack

inline Tensor linalg_matrix_norm_impl(const Tensor& A, const Scalar& ord, const std::vector<int64_t>& dim,
                                      bool keepdim, std::optional<ScalarType> dtype) {
  using namespace linalg_lapack;
  const auto [d0, d1] = matrix_dims("linalg.matrix_norm", A, dim);
  const double o = ord.to_double();
  const Tensor a = dtype.has_value() ? yaten::_to_copy(A, *dtype) : A;
  if (std::abs(o) == 2) {
    const Tensor s = linalg_svdvals_impl(last_two(a, d0, d1), std::nullopt);
    const Tensor r = o > 0 ? largest_or_zero(s) : yaten::amin(s, {-1}, false);
    return keep_dims(r, d0, d1, keepdim);
  }
  YATEN_CHECK(std::abs(o) == 1 || std::isinf(o), RuntimeError, "linalg.matrix_norm: Order ", o, " not supported.");
  // 1: the largest column sum of |a|; inf: the largest row sum
  const bool columns = std::abs(o) == 1;
  const int64_t summed = columns ? d0 : d1, other = columns ? d1 : d0;
  Tensor sums = yaten::sum(yaten::abs(a), std::vector<int64_t>{summed}, true, std::nullopt);
  // the largest of no sums is 0, as torch's; the smallest of none raises
  Tensor r = o > 0 ? (sums.sizes()[size_t(other)] > 0 ? yaten::amax(sums, {other}, true)
                                                      : yaten::sum(sums, std::vector<int64_t>{other}, true, std::nullopt))
                   : yaten::amin(sums, {other}, true);
  if (!keepdim) r = yaten::squeeze(r, std::vector<int64_t>{std::min(d0, d1), std::max(d0, d1)});
  return r;
}

inline Tensor linalg_matrix_norm_str_impl(const Tensor& A, const std::string& ord, const std::vector<int64_t>& dim,
                                          bool keepdim, std::optional<ScalarType> dtype) {
  using namespace linalg_lapack;
  const auto [d0, d1] = matrix_dims("linalg.matrix_norm", A, dim);
  YATEN_CHECK(ord == "fro" || ord == "nuc", RuntimeError, "linalg.matrix_norm: Order ", ord, " not supported.");
  if (ord == "fro") return yaten::linalg_vector_norm(A, Scalar(int64_t(2)), std::vector<int64_t>{d0, d1}, keepdim, dtype);
  const Tensor a = dtype.has_value() ? yaten::_to_copy(A, *dtype) : A;
  const Tensor s = linalg_svdvals_impl(last_two(a, d0, d1), std::nullopt);
  return keep_dims(yaten::sum(s, std::vector<int64_t>{-1}, false, std::nullopt), d0, d1, keepdim);
}

// linalg.norm: a vector norm over one dim (or, without ord and dim, over everything), a matrix norm over two.
inline Tensor linalg_norm_impl(const Tensor& A, const std::optional<Scalar>& ord,
                               const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                               std::optional<ScalarType> dtype) {
  linalg_lapack::check_norm_input("linalg.norm", A);
  if (dim.has_value()) {
    YATEN_CHECK(dim->size() == 1 || dim->size() == 2, RuntimeError, "linalg.norm: If dim is specified, it must be of "
                "length 1 or 2. Got ", sizes_text(*dim));
  } else if (ord.has_value()) {
    YATEN_CHECK(A.dim() == 1 || A.dim() == 2, RuntimeError, "linalg.norm: If dim is not specified but ord is, the "
                "input must be 1D or 2D. Got ", A.dim(), "D.");
  }
  const bool matrix = dim.has_value() ? dim->size() == 2 : ord.has_value() && A.dim() == 2;
  if (matrix) {
    const std::vector<int64_t> d = dim.value_or(std::vector<int64_t>{0, 1});
    if (!ord.has_value()) return linalg_matrix_norm_str_impl(A, "fro", d, keepdim, dtype);
    return linalg_matrix_norm_impl(A, *ord, d, keepdim, dtype);
  }
  return yaten::linalg_vector_norm(A, ord.value_or(Scalar(int64_t(2))), dim, keepdim, dtype);
}

inline Tensor linalg_norm_str_impl(const Tensor& A, const std::string& ord,
                                   const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                                   std::optional<ScalarType> dtype) {
  YATEN_CHECK(dim.has_value() ? dim->size() == 2 : A.dim() == 2, RuntimeError, "linalg.norm: If ord is a string, "
              "the norm is a matrix norm: A must be 2D or dim must have length 2");
  return linalg_matrix_norm_str_impl(A, ord, dim.value_or(std::vector<int64_t>{-2, -1}), keepdim, dtype);
}

// cond: the ratio of extreme singular values for p None, 2, -2; norm(A, p) norm(A^-1, p) otherwise.
inline Tensor linalg_cond_impl(const Tensor& A, const std::optional<Scalar>& p) {
  using namespace linalg_lapack;
  linalg_support::check_matrix("linalg.cond", A, "A");
  if (A.numel() == 0) {  // torch's: 0 per (empty) matrix, in A's dtype
    return yaten::zeros(std::vector<int64_t>(A.sizes().begin(), A.sizes().end() - 2), A.dtype(), A.device());
  }
  const double o = p.has_value() ? p->to_double() : 2.0;
  if (std::abs(o) == 2) {
    const Tensor s = linalg_svdvals_impl(A, std::nullopt);
    const Tensor big = yaten::amax(s, {-1}, false), small = yaten::amin(s, {-1}, false);
    return o > 0 ? yaten::div(big, small) : yaten::div(small, big);
  }
  linalg_support::check_square("linalg.cond", A, "A");
  const Tensor inv = std::get<0>(linalg_inv_ex_impl(A, false));
  return yaten::mul(linalg_matrix_norm_impl(A, *p, {-2, -1}, false, std::nullopt),
                    linalg_matrix_norm_impl(inv, *p, {-2, -1}, false, std::nullopt));
}

inline Tensor linalg_cond_str_impl(const Tensor& A, const std::string& p) {
  linalg_support::check_square("linalg.cond", A, "A");
  const Tensor inv = std::get<0>(linalg_inv_ex_impl(A, false));
  return yaten::mul(linalg_matrix_norm_str_impl(A, p, {-2, -1}, false, std::nullopt),
                    linalg_matrix_norm_str_impl(inv, p, {-2, -1}, false, std::nullopt));
}

// A^n by repeated squaring (n < 0: of A^-1).
inline Tensor linalg_matrix_power_impl(const Tensor& A, int64_t n) {
  linalg_support::check_square("linalg.matrix_power", A, "A");
  if (n == 0) {
    return yaten::clone(yaten::expand(yaten::eye(linalg_lapack::cols(A), A.dtype(), A.device()), A.sizes()));
  }
  Tensor base = n < 0 ? linalg_inv_impl(A) : A;
  uint64_t e = n < 0 ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
  Tensor result;
  while (true) {
    if (e & 1) result = result.defined() ? yaten::matmul(result, base) : base;
    e >>= 1;
    if (e == 0) break;
    base = yaten::matmul(base, base);
  }
  return result;
}
inline Tensor matrix_power_impl(const Tensor& self, int64_t n) { return linalg_matrix_power_impl(self, n); }

// exp(A) by scaling and squaring with the [13/13] Pade approximant (Higham, "The scaling and squaring method for
// the matrix exponential revisited", 2005): A / 2^s with ||A / 2^s||_1 <= theta_13, the approximant r = q^-1 p,
// then squared s times (s: the largest the batch needs). Differentiable through what it calls.
inline Tensor linalg_matrix_exp_impl(const Tensor& A) {
  using namespace linalg_lapack;
  linalg_support::check_square("linalg.matrix_exp", A, "A");
  const int64_t n = cols(A);
  if (A.numel() == 0) return yaten::clone(A);
  if (A.dtype() == ScalarType::Half || A.dtype() == ScalarType::BFloat16) {  // computed in float32, rounded once
    return yaten::_to_copy(linalg_matrix_exp_impl(yaten::_to_copy(A, ScalarType::Float)), A.dtype());
  }
  constexpr double theta13 = 5.371920351148152;
  constexpr double b[14] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
                            129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
                            1323241920.0,        40840800.0,          960960.0,           16380.0,
                            182.0,               1.0};
  const double norm1 = [&] {
    autograd::GradModeGuard no_grad(false);
    const Tensor sums = yaten::sum(yaten::abs(A), std::vector<int64_t>{-2}, false, std::nullopt);
    return composite_detail::item_double(yaten::amax(sums, {}, false));
  }();
  const int64_t s = norm1 > theta13 ? int64_t(std::ceil(std::log2(norm1 / theta13))) : 0;
  const Tensor X = s > 0 ? yaten::div(A, Scalar(std::ldexp(1.0, int(s)))) : A;
  const Tensor I = eye_like(n, A);
  const Tensor X2 = yaten::matmul(X, X), X4 = yaten::matmul(X2, X2), X6 = yaten::matmul(X4, X2);
  const auto lin = [](std::initializer_list<std::pair<double, Tensor>> terms) {
    Tensor acc;
    for (const auto& [c, t] : terms) {
      const Tensor scaled = yaten::mul(t, Scalar(c));
      acc = acc.defined() ? yaten::add(acc, scaled) : scaled;
    }
    return acc;
  };
  const Tensor u_inner = yaten::matmul(X6, lin({{b[13], X6}, {b[11], X4}, {b[9], X2}}));
  const Tensor U = yaten::matmul(X, yaten::add(u_inner, lin({{b[7], X6}, {b[5], X4}, {b[3], X2}, {b[1], I}})));
  const Tensor v_inner = yaten::matmul(X6, lin({{b[12], X6}, {b[10], X4}, {b[8], X2}}));
  const Tensor V = yaten::add(v_inner, lin({{b[6], X6}, {b[4], X4}, {b[2], X2}, {b[0], I}}));
  Tensor R = yaten::linalg_solve(yaten::sub(V, U), yaten::add(V, U), true);
  for (int64_t i = 0; i < s; ++i) R = yaten::matmul(R, R);
  return R;
}
inline Tensor matrix_exp_impl(const Tensor& self) { return linalg_matrix_exp_impl(self); }

// The cross product of 3-vectors along `dim`, inputs broadcast.
inline Tensor linalg_cross_impl(const Tensor& input, const Tensor& other, int64_t dim) {
  YATEN_CHECK(input.dim() == other.dim(), RuntimeError, "linalg.cross: inputs must have the same number of "
              "dimensions.");
  YATEN_CHECK(input.dim() > 0, RuntimeError, "linalg.cross: inputs must have at least one dimension (of length 3)");
  YATEN_CHECK(input.dtype() == other.dtype(), RuntimeError, "linalg.cross: expected both inputs to have the same "
              "dtype, but got ", dtype_name(input.dtype()), " and ", dtype_name(other.dtype()));
  const int64_t d = wrap_dim("linalg.cross", dim, input.dim());
  YATEN_CHECK(input.sizes()[size_t(d)] == 3 && other.sizes()[size_t(d)] == 3, RuntimeError, "linalg.cross: inputs "
              "dimension ", dim, " must have length 3. Got ", input.sizes()[size_t(d)], " and ",
              other.sizes()[size_t(d)]);
  const auto at = [d](const Tensor& t, int64_t i) { return yaten::narrow(t, d, i, 1); };
  const auto part = [&](int64_t i, int64_t j) {
    return yaten::sub(yaten::mul(at(input, i), at(other, j)), yaten::mul(at(input, j), at(other, i)));
  };
  return yaten::cat({part(1, 2), part(2, 0), part(0, 1)}, d);
}

// torch.cross: without dim, the first dim of length 3.
inline Tensor cross_impl(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim.has_value()) return linalg_cross_impl(self, other, *dim);
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[size_t(d)] == 3) return linalg_cross_impl(self, other, d);
  }
  YATEN_FAIL(RuntimeError, "cross: no dimension of size 3 in input");
}

// The product of a chain of matrices (the first may be a row vector, the last a column vector) in the order that
// needs the fewest multiplications (the classic dynamic program over the chain's sizes).
inline Tensor linalg_multi_dot_impl(const std::vector<Tensor>& tensors) {
  const size_t n = tensors.size();
  YATEN_CHECK(n >= 2, RuntimeError, "multi_dot(): expected at least 2 tensors but got ", n);
  std::vector<Tensor> m(tensors);
  const bool row = m.front().dim() == 1, column = m.back().dim() == 1;
  YATEN_CHECK(m.front().dim() == 1 || m.front().dim() == 2, RuntimeError, "multi_dot(): the first tensor must be 1D "
              "or 2D but got ", m.front().dim(), "D");
  YATEN_CHECK(m.back().dim() == 1 || m.back().dim() == 2, RuntimeError, "multi_dot(): the last tensor must be 1D or "
              "2D but got ", m.back().dim(), "D");
  if (row) m.front() = yaten::unsqueeze(m.front(), 0);
  if (column) m.back() = yaten::unsqueeze(m.back(), 1);
  for (size_t i = 1; i + 1 < n; ++i) {
    YATEN_CHECK(m[i].dim() == 2, RuntimeError, "multi_dot(): tensor ", i, " must be 2D but got ", m[i].dim(), "D");
  }
  std::vector<int64_t> p(n + 1);
  p[0] = m[0].sizes()[0];
  for (size_t i = 0; i < n; ++i) {
    YATEN_CHECK(m[i].sizes()[0] == p[i], RuntimeError, "multi_dot(): tensors ", i - 1, " and ", i, " with shapes ",
                sizes_text(tensors[i - 1].sizes()), " and ", sizes_text(tensors[i].sizes()), " cannot be multiplied");
    p[i + 1] = m[i].sizes()[1];
  }
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t k = i; k < j; ++k) {
        const double c = cost[i][k] + cost[k + 1][j] + double(p[i]) * double(p[k + 1]) * double(p[j + 1]);
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = k;
        }
      }
    }
  }
  const std::function<Tensor(size_t, size_t)> product = [&](size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    return yaten::mm(product(i, split[i][j]), product(split[i][j] + 1, j));
  };
  Tensor r = product(0, n - 1);
  if (row) r = yaten::squeeze(r, 0);
  if (column) r = yaten::squeeze(r, -1);
  return r;
}
inline Tensor chain_matmul_impl(const std::vector<Tensor>& matrices) {
  YATEN_CHECK(!matrices.empty(), RuntimeError, "chain_matmul(): Expected one or more matrices");
  for (const Tensor& m : matrices) {
    YATEN_CHECK(m.dim() == 2, RuntimeError, "chain_matmul(): Tensor dimension is ", m.dim(), ", expected 2 instead.");
  }
  if (matrices.size() == 1) return yaten::clone(matrices[0]);
  return linalg_multi_dot_impl(matrices);
}

// The Vandermonde matrix of x (*, n): columns x^0 .. x^(N-1).
inline Tensor linalg_vander_impl(const Tensor& x, std::optional<int64_t> N) {
  YATEN_CHECK(x.dtype() != ScalarType::Bool && x.dtype() != ScalarType::Half && x.dtype() != ScalarType::BFloat16,
              RuntimeError, "linalg.vander supports floating point, complex, and integer tensors, but got ",
              dtype_name(x.dtype()));
  if (x.dim() == 0) return linalg_vander_impl(yaten::unsqueeze(x, 0), N);  // torch's: one row
  const int64_t n = N.value_or(x.sizes().back());
  YATEN_CHECK(n > 1, RuntimeError, "N must be greater than 1.");
  std::vector<int64_t> shape = x.sizes();
  shape.push_back(n - 1);
  const Tensor ones = yaten::ones_like(yaten::unsqueeze(x, -1));
  return yaten::cumprod(yaten::cat({ones, yaten::expand(yaten::unsqueeze(x, -1), shape)}, -1), -1);
}

inline Tensor linalg_diagonal_impl(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return yaten::diagonal(A, offset, dim1, dim2);
}
inline Tensor linalg_matmul_impl(const Tensor& input, const Tensor& other) { return yaten::matmul(input, other); }

// torch.diag_embed: self's last dim as diagonal `offset` of the (dim1, dim2) plane of a new tensor.
inline Tensor diag_embed_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t d = self.dim() + 1;
  const int64_t a = wrap_dim("diag_embed", dim1, d), b = wrap_dim("diag_embed", dim2, d);
  YATEN_CHECK(a != b, RuntimeError, "diag_embed: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n = self.sizes().back() + std::abs(offset);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
  shape.insert(shape.begin() + std::min(a, b), n);
  shape.insert(shape.begin() + std::max(a, b), n);
  if (autograd::requires_grad(self) && (is_floating_point(self.dtype()) || is_complex(self.dtype()))) {
    // differentiable: M = R^T diag(v) C with R, C selecting each element's row and column of the (n, n) plane
    const int64_t len = self.sizes().back();
    Tensor R = yaten::zeros({len, n}, ScalarType::Double, Device(DeviceType::CPU));
    Tensor C = yaten::zeros({len, n}, ScalarType::Double, Device(DeviceType::CPU));
    for (int64_t i = 0; i < len; ++i) {
      R.data<double>()[i * n + i + std::max<int64_t>(-offset, 0)] = 1.0;
      C.data<double>()[i * n + i + std::max<int64_t>(offset, 0)] = 1.0;
    }
    R = yaten::_to_copy(R, self.dtype(), self.device());
    C = yaten::_to_copy(C, self.dtype(), self.device());
    const Tensor plane = yaten::matmul(yaten::mul(linalg_lapack::mT(R), yaten::unsqueeze(self, -2)), C);
    return yaten::movedim(plane, std::vector<int64_t>{-2, -1}, std::vector<int64_t>{std::min(a, b), std::max(a, b)});
  }
  Tensor out = yaten::zeros(shape, self.dtype(), self.device());
  yaten::copy_(yaten::diagonal(out, offset, a, b), self);
  return out;
}

// Q = H_1 ... H_k's first n columns, H_i = I - tau_i v_i v_i^H with v_i column i of A below the diagonal and 1 on
// it (geqrf's reflectors): applied to the identity's columns from the last reflector to the first.
inline Tensor linalg_householder_product_impl(const Tensor& A, const Tensor& tau) {
  using namespace linalg_lapack;
  linalg_support::check_matrix("linalg.householder_product", A, "input");
  YATEN_CHECK(tau.dim() == A.dim() - 1, RuntimeError, "torch.linalg.householder_product: Expected tau to have one "
              "dimension less than input, but got tau.ndim equal to ", tau.dim(), " and input.ndim is equal to ",
              A.dim());
  YATEN_CHECK(tau.dtype() == A.dtype(), RuntimeError, "torch.linalg.householder_product: tau dtype ",
              dtype_name(tau.dtype()), " does not match input dtype ", dtype_name(A.dtype()));
  const int64_t m = rows(A), n = cols(A), k = tau.sizes().back();
  YATEN_CHECK(m >= n, RuntimeError, "torch.linalg.householder_product: input.shape[-2] must be greater than or equal "
              "to input.shape[-1]");
  YATEN_CHECK(n >= k, RuntimeError, "torch.linalg.householder_product: input.shape[-1] must be greater than or equal "
              "to tau.shape[-1]");
  YATEN_CHECK(tau.dim() == A.dim() - 1, RuntimeError, "torch.linalg.householder_product: Expected tau to have one "
              "dimension less than input, but got tau.ndim equal to ", tau.dim(), " and input.ndim is equal to ",
              A.dim());
  const Tensor V = yaten::add(yaten::tril(A, -1), yaten::eye(m, n, A.dtype(), A.device()));
  Tensor Q = yaten::expand(yaten::eye(m, n, A.dtype(), A.device()), A.sizes());
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor v = yaten::narrow(V, -1, i, 1);                       // (*, m, 1)
    const Tensor t = yaten::unsqueeze(yaten::narrow(tau, -1, i, 1), -1);  // (*, 1, 1)
    Q = yaten::sub(Q, yaten::matmul(yaten::mul(v, t), yaten::matmul(mH(v), Q)));
  }
  return Q;
}
inline Tensor orgqr_impl(const Tensor& self, const Tensor& input2) {
  return linalg_householder_product_impl(self, input2);
}

// tensorinv: A reshaped to a square matrix (the product of its first `ind` dims by the rest), inverted, reshaped
// to the rest's shape followed by the first dims'.
inline Tensor linalg_tensorinv_impl(const Tensor& A, int64_t ind) {
  YATEN_CHECK(ind > 0, RuntimeError, "Expected a strictly positive integer for 'ind', but got ", ind);
  YATEN_CHECK(ind <= A.dim(), RuntimeError, "linalg.tensorinv: ind (", ind, ") exceeds the input's ", A.dim(),
              " dimensions");
  std::vector<int64_t> front(A.sizes().begin(), A.sizes().begin() + std::min<int64_t>(ind, A.dim()));
  std::vector<int64_t> back(A.sizes().begin() + std::min<int64_t>(ind, A.dim()), A.sizes().end());
  const int64_t rows = linalg_support::batch_count(front), cols = linalg_support::batch_count(back);
  YATEN_CHECK(rows == cols, RuntimeError, "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ", cols, " != ", rows);
  const Tensor inv = linalg_inv_impl(yaten::reshape(A, {rows, cols}));
  std::vector<int64_t> shape = back;
  shape.insert(shape.end(), front.begin(), front.end());
  return yaten::reshape(inv, shape);
}

// tensorsolve: X with tensordot(A, X, X.ndim) = B; dims of A moved to the end first.
inline Tensor linalg_tensorsolve_impl(const Tensor& A, const Tensor& B, const std::optional<std::vector<int64_t>>& dims) {
  Tensor a = A;
  if (dims.has_value() && !dims->empty()) {
    std::vector<int64_t> to;
    for (size_t i = 0; i < dims->size(); ++i) to.push_back(A.dim() - int64_t(dims->size()) + int64_t(i));
    a = yaten::movedim(A, *dims, to);
  }
  const std::vector<int64_t> rest(a.sizes().begin() + B.dim(), a.sizes().end());
  const int64_t rows = B.numel(), cols = linalg_support::batch_count(rest);
  YATEN_CHECK(rows == cols, RuntimeError, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
              "prod(self.shape[:other.ndim]), but got ", cols, " != ", rows);
  const Tensor x = yaten::linalg_solve(yaten::reshape(a, {rows, cols}), yaten::reshape(B, {rows}), true);
  return yaten::reshape(x, rest);
}

}  // namespace yaten::native
