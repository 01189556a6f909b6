#include "core/blas.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/error.h"
#include "core/parallel.h"

namespace yaten::blas {
namespace {
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                         int);
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                         double*, int);
// cblas_cgemm/zgemm take alpha and beta by pointer.
using ComplexGemmFn = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,
                               const void*, void*, int);
// cblas_sgemv/dgemv(order, trans, M, N, alpha, A, lda, x, incx, beta, y, incy)
template <typename T>
using GemvFn = void (*)(int, int, int, int, T, const T*, int, const T*, int, T, T*, int);
template <typename T>
using DotFn = T (*)(int, const T*, int, const T*, int);  // cblas_sdot/ddot(n, x, incx, y, incy)
using SetThreadsFn = void (*)(int);
using ConfigFn = char* (*)();

SgemmFn g_sgemm = nullptr;
DgemmFn g_dgemm = nullptr;
GemvFn<float> g_sgemv = nullptr;
GemvFn<double> g_dgemv = nullptr;
DotFn<float> g_sdot = nullptr;
DotFn<double> g_ddot = nullptr;
ComplexGemmFn g_cgemm = nullptr;
ComplexGemmFn g_zgemm = nullptr;
ConfigFn g_config = nullptr;
void* g_handle = nullptr;
SetThreadsFn g_set_threads = nullptr;
std::mutex g_threaded_mutex;
// Whether the calling thread is inside an active ThreadedCalls scope: its products then go to OpenBLAS whole, on
// OpenBLAS's threads, rather than split over yaten's pool as well (two pools on the same cores).
thread_local bool t_threaded_scope = false;
std::string g_prefix;

void* symbol(void* handle, const std::string& name) {
  void* p = dlsym(handle, name.c_str());
  YATEN_CHECK(p != nullptr, RuntimeError, "blas: the BLAS library has no symbol ", name);
  return p;
}

int checked_int(int64_t v, const char* what) {
  YATEN_CHECK(v <= INT_MAX, RuntimeError, "matmul: ", what, " ", v, " exceeds the 32-bit BLAS's limit");
  return static_cast<int>(v);
}

void require_loaded() {
  YATEN_CHECK(g_sgemm != nullptr, RuntimeError, "matmul: no BLAS is loaded (yaten needs the scipy-openblas32 "
              "package for float32/float64 matmul: pip install scipy-openblas32)");
}
}  // namespace

void load(const std::string& path, const std::string& prefix) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  YATEN_CHECK(handle != nullptr, RuntimeError, "blas: cannot open ", path, ": ", dlerror());
  g_sgemm = reinterpret_cast<SgemmFn>(symbol(handle, prefix + "cblas_sgemm"));
  g_dgemm = reinterpret_cast<DgemmFn>(symbol(handle, prefix + "cblas_dgemm"));
  g_cgemm = reinterpret_cast<ComplexGemmFn>(symbol(handle, prefix + "cblas_cgemm"));
  g_zgemm = reinterpret_cast<ComplexGemmFn>(symbol(handle, prefix + "cblas_zgemm"));
  g_sgemv = reinterpret_cast<GemvFn<float>>(symbol(handle, prefix + "cblas_sgemv"));
  g_dgemv = reinterpret_cast<GemvFn<double>>(symbol(handle, prefix + "cblas_dgemv"));
  g_sdot = reinterpret_cast<DotFn<float>>(symbol(handle, prefix + "cblas_sdot"));
  g_ddot = reinterpret_cast<DotFn<double>>(symbol(handle, prefix + "cblas_ddot"));
  const auto set_threads = reinterpret_cast<SetThreadsFn>(symbol(handle, prefix + "openblas_set_num_threads"));
  g_set_threads = set_threads;
  g_config = reinterpret_cast<ConfigFn>(dlsym(handle, (prefix + "openblas_get_config").c_str()));
  set_threads(1);  // Note [One pool for the BLAS]
  g_handle = handle;
  g_prefix = prefix;
}

