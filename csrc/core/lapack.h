// LAPACK, from the library that serves the BLAS (core/blas.h: OpenBLAS from scipy-openblas32, opened at run time by
// yaten/_blas.py), reached through function pointers found on first use, so the build needs no LAPACK either.
//
// Each function is one LAPACK driver on one column-major matrix, for T = float, double, Complex<float> and
// Complex<double> (the s, d, c and z routines), its workspace sized by LAPACK's own query and allocated here. They
// return LAPACK's `info` (0: success; > 0: the routine's own failure, a singular or non-definite matrix; < 0 cannot
// happen from yaten's kernels, which check arguments first) and raise RuntimeError when the library lacks the routine
// or a size exceeds its 32-bit integers. Each call holds a blas::Slot (Note [Concurrent BLAS calls]), so kernels call
// them from parallel_for chunks, one matrix of a batch per call. kernels/cpu/lapack.h is their user.
#pragma once

#include <cstdint>

#include "core/complex.h"

namespace yaten::lapack {

template <typename T>
using real_t = typename RealOf<T>::type;

// Note [LAPACK under an address-space limit] (lapack.cpp): RuntimeError instead of a call that could end the process;
// kernels call it once before their batch of calls.
void check_address_space();

// A = P L U in place (m x n, lda); ipiv: min(m, n) 1-based row swaps.
template <typename T>
int getrf(int64_t m, int64_t n, T* a, int64_t lda, int* ipiv);
// B (n x nrhs) = op(A)^-1 B from getrf's factors; trans 'N', 'T' or 'C'.
template <typename T>
int getrs(char trans, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int* ipiv, T* b, int64_t ldb);
// The Cholesky factor of a Hermitian positive-definite A in its `uplo` ('L' or 'U') triangle; the other is untouched.
template <typename T>
int potrf(char uplo, int64_t n, T* a, int64_t lda);
// B = op(A)^-1 B (side 'L', B m x n) or B op(A)^-1 (side 'R') with A triangular (BLAS trsm, alpha 1).
template <typename T>
void trsm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, const T* a, int64_t lda, T* b,
          int64_t ldb);
// A = Q R in place: R in the upper triangle, Q as min(m, n) Householder reflectors below it and in tau.
template <typename T>
int geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau);
// The first n columns of the Q of k reflectors (geqrf's), in place (orgqr for real T, ungqr for complex).
template <typename T>
int orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau);
// The SVD by divide and conquer: jobz 'N' (s only), 'S' (u m x k, vt k x n) or 'A' (u m x m, vt n x n); a is destroyed.
template <typename T>
int gesdd(char jobz, int64_t m, int64_t n, T* a, int64_t lda, real_t<T>* s, T* u, int64_t ldu, T* vt, int64_t ldvt);
// Note [An SVD whose bidiagonalization shares out] (householder.cpp): whether gesdd of a real m x n matrix takes
// gesdd_shared, which gives gesdd's result with the bidiagonal reduction done on yaten's threads (float and double).
constexpr int64_t kSmallSvd = 128;
bool svd_shares_out(int64_t m, int64_t n);
template <typename T>
int gesdd_shared(char jobz, int64_t m, int64_t n, T* a, int64_t lda, T* s, T* u, int64_t ldu, T* vt, int64_t ldvt);
// Note [A QR whose products share out] (householder.cpp): whether geqrf and orgqr of a real m x n matrix take
// geqrf_shared and orgqr_shared, LAPACK's results (the same reflectors, in its format) with the products on yaten's
// threads.
bool qr_shares_out(int64_t m, int64_t n);
template <typename T>
void geqrf_shared(int64_t m, int64_t n, T* a, int64_t lda, T* tau);
template <typename T>
void orgqr_shared(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau);
// Note [An eigh whose Q shares out] (householder.cpp): whether syevd with vectors of a real n x n matrix takes
// syevd_shared (the same results, Q applied on yaten's threads).
bool eigh_shares_out(int64_t n);
template <typename T>
int syevd_shared(char uplo, int64_t n, T* a, int64_t lda, T* w);
// LAPACK's computational routines behind householder.cpp's drivers, for real T (float and double) only; each takes a
// blas::Slot and sizes its workspace here. bdsdc: the SVD of an n x n bidiagonal matrix (d, e; uplo 'U' or 'L'),
// compq 'N' (values only, into d) or 'I' (also U into u and V^T into vt). sytrd: a symmetric A (its `uplo` triangle)
// reduced to a tridiagonal d, e by Q^T A Q, Q's reflectors left in A and tau. stedc: the eigenvalues (into d) and, for
// compz 'I', the eigenvectors (into z) of the symmetric tridiagonal d, e, by divide and conquer.
template <typename T>
int bdsdc(char uplo, char compq, int64_t n, T* d, T* e, T* u, int64_t ldu, T* vt, int64_t ldvt);
template <typename T>
int sytrd(char uplo, int64_t n, T* a, int64_t lda, T* d, T* e, T* tau);
template <typename T>
int stedc(char compz, int64_t n, T* d, T* e, T* z, int64_t ldz);
// Eigenvalues (ascending, into w) and, for jobz 'V', orthonormal eigenvectors (into a) of a Hermitian A read from its
// `uplo` triangle, by divide and conquer (syevd for real T, heevd for complex).
template <typename T>
int syevd(char jobz, char uplo, int64_t n, T* a, int64_t lda, real_t<T>* w);
// Eigenvalues (into w, complex) and, when vr is not null, right eigenvectors (into vr, complex, each of unit 2-norm
// with its largest component real) of a general A, which is destroyed. For real T, LAPACK's pairs of real columns
// are made complex here.
template <typename T>
int geev(int64_t n, T* a, int64_t lda, Complex<real_t<T>>* w, Complex<real_t<T>>* vr, int64_t ldvr);
// A = L D L^T (L D L^H when hermitian) by Bunch-Kaufman pivoting, in A's lower triangle and ipiv (LAPACK's
// format: 1x1 and 2x2 blocks; sytrf, or hetrf for a Hermitian complex A).
template <typename T>
int sytrf(bool hermitian, int64_t n, T* a, int64_t lda, int* ipiv);
// B (n x nrhs) = A^-1 B from sytrf's (or hetrf's) factors.
template <typename T>
int sytrs(bool hermitian, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int* ipiv, T* b, int64_t ldb);
// Least squares: B's first n rows (of max(m, n)) become argmin ||A X - B||; a is destroyed. driver 'y' (gelsy:
// complete orthogonal factorization), 'd' (gelsd: SVD, divide and conquer), 's' (gelss: SVD) or 'g' (gels: QR, A of
// full rank). rank gets the effective rank (not for gels) and s the singular values (gelsd and gelss).
template <typename T>
int gels(char driver, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, real_t<T> rcond,
         int64_t* rank, real_t<T>* s);

}  // namespace yaten::lapack
