// Householder factorizations of real matrices done here, with LAPACK's results and formats, their products shared out
// over yaten's threads where OpenBLAS's versions leave a core idle: the SVD's bidiagonalization (Note [An SVD whose
// bidiagonalization shares out]) and QR (Note [A QR whose products share out]). core/lapack.cpp sends them here.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/blas.h"
#include "core/error.h"
#include "core/lapack.h"
#include "core/parallel.h"

namespace yaten::lapack {

// Note [An SVD whose bidiagonalization shares out]
// LAPACK's gesdd spends most of a square SVD's time reducing the matrix to bidiagonal form (gebrd): half of that
// work is two matrix-vector products per column over the whole trailing matrix (labrd), and OpenBLAS's gebrd runs
// them on one thread however many it is given (512 x 512 float64: 43.4 ms at one thread, 41.9 at two, where the whole
// svdvals took 46). So for a real matrix of at least kSmallSvd rows and columns (near-square, or the R of a tall
// one's QR), the reduction is done here as LAPACK's blocked gebrd does it, with the
// same output (d, e, Q's reflectors below the diagonal and P's right of the superdiagonal, tauq, taup), and LAPACK's
// bdsdc (the bidiagonal SVD, divide and conquer) finishes it as in gesdd:
// - a panel of kPanel columns at a time (labrd): for each column, its reflector from the column updated by the
//   panel's earlier ones, the trailing matrix's product with it (Y = A^T v), the row's reflector, and the product with
//   that (X = A u); those two products, over the whole trailing matrix, are shared out over yaten's threads (columns
//   for A^T v, rows for A u) in vector loops written here; the row is gathered once and written back once;
// - then the trailing matrix less V Y^T and X U^T: blas.h's products, shared out over yaten's threads too;
// - U = Q U_b and V^T = V_b^T P^T as gesdd's two ormbr calls, in blocks of kApplyBlock reflectors (apply_reflectors).
// A matrix wider than tall is done as its transpose (A^T = V S U^T), a tall one (from 11/6, gesdd's threshold) by a
// QR first (svd_rows_ge_cols); the matrix is first scaled, as gesdd scales it, into the range where no square
// overflows. Complex matrices and small ones keep gesdd (at 64-96 rows and columns it was faster than this, from 256
// slower: 15.2 -> 12.2 ms for svd at 2 threads).
// 512 x 512 float64, 2 threads, this 2-core machine, beside torch (MKL): svd 1.22x -> 0.87x torch's time (99.7 ->
// 74.3 ms; bdsdc is 36 of them, on one thread), svdvals 1.27x -> 0.73x (44.1 -> 26.3 ms); 1 thread svd 0.74x.
namespace {

constexpr int64_t kPanel = 32;
// Elements of a matrix-vector product below which it runs on the calling thread alone.
constexpr int64_t kSharedProduct = int64_t(1) << 15;

template <typename T>
struct Vec;
template <>
struct Vec<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <>
struct Vec<double> {
  typedef double type __attribute__((vector_size(32)));
};
template <typename T>
using vec_t = typename Vec<T>::type;
template <typename T>
constexpr int64_t kLanes = int64_t(sizeof(vec_t<T>) / sizeof(T));

template <typename T>
inline vec_t<T> load(const T* p) {
  vec_t<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
inline void store(T* p, vec_t<T> v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename T>
inline T lane_sum(vec_t<T> v) {
  T s = 0;
  for (int64_t k = 0; k < kLanes<T>; ++k) s += v[k];
  return s;
}

// y[j * incy] = alpha * (column j of A) . x + (accumulate ? y[j * incy] : 0) for j in [j0, j1); A column-major
// (rows x ., lda), x contiguous. Four columns at a time, two vectors of rows a step.
template <typename T>
void columns_dot(int64_t rows, int64_t j0, int64_t j1, const T* a, int64_t lda, const T* x, T alpha, bool accumulate,
                 T* y, int64_t incy) {
  constexpr int64_t L = kLanes<T>;
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    const T* c[4] = {a + j * lda, a + (j + 1) * lda, a + (j + 2) * lda, a + (j + 3) * lda};
    vec_t<T> s[4][2] = {};
    int64_t r = 0;
    for (; r + 2 * L <= rows; r += 2 * L) {
      const vec_t<T> x0 = load(x + r), x1 = load(x + r + L);
      for (int q = 0; q < 4; ++q) {
        s[q][0] += load(c[q] + r) * x0;
        s[q][1] += load(c[q] + r + L) * x1;
      }
    }
    T t[4];
    for (int q = 0; q < 4; ++q) {
      t[q] = lane_sum<T>(s[q][0] + s[q][1]);
      for (int64_t i = r; i < rows; ++i) t[q] += c[q][i] * x[i];
      T& out = y[(j + q) * incy];
      out = alpha * t[q] + (accumulate ? out : T(0));
    }
  }
  for (; j < j1; ++j) {
    const T* c = a + j * lda;
    vec_t<T> s0{}, s1{};
    int64_t r = 0;
    for (; r + 2 * L <= rows; r += 2 * L) {
      s0 += load(c + r) * load(x + r);
      s1 += load(c + r + L) * load(x + r + L);
    }
    T t = lane_sum<T>(s0 + s1);
    for (int64_t i = r; i < rows; ++i) t += c[i] * x[i];
    T& out = y[j * incy];
    out = alpha * t + (accumulate ? out : T(0));
  }
}

// y[r0:r1] += alpha * A[r0:r1, :] x (A column-major rows x cols, lda; x and y contiguous): four columns a pass over
// the rows, in blocks that keep y's piece in L1.
template <typename T>
void rows_axpy(int64_t r0, int64_t r1, int64_t cols, const T* a, int64_t lda, const T* x, T alpha, T* y) {
  constexpr int64_t L = kLanes<T>, kBlock = 512;
  for (int64_t b0 = r0; b0 < r1; b0 += kBlock) {
    const int64_t b1 = std::min(r1, b0 + kBlock);
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4) {
      const T* c0 = a + j * lda;
      const T* c1 = c0 + lda;
      const T* c2 = c1 + lda;
      const T* c3 = c2 + lda;
      const T u0 = alpha * x[j], u1 = alpha * x[j + 1], u2 = alpha * x[j + 2], u3 = alpha * x[j + 3];
      int64_t r = b0;
      for (; r + L <= b1; r += L) {
        vec_t<T> v = load(y + r);
        v += load(c0 + r) * u0 + load(c1 + r) * u1;
        v += load(c2 + r) * u2 + load(c3 + r) * u3;
        store(y + r, v);
      }
      for (; r < b1; ++r) y[r] += c0[r] * u0 + c1[r] * u1 + c2[r] * u2 + c3[r] * u3;
    }
    for (; j < cols; ++j) {
      const T* c = a + j * lda;
      const T u = alpha * x[j];
      for (int64_t r = b0; r < b1; ++r) y[r] += c[r] * u;
    }
  }
}

// BLAS gemv's two forms with beta 0 or 1 (accumulate), shared out over yaten's threads when large:
// y = alpha A^T x (+ y), A rows x cols; x contiguous, y strided.
template <typename T>
void gemv_t(int64_t rows, int64_t cols, const T* a, int64_t lda, const T* x, T alpha, bool accumulate, T* y,
            int64_t incy) {
  if (cols <= 0) return;
  if (rows <= 0) {
    for (int64_t j = 0; j < cols; ++j) y[j * incy] = accumulate ? y[j * incy] : T(0);
    return;
  }
  const int64_t grain = std::max<int64_t>(4, kSharedProduct / rows);
  parallel_for(cols, grain, [&](int64_t j0, int64_t j1) {
    columns_dot(rows, j0, j1, a, lda, x, alpha, accumulate, y, incy);
  });
}
// y = alpha A x (+ y), A rows x cols; x strided (incx), y contiguous. `scratch` holds x's copy.
template <typename T>
void gemv_n(int64_t rows, int64_t cols, const T* a, int64_t lda, const T* x, int64_t incx, T alpha, bool accumulate,
            T* y, std::vector<T>& scratch) {
  if (rows <= 0) return;
  if (!accumulate) std::fill(y, y + rows, T(0));
  if (cols <= 0) return;
  const T* xc = x;
  if (incx != 1) {
    scratch.resize(size_t(cols));
    for (int64_t j = 0; j < cols; ++j) scratch[size_t(j)] = x[j * incx];
    xc = scratch.data();
  }
  const int64_t grain = std::max<int64_t>(64, kSharedProduct / cols);
  // pieces of whole 64-byte lines of y, so that no two threads write one line
  constexpr int64_t kLine = int64_t(64 / sizeof(T));
  const int64_t lines = (rows + kLine - 1) / kLine;
  parallel_for(lines, std::max<int64_t>(1, grain / kLine), [&](int64_t l0, int64_t l1) {
    rows_axpy(l0 * kLine, std::min(rows, l1 * kLine), cols, a, lda, xc, alpha, y);
  });
}

// The 2-norm of n elements (stride inc), without overflow or underflow: scaled by the largest magnitude (float in
// double, where no square can overflow).
template <typename T>
T norm2(int64_t n, const T* x, int64_t inc) {
  if constexpr (std::is_same_v<T, float>) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += double(x[i * inc]) * double(x[i * inc]);
    return float(std::sqrt(s));
  } else {
    T big = 0;
    for (int64_t i = 0; i < n; ++i) big = std::max(big, std::abs(x[i * inc]));
    if (big == 0 || !std::isfinite(big)) return big;
    const T inv = T(1) / big;
    T s = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T v = x[i * inc] * inv;
      s += v * v;
    }
    return big * std::sqrt(s);
  }
}

