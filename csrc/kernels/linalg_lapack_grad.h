// The derivative formulas of the LAPACK factorizations (kernels/cpu/lapack.h) and of the composites that own one
// (kernels/composite/linalg_lapack.h), each derived in the comment above it, and the small matrix helpers they share.
//
// Note [Linear algebra derivatives]: <X, Y> is Re tr(X^H Y), and an input's gradient gA is what makes
// dL = <gA, dA> for every perturbation dA (torch's convention, which for complex inputs is the conjugate Wirtinger
// derivative). Each formula below is written with differentiable ops only (matmul, triangular solves, lu_solve), so
// second derivatives come from recording the backward itself. Where a factorization is not unique (the phases of
// complex eigenvectors and singular vectors), the formulas are those of a loss that does not depend on that choice,
// as torch's are.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "core/wrap_dim.h"
#include "kernels/composite/common.h"
#include "kernels/linalg_lapack_support.h"
#include "yaten/ops/_linalg_eig.h"
#include "yaten/ops/_linalg_eigh.h"
#include "yaten/ops/_linalg_svd.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/amax.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/any.h"
#include "yaten/ops/cat.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/conj.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/count_nonzero.h"
#include "yaten/ops/cumprod.h"
#include "yaten/ops/diagonal.h"
#include "yaten/ops/div.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/eye.h"
#include "yaten/ops/flip.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/imag.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/linalg_cholesky_ex.h"
#include "yaten/ops/linalg_lu_factor_ex.h"
#include "yaten/ops/linalg_lu_solve.h"
#include "yaten/ops/linalg_solve.h"
#include "yaten/ops/linalg_det.h"
#include "yaten/ops/linalg_pinv.h"
#include "yaten/ops/linalg_qr.h"
#include "yaten/ops/linalg_solve_triangular.h"
#include "yaten/ops/linalg_vector_norm.h"
#include "yaten/ops/log.h"
#include "yaten/ops/amin.h"
#include "yaten/ops/mm.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/clamp_min.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/matmul.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/ones.h"
#include "yaten/ops/ones_like.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/prod.h"
#include "yaten/ops/real.h"
#include "yaten/ops/reciprocal.h"
#include "yaten/ops/remainder.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/select.h"
#include "yaten/ops/sgn.h"
#include "yaten/ops/squeeze.h"
#include "yaten/ops/stack.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/transpose.h"
#include "yaten/ops/tril.h"
#include "yaten/ops/triu.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"
#include "yaten/ops/zeros_like.h"

