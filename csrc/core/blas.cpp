#include "core/blas.h"

#include <dlfcn.h>

#include <atomic>
#include <climits>

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
using SetThreadsFn = void (*)(int);
using ConfigFn = char* (*)();

SgemmFn g_sgemm = nullptr;
DgemmFn g_dgemm = nullptr;
ComplexGemmFn g_cgemm = nullptr;
ComplexGemmFn g_zgemm = nullptr;
SetThreadsFn g_set_threads = nullptr;
ConfigFn g_config = nullptr;

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
  g_set_threads = reinterpret_cast<SetThreadsFn>(symbol(handle, prefix + "openblas_set_num_threads"));
  g_config = reinterpret_cast<ConfigFn>(dlsym(handle, (prefix + "openblas_get_config").c_str()));
  g_set_threads(get_num_threads());
}

bool loaded() { return g_sgemm != nullptr; }

std::string config() { return g_config ? std::string(g_config()) : std::string(); }

void sgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  require_loaded();
  g_sgemm(RowMajor, ta, tb, checked_int(m, "size"), checked_int(n, "size"), checked_int(k, "size"), alpha, a,
          checked_int(lda, "stride"), b, checked_int(ldb, "stride"), beta, c, checked_int(ldc, "stride"));
}

void dgemm(Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
           const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  require_loaded();
  g_dgemm(RowMajor, ta, tb, checked_int(m, "size"), checked_int(n, "size"), checked_int(k, "size"), alpha, a,
          checked_int(lda, "stride"), b, checked_int(ldb, "stride"), beta, c, checked_int(ldc, "stride"));
}

namespace {
// cgemm and zgemm: T is the real type of the parts of alpha (1) and beta (0).
template <typename T>
void complex_gemm(ComplexGemmFn fn, Transpose ta, Transpose tb, int64_t m, int64_t n, int64_t k, const void* a,
                  int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  require_loaded();
  const T one[2] = {T(1), T(0)}, zero[2] = {T(0), T(0)};
  fn(RowMajor, ta, tb, checked_int(m, "size"), checked_int(n, "size"), checked_int(k, "size"), one, a,
     checked_int(lda, "stride"), b, checked_int(ldb, "stride"), zero, c, checked_int(ldc, "stride"));
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

void set_num_threads(int n) {
  if (g_set_threads) g_set_threads(n);
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