void* find_symbol(const std::string& name) {
  return g_handle == nullptr ? nullptr : dlsym(g_handle, (g_prefix + name).c_str());
}

bool loaded() { return g_sgemm != nullptr; }

std::string config() { return g_config ? std::string(g_config()) : std::string(); }

namespace {
// Note [One pool for the BLAS]
// OpenBLAS runs single-threaded (load() sets it so) and a product large enough to share is split here over yaten's
// own pool: C's columns (or its rows, when it has more of them) in one block per thread, each block a
// single-threaded BLAS call on its slice of op(A) or op(B). OpenBLAS's own threads would do the same split, but
// after each call its workers spin for up to 2^28 cycles waiting for the next one, on the cores yaten's threads
// need for the pointwise work between products (Design rule [Measured facts]: never spin for long); on 2 cores a
// training step of a convolution (8 x 64 x 56 x 56, 3x3) ran 20-30 ms instead of 18 for it, an MLP step 0.7-0.8 ms
// instead of 0.53. Inside a parallel_for chunk (a kernel that shares out images or batches itself) the call runs
// whole on its thread, as does a product below kParallelWork, and inside a ThreadedCalls scope (Note [LAPACK on the
// BLAS's threads]) it goes whole to OpenBLAS's threads, which that scope has started.
//
// A block's elements are the same dot products over k as the whole call's; as with OpenBLAS's own threads, their
// last bits can differ from a one-thread run's (the BLAS blocks a smaller matrix differently).

// Note [Concurrent BLAS calls]: a single-threaded OpenBLAS call takes one of a fixed set of work buffers
// (2 * MAX_THREADS of its build, 64 in scipy-openblas32's), and when none is free, or a new one cannot be mapped,
// OpenBLAS prints "Memory allocation still failed after 10 retries, giving up" and exits the process. yaten's pool
// can have up to 1024 threads, and kernels call the BLAS from inside parallel_for chunks; so at most `blas_slots()`
// calls run at once (the BLAS's MAX_THREADS, and no more than the cores: more concurrent products than cores buy
// nothing), the others wait for a slot, and a product is split into no more blocks than that.
int blas_slots() {
  static const int slots = [] {
    int max_threads = 32;  // when the BLAS does not say
    const std::string text = config();
    const size_t at = text.find("MAX_THREADS=");
    if (at != std::string::npos) max_threads = std::max(1, std::atoi(text.c_str() + at + 12));
    cpu_set_t set;
    const int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    return std::max(1, std::min(max_threads, cores));
  }();
  return slots;
}

// A slot for one BLAS call: taken with one compare-and-swap when free (the common case), else waited for.
std::atomic<int> g_slots_in_use{0};
std::atomic<int> g_slot_waiters{0};
std::mutex g_slot_mutex;
std::condition_variable g_slot_freed;

bool try_take_slot() {
  int n = g_slots_in_use.load();
  while (n < blas_slots()) {
    if (g_slots_in_use.compare_exchange_weak(n, n + 1)) return true;
  }
  return false;
}
}  // namespace

ThreadedCalls::ThreadedCalls(bool enable) {
  const int threads = std::min(get_num_threads(), blas_slots());
  // a scope inside another on this thread (a routine that opens one, called from a kernel that did) changes nothing
  if (!enable || g_set_threads == nullptr || threads < 2 || in_parallel_region() || t_threaded_scope) return;
  g_threaded_mutex.lock();
  g_set_threads(threads);
  active_ = true;
  t_threaded_scope = true;
}

ThreadedCalls::~ThreadedCalls() {
  if (!active_) return;
  t_threaded_scope = false;
  g_set_threads(1);
  g_threaded_mutex.unlock();
}