// LAPACK's larfg: the reflector H = I - tau v v^T (v(0) = 1, v(1:) written over x) with H [alpha; x] = [beta; 0],
// beta of the opposite sign to alpha (alpha becomes beta); tau = 0 (H = I) when x is zero. n counts alpha.
template <typename T>
void larfg(int64_t n, T* alpha, T* x, int64_t inc, T* tau) {
  if (n <= 1) {
    *tau = 0;
    return;
  }
  T xnorm = norm2(n - 1, x, inc);
  if (xnorm == 0) {
    *tau = 0;
    return;
  }
  T beta = -std::copysign(std::hypot(*alpha, xnorm), *alpha);
  const T safmin = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  int knt = 0;
  if (std::abs(beta) < safmin) {  // beta may be inaccurate: scale x and recompute, as LAPACK does
    const T rsafmn = T(1) / safmin;
    do {
      ++knt;
      for (int64_t i = 0; i < n - 1; ++i) x[i * inc] *= rsafmn;
      beta *= rsafmn;
      *alpha *= rsafmn;
    } while (std::abs(beta) < safmin && knt < 20);
    xnorm = norm2(n - 1, x, inc);
    beta = -std::copysign(std::hypot(*alpha, xnorm), *alpha);
  }
  *tau = (beta - *alpha) / beta;
  const T scale = T(1) / (*alpha - beta);
  for (int64_t i = 0; i < n - 1; ++i) x[i * inc] *= scale;
  for (int j = 0; j < knt; ++j) beta *= safmin;
  *alpha = beta;
}