namespace yaten::native {

namespace linalg_lapack {
inline Tensor mT(const Tensor& a) { return yaten::transpose(a, -2, -1); }
inline Tensor mH(const Tensor& a) { return is_complex(a.dtype()) ? yaten::conj(mT(a)) : mT(a); }
inline int64_t rows(const Tensor& a) { return a.sizes()[a.dim() - 2]; }
inline int64_t cols(const Tensor& a) { return a.sizes()[a.dim() - 1]; }
// The n x n identity in a's dtype and device.
inline Tensor eye_like(int64_t n, const Tensor& a) { return yaten::eye(n, a.dtype(), a.device()); }
// v (*, n) as the diagonals of (*, n, n) matrices.
inline Tensor diag_embed(const Tensor& v) {
  return yaten::mul(yaten::unsqueeze(v, -1), yaten::eye(v.sizes().back(), v.dtype(), v.device()));
}
// x (*, m, n) times diag(d) (d: *, n): column j scaled by d_j; diag(d) times x: row i scaled by d_i.
inline Tensor scale_columns(const Tensor& x, const Tensor& d) { return yaten::mul(x, yaten::unsqueeze(d, -2)); }
inline Tensor scale_rows(const Tensor& d, const Tensor& x) { return yaten::mul(yaten::unsqueeze(d, -1), x); }
inline Tensor diag(const Tensor& a) { return yaten::diagonal(a, 0, -2, -1); }
// X - X^H
inline Tensor skew(const Tensor& x) { return yaten::sub(x, mH(x)); }
// Whether B is a vector (or a batch of vectors) of the system A X = B, as torch decides: 1-D, or A's shape less its
// last dim.
inline bool vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  return std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin());
}
// sign(P) of LAPACK's row swaps (*, k): (-1)^(the number of rows actually swapped), in `dtype`.
inline Tensor permutation_sign(const Tensor& pivots, ScalarType dtype) {
  const int64_t k = pivots.sizes().back();
  const Tensor steps = yaten::arange(Scalar(int64_t(1)), Scalar(k + 1), Scalar(int64_t(1)), pivots.dtype(),
                                     pivots.device());
  const Tensor swaps = yaten::sum(yaten::ne(pivots, steps), std::vector<int64_t>{-1}, false, std::nullopt);
  const Tensor odd = yaten::remainder(swaps, Scalar(int64_t(2)));
  return yaten::_to_copy(yaten::sub(yaten::ones_like(odd), yaten::mul(odd, Scalar(int64_t(2)))), dtype);
}
inline bool wants_grad(const Tensor& a) { return autograd::grad_mode_enabled() && autograd::requires_grad(a); }
// The 1 / (x_j - x_i) of every pair (0 on the diagonal) for x (*, n): the divisor of the off-diagonal terms of the
// eigen and singular value derivatives.
inline Tensor pair_reciprocals(const Tensor& x) {
  const Tensor diff = yaten::sub(yaten::unsqueeze(x, -2), yaten::unsqueeze(x, -1));
  const Tensor safe = yaten::add(diff, eye_like(x.sizes().back(), diff));
  return yaten::mul(yaten::reciprocal(safe), yaten::sub(yaten::ones_like(diff), eye_like(x.sizes().back(), diff)));
}
// The permutation matrix P of LAPACK's 1-based row swaps (*, k) on m rows: A = P L U.
inline Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, ScalarType dtype, Device device) {
  const Tensor piv = yaten::_to_copy(pivots, ScalarType::Int, Device(DeviceType::CPU));
  const std::vector<int64_t> batch(piv.sizes().begin(), piv.sizes().end() - 1);
  const int64_t k = piv.sizes().back(), count = linalg_support::batch_count(batch);
  std::vector<int64_t> perm_shape = batch;
  perm_shape.push_back(m);
  Tensor perm = yaten::empty(perm_shape, ScalarType::Long, Device(DeviceType::CPU));
  const Tensor contiguous_piv = yaten::clone(piv);
  const int* p = contiguous_piv.data<int>();
  int64_t* out = perm.data<int64_t>();
  for (int64_t b = 0; b < count; ++b) {
    int64_t* row = out + b * m;
    for (int64_t i = 0; i < m; ++i) row[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = p[b * k + i] - 1;
      YATEN_CHECK(j >= 0 && j < m, RuntimeError, "lu_unpack: pivots must be 1-based row indices in [1, ", m,
                  "], but got ", j + 1);
      std::swap(row[i], row[j]);
    }
  }
  // (L U)[i] = A[perm[i]], so P[perm[i], i] = 1 (P's column i is e_perm[i]); built in float64 and converted
  std::vector<int64_t> p_shape = batch;
  p_shape.insert(p_shape.end(), {m, m});
  Tensor P = yaten::zeros(p_shape, ScalarType::Double, Device(DeviceType::CPU));
  double* pd = P.data<double>();
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < m; ++i) pd[b * m * m + out[b * m + i] * m + i] = 1.0;
  }
  return yaten::_to_copy(P, dtype, device);
}
}  // namespace linalg_lapack