Slot::Slot() {
  if (try_take_slot()) return;
  g_slot_waiters.fetch_add(1);
  std::unique_lock<std::mutex> lock(g_slot_mutex);
  g_slot_freed.wait(lock, [] { return try_take_slot(); });
  g_slot_waiters.fetch_sub(1);
}

Slot::~Slot() {
  g_slots_in_use.fetch_sub(1);
  if (g_slot_waiters.load() > 0) {
    std::lock_guard<std::mutex> lock(g_slot_mutex);  // a waiter is either before its check or asleep
    g_slot_freed.notify_one();
  }
}

namespace {

// Calls gemm(m', n', k, a', lda, b', ldb, c', ldc) for blocks of C (m' x n', at c') and the slices of op(A) and op(B)
// they read, on the pool's threads, or once for the whole; `size` is an element's bytes. RuntimeError when no BLAS
// is loaded or a size or stride exceeds the 32-bit BLAS's int.
template <typename Gemm>
void split_gemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                const void* b, int64_t ldb, void* c, int64_t ldc, size_t size, const Gemm& gemm) {
  require_loaded();
  const int ik = checked_int(k, "size"), ilda = checked_int(lda, "stride"), ildb = checked_int(ldb, "stride"),
            ildc = checked_int(ldc, "stride");
  const auto call = [&](int64_t bm, int64_t bn, const void* ba, const void* bb, void* bc) {
    const int im = checked_int(bm, "size"), in = checked_int(bn, "size");
    Slot slot;  // Note [Concurrent BLAS calls]
    gemm(im, in, ik, ba, ilda, bb, ildb, bc, ildc);
  };
  const int threads = std::min(get_num_threads(), blas_slots());
  if (threads < 2 || in_parallel_region() || t_threaded_scope || m * n * k < kParallelWork || (m < 2 && n < 2)) {
    call(m, n, a, b, c);
    return;
  }
  const auto* pa = static_cast<const char*>(a);
  const auto* pb = static_cast<const char*>(b);
  auto* pc = static_cast<char*>(c);
  const int64_t bytes = static_cast<int64_t>(size);
  const auto at = [bytes](auto* p, int64_t elements) { return p + elements * bytes; };
  if (n >= m) {
    // Columns, in blocks of 64 bytes' worth (in aligned rows, no two threads write one cache line of C).
    const int64_t align = std::max<int64_t>(1, 64 / bytes);
    const int64_t blocks = (n + align - 1) / align;
    parallel_for(blocks, std::max<int64_t>(1, blocks / threads), [&](int64_t b0, int64_t b1) {
      const int64_t j0 = b0 * align, j1 = std::min(n, b1 * align);
      call(m, j1 - j0, a, at(pb, tb == NoTrans ? j0 : j0 * ldb), at(pc, j0));
    });
  } else {
    parallel_for(m, std::max<int64_t>(1, m / threads), [&](int64_t i0, int64_t i1) {
      call(i1 - i0, n, at(pa, ta == NoTrans ? i0 * lda : i0), b, at(pc, i0 * ldc));
    });
  }
}
}  // namespace