// C = alpha op(A) op(B) + beta C, all column-major, through blas.h's products, shared out over yaten's threads as
// every product is (Note [One pool for the BLAS]). A column-major matrix is its transpose row-major, so this is
// C^T = alpha op(B)^T op(A)^T + beta C^T there, with the same transpose flags.
template <typename T>
void gemm(bool ta, bool tb, int64_t rows, int64_t cols, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  if (rows <= 0 || cols <= 0) return;
  const blas::Transpose fa = ta ? blas::Trans : blas::NoTrans, fb = tb ? blas::Trans : blas::NoTrans;
  if constexpr (std::is_same_v<T, float>) {
    blas::sgemm(fb, fa, cols, rows, k, alpha, b, ldb, a, lda, beta, c, ldc);
  } else {
    blas::dgemm(fb, fa, cols, rows, k, alpha, b, ldb, a, lda, beta, c, ldc);
  }
}

// Q = H(0) H(1) ... H(k-1), H(i) = I - tau(i) v_i v_i^T with v_i zero above row i, 1 at row i and reflector(r, i)
// below it (reflector: rows x k, column-major, ld), applied to C as ormqr does, a block of kApplyBlock reflectors at a
// time as I - V T V^T (T upper triangular, as larft builds it): left: C (rows x cols, ldc) = op(Q) C; right: C (cols
// x rows, ldc) = C op(Q)^T; op(Q) = Q^T when `transpose`. Q's blocks go from the last back (Q^T's from the first), and
// each block's three products are blas.h's, shared out over yaten's threads. LAPACK's ormqr takes blocks of 32 and
// products with k = 32 (512 x 512 float64: the SVD's two ormbr took 25 ms of its 85 at 2 threads, at 21 GFLOP/s);
// blocks of 64 here took the SVD to 74 ms.
constexpr int64_t kApplyBlock = 64;

template <typename T>
void apply_reflectors(bool left, bool transpose, int64_t rows, int64_t cols, int64_t k, const T* reflector, int64_t ld,
                      const T* tau, T* c, int64_t ldc) {
  if (k <= 0 || cols <= 0) return;
  std::vector<T> v, gram, t, w, tw;
  const int64_t blocks = (k + kApplyBlock - 1) / kApplyBlock;
  for (int64_t step = 0; step < blocks; ++step) {
    const int64_t j0 = (transpose ? step : blocks - 1 - step) * kApplyBlock;
    const int64_t nb = std::min(kApplyBlock, k - j0), mm = rows - j0;
    // V: the block's vectors, unit lower trapezoidal, written out
    v.assign(size_t(mm * nb), T(0));
    for (int64_t q = 0; q < nb; ++q) {
      T* col = v.data() + q * mm;
      col[q] = 1;
      const T* src = reflector + (j0 + q) * ld + j0;
      for (int64_t r = q + 1; r < mm; ++r) col[r] = src[r];
    }
    // T: T(q, q) = tau(q), T(0:q, q) = -tau(q) T(0:q, 0:q) (V(:, 0:q)^T v_q) (larft, forward, columnwise)
    gram.assign(size_t(nb * nb), T(0));
    gemm<T>(true, false, nb, nb, mm, T(1), v.data(), mm, v.data(), mm, T(0), gram.data(), nb);
    t.assign(size_t(nb * nb), T(0));
    for (int64_t q = 0; q < nb; ++q) {
      const T tq = tau[j0 + q];
      t[size_t(q + q * nb)] = tq;
      for (int64_t i = 0; i < q; ++i) {
        T sum = 0;
        for (int64_t l = i; l < q; ++l) sum += t[size_t(i + l * nb)] * gram[size_t(l + q * nb)];
        t[size_t(i + q * nb)] = -tq * sum;
      }
    }
    w.resize(size_t(nb * cols));
    tw.resize(size_t(nb * cols));
    T* sub = left ? c + j0 : c + j0 * ldc;
    if (left) {  // W = op(T) (V^T C), C -= V W
      gemm<T>(true, false, nb, cols, mm, T(1), v.data(), mm, sub, ldc, T(0), w.data(), nb);
      gemm<T>(transpose, false, nb, cols, nb, T(1), t.data(), nb, w.data(), nb, T(0), tw.data(), nb);
      gemm<T>(false, false, mm, cols, nb, T(-1), v.data(), mm, tw.data(), nb, T(1), sub, ldc);
    } else {  // W = (C V) op(T)^T, C -= W V^T
      gemm<T>(false, false, cols, nb, mm, T(1), sub, ldc, v.data(), mm, T(0), w.data(), cols);
      gemm<T>(false, !transpose, cols, nb, nb, T(1), w.data(), cols, t.data(), nb, T(0), tw.data(), cols);
      gemm<T>(false, true, cols, mm, nb, T(-1), tw.data(), cols, v.data(), mm, T(1), sub, ldc);
    }
  }
}

