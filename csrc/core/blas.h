// The BLAS behind float32/float64/complex64/complex128 matmul: OpenBLAS from the scipy-openblas32 wheel (Design rule
// [Run-time libraries]), opened at import time by yaten/_blas.py (it knows where pip put it) and called through
// function pointers, so the build needs no BLAS and one library serves every platform the wheel does.
#pragma once

#include <cstdint>
#include <string>

namespace yaten::blas {

// CBLAS constants, as in cblas.h.
enum Order { RowMajor = 101 };
enum Transpose { NoTrans = 111, Trans = 112 };

// Opens the shared library at `path` and finds its gemm entry points (symbols prefixed `prefix`, "scipy_" for
// scipy-openblas32); RuntimeError naming what is missing otherwise.
void load(const std::string& path, const std::string& prefix);
bool loaded();
// "OpenBLAS 0.3.x ..." or "" when none is loaded.
std::string config();
// The loaded library's symbol `name` with its prefix ("dgetrf_" is scipy_dgetrf_ in scipy-openblas32), or nullptr
// when it has none or no library is loaded: LAPACK (core/lapack.h) is found in the same library.
void* find_symbol(const std::string& name);

// Note [LAPACK on the BLAS's threads]: a LAPACK routine on one large matrix (a 512 x 512 solve or SVD) cannot be
// split over yaten's pool the way a product is (Note [One pool for the BLAS]): its steps depend on each other. For
// such a call, made outside a parallel region, ThreadedCalls lets OpenBLAS use its own threads (as many as yaten's),
// one such scope at a time, and sets it back to one thread after. OpenBLAS's workers would then spin for 2^28 cycles
// (about 0.1 s) waiting for more work, on the cores yaten's threads need; yaten/_blas.py sets OPENBLAS_THREAD_TIMEOUT
// to 2^18 cycles before opening the library: awake between one factorization's calls, asleep soon after (512 x 512
// float64 at 2 threads: solve 0.90x torch's time, where at 2^4 cycles the wake-ups took it to 0.98-1.97x; an SVD,
// whose reduction runs on yaten's threads after such a scope, 1.03x, where at 2^26 it was 1.27x).
class ThreadedCalls {
 public:
  // `enable`: whether the caller's work is large enough; nothing changes otherwise, or inside a parallel region,
  // or with one thread.
  explicit ThreadedCalls(bool enable);
  ~ThreadedCalls();
  ThreadedCalls(const ThreadedCalls&) = delete;
  ThreadedCalls& operator=(const ThreadedCalls&) = delete;

 private:
  bool active_ = false;
};

// One of the BLAS's concurrent-call buffers, held for the life of the object (Note [Concurrent BLAS calls] in
// blas.cpp): taken around every call into the library from yaten's threads, LAPACK's included.
class Slot {
 public:
  Slot();
  ~Slot();
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
};

// m * n * k (multiply-adds) below which a product runs on one thread: sharing it out would cost more than it saves
// (OpenBLAS's own threshold).
constexpr int64_t kParallelWork = int64_t(1) << 18;

// C (m x n, row-major, ldc) = alpha * op(A) * op(B) + beta * C. RuntimeError when no BLAS is loaded. A large product
// is shared out over yaten's threads (parallel.h), the BLAS itself running single-threaded: Note [One pool for the
// BLAS] in blas.cpp.
void sgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void dgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
           const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
// The same for complex64 (cgemm) and complex128 (zgemm) elements, with C = A @ B (alpha 1, beta 0).
void cgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
           int64_t ldb, void* c, int64_t ldc);
void zgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
           int64_t ldb, void* c, int64_t ldc);

// yaten.set_float32_matmul_precision: "highest" (0, the default: float32 products in float32), "high" (1) or
// "medium" (2), either of which lets CUDA float32 matmul use TF32 tensor cores, as torch's settings do.
// yaten.backends.cuda.matmul.allow_tf32 reads and writes the same setting (True is "high").
enum class Float32MatmulPrecision { Highest = 0, High = 1, Medium = 2 };
Float32MatmulPrecision float32_matmul_precision();
void set_float32_matmul_precision(Float32MatmulPrecision precision);

}  // namespace yaten::blas
