// cuSOLVER's dense routines and cuBLAS's triangular solve for the CUDA linear algebra kernels
// (kernels/cuda/solver.cuh), on device pointers and `device`'s current stream. Each takes one column-major matrix (as
// core/lapack.h's LAPACK routines do on the CPU; Note [LAPACK's layout]) of `dtype` float32, float64, complex64 or
// complex128, and writes LAPACK's `info` to the device int at `info` (0: success; > 0: the routine's own failure),
// which the kernels read back only when they must raise. Workspaces come from the caching allocator on the stream.
// RuntimeError naming `op` when cuSOLVER cannot be opened (saying what to install), a size exceeds what the routine
// takes, or cuSOLVER reports an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/scalar_type.h"

namespace yaten::cuda {

// Where to look for libcusolver, in order (yaten/cuda.py sets the nvidia-cusolver wheel's paths at import).
void set_cusolver_candidates(const std::vector<std::string>& paths);
// The path of the loaded libcusolver, opening it first; RuntimeError saying what to install when none opens.
std::string cusolver_path();

namespace solver {

// P A = L U in place (m x n); ipiv: min(m, n) 1-based row swaps (int64, cuSOLVER's 64-bit API).
void getrf(const char* op, ScalarType dtype, int device, int64_t m, int64_t n, void* a, int64_t lda, int64_t* ipiv,
           int* info);
// B (n x nrhs) = op(A)^-1 B from getrf's factors; trans 'N', 'T' or 'C'.
void getrs(const char* op, ScalarType dtype, int device, char trans, int64_t n, int64_t nrhs, const void* a,
           int64_t lda, const int64_t* ipiv, void* b, int64_t ldb, int* info);
// The Cholesky factor in A's `upper` or lower triangle (the other untouched).
void potrf(const char* op, ScalarType dtype, int device, bool upper, int64_t n, void* a, int64_t lda, int* info);
// A = Q R in place: R in the upper triangle, Q as min(m, n) reflectors below it and in tau.
void geqrf(const char* op, ScalarType dtype, int device, int64_t m, int64_t n, void* a, int64_t lda, void* tau,
           int* info);
// The first n columns of the Q of k reflectors (geqrf's), in place (orgqr, ungqr for complex).
void orgqr(const char* op, ScalarType dtype, int device, int64_t m, int64_t n, int64_t k, void* a, int64_t lda,
           const void* tau, int* info);
// C (m x n) = op(Q) C with the Q of k reflectors of an m-row A (ormqr, unmqr); trans 'N', or 'C' (its adjoint).
void ormqr_left(const char* op, ScalarType dtype, int device, char trans, int64_t m, int64_t n, int64_t k,
                const void* a, int64_t lda, const void* tau, void* c, int64_t ldc, int* info);
// Eigenvalues (ascending, real, into w) and, when `vectors`, orthonormal eigenvectors (into a) of a Hermitian A read
// from its `upper` or lower triangle, by divide and conquer (syevd, heevd).
void syevd(const char* op, ScalarType dtype, int device, bool vectors, bool upper, int64_t n, void* a, int64_t lda,
           void* w, int* info);
// The SVD of A (m x n, m >= n: cuSOLVER's gesvd takes no wide matrix), which is destroyed: s (real, descending),
// jobu 'A' (u m x m), 'S' (u m x n) or 'N'; jobvt 'A' (vt n x n) or 'N'.
void gesvd(const char* op, ScalarType dtype, int device, char jobu, char jobvt, int64_t m, int64_t n, void* a,
           int64_t lda, void* s, void* u, int64_t ldu, void* vt, int64_t ldvt, int* info);

// Batched forms for many small matrices, one call for `count` column-major matrices of the same shape; `info` a
// device int per matrix, as the single forms'. getrf/getrs (cuBLAS's, cublas.cpp) and potrf take arrays of device
// pointers (on the device) to the matrices, square n x n; getrf's pivots are int32, n per matrix in a row, getrs's
// right-hand sides n x nrhs each. syevj (Jacobi; heevj for complex) and gesvdj take the matrices at strides of
// lda * n (w: n per matrix; s: min(m, n), u: ldu * m, v: ldv * n), each at most kMaxJacobiBatchedSize on a side;
// gesvdj returns V, not V^H, and full U (m x m) and V (n x n). Values sorted as LAPACK's: eigenvalues ascending,
// singular values descending.
constexpr int64_t kMaxJacobiBatchedSize = 32;
void getrf_batched(const char* op, ScalarType dtype, int device, int64_t n, void* const* a, int64_t lda, int* ipiv,
                   int* info, int64_t count);
void getrs_batched(const char* op, ScalarType dtype, int device, char trans, int64_t n, int64_t nrhs,
                   const void* const* a, int64_t lda, const int* ipiv, void* const* b, int64_t ldb, int64_t count);
void potrf_batched(const char* op, ScalarType dtype, int device, bool upper, int64_t n, void** a, int64_t lda,
                   int* info, int64_t count);
void syevj_batched(const char* op, ScalarType dtype, int device, bool vectors, bool upper, int64_t n, void* a,
                   int64_t lda, void* w, int* info, int64_t count);
// The SVD of one m x n matrix by Jacobi sweeps (gesvdj, torch's default on CUDA), A destroyed: s descending, U
// (m x min(m, n) when `economy`, else m x m) and V, not V^H (n x min(m, n), or n x n); info > 0: no convergence.
void gesvdj(const char* op, ScalarType dtype, int device, bool vectors, bool economy, int64_t m, int64_t n, void* a,
            int64_t lda, void* s, void* u, int64_t ldu, void* v, int64_t ldv, int* info);
void gesvdj_batched(const char* op, ScalarType dtype, int device, bool vectors, int64_t m, int64_t n, void* a,
                    int64_t lda, void* s, void* u, int64_t ldu, void* v, int64_t ldv, int* info, int64_t count);

// cuBLAS's trsm (cublas.cpp): B = op(A)^-1 B (left, B m x n) or B op(A)^-1, A triangular; trans 'N', 'T' or 'C'.
void trsm(const char* op, ScalarType dtype, int device, bool left, bool upper, char trans, bool unit_diagonal,
          int64_t m, int64_t n, const void* a, int64_t lda, void* b, int64_t ldb);

}  // namespace solver
}  // namespace yaten::cuda