// The reduction of the leading `panel` columns (and rows) of A (rows x cols, rows >= cols, lda) as LAPACK's labrd:
// d, e, tauq and taup of those, their reflectors in A, and X (rows x panel, ldx = rows) and Y (cols x panel, ldy =
// cols) with which the trailing matrix is A - V Y^T - X U^T (LAPACK's notation; 0-based here).
template <typename T>
void labrd(int64_t M, int64_t N, int64_t panel, T* a, int64_t lda, T* d, T* e, T* tauq, T* taup, T* x, T* y,
           std::vector<T>& scratch) {
  const int64_t ldx = M, ldy = N;
  auto A = [&](int64_t r, int64_t c) -> T& { return a[r + c * lda]; };
  auto X = [&](int64_t r, int64_t c) -> T& { return x[r + c * ldx]; };
  auto Y = [&](int64_t r, int64_t c) -> T& { return y[r + c * ldy]; };
  std::vector<T> row, xi;
  for (int64_t i = 0; i < panel; ++i) {
    // A(i:M, i) -= A(i:M, 0:i) Y(i, 0:i)^T + X(i:M, 0:i) A(0:i, i)
    if (i > 0) {
      gemv_n<T>(M - i, i, &A(i, 0), lda, &Y(i, 0), ldy, T(-1), true, &A(i, i), scratch);
      gemv_n<T>(M - i, i, &X(i, 0), ldx, &A(0, i), 1, T(-1), true, &A(i, i), scratch);
    }
    larfg<T>(M - i, &A(i, i), &A(std::min(i + 1, M - 1), i), 1, &tauq[i]);
    d[i] = A(i, i);
    if (i + 1 >= N) {
      taup[i] = 0;
      continue;
    }
    A(i, i) = 1;
    const T* v = &A(i, i);  // the column's reflector, contiguous
    // Y(i+1:N, i) = tauq (A(i:M, i+1:N)^T v - Y(i+1:N, 0:i) A(i:M, 0:i)^T v - A(0:i, i+1:N)^T X(i:M, 0:i)^T v)
    gemv_t<T>(M - i, N - i - 1, &A(i, i + 1), lda, v, T(1), false, &Y(i + 1, i), 1);
    if (i > 0) {
      gemv_t<T>(M - i, i, &A(i, 0), lda, v, T(1), false, &Y(0, i), 1);
      gemv_n<T>(N - i - 1, i, &Y(i + 1, 0), ldy, &Y(0, i), 1, T(-1), true, &Y(i + 1, i), scratch);
      gemv_t<T>(M - i, i, &X(i, 0), ldx, v, T(1), false, &Y(0, i), 1);
      gemv_t<T>(i, N - i - 1, &A(0, i + 1), lda, &Y(0, i), T(-1), true, &Y(i + 1, i), 1);
    }
    for (int64_t r = i + 1; r < N; ++r) Y(r, i) *= tauq[i];
    // A(i, i+1:N) -= Y(i+1:N, 0:i+1) A(i, 0:i+1)^T + A(0:i, i+1:N)^T X(i, 0:i)^T, in `row` (contiguous: the row
    // is read and written once), then its reflector, u = row
    row.resize(size_t(N - i - 1));
    for (int64_t c = i + 1; c < N; ++c) row[size_t(c - i - 1)] = A(i, c);
    gemv_n<T>(N - i - 1, i + 1, &Y(i + 1, 0), ldy, &A(i, 0), lda, T(-1), true, row.data(), scratch);
    if (i > 0) {
      xi.resize(size_t(i));
      for (int64_t c = 0; c < i; ++c) xi[size_t(c)] = X(i, c);
      gemv_t<T>(i, N - i - 1, &A(0, i + 1), lda, xi.data(), T(-1), true, row.data(), 1);
    }
    larfg<T>(N - i - 1, &row[0], row.data() + std::min<int64_t>(1, N - i - 2), 1, &taup[i]);
    e[i] = row[0];
    row[0] = 1;
    for (int64_t c = i + 1; c < N; ++c) A(i, c) = row[size_t(c - i - 1)];
    // X(i+1:M, i) = taup (A(i+1:M, i+1:N) u - A(i+1:M, 0:i+1) Y(i+1:N, 0:i+1)^T u - X(i+1:M, 0:i) A(0:i, i+1:N) u)
    const T* u = row.data();
    gemv_n<T>(M - i - 1, N - i - 1, &A(i + 1, i + 1), lda, u, 1, T(1), false, &X(i + 1, i), scratch);
    gemv_t<T>(N - i - 1, i + 1, &Y(i + 1, 0), ldy, u, T(1), false, &X(0, i), 1);
    gemv_n<T>(M - i - 1, i + 1, &A(i + 1, 0), lda, &X(0, i), 1, T(-1), true, &X(i + 1, i), scratch);
    if (i > 0) {
      gemv_n<T>(i, N - i - 1, &A(0, i + 1), lda, u, 1, T(1), false, &X(0, i), scratch);
      gemv_n<T>(M - i - 1, i, &X(i + 1, 0), ldx, &X(0, i), 1, T(-1), true, &X(i + 1, i), scratch);
    }
    for (int64_t r = i + 1; r < M; ++r) X(r, i) *= taup[i];
  }
}