namespace {
// A block of C with one column (a matrix times a vector) or one row (a vector times a matrix) as the BLAS's gemv,
// which OpenBLAS's gemm does not become by itself: mv of 1024 x 1024 float32 took 2.6x torch's time (MKL's gemv),
// a vector times a matrix 4.5x; one element (1 x k times k x 1) is the BLAS's dot (through gemm, 16x torch's time).
// Returns false for any other block.
template <typename T>
bool gemv_block(GemvFn<T> gemv, DotFn<T> dot, Transpose ta, Transpose tb, int m, int n, int k, T alpha, const T* a,
                int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  if (k == 0 || (n != 1 && m != 1)) return false;  // (load() found every symbol, or threw)
  if (m == 1 && n == 1) {
    const T product = alpha * dot(k, a, ta == NoTrans ? 1 : lda, b, tb == NoTrans ? ldb : 1);
    c[0] = beta == T(0) ? product : product + beta * c[0];
    return true;
  }
  if (beta == T(0)) {  // gemv scales y by beta, and 0 times an uninitialized NaN would stay NaN: zeros instead
    const int count = n == 1 ? m : n, step = n == 1 ? ldc : 1;
    for (int i = 0; i < count; ++i) c[int64_t(i) * step] = T(0);
  }
  if (n == 1) {  // c[:, 0] = op(A) op(B)[:, 0]; op(B)'s column is B's column (stride ldb) or its row (stride 1)
    const int incx = tb == NoTrans ? ldb : 1;
    if (ta == NoTrans) {
      gemv(RowMajor, NoTrans, m, k, alpha, a, lda, b, incx, beta, c, ldc);
    } else {
      gemv(RowMajor, Trans, k, m, alpha, a, lda, b, incx, beta, c, ldc);
    }
  } else {  // m == 1: c[0, :] = op(B)^T op(A)[0, :]; op(A)'s row is A's row (stride 1) or its column (stride lda)
    const int incx = ta == NoTrans ? 1 : lda;
    if (tb == NoTrans) {
      gemv(RowMajor, Trans, k, n, alpha, b, ldb, a, incx, beta, c, 1);
    } else {
      gemv(RowMajor, NoTrans, n, k, alpha, b, ldb, a, incx, beta, c, 1);
    }
  }
  return true;
}
}  // namespace

void sgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(float),
             [&](int bm, int bn, int bk, const void* ba, int la, const void* bb, int lb, void* bc, int lc) {
               if (gemv_block(g_sgemv, g_sdot, ta, tb, bm, bn, bk, alpha, static_cast<const float*>(ba), la,
                              static_cast<const float*>(bb), lb, beta, static_cast<float*>(bc), lc)) {
                 return;
               }
               g_sgemm(RowMajor, ta, tb, bm, bn, bk, alpha, static_cast<const float*>(ba), la,
                       static_cast<const float*>(bb), lb, beta, static_cast<float*>(bc), lc);
             });
}

void dgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
           const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(double),
             [&](int bm, int bn, int bk, const void* ba, int la, const void* bb, int lb, void* bc, int lc) {
               if (gemv_block(g_dgemv, g_ddot, ta, tb, bm, bn, bk, alpha, static_cast<const double*>(ba), la,
                              static_cast<const double*>(bb), lb, beta, static_cast<double*>(bc), lc)) {
                 return;
               }
               g_dgemm(RowMajor, ta, tb, bm, bn, bk, alpha, static_cast<const double*>(ba), la,
                       static_cast<const double*>(bb), lb, beta, static_cast<double*>(bc), lc);
             });
}

namespace {
// cgemm and zgemm: T is the real type of the parts of alpha (1) and beta (0).
template <typename T>
void complex_gemm(ComplexGemmFn fn, Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  const T one[2] = {T(1), T(0)}, zero[2] = {T(0), T(0)};
  split_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2 * sizeof(T),
             [&](int bm, int bn, int bk, const void* ba, int la, const void* bb, int lb, void* bc, int lc) {
               fn(RowMajor, ta, tb, bm, bn, bk, one, ba, la, bb, lb, zero, bc, lc);
             });
}
}  // namespace

void cgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
           int64_t ldb, void* c, int64_t ldc) {
  complex_gemm<float>(g_cgemm, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

void zgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
           int64_t ldb, void* c, int64_t ldc) {
  complex_gemm<double>(g_zgemm, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

namespace {
std::atomic<int> g_float32_precision{0};
}
Float32MatmulPrecision float32_matmul_precision() {
  return static_cast<Float32MatmulPrecision>(g_float32_precision.load(std::memory_order_relaxed));
}
void set_float32_matmul_precision(Float32MatmulPrecision precision) {
  g_float32_precision.store(static_cast<int>(precision), std::memory_order_relaxed);
}

}  // namespace yaten::blas