// ---------------------------------------------------------------------------------------------------- derivatives
namespace linalg_grad {
using namespace linalg_lapack;

// A = P L U (square): dA = P (dL U + L dU), so L^-1 P^T dA U^-1 = L^-1 dL + dU U^-1 =: X, strictly lower plus upper:
// dL = L tril(X, -1), dU = triu(X) U, and <gL, dL> + <gU, dU> = <Phi, X> with
// Phi = tril(L^H gL, -1) + triu(gU U^H); then P^T gA = L^-H Phi U^-H.
// Wide (m < n): A = P L [U1 | U2] with U2 = L^-1 P^T A2, so dU2 = L^-1 P^T dA2 - L^-1 dL U2: A2 gets P L^-H gU2 and
// L's gradient gains -L^-H gU2 U2^H before the square formula runs on [L, U1].
// Tall (m > n): P^T A = [L1; L2] U with L2 = (P^T A)_bottom U^-1, so dL2 = d(P^T A)_bottom U^-1 - L2 dU U^-1: the
// bottom rows get gL2 U^-H and U's gradient gains -L2^H gL2 U^-H before the square formula runs on [L1, U].
inline Tensor lu_square_grad(const Tensor& gL, const Tensor& gU, const Tensor& L, const Tensor& U) {
  const Tensor phi = yaten::add(yaten::tril(yaten::matmul(mH(L), gL), -1), yaten::triu(yaten::matmul(gU, mH(U))));
  const Tensor left = yaten::linalg_solve_triangular(mH(L), phi, true, true, true);  // L^-H Phi
  return yaten::linalg_solve_triangular(mH(U), left, false, false, false);           // ... U^-H
}

inline Tensor lu_factor_backward(const Tensor& gLU, const Tensor& LU, const Tensor& pivots) {
  if (!gLU.defined()) return Tensor();
  const int64_t m = rows(LU), n = cols(LU), k = std::min(m, n);
  const Tensor P = pivots_to_permutation(pivots, m, LU.dtype(), LU.device());
  const Tensor square_lu = yaten::narrow(yaten::narrow(LU, -2, 0, k), -1, 0, k);
  const Tensor L = yaten::add(yaten::tril(square_lu, -1), eye_like(k, LU));
  const Tensor U = yaten::triu(square_lu);
  const Tensor g_square = yaten::narrow(yaten::narrow(gLU, -2, 0, k), -1, 0, k);
  Tensor gL = yaten::tril(g_square, -1), gU = yaten::triu(g_square);
  Tensor g;
  if (m == n) {
    g = lu_square_grad(gL, gU, L, U);
  } else if (m < n) {
    const Tensor U2 = yaten::narrow(LU, -1, m, n - m), gU2 = yaten::narrow(gLU, -1, m, n - m);
    const Tensor gA2 = yaten::linalg_solve_triangular(mH(L), gU2, true, true, true);  // L^-H gU2
    gL = yaten::sub(gL, yaten::matmul(gA2, mH(U2)));
    g = yaten::cat({lu_square_grad(gL, gU, L, U), gA2}, -1);
  } else {
    const Tensor L2 = yaten::narrow(LU, -2, n, m - n), gL2 = yaten::narrow(gLU, -2, n, m - n);
    const Tensor g_bottom = yaten::linalg_solve_triangular(mH(U), gL2, false, false, false);  // gL2 U^-H
    gU = yaten::sub(gU, yaten::matmul(mH(L2), g_bottom));
    g = yaten::cat({lu_square_grad(gL, gU, L, U), g_bottom}, -2);
  }
  return yaten::matmul(P, g);
}

// The gradient of A = P L U's packed factors LU from a gradient gA of A: <gA, dA> = <P^T gA U^H, dL> + <L^H P^T gA, dU>.
inline Tensor lu_factors_grad(const Tensor& gA, const Tensor& LU, const Tensor& pivots) {
  const int64_t n = cols(LU);
  const Tensor L = yaten::add(yaten::tril(LU, -1), eye_like(n, LU));
  const Tensor U = yaten::triu(LU);
  const Tensor ptg = yaten::matmul(mT(pivots_to_permutation(pivots, n, LU.dtype(), LU.device())), gA);
  return yaten::add(yaten::tril(yaten::matmul(ptg, mH(U)), -1), yaten::triu(yaten::matmul(mH(L), ptg)));
}

// X = op(A)^-1 B (left) or B op(A)^-1, op(A) = A or A^H: gB solves the adjoint system, and gA follows from
// dX = -op(A)^-1 d(op(A)) X (left) or -X d(op(A)) op(A)^-1.
inline std::tuple<Tensor, Tensor> lu_solve_backward(const Tensor& gX, const Tensor& LU, const Tensor& pivots,
                                                    const Tensor& X, bool left, bool adjoint,
                                                    std::array<bool, 2> mask) {
  if (!gX.defined()) return {Tensor(), Tensor()};
  const Tensor gB = yaten::linalg_lu_solve(LU, pivots, gX, left, !adjoint);
  Tensor gLU;
  if (mask[0]) {
    Tensor gA;
    if (left) {
      gA = adjoint ? yaten::neg(yaten::matmul(X, mH(gB))) : yaten::neg(yaten::matmul(gB, mH(X)));
    } else {
      gA = adjoint ? yaten::neg(yaten::matmul(mH(gB), X)) : yaten::neg(yaten::matmul(mH(X), gB));
    }
    gLU = lu_factors_grad(gA, LU, pivots);
  }
  return {gLU, mask[1] ? gB : Tensor()};
}

// A^-H B (left) or B A^-H: from A's LU, or, when the backward itself is recorded (create_graph), by solving with A
// again, so that the second derivative sees how the LU depends on A (the saved LU is a constant to autograd).
inline Tensor adjoint_solve(const Tensor& A, const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left) {
  if (autograd::grad_mode_enabled()) return yaten::linalg_solve(mH(A), B, left);
  return yaten::linalg_lu_solve(LU, pivots, B, left, true);
}

// X = A^-1 B (left) or B A^-1 from A's LU: gB = A^-H gX (or gX A^-H), gA = -gB X^H (or -X^H gB).
inline std::tuple<Tensor, Tensor> solve_backward(const Tensor& gX, const Tensor& A, const Tensor& X, const Tensor& LU,
                                                 const Tensor& pivots, bool left, std::array<bool, 2> mask) {
  if (!gX.defined()) return {Tensor(), Tensor()};
  const Tensor gB = adjoint_solve(A, LU, pivots, gX, left);
  Tensor gA;
  if (mask[0]) gA = left ? yaten::neg(yaten::matmul(gB, mH(X))) : yaten::neg(yaten::matmul(mH(X), gB));
  return {gA, mask[1] ? gB : Tensor()};
}

// A = L L^H: with X = L^-1 dL (lower), S = L^-1 dA L^-H = X + X^H, so X takes S's strict lower triangle and half its
// diagonal; <gL, L X> = <L^H gL, X> = <G, S> with G = (T + tril(T, -1)^H) / 2, T = tril(L^H gL), and
// gA = L^-H G L^-1. upper: A = U^H U, the same with L = U^H.
inline Tensor cholesky_backward(const Tensor& gL_in, const Tensor& L_in, bool upper) {
  if (!gL_in.defined()) return Tensor();
  const Tensor L = upper ? mH(L_in) : L_in;
  const Tensor gL = upper ? mH(gL_in) : gL_in;
  const Tensor T = yaten::tril(yaten::matmul(mH(L), gL));
  const Tensor G = yaten::mul(yaten::add(T, mH(yaten::tril(T, -1))), Scalar(0.5));
  const Tensor left = yaten::linalg_solve_triangular(mH(L), G, true, true, false);  // L^-H G
  return yaten::linalg_solve_triangular(L, left, false, false, false);              // ... L^-1
}

// X = A^-1 B with A triangular: gB = A^-H gX (A^H has the other triangle), gA = -gB X^H on A's triangle (its
// diagonal too unless unitriangular); right-sided: gB = gX A^-H, gA = -X^H gB.
inline std::tuple<Tensor, Tensor> solve_triangular_backward(const Tensor& gX, const Tensor& A, const Tensor& X,
                                                            bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> mask) {
  if (!gX.defined()) return {Tensor(), Tensor()};
  const Tensor gB = yaten::linalg_solve_triangular(mH(A), gX, !upper, left, unitriangular);
  Tensor gA;
  if (mask[0]) {
    const Tensor full = left ? yaten::neg(yaten::matmul(gB, mH(X))) : yaten::neg(yaten::matmul(mH(X), gB));
    gA = upper ? yaten::triu(full, unitriangular ? 1 : 0) : yaten::tril(full, unitriangular ? -1 : 0);
  }
  return {gA, mask[1] ? gB : Tensor()};
}

// A = Q R (m >= n, Q m x n): with W = Q^H dA R^-1 and C = Q^H dQ (skew-Hermitian; R's real diagonal makes
// dR R^-1's diagonal real), C = tril(W, -1) - tril(W, -1)^H + i Im diag(W), dR = (W - C) R and
// dQ = dA R^-1 - Q (W - C). Collecting <gQ, dQ> + <gR, dR> gives
// gA = (gQ + Q S) R^-H, N = gR R^H - Q^H gQ, S = triu(N, 1) + triu(N, 1)^H + Re diag(N).
// m < n: A = [X | Y], R = [U | V] with X = Q U square and Y = Q V, so gY = Q gV and X takes the square formula with
// gQ + Y gV^H.
inline Tensor qr_square_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor N = gR.defined() ? yaten::matmul(gR, mH(R)) : yaten::zeros_like(yaten::matmul(mH(Q), Q));
  if (gQ.defined()) N = yaten::sub(N, yaten::matmul(mH(Q), gQ));
  const Tensor upper = yaten::triu(N, 1);
  Tensor S = yaten::add(upper, mH(upper));
  const Tensor d = diag(N);
  S = yaten::add(S, diag_embed(is_complex(d.dtype()) ? yaten::real(d) : d));
  Tensor b = yaten::matmul(Q, S);
  if (gQ.defined()) b = yaten::add(b, gQ);
  return yaten::linalg_solve_triangular(mH(R), b, false, false, false);  // b R^-H
}