// LAPACK's gebrd for rows >= cols: A = Q B P^T with B upper bidiagonal (d, e), in LAPACK's format.
template <typename T>
void gebrd(int64_t m, int64_t n, T* a, int64_t lda, T* d, T* e, T* tauq, T* taup) {
  std::vector<T> x(size_t(m * kPanel)), y(size_t(n * kPanel)), scratch;
  for (int64_t i = 0; i < n; i += kPanel) {
    const int64_t panel = std::min(kPanel, n - i);
    const int64_t M = m - i, N = n - i;
    T* sub = a + i + i * lda;
    labrd<T>(M, N, panel, sub, lda, d + i, e + i, tauq + i, taup + i, x.data(), y.data(), scratch);
    if (panel == N) break;
    // A(p:M, p:N) -= V Y^T + X U^T (V: the panel's columns below it, U: its rows right of it; their unit elements
    // are stored as 1 until restored below)
    const int64_t p = panel;
    gemm<T>(false, true, M - p, N - p, p, T(-1), sub + p, lda, y.data() + p, N, T(1), sub + p + p * lda, lda);
    gemm<T>(false, false, M - p, N - p, p, T(-1), x.data() + p, M, sub + p * lda, lda, T(1), sub + p + p * lda, lda);
    for (int64_t j = 0; j < p; ++j) {
      sub[j + j * lda] = d[i + j];
      sub[j + (j + 1) * lda] = e[i + j];
    }
  }
}

// gesdd's result for rows >= cols (m x n, lda), in place of its call: jobz 'N', 'S' or 'A'.
template <typename T>
int svd_tall(char jobz, int64_t m, int64_t n, T* a, int64_t lda, T* s, T* u, int64_t ldu, T* vt, int64_t ldvt) {
  // gesdd's scaling: the largest magnitude into [smlnum, bignum], where the reflectors' squares stay finite
  const T eps = std::numeric_limits<T>::epsilon();
  const T smlnum = std::sqrt(std::numeric_limits<T>::min()) / eps, bignum = T(1) / smlnum;
  T anrm = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) anrm = std::max(anrm, std::abs(a[i + j * lda]));
  }
  T scaled_to = 0;
  if (anrm > 0 && anrm < smlnum) scaled_to = smlnum;
  if (anrm > bignum) scaled_to = bignum;
  if (scaled_to != 0) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) a[i + j * lda] = a[i + j * lda] / anrm * scaled_to;
    }
  }
  std::vector<T> e(static_cast<size_t>(n)), tauq(static_cast<size_t>(n)), taup(static_cast<size_t>(n));
  gebrd<T>(m, n, a, lda, s, e.data(), tauq.data(), taup.data());

  int info = 0;
  const int64_t ucols = jobz == 'A' ? m : n;
  {  // bdsdc on the BLAS's threads (Note [LAPACK on the BLAS's threads])
    blas::ThreadedCalls threaded(n >= kSmallSvd);
    if (jobz == 'N') {
      info = lapack::bdsdc<T>('U', 'N', n, s, e.data(), nullptr, 1, nullptr, 1);
    } else {
      for (int64_t j = 0; j < ucols; ++j) std::fill(u + j * ldu, u + j * ldu + m, T(0));
      info = lapack::bdsdc<T>('U', 'I', n, s, e.data(), u, ldu, vt, ldvt);
    }
  }
  if (jobz != 'N' && info == 0) {
    // U = Q [U_b 0; 0 I] and V^T = V_b^T P^T, as gesdd's two ormbr calls
    for (int64_t j = n; j < ucols; ++j) u[j + j * ldu] = T(1);  // jobz 'A': the columns past n, an identity
    apply_reflectors<T>(true, false, m, ucols, n, a, lda, tauq.data(), u, ldu);
    if (n > 1) {  // P's reflectors: row i right of the superdiagonal, as columns acting on V^T's columns 1..n-1
      std::vector<T> rows(size_t((n - 1) * (n - 1)), T(0));
      for (int64_t i = 0; i + 1 < n; ++i) {
        for (int64_t r = i + 1; r < n - 1; ++r) rows[size_t(r + i * (n - 1))] = a[i + (r + 1) * lda];
      }
      apply_reflectors<T>(false, false, n - 1, n, n - 1, rows.data(), n - 1, taup.data(), vt + ldvt, ldvt);
    }
  }
  if (scaled_to != 0) {
    for (int64_t i = 0; i < n; ++i) s[i] = s[i] / scaled_to * anrm;
  }
  return info;
}

// Note [A QR whose products share out]: LAPACK's geqrt on OpenBLAS (lapack.cpp's geqrf) hardly gains from a
// second thread (512 x 512 float64: 11.1 ms at one, 9.5 at two, where torch's MKL takes 6.0); here a panel of
// kQrPanel columns at a time is factored column by column (larfg, then the panel's remaining columns less the
// reflector's share: a product with the panel and a rank-1 update, within the cache) and applied to the trailing
// matrix as one block reflector, Q^T A, by apply_reflectors' three products on yaten's threads. The reflectors are
// larfg's as LAPACK's, in its format (V below the diagonal, tau), so orgqr, ormqr and householder_product take them.
// 512 x 512 float64: geqrf 11.1 -> 7.9 ms at one thread, 9.5 -> 5.6 at two (torch 16.0 and 6.0); qr with orgqr
// 18.5 -> 10.7 ms at two (torch 19.5). Matrices of at most kQrPanel columns (or rows) are the column loop alone, with
// orgqr by LAPACK's org2r, each reflector in turn: the library's per-call costs were most of a small QR's time (256 x
// 16 x 16 float64 at one thread: qr 2.37 -> 0.99 ms, 1.54x -> 0.65x torch's time; lstsq 1.33x -> 1.07x).
constexpr int64_t kQrPanel = 32;

template <typename T>
void geqrf_blocked(int64_t m, int64_t n, T* a, int64_t lda, T* tau) {
  const int64_t k = std::min(m, n);
  std::vector<T> w;
  for (int64_t j0 = 0; j0 < k; j0 += kQrPanel) {
    const int64_t end = std::min(k, j0 + kQrPanel);
    for (int64_t j = j0; j < end; ++j) {
      T* col = a + j + j * lda;  // A(j, j)
      larfg<T>(m - j, col, a + std::min(j + 1, m - 1) + j * lda, 1, &tau[j]);
      const int64_t rest = end - j - 1;  // the panel's columns right of j
      if (rest > 0 && tau[j] != T(0)) {  // A(j:m, j+1:end) -= tau v (v^T A(j:m, j+1:end))
        const T diagonal = *col;
        *col = 1;
        w.resize(size_t(rest));
        columns_dot(m - j, 0, rest, col + lda, lda, col, T(1), false, w.data(), 1);
        for (int64_t c = 0; c < rest; ++c) {
          T* dst = col + (c + 1) * lda;
          const T scale = -tau[j] * w[size_t(c)];
          for (int64_t r = 0; r < m - j; ++r) dst[r] += scale * col[r];
        }
        *col = diagonal;
      }
    }
    if (end < n) {  // the trailing columns: Q_panel^T A(j0:m, end:n)
      apply_reflectors<T>(true, true, m - j0, n - end, end - j0, a + j0 + j0 * lda, lda, tau + j0,
                          a + j0 + end * lda, lda);
    }
  }
}

// orgqr: the first n columns of Q = H(0) ... H(k-1) (geqrf_blocked's, in a), in place. Block by block from the last,
// on [I; 0]; a block starting at column j0 changes only rows and columns from j0 (the columns left of it are still
// the identity's there), so each is applied to that corner alone, as LAPACK's orgqr does.
template <typename T>
void orgqr_blocked(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau) {
  if (k <= kQrPanel) {  // few reflectors: LAPACK's org2r, each applied in turn (no blocks to build)
    auto A = [&](int64_t r, int64_t c) -> T& { return a[r + c * lda]; };
    for (int64_t j = k; j < n; ++j) {
      std::fill(a + j * lda, a + j * lda + m, T(0));
      if (j < m) A(j, j) = 1;
    }
    std::vector<T> w(static_cast<size_t>(std::max<int64_t>(1, n)));
    for (int64_t i = k - 1; i >= 0; --i) {
      T* v = &A(i, i);
      if (i + 1 < n && tau[i] != T(0)) {  // H(i) on A(i:m, i+1:n): w = C^T v, C -= tau v w^T
        *v = 1;
        columns_dot(m - i, 0, n - i - 1, v + lda, lda, v, T(1), false, w.data(), 1);
        for (int64_t c = 0; c < n - i - 1; ++c) {
          T* dst = v + (c + 1) * lda;
          const T scale = -tau[i] * w[size_t(c)];
          for (int64_t r = 0; r < m - i; ++r) dst[r] += scale * v[r];
        }
      }
      for (int64_t r = i + 1; r < m; ++r) A(r, i) *= -tau[i];
      A(i, i) = T(1) - tau[i];
      for (int64_t r = 0; r < i; ++r) A(r, i) = 0;
    }
    return;
  }
  std::vector<T> v(size_t(m * k));
  for (int64_t j = 0; j < k; ++j) std::copy(a + j * lda, a + j * lda + m, v.data() + j * m);
  for (int64_t j = 0; j < n; ++j) {
    std::fill(a + j * lda, a + j * lda + m, T(0));
    if (j < m) a[j + j * lda] = 1;
  }
  const int64_t blocks = (k + kApplyBlock - 1) / kApplyBlock;
  for (int64_t b = blocks - 1; b >= 0; --b) {
    const int64_t j0 = b * kApplyBlock, nb = std::min(kApplyBlock, k - j0);
    apply_reflectors<T>(true, false, m - j0, n - j0, nb, v.data() + j0 + j0 * m, m, tau + j0, a + j0 + j0 * lda,
                        lda);
  }
}