inline Tensor qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R,
                          const std::string& mode) {
  if (!gQ.defined() && !gR.defined()) return Tensor();
  YATEN_CHECK(mode != "r", RuntimeError, "The derivative of linalg.qr depends on Q, which is not computed when "
              "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = rows(Q), n = cols(R);
  YATEN_CHECK(!(mode == "complete" && m > n), NotImplementedError, "The QR decomposition is not differentiable when "
              "mode='complete' and nrows > ncols.");
  if (m >= n) return qr_square_backward(gQ, gR, Q, R);
  const Tensor U = yaten::narrow(R, -1, 0, m), V = yaten::narrow(R, -1, m, n - m);
  const Tensor gU = gR.defined() ? yaten::narrow(gR, -1, 0, m) : Tensor();
  const Tensor gV = gR.defined() ? yaten::narrow(gR, -1, m, n - m) : Tensor();
  Tensor gQx = gQ;
  Tensor gY;
  if (gV.defined()) {
    const Tensor Y = yaten::matmul(Q, V);
    const Tensor extra = yaten::matmul(Y, mH(gV));
    gQx = gQx.defined() ? yaten::add(gQx, extra) : extra;
    gY = yaten::matmul(Q, gV);
  } else {
    std::vector<int64_t> shape = Q.sizes();
    shape.back() = n - m;
    gY = yaten::zeros(shape, Q.dtype(), Q.device());
  }
  const Tensor gX = qr_square_backward(gQx, gU, Q, U);
  return yaten::cat({gX, gY}, -1);
}

// A = U S V^H (k = min(m, n) columns of U and V): with P = U^H dA V, Om_U = U^H dU and Om_V = V^H dV
// (skew-Hermitian), P = Om_U S + dS - S Om_V, so dS = Re diag P, and off the diagonal, with F_ij = 1/(s_j^2 - s_i^2),
// Om_U = F o (P S + S P^H), Om_V = F o (S P + P^H S); Om_U's diagonal is i Im(P_ii) / s_i (Om_V's taken 0: a loss
// that does not depend on the singular vectors' phases does not see the choice). U and V's parts outside their span
// are (I - U U^H) dA V S^-1 and (I - V V^H) dA^H U S^-1. Collecting the inner products:
// gA = U G V^H + (I - U U^H) gU S^-1 V^H + U S^-1 gV^H (I - V V^H), with J_U = U^H gU, J_V = V^H gV and
// G = (F' o skew(J_U)) S + S (F' o skew(J_V)) + diag(gS) + i Im diag(J_U) S^-1, F'_ij = 1/(s_j^2 - s_i^2) (the F
// above: F o J + (F o J)^H = F o skew(J), F being antisymmetric).
inline Tensor svd_backward(const Tensor& gU_in, const Tensor& gS, const Tensor& gVh_in, const Tensor& U_in,
                           const Tensor& S, const Tensor& Vh_in, bool full_matrices, bool compute_uv) {
  if (!gU_in.defined() && !gS.defined() && !gVh_in.defined()) return Tensor();
  YATEN_CHECK(compute_uv, RuntimeError, "linalg.svd: The derivative of linalg.svd depends on U and Vh, which are not "
              "computed when compute_uv=False. Please call linalg.svd(A, full_matrices=False) instead.");
  const int64_t k = S.sizes().back();
  // full_matrices: only the first k singular vectors are determined (and differentiable), as in torch
  const Tensor U = full_matrices ? yaten::narrow(U_in, -1, 0, k) : U_in;
  const Tensor Vh = full_matrices ? yaten::narrow(Vh_in, -2, 0, k) : Vh_in;
  const Tensor gU = gU_in.defined() && full_matrices ? yaten::narrow(gU_in, -1, 0, k) : gU_in;
  const Tensor gVh = gVh_in.defined() && full_matrices ? yaten::narrow(gVh_in, -2, 0, k) : gVh_in;
  const Tensor Sc = is_complex(U.dtype()) ? yaten::_to_copy(S, U.dtype()) : S;
  if (!gU.defined() && !gVh.defined()) {  // U diag(gS) V^H
    return yaten::matmul(scale_columns(U, yaten::_to_copy(gS, U.dtype())), Vh);
  }
  const Tensor V = mH(Vh);
  const Tensor F = pair_reciprocals(yaten::mul(S, S));
  const Tensor Fc = is_complex(U.dtype()) ? yaten::_to_copy(F, U.dtype()) : F;
  const Tensor Sinv = yaten::reciprocal(Sc);
  Tensor G = gS.defined() ? diag_embed(yaten::_to_copy(gS, U.dtype())) : Tensor();
  const auto accumulate = [&G](const Tensor& t) { G = G.defined() ? yaten::add(G, t) : t; };
  const int64_t m = rows(U), n = cols(Vh);
  Tensor extra;
  if (gU.defined()) {
    const Tensor JU = yaten::matmul(mH(U), gU);
    accumulate(scale_columns(yaten::mul(Fc, skew(JU)), Sc));
    if (is_complex(U.dtype())) {
      const Tensor im = yaten::imag(diag(JU));
      accumulate(diag_embed(yaten::mul(yaten::_to_copy(yaten::div(im, S), U.dtype()),
                                       Scalar(Complex<double>(0.0, 1.0)))));
    }
    if (m > k) {  // (I - U U^H) gU S^-1 V^H
      const Tensor outside = yaten::sub(gU, yaten::matmul(U, JU));
      extra = yaten::matmul(scale_columns(outside, Sinv), Vh);
    }
  }
  if (gVh.defined()) {
    const Tensor gV = mH(gVh);
    const Tensor JV = yaten::matmul(Vh, gV);
    accumulate(scale_rows(Sc, yaten::mul(Fc, skew(JV))));
    if (n > k) {  // U S^-1 gV^H (I - V V^H)
      const Tensor outside = yaten::sub(gVh, yaten::matmul(mH(JV), Vh));
      const Tensor t = yaten::matmul(scale_columns(U, Sinv), outside);
      extra = extra.defined() ? yaten::add(extra, t) : t;
    }
  }
  Tensor gA = yaten::matmul(yaten::matmul(U, G), Vh);
  return extra.defined() ? yaten::add(gA, extra) : gA;
}

// A = V diag(w) V^H (Hermitian): P = V^H dA V = Om diag(w) - diag(w) Om + diag(dw), Om = V^H dV skew-Hermitian, so
// Om_ij = P_ij / (w_j - w_i) and dw = diag P; for Hermitian dA only the Hermitian part of the gradient counts:
// gA = V (F o (J - J^H) / 2 + diag(gw)) V^H, J = V^H gV, F_ij = 1 / (w_j - w_i).
inline Tensor eigh_backward(const Tensor& gw, const Tensor& gV, const Tensor& w, const Tensor& V) {
  if (!gw.defined() && !gV.defined()) return Tensor();
  YATEN_CHECK(!gV.defined() || V.numel() > 0 || w.numel() == 0, RuntimeError, "linalg.eigh: the derivative of the "
              "eigenvectors needs them computed (eigvalsh's gradient is that of eigh's eigenvalues)");
  const ScalarType dtype = V.dtype();
  Tensor G = gw.defined() ? diag_embed(yaten::_to_copy(gw, dtype)) : Tensor();
  if (gV.defined()) {
    const Tensor J = yaten::matmul(mH(V), gV);
    const Tensor F = yaten::_to_copy(pair_reciprocals(w), dtype);
    const Tensor off = yaten::mul(yaten::mul(F, skew(J)), Scalar(0.5));
    G = G.defined() ? yaten::add(G, off) : off;
  }
  return yaten::matmul(yaten::matmul(V, G), mH(V));
}

// A V = V diag(w) (general A, columns of V of unit norm): P = V^-1 dA V = Om diag(w) - diag(w) Om + diag(dw),
// Om = V^-1 dV; off the diagonal Om_ij = P_ij / (w_j - w_i), and keeping ||v_i|| = 1 fixes Re Om_ii =
// -Re sum_j (V^H V)_ij Om_ji (its imaginary part, a phase, is left 0). So
// gA = V^-H (diag(gw) + conj(F) o (J - V^H V diag(Re diag J))) V^H, J = V^H gV, off-diagonal; real A takes its real
// part.
inline Tensor eig_backward(const Tensor& gw, const Tensor& gV, const Tensor& A, const Tensor& w, const Tensor& V) {
  if (!gw.defined() && !gV.defined()) return Tensor();
  YATEN_CHECK(V.numel() > 0 || w.numel() == 0, RuntimeError, "linalg.eig: the derivative needs the eigenvectors, "
              "which were not computed");
  const ScalarType dtype = V.dtype();
  Tensor gP = gw.defined() ? diag_embed(gw) : yaten::zeros_like(yaten::matmul(mH(V), V));
  if (gV.defined()) {
    const Tensor J = yaten::matmul(mH(V), gV);
    const Tensor gram = yaten::matmul(mH(V), V);
    const Tensor corrected = yaten::sub(J, scale_columns(gram, yaten::_to_copy(yaten::real(diag(J)), dtype)));
    const Tensor F = yaten::conj(pair_reciprocals(w));
    gP = yaten::add(gP, yaten::mul(F, corrected));
  }
  // V^-H gP V^H: solve V^H X = gP V^H
  const Tensor g = yaten::linalg_solve(mH(V), yaten::matmul(gP, mH(V)), true);
  return is_complex(A.dtype()) ? g : yaten::real(g);
}

// d det = det tr(A^-1 dA), so gA = g conj(det) A^-H for an invertible A; where some matrix is singular,
// gA = g conj(det(U) det(V^H)) U diag(prod_{j != i} s_j) V^H from A's SVD (the adjugate's form, defined everywhere).
inline Tensor det_backward(const Tensor& g, const Tensor& A, const Tensor& det, const Tensor& LU,
                           const Tensor& pivots) {
  if (!g.defined()) return Tensor();
  const int64_t n = cols(A);
  const Tensor scale = yaten::mul(g, yaten::conj(det));
  const bool singular = composite_detail::item_bool(yaten::any(yaten::eq(det, Scalar(0.0))));
  if (!singular) {
    const Tensor rhs = yaten::mul(yaten::unsqueeze(yaten::unsqueeze(scale, -1), -1), eye_like(n, A));
    return adjoint_solve(A, LU, pivots, rhs, true);
  }
  const auto [U, S, Vh] = yaten::_linalg_svd(A, false, true, std::nullopt);
  // prod_{j != i} s_j as the product of the s before i and of those after it
  const Tensor ones = yaten::ones_like(yaten::narrow(S, -1, 0, 1));
  const Tensor before = yaten::cumprod(yaten::cat({ones, yaten::narrow(S, -1, 0, n - 1)}, -1), -1);
  const Tensor after = yaten::flip(yaten::cumprod(yaten::cat({ones, yaten::narrow(yaten::flip(S, {-1}), -1, 0, n - 1)},
                                                             -1), -1), {-1});
  const Tensor others = yaten::mul(before, after);
  const Tensor phase = yaten::conj(yaten::mul(yaten::linalg_det(U), yaten::linalg_det(Vh)));
  const Tensor factor = yaten::mul(scale, phase);
  const Tensor middle = yaten::_to_copy(others, A.dtype());
  const Tensor gA = yaten::matmul(scale_columns(U, middle), Vh);
  return yaten::mul(gA, yaten::unsqueeze(yaten::unsqueeze(factor, -1), -1));
}

// log det = l + i theta is holomorphic with d(log det) = tr(A^-1 dA); with sign s = e^{i theta},
// dL = g_l dl + <g_s, i s dtheta> = Re(conj(w) d(log det)) for w = g_l + i Im(g_s conj(s)), so gA = w A^-H.
inline Tensor slogdet_backward(const Tensor& g_sign, const Tensor& g_logabsdet, const Tensor& A, const Tensor& sign,
                               const Tensor& LU, const Tensor& pivots) {
  if (!g_sign.defined() && !g_logabsdet.defined()) return Tensor();
  const int64_t n = cols(A);
  Tensor w = g_logabsdet.defined() ? g_logabsdet : yaten::zeros_like(yaten::real(sign));
  if (is_complex(A.dtype())) {
    w = yaten::_to_copy(w, A.dtype());
    if (g_sign.defined()) {
      const Tensor im = yaten::imag(yaten::mul(g_sign, yaten::conj(sign)));
      w = yaten::add(w, yaten::mul(yaten::_to_copy(im, A.dtype()), Scalar(Complex<double>(0.0, 1.0))));
    }
  }
  const Tensor rhs = yaten::mul(yaten::unsqueeze(yaten::unsqueeze(w, -1), -1), eye_like(n, A));
  return adjoint_solve(A, LU, pivots, rhs, true);
}

// The pseudo-inverse's differential (Golub and Pereyra), for A (m x n) of locally constant rank, A+ = P:
// dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P, so
// gA = -P^H gP P^H + (I - A P) gP^H P P^H + P^H P gP^H (I - P A).
inline Tensor pinv_backward(const Tensor& gP, const Tensor& P, const Tensor& A) {
  if (!gP.defined()) return Tensor();
  const Tensor Ph = mH(P), gPh = mH(gP);
  const Tensor first = yaten::neg(yaten::matmul(yaten::matmul(Ph, gP), Ph));
  const Tensor AP = yaten::matmul(A, P), PA = yaten::matmul(P, A);
  const Tensor second = yaten::matmul(yaten::sub(gPh, yaten::matmul(AP, gPh)), yaten::matmul(P, Ph));
  const Tensor third = yaten::matmul(yaten::matmul(Ph, P), yaten::sub(gPh, yaten::matmul(gPh, PA)));
  return yaten::add(yaten::add(first, second), third);
}

// X = A+ B (the least-squares, least-norm solution): gB = A+^H gX, and A+'s gradient gX B^H through pinv_backward.
inline std::tuple<Tensor, Tensor> lstsq_backward(const Tensor& gX, const Tensor& A, const Tensor& B,
                                                 std::array<bool, 2> mask) {
  if (!gX.defined()) return {Tensor(), Tensor()};
  const bool vector = vector_rhs(A, B);
  const Tensor g = vector ? yaten::unsqueeze(gX, -1) : gX;
  const Tensor b = vector ? yaten::unsqueeze(B, -1) : B;
  const Tensor P = yaten::linalg_pinv(A, std::nullopt, false, std::nullopt, std::nullopt);
  Tensor gA, gB;
  if (mask[0]) gA = pinv_backward(yaten::matmul(g, mH(b)), P, A);
  if (mask[1]) {
    gB = yaten::matmul(mH(P), g);
    if (vector) gB = yaten::squeeze(gB, -1);
  }
  return {gA, gB};
}
}  // namespace linalg_grad

}  // namespace yaten::native