// Note [An eigh whose Q shares out]: syevd with vectors spends the most of its time in ormtr, applying the
// tridiagonalization's Q to the tridiagonal problem's eigenvectors (512 x 512 float64 at 2 threads, OpenBLAS: sytrd
// 7.5 ms, stedc 9.3, ormtr 14.7 of syevd's 32.5; ormtr at 18 GFLOP/s). So for a real matrix of kSmallSvd rows or more
// it is sytrd and stedc (LAPACK's, on the BLAS's threads, as syevd calls them, after syevd's scaling), then Q Z by
// apply_reflectors. The upper triangle is first mirrored into the lower (the matrix is symmetric: either triangle
// holds it), so Q is always sytrd('L')'s: H(i) acting on rows i+1.. with its vector below the subdiagonal.

template <typename T>
int syevd_vectors(char uplo, int64_t n, T* a, int64_t lda, T* w) {
  auto A = [&](int64_t r, int64_t c) -> T& { return a[r + c * lda]; };
  if (uplo == 'U' || uplo == 'u') {
    for (int64_t c = 0; c < n; ++c) {
      for (int64_t r = c + 1; r < n; ++r) A(r, c) = A(c, r);
    }
  }
  // syevd's scaling: the largest magnitude into [sqrt(smlnum), sqrt(bignum)]
  const T smlnum = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  const T rmin = std::sqrt(smlnum), rmax = std::sqrt(T(1) / smlnum);
  T anrm = 0;
  for (int64_t c = 0; c < n; ++c) {
    for (int64_t r = c; r < n; ++r) anrm = std::max(anrm, std::abs(A(r, c)));
  }
  T sigma = 1;
  if (anrm > 0 && anrm < rmin) sigma = rmin / anrm;
  if (anrm > rmax) sigma = rmax / anrm;
  if (sigma != 1) {
    for (int64_t c = 0; c < n; ++c) {
      for (int64_t r = c; r < n; ++r) A(r, c) *= sigma;
    }
  }
  std::vector<T> e(static_cast<size_t>(n)), tau(static_cast<size_t>(n)), z(static_cast<size_t>(n * n));
  {  // LAPACK's part on the BLAS's threads (Note [LAPACK on the BLAS's threads])
    blas::ThreadedCalls threaded(true);
    int info = lapack::sytrd<T>('L', n, a, lda, w, e.data(), tau.data());
    if (info != 0) return info;
    info = lapack::stedc<T>('I', n, w, e.data(), z.data(), n);
    if (info != 0) return info;
  }
  // the eigenvectors: Q Z, Q's reflectors acting on rows 1..n-1
  if (n > 1) apply_reflectors<T>(true, false, n - 1, n, n - 1, a + 1, lda, tau.data(), z.data() + 1, n);
  for (int64_t c = 0; c < n; ++c) std::copy(z.data() + c * n, z.data() + (c + 1) * n, a + c * lda);
  if (sigma != 1) {
    for (int64_t i = 0; i < n; ++i) w[i] /= sigma;
  }
  return 0;
}

}  // namespace

// at most 40000 rows: stedc's workspace, 1 + 4n + n^2 elements, is counted in LAPACK's 32-bit int
bool eigh_shares_out(int64_t n) { return n >= kSmallSvd && n <= 40000; }
template <typename T>
int syevd_shared(char uplo, int64_t n, T* a, int64_t lda, T* w) {
  return syevd_vectors<T>(uplo, n, a, lda, w);
}
template int syevd_shared<float>(char, int64_t, float*, int64_t, float*);
template int syevd_shared<double>(char, int64_t, double*, int64_t, double*);

bool qr_shares_out(int64_t m, int64_t n) {
  // small matrices too (a panel's worth of columns: larfg's loop, without the library's per-call costs); between, the
  // library's geqrt (lapack.cpp's Note [QR by geqrt])
  const int64_t k = std::min(m, n);
  return (k <= kQrPanel || k >= kSmallSvd) && std::max(m, n) <= INT_MAX / 4;
}

template <typename T>
void geqrf_shared(int64_t m, int64_t n, T* a, int64_t lda, T* tau) {
  geqrf_blocked<T>(m, n, a, lda, tau);
}
template <typename T>
void orgqr_shared(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau) {
  orgqr_blocked<T>(m, n, k, a, lda, tau);
}
template void geqrf_shared<float>(int64_t, int64_t, float*, int64_t, float*);
template void geqrf_shared<double>(int64_t, int64_t, double*, int64_t, double*);
template void orgqr_shared<float>(int64_t, int64_t, int64_t, float*, int64_t, const float*);
template void orgqr_shared<double>(int64_t, int64_t, int64_t, double*, int64_t, const double*);

bool svd_shares_out(int64_t m, int64_t n) {
  // below kSmallSvd rows and columns gesdd was faster
  return std::min(m, n) >= kSmallSvd && std::max(m, n) <= INT_MAX / 4;
}

namespace {
// gesdd's result for rows >= cols. From 11/6 as many rows as columns (gesdd's own threshold, its mnthr) a QR first,
// as gesdd does: A = Q R (geqrf_blocked), the SVD of R (n x n, svd_tall), then U = Q [U_R 0; 0 I] by the blocked
// reflectors. Float64 at 2 threads, time over torch's, where gesdd's own tall path took: 1024 x 256 svd 1.13x -> 0.71x,
// svdvals 1.21x -> 0.79x; 2000 x 200 svd 1.16x -> 1.07x, svdvals 1.44x -> 1.12x (the QR's panels, BLAS-2 on one
// thread, are most of what is left); 200 x 2000 (as its transpose) svd 0.99x -> 0.65x, svdvals 0.70x -> 0.43x.
template <typename T>
int svd_rows_ge_cols(char jobz, int64_t m, int64_t n, T* a, int64_t lda, T* s, T* u, int64_t ldu, T* vt,
                     int64_t ldvt) {
  if (m < n * 11 / 6) return svd_tall<T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
  std::vector<T> tau(static_cast<size_t>(n)), r(static_cast<size_t>(n * n), T(0));
  geqrf_blocked<T>(m, n, a, lda, tau.data());
  for (int64_t j = 0; j < n; ++j) std::copy(a + j * lda, a + j * lda + j + 1, r.data() + j * n);
  if (jobz == 'N') return svd_tall<T>('N', n, n, r.data(), n, s, nullptr, 1, nullptr, 1);
  std::vector<T> ur(static_cast<size_t>(n * n));
  const int info = svd_tall<T>('S', n, n, r.data(), n, s, ur.data(), n, vt, ldvt);
  if (info != 0) return info;
  const int64_t ucols = jobz == 'A' ? m : n;
  for (int64_t j = 0; j < ucols; ++j) {
    T* col = u + j * ldu;
    std::fill(col, col + m, T(0));
    if (j < n) {
      std::copy(ur.data() + j * n, ur.data() + (j + 1) * n, col);
    } else {
      col[j] = 1;
    }
  }
  apply_reflectors<T>(true, false, m, ucols, n, a, lda, tau.data(), u, ldu);
  return 0;
}
}  // namespace

template <typename T>
int gesdd_shared(char jobz, int64_t m, int64_t n, T* a, int64_t lda, T* s, T* u, int64_t ldu, T* vt, int64_t ldvt) {
  if (m >= n) return svd_rows_ge_cols<T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
  // A^T = V S U^T: the SVD of the transpose (n x m), its factors transposed back
  std::vector<T> at(size_t(n * m));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) at[size_t(j + i * n)] = a[i + j * lda];
  }
  if (jobz == 'N') return svd_rows_ge_cols<T>('N', n, m, at.data(), n, s, nullptr, 1, nullptr, 1);
  const int64_t ub_cols = jobz == 'A' ? n : m;  // U of A^T: n x ub_cols; its V^T: m x m
  std::vector<T> ub(size_t(n * ub_cols)), vtb(size_t(m * m));
  const int info = svd_rows_ge_cols<T>(jobz, n, m, at.data(), n, s, ub.data(), n, vtb.data(), m);
  for (int64_t j = 0; j < m; ++j) {  // U (m x m) = (V^T of A^T)^T
    for (int64_t i = 0; i < m; ++i) u[i + j * ldu] = vtb[size_t(j + i * m)];
  }
  for (int64_t j = 0; j < n; ++j) {  // V^T (ub_cols x n) = (U of A^T)^T
    for (int64_t i = 0; i < ub_cols; ++i) vt[i + j * ldvt] = ub[size_t(j + i * n)];
  }
  return info;
}

template int gesdd_shared<float>(char, int64_t, int64_t, float*, int64_t, float*, float*, int64_t, float*, int64_t);
template int gesdd_shared<double>(char, int64_t, int64_t, double*, int64_t, double*, double*, int64_t, double*,
                                  int64_t);

}  // namespace yaten::lapack
