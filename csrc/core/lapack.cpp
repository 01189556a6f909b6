#include "core/lapack.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/blas.h"
#include "core/error.h"

namespace yaten::lapack {
namespace {

// Fortran passes everything by address and, after the last argument, the length of each CHARACTER argument
// (gfortran's size_t). OpenBLAS's own C versions of some routines ignore those lengths; passing them is harmless.
using Len = size_t;

enum Routine {
  Getrf, Getrs, Potrf, Trsm, Geqrf, Orgqr, Gesdd, Syevd, Geev, Gelsy, Gelsd, Gelss, Gels, Sytrf, Sytrs, Hetrf, Hetrs,
  Gemm, Laswp, Ormqr, Trcon, Geqrt, Bdsdc, Sytrd, Stedc, kRoutines
};
constexpr const char* kNames[kRoutines] = {"getrf", "getrs", "potrf", "trsm",  "geqrf", "orgqr", "gesdd",
                                           "syevd", "geev",  "gelsy", "gelsd", "gelss", "gels",  "sytrf",
                                           "sytrs", "hetrf", "hetrs", "gemm",  "laswp", "ormqr", "trcon",
                                           "geqrt", "bdsdc", "sytrd", "stedc"};
// The complex routines whose names differ from the real ones'.
constexpr const char* complex_name(Routine r) {
  return r == Orgqr ? "ungqr" : r == Ormqr ? "unmqr" : r == Syevd ? "heevd" : kNames[r];
}

template <typename T>
constexpr int type_index() {
  if constexpr (std::is_same_v<T, float>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1;
  else if constexpr (std::is_same_v<T, Complex<float>>) return 2;
  else return 3;
}
constexpr char kLetters[4] = {'s', 'd', 'c', 'z'};

// Note [LAPACK under an address-space limit]: OpenBLAS gives each concurrent call a work buffer, mapped on first use
// (up to 128 MiB of address space on recent x86), and when the mapping fails it prints "Memory allocation still
// failed after 10 retries, giving up" and ends the process. LAPACK's routines always take one; so where the process
// has an address-space limit (RLIMIT_AS; none by default) and less than kBufferHeadroom of it left, a LAPACK call
// raises RuntimeError instead of risking the exit.
constexpr uint64_t kBufferHeadroom = uint64_t(192) << 20;

}  // namespace

void check_address_space() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  unsigned long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const uint64_t mapped = uint64_t(pages) * uint64_t(sysconf(_SC_PAGESIZE));
  YATEN_CHECK(mapped + kBufferHeadroom <= uint64_t(limit.rlim_cur), RuntimeError, "linalg: out of memory: the "
              "process's address-space limit (RLIMIT_AS) leaves ", (uint64_t(limit.rlim_cur) - std::min<uint64_t>(
              mapped, limit.rlim_cur)) >> 20, " MiB, less than the ", kBufferHeadroom >> 20, " MiB LAPACK's work "
              "buffer may need");
}

namespace {

std::atomic<void*> g_routines[kRoutines][4];

// The routine's function pointer, found once; RuntimeError when the library has none.
template <typename Fn, typename T>
Fn routine(Routine r) {
  constexpr int t = type_index<T>();
  void* p = g_routines[r][t].load(std::memory_order_acquire);
  if (p == nullptr) {
    const std::string name = std::string(1, kLetters[t]) + (t >= 2 ? complex_name(r) : kNames[r]) + "_";
    YATEN_CHECK(blas::loaded(), RuntimeError, "linalg: no LAPACK is loaded (yaten's linear algebra needs the "
                "scipy-openblas32 package: pip install scipy-openblas32)");
    p = blas::find_symbol(name);
    YATEN_CHECK(p != nullptr, RuntimeError, "linalg: the loaded LAPACK has no routine ", name);
    g_routines[r][t].store(p, std::memory_order_release);
  }
  return reinterpret_cast<Fn>(p);
}

int to_int(int64_t v) {
  YATEN_CHECK(v >= 0 && v <= INT_MAX, RuntimeError, "linalg: the size or stride ", v,
              " exceeds LAPACK's 32-bit integers");
  return static_cast<int>(v);
}

// The size a workspace query wrote into its first element.
template <typename T>
int query_size(const T& w) {
  if constexpr (is_complex_v<T>) {
    return std::max(1, static_cast<int>(w.re));
  } else {
    return std::max(1, static_cast<int>(w));
  }
}

template <typename T>
using R = real_t<T>;
}  // namespace

// Note [Recursive LU]: getrf splits the columns in halves (of min(m, n)), factors the left panel, swaps its rows in
// the right part, solves for U12 (trsm), updates A22 -= L21 U12 (gemm: nearly all the work, on the BLAS's threads)
// and factors A22 the same way, then swaps A22's rows in L21; panels of kLuPanel columns or fewer go to the library's
// getrf. OpenBLAS's own getrf hardly uses a second thread at these sizes: 512 x 512 float64 took 2.66 ms at 2 threads
// where this takes 1.82 (3.17 and 2.85 at one, 15.2 and 11.0 ms at 1024 x 1024, 2 threads), the same factors and
// pivots (LAPACK's dgetrf2 is this recursion). info is the first zero pivot, 1-based, as LAPACK's. The library's
// getrf on a tall panel runs on one thread, on the critical path: panels of 8 columns rather than 32 took det of 512 x
// 512 float64 at 2 threads from 1.22x torch's time to 1.09x, solve from 0.88x to 0.82x (1 thread unchanged; 4 and 16
// columns were between).
constexpr int kLuPanel = 8;

template <typename T>
int getrf_recursive(int m, int n, T* a, int lda, int* ipiv) {
  const int k = std::min(m, n);
  int info = 0;
  if (k <= kLuPanel) {
    using Fn = void (*)(const int*, const int*, void*, const int*, int*, int*);
    routine<Fn, T>(Getrf)(&m, &n, a, &lda, ipiv, &info);
    return info;
  }
  using GemmFn = void (*)(const char*, const char*, const int*, const int*, const int*, const void*, const void*,
                          const int*, const void*, const int*, const void*, void*, const int*, Len, Len);
  using TrsmFn = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const void*,
                          const void*, const int*, void*, const int*, Len, Len, Len, Len);
  using LaswpFn = void (*)(const int*, void*, const int*, const int*, const int*, const int*, const int*);
  const int n1 = k / 2, n2 = n - n1, rest = m - n1, first = 1, increment = 1, last = k, next = n1 + 1;
  const T one = T(1), minus_one = T(-1);
  T* right = a + int64_t(n1) * lda;  // A12 over A22
  info = getrf_recursive(m, n1, a, lda, ipiv);
  routine<LaswpFn, T>(Laswp)(&n2, right, &lda, &first, &n1, ipiv, &increment);
  routine<TrsmFn, T>(Trsm)("L", "L", "N", "U", &n1, &n2, &one, a, &lda, right, &lda, 1, 1, 1, 1);
  routine<GemmFn, T>(Gemm)("N", "N", &rest, &n2, &n1, &minus_one, a + n1, &lda, right, &lda, &one, right + n1, &lda,
                           1, 1);
  const int info2 = getrf_recursive(rest, n2, right + n1, lda, ipiv + n1);
  if (info == 0 && info2 > 0) info = info2 + n1;
  for (int i = n1; i < k; ++i) ipiv[i] += n1;
  routine<LaswpFn, T>(Laswp)(&n1, a, &lda, &next, &last, ipiv, &increment);
  return info;
}

// Note [Small LU]: a matrix of at most kSmallLu rows and columns is factored here, by LAPACK's unblocked getf2: the
// pivot is the first largest |re| + |im| of the column (izamax's measure), its row swapped across the whole matrix,
// the column below scaled by its reciprocal (divided where the pivot is below the smallest normal number), a rank-1
// update of the rest; a zero pivot sets info once and leaves its column. The library's getrf spends most of a 16 x 16
// factorization in its own dispatch (0.67 us each, 256 of them 171 us of a batched det's 256; torch's whole batched
// lu_factor 140 us).
constexpr int kSmallLu = 32;

template <typename T>
R<T> abs1(const T& v) {
  if constexpr (is_complex_v<T>) {
    return std::abs(v.re) + std::abs(v.im);
  } else {
    return std::abs(v);
  }
}

template <typename T>
int getrf_small(int m, int n, T* a, int lda, int* ipiv) {
  const int k = std::min(m, n);
  int info = 0;
  for (int j = 0; j < k; ++j) {
    T* column = a + int64_t(j) * lda;
    int p = j;
    R<T> best = abs1(column[j]);
    for (int i = j + 1; i < m; ++i) {
      const R<T> v = abs1(column[i]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    ipiv[j] = p + 1;
    if (best != R<T>(0)) {
      if (p != j) {
        for (int c = 0; c < n; ++c) std::swap(a[int64_t(c) * lda + j], a[int64_t(c) * lda + p]);
      }
      const T pivot = column[j];
      if (best >= std::numeric_limits<R<T>>::min()) {
        const T reciprocal = T(1) / pivot;
        for (int i = j + 1; i < m; ++i) column[i] = column[i] * reciprocal;
      } else {
        for (int i = j + 1; i < m; ++i) column[i] = column[i] / pivot;
      }
    } else if (info == 0) {
      info = j + 1;
    }
    for (int c = j + 1; c < n; ++c) {
      T* target = a + int64_t(c) * lda;
      const T factor = target[j];
      for (int i = j + 1; i < m; ++i) target[i] = target[i] - column[i] * factor;
    }
  }
  return info;
}

template <typename T>
int getrf(int64_t m, int64_t n, T* a, int64_t lda, int* ipiv) {
  const int im = to_int(m), in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  if (im <= kSmallLu && in <= kSmallLu) return getrf_small(im, in, a, ilda, ipiv);
  blas::Slot slot;
  return getrf_recursive(im, in, a, ilda, ipiv);
}

template <typename T>
int getrs(char trans, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int* ipiv, T* b, int64_t ldb) {
  using Fn = void (*)(const char*, const int*, const int*, const void*, const int*, const int*, void*, const int*,
                      int*, Len);
  const int in = to_int(n), inrhs = to_int(nrhs), ilda = to_int(std::max<int64_t>(1, lda)),
            ildb = to_int(std::max<int64_t>(1, ldb));
  int info = 0;
  blas::Slot slot;
  routine<Fn, T>(Getrs)(&trans, &in, &inrhs, a, &ilda, ipiv, b, &ildb, &info, 1);
  return info;
}

template <typename T>
int potrf(char uplo, int64_t n, T* a, int64_t lda) {
  using Fn = void (*)(const char*, const int*, void*, const int*, int*, Len);
  const int in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  int info = 0;
  blas::Slot slot;
  routine<Fn, T>(Potrf)(&uplo, &in, a, &ilda, &info, 1);
  return info;
}

template <typename T>
void trsm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, const T* a, int64_t lda, T* b,
          int64_t ldb) {
  using Fn = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const void*,
                      const void*, const int*, void*, const int*, Len, Len, Len, Len);
  const int im = to_int(m), in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda)),
            ildb = to_int(std::max<int64_t>(1, ldb));
  const T one = T(1);
  blas::Slot slot;
  routine<Fn, T>(Trsm)(&side, &uplo, &transa, &diag, &im, &in, &one, a, &ilda, b, &ildb, 1, 1, 1, 1);
}

// Note [QR by geqrt]: geqrf's panels (geqr2: a reflector at a time, level-2 BLAS) are serial and memory-bound, and
// OpenBLAS's geqrf hardly uses a second thread: 512 x 512 float64 took 8.1 ms at one thread, 7.0 at two (torch's
// 9.7 and 4.2). geqrt factors each panel recursively (geqrt3: level-3 BLAS down to single columns) and keeps each
// panel's triangular factor T, whose diagonal is geqrf's tau; the same reflectors (larfg's), so R, V and tau are
// geqrf's up to rounding, and orgqr, ormqr and householder_product take them as they are. From kGeqrtMin columns
// (below, geqrf's panel is the whole matrix and it is faster), panels of kGeqrtBlock.
constexpr int64_t kGeqrtMin = 64, kGeqrtBlock = 128;

template <typename T>
int geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau) {
  if constexpr (!is_complex_v<T>) {
    if (qr_shares_out(m, n)) {  // Note [A QR whose products share out]; it takes the BLAS's slots itself
      geqrf_shared<T>(m, n, a, lda, tau);
      return 0;
    }
  }
  using Fn = void (*)(const int*, const int*, void*, const int*, void*, void*, const int*, int*);
  const int im = to_int(m), in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  int info = 0, lwork = -1;
  T size{};
  blas::Slot slot;
  if (const int64_t k = std::min(m, n); k >= kGeqrtMin) {
    using QrtFn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, void*, int*);
    const int64_t nb = std::min(k, kGeqrtBlock);
    const int inb = to_int(nb);
    std::vector<T> t(static_cast<size_t>(nb * k)), work(static_cast<size_t>(nb * n));
    routine<QrtFn, T>(Geqrt)(&im, &in, &inb, a, &ilda, t.data(), &inb, work.data(), &info);
    for (int64_t j = 0; j < k; ++j) tau[j] = t[static_cast<size_t>(j % nb + j * nb)];
    return info;
  }
  const Fn fn = routine<Fn, T>(Geqrf);
  fn(&im, &in, a, &ilda, tau, &size, &lwork, &info);
  lwork = query_size(size);
  std::vector<T> work(lwork);
  fn(&im, &in, a, &ilda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T>
int orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau) {
  if constexpr (!is_complex_v<T>) {
    if (qr_shares_out(m, k)) {  // Note [A QR whose products share out]
      orgqr_shared<T>(m, n, k, a, lda, tau);
      return 0;
    }
  }
  using Fn = void (*)(const int*, const int*, const int*, void*, const int*, const void*, void*, const int*, int*);
  const int im = to_int(m), in = to_int(n), ik = to_int(k), ilda = to_int(std::max<int64_t>(1, lda));
  int info = 0, lwork = -1;
  T size{};
  blas::Slot slot;
  const Fn fn = routine<Fn, T>(Orgqr);
  fn(&im, &in, &ik, a, &ilda, tau, &size, &lwork, &info);
  lwork = query_size(size);
  std::vector<T> work(lwork);
  fn(&im, &in, &ik, a, &ilda, tau, work.data(), &lwork, &info);
  return info;
}

template <typename T>
int gesdd(char jobz, int64_t m, int64_t n, T* a, int64_t lda, real_t<T>* s, T* u, int64_t ldu, T* vt,
          int64_t ldvt) {
  const int im = to_int(m), in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda)),
            ildu = to_int(std::max<int64_t>(1, ldu)), ildvt = to_int(std::max<int64_t>(1, ldvt));
  const int64_t k = std::min(m, n), big = std::max(m, n);
  if constexpr (!is_complex_v<T>) {
    if (svd_shares_out(m, n)) {  // it takes the BLAS's slots itself
      return gesdd_shared<T>(jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    }
  }
  std::vector<int> iwork(std::max<int64_t>(1, 8 * k));
  int info = 0, lwork = -1;
  T size{};
  blas::Slot slot;
  if constexpr (is_complex_v<T>) {
    using Fn = void (*)(const char*, const int*, const int*, void*, const int*, void*, void*, const int*, void*,
                        const int*, void*, const int*, void*, int*, int*, Len);
    // LAPACK's documented rwork size (the larger of its forms, for any jobz)
    std::vector<R<T>> rwork(std::max<int64_t>(1, std::max(7 * k, k * std::max(5 * k + 7, 2 * big + 2 * k + 1))));
    const Fn fn = routine<Fn, T>(Gesdd);
    fn(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, &size, &lwork, rwork.data(), iwork.data(), &info, 1);
    lwork = query_size(size);
    std::vector<T> work(lwork);
    fn(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, work.data(), &lwork, rwork.data(), iwork.data(), &info,
       1);
  } else {
    using Fn = void (*)(const char*, const int*, const int*, void*, const int*, void*, void*, const int*, void*,
                        const int*, void*, const int*, int*, int*, Len);
    const Fn fn = routine<Fn, T>(Gesdd);
    fn(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, &size, &lwork, iwork.data(), &info, 1);
    lwork = query_size(size);
    std::vector<T> work(lwork);
    fn(&jobz, &im, &in, a, &ilda, s, u, &ildu, vt, &ildvt, work.data(), &lwork, iwork.data(), &info, 1);
  }
  return info;
}

template <typename T>
int syevd(char jobz, char uplo, int64_t n, T* a, int64_t lda, real_t<T>* w) {
  if constexpr (!is_complex_v<T>) {
    if (jobz == 'V' && eigh_shares_out(n)) return syevd_shared<T>(uplo, n, a, lda, w);  // Note [An eigh whose Q ...]
  }
  const int in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  int info = 0, lwork = -1, liwork = -1, isize = 0;
  T size{};
  blas::Slot slot;
  if constexpr (is_complex_v<T>) {
    using Fn = void (*)(const char*, const char*, const int*, void*, const int*, void*, void*, const int*, void*,
                        const int*, int*, const int*, int*, Len, Len);
    int lrwork = -1;
    R<T> rsize{};
    const Fn fn = routine<Fn, T>(Syevd);
    fn(&jobz, &uplo, &in, a, &ilda, w, &size, &lwork, &rsize, &lrwork, &isize, &liwork, &info, 1, 1);
    lwork = query_size(size);
    lrwork = query_size(rsize);
    liwork = std::max(1, isize);
    std::vector<T> work(lwork);
    std::vector<R<T>> rwork(lrwork);
    std::vector<int> iwork(liwork);
    fn(&jobz, &uplo, &in, a, &ilda, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork, &info, 1,
       1);
  } else {
    using Fn = void (*)(const char*, const char*, const int*, void*, const int*, void*, void*, const int*, int*,
                        const int*, int*, Len, Len);
    const Fn fn = routine<Fn, T>(Syevd);
    fn(&jobz, &uplo, &in, a, &ilda, w, &size, &lwork, &isize, &liwork, &info, 1, 1);
    lwork = query_size(size);
    liwork = std::max(1, isize);
    std::vector<T> work(lwork);
    std::vector<int> iwork(liwork);
    fn(&jobz, &uplo, &in, a, &ilda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  }
  return info;
}

template <typename T>
int geev(int64_t n, T* a, int64_t lda, Complex<real_t<T>>* w, Complex<real_t<T>>* vr, int64_t ldvr) {
  const int in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  const char jobvl = 'N', jobvr = vr != nullptr ? 'V' : 'N';
  const int one = 1;
  int info = 0, lwork = -1;
  T size{};
  blas::Slot slot;
  if constexpr (is_complex_v<T>) {
    using Fn = void (*)(const char*, const char*, const int*, void*, const int*, void*, void*, const int*, void*,
                        const int*, void*, const int*, void*, int*, Len, Len);
    const int ildvr = vr != nullptr ? to_int(std::max<int64_t>(1, ldvr)) : 1;
    std::vector<R<T>> rwork(std::max<int64_t>(1, 2 * n));
    const Fn fn = routine<Fn, T>(Geev);
    fn(&jobvl, &jobvr, &in, a, &ilda, w, nullptr, &one, vr, &ildvr, &size, &lwork, rwork.data(), &info, 1, 1);
    lwork = query_size(size);
    std::vector<T> work(lwork);
    fn(&jobvl, &jobvr, &in, a, &ilda, w, nullptr, &one, vr, &ildvr, work.data(), &lwork, rwork.data(), &info, 1, 1);
  } else {
    using Fn = void (*)(const char*, const char*, const int*, void*, const int*, void*, void*, void*, const int*,
                        void*, const int*, void*, const int*, int*, Len, Len);
    std::vector<T> wr(std::max<int64_t>(1, n)), wi(std::max<int64_t>(1, n));
    std::vector<T> v(jobvr == 'V' ? std::max<int64_t>(1, n * n) : 1);
    const int ldv = std::max(1, in);
    const Fn fn = routine<Fn, T>(Geev);
    fn(&jobvl, &jobvr, &in, a, &ilda, wr.data(), wi.data(), nullptr, &one, v.data(), &ldv, &size, &lwork, &info, 1,
       1);
    lwork = query_size(size);
    std::vector<T> work(lwork);
    fn(&jobvl, &jobvr, &in, a, &ilda, wr.data(), wi.data(), nullptr, &one, v.data(), &ldv, work.data(), &lwork,
       &info, 1, 1);
    if (info != 0) return info;
    for (int64_t j = 0; j < n; ++j) w[j] = {wr[j], wi[j]};
    if (vr != nullptr) {
      // a complex pair (wi[j] > 0, then its conjugate) keeps its eigenvector's real and imaginary parts in columns
      // j and j + 1
      for (int64_t j = 0; j < n; ++j) {
        const T* col = v.data() + j * n;
        if (wi[j] == T(0)) {
          for (int64_t i = 0; i < n; ++i) vr[j * ldvr + i] = {col[i], T(0)};
        } else {
          for (int64_t i = 0; i < n; ++i) {
            vr[j * ldvr + i] = {col[i], col[n + i]};
            vr[(j + 1) * ldvr + i] = {col[i], -col[n + i]};
          }
          ++j;
        }
      }
    }
  }
  return info;
}

template <typename T>
int sytrf(bool hermitian, int64_t n, T* a, int64_t lda, int* ipiv) {
  using Fn = void (*)(const char*, const int*, void*, const int*, int*, void*, const int*, int*, Len);
  const int in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  const char uplo = 'L';
  int info = 0, lwork = -1;
  T size{};
  blas::Slot slot;
  const Fn fn = routine<Fn, T>(hermitian && is_complex_v<T> ? Hetrf : Sytrf);
  fn(&uplo, &in, a, &ilda, ipiv, &size, &lwork, &info, 1);
  lwork = query_size(size);
  std::vector<T> work(lwork);
  fn(&uplo, &in, a, &ilda, ipiv, work.data(), &lwork, &info, 1);
  return info;
}

template <typename T>
int sytrs(bool hermitian, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int* ipiv, T* b, int64_t ldb) {
  using Fn = void (*)(const char*, const int*, const int*, const void*, const int*, const int*, void*, const int*,
                      int*, Len);
  const int in = to_int(n), inrhs = to_int(nrhs), ilda = to_int(std::max<int64_t>(1, lda)),
            ildb = to_int(std::max<int64_t>(1, ldb));
  const char uplo = 'L';
  int info = 0;
  blas::Slot slot;
  routine<Fn, T>(hermitian && is_complex_v<T> ? Hetrs : Sytrs)(&uplo, &in, &inrhs, a, &ilda, ipiv, b, &ildb, &info, 1);
  return info;
}

namespace {
// C = Q^H C (C m x n) with Q the product of geqrf's k reflectors (ormqr; unmqr for complex T).
template <typename T>
int apply_qh(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* tau, T* c, int64_t ldc) {
  using Fn = void (*)(const char*, const char*, const int*, const int*, const int*, const void*, const int*,
                      const void*, void*, const int*, void*, const int*, int*, Len, Len);
  const int im = to_int(m), in = to_int(n), ik = to_int(k), ilda = to_int(std::max<int64_t>(1, lda)),
            ildc = to_int(std::max<int64_t>(1, ldc));
  const char side = 'L', trans = is_complex_v<T> ? 'C' : 'T';
  int info = 0, lwork = -1;
  T size{};
  blas::Slot slot;
  const Fn fn = routine<Fn, T>(Ormqr);
  fn(&side, &trans, &im, &in, &ik, a, &ilda, tau, c, &ildc, &size, &lwork, &info, 1, 1);
  lwork = query_size(size);
  std::vector<T> work(lwork);
  fn(&side, &trans, &im, &in, &ik, a, &ilda, tau, c, &ildc, work.data(), &lwork, &info, 1, 1);
  return info;
}

// The reciprocal of the upper triangular R's condition number in the 1-norm, estimated (trcon: a lower bound on
// ||R^-1||_1, almost always within a factor of 3 of it); 0 for a singular R.
template <typename T>
R<T> triangular_rcond(int64_t n, const T* a, int64_t lda) {
  const int in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  const char norm = '1', uplo = 'U', diag = 'N';
  int info = 0;
  R<T> rcond = 0;
  blas::Slot slot;
  if constexpr (is_complex_v<T>) {
    using Fn = void (*)(const char*, const char*, const char*, const int*, const void*, const int*, void*, void*,
                        void*, int*, Len, Len, Len);
    std::vector<T> work(static_cast<size_t>(2 * n));
    std::vector<R<T>> rwork(static_cast<size_t>(n));
    routine<Fn, T>(Trcon)(&norm, &uplo, &diag, &in, a, &ilda, &rcond, work.data(), rwork.data(), &info, 1, 1, 1);
  } else {
    using Fn = void (*)(const char*, const char*, const char*, const int*, const void*, const int*, void*, void*,
                        int*, int*, Len, Len, Len);
    std::vector<T> work(static_cast<size_t>(3 * n));
    std::vector<int> iwork(static_cast<size_t>(n));
    routine<Fn, T>(Trcon)(&norm, &uplo, &diag, &in, a, &ilda, &rcond, work.data(), iwork.data(), &info, 1, 1, 1);
  }
  return info == 0 ? rcond : R<T>(0);
}

// Note [lstsq by QR where the rank is plainly full]: gelsy (torch's default driver) factors A P = Q R with column
// pivoting, takes as the rank the largest r whose leading r x r block of R it estimates to have a condition number
// below 1/rcond, and solves through a complete orthogonal factorization. Where A (m >= n) has full rank that solution
// is the unique least-squares one, which an unpivoted QR gives too: A = Q R (geqrf, blocked: level-3 BLAS throughout,
// where the pivoted factorization's column norms keep half its work in level-2 BLAS), X = R^-1 (Q^H B)[:n]. So A is
// first factored without pivoting, and R's condition number estimated (trcon, 1-norm); where the estimate is below
// 1/rcond by a margin of 10 n (the 2-norm condition number gelsy estimates is at most n times the 1-norm one, and the
// estimator's own error is a factor of a few), gelsy would find full rank, and the QR's solution is returned with rank
// n. Otherwise gelsy runs on A as given (A is factored from a copy). 512 x 512 float64, 2 threads: 2.5x torch's time
// with gelsy alone.
template <typename T>
bool full_rank_least_squares(int64_t m, int64_t n, int64_t nrhs, const T* a, int64_t lda, T* b, int64_t ldb,
                             R<T> rcond) {
  std::vector<T> qr(static_cast<size_t>(m * n)), tau(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) std::copy(a + j * lda, a + j * lda + m, qr.data() + j * m);
  if (geqrf(m, n, qr.data(), m, tau.data()) != 0) return false;
  const R<T> estimate = triangular_rcond(n, qr.data(), m);
  if (!(estimate > 0 && estimate >= rcond * R<T>(10 * n))) return false;
  if (nrhs > 0) {
    if (apply_qh(m, nrhs, n, qr.data(), m, tau.data(), b, ldb) != 0) return false;
    trsm('L', 'U', 'N', 'N', n, nrhs, qr.data(), m, b, ldb);
  }
  return true;
}
}  // namespace

template <typename T>
int gels(char driver, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, real_t<T> rcond,
         int64_t* rank, real_t<T>* s) {
  if (driver == 'y' && m >= n && n > 0 && full_rank_least_squares(m, n, nrhs, a, lda, b, ldb, rcond)) {
    if (rank != nullptr) *rank = n;
    return 0;
  }
  const int im = to_int(m), in = to_int(n), inrhs = to_int(nrhs), ilda = to_int(std::max<int64_t>(1, lda)),
            ildb = to_int(std::max<int64_t>(1, ldb));
  int info = 0, lwork = -1, irank = 0;
  T size{};
  const int64_t k = std::min(m, n);
  constexpr bool complex = is_complex_v<T>;
  blas::Slot slot;
  if (driver == 'g') {
    using Fn = void (*)(const char*, const int*, const int*, const int*, void*, const int*, void*, const int*, void*,
                        const int*, int*, Len);
    const char trans = 'N';
    const Fn fn = routine<Fn, T>(Gels);
    fn(&trans, &im, &in, &inrhs, a, &ilda, b, &ildb, &size, &lwork, &info, 1);
    lwork = query_size(size);
    std::vector<T> work(lwork);
    fn(&trans, &im, &in, &inrhs, a, &ilda, b, &ildb, work.data(), &lwork, &info, 1);
    return info;
  }
  if (driver == 'y') {
    std::vector<int> jpvt(std::max<int64_t>(1, n), 0);  // every column free to move
    std::vector<R<T>> rwork(std::max<int64_t>(1, 2 * n));
    if constexpr (complex) {
      using Fn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, int*, const void*,
                          int*, void*, const int*, void*, int*);
      const Fn fn = routine<Fn, T>(Gelsy);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, jpvt.data(), &rcond, &irank, &size, &lwork, rwork.data(), &info);
      lwork = query_size(size);
      std::vector<T> work(lwork);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, jpvt.data(), &rcond, &irank, work.data(), &lwork, rwork.data(), &info);
    } else {
      using Fn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, int*, const void*,
                          int*, void*, const int*, int*);
      const Fn fn = routine<Fn, T>(Gelsy);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, jpvt.data(), &rcond, &irank, &size, &lwork, &info);
      lwork = query_size(size);
      std::vector<T> work(lwork);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, jpvt.data(), &rcond, &irank, work.data(), &lwork, &info);
    }
  } else if (driver == 'd') {
    int isize = 0;
    R<T> rsize{};
    if constexpr (complex) {
      using Fn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, void*, const void*,
                          int*, void*, const int*, void*, int*, int*);
      const Fn fn = routine<Fn, T>(Gelsd);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, &size, &lwork, &rsize, &isize, &info);
      lwork = query_size(size);
      std::vector<T> work(lwork);
      std::vector<R<T>> rwork(query_size(rsize));
      std::vector<int> iwork(std::max(1, isize));
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, work.data(), &lwork, rwork.data(), iwork.data(),
         &info);
    } else {
      using Fn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, void*, const void*,
                          int*, void*, const int*, int*, int*);
      const Fn fn = routine<Fn, T>(Gelsd);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, &size, &lwork, &isize, &info);
      lwork = query_size(size);
      std::vector<T> work(lwork);
      std::vector<int> iwork(std::max(1, isize));
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, work.data(), &lwork, iwork.data(), &info);
    }
  } else {  // 's'
    if constexpr (complex) {
      using Fn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, void*, const void*,
                          int*, void*, const int*, void*, int*);
      std::vector<R<T>> rwork(std::max<int64_t>(1, 5 * k));
      const Fn fn = routine<Fn, T>(Gelss);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, &size, &lwork, rwork.data(), &info);
      lwork = query_size(size);
      std::vector<T> work(lwork);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, work.data(), &lwork, rwork.data(), &info);
    } else {
      using Fn = void (*)(const int*, const int*, const int*, void*, const int*, void*, const int*, void*, const void*,
                          int*, void*, const int*, int*);
      const Fn fn = routine<Fn, T>(Gelss);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, &size, &lwork, &info);
      lwork = query_size(size);
      std::vector<T> work(lwork);
      fn(&im, &in, &inrhs, a, &ilda, b, &ildb, s, &rcond, &irank, work.data(), &lwork, &info);
    }
  }
  if (rank != nullptr) *rank = irank;
  return info;
}

template <typename T>
int bdsdc(char uplo, char compq, int64_t n, T* d, T* e, T* u, int64_t ldu, T* vt, int64_t ldvt) {
  static_assert(!is_complex_v<T>, "bdsdc is real");
  using Fn = void (*)(const char*, const char*, const int*, void*, void*, void*, const int*, void*, const int*, void*,
                      int*, void*, int*, int*, Len, Len);
  const int in = to_int(n), one = 1;
  const bool vectors = compq == 'I';
  const int ildu = vectors ? to_int(std::max<int64_t>(1, ldu)) : 1;
  const int ildvt = vectors ? to_int(std::max<int64_t>(1, ldvt)) : 1;
  // LAPACK's sizes: 4n for values only, 3n^2 + 4n with vectors; 8n integers
  std::vector<T> work(static_cast<size_t>(vectors ? 3 * n * n + 4 * n : 4 * n) + 1);
  std::vector<int> iwork(static_cast<size_t>(8 * n) + 1);
  T dummy[2] = {0, 0};
  int idummy[2] = {0, 0}, info = 0;
  blas::Slot slot;
  routine<Fn, T>(Bdsdc)(&uplo, &compq, &in, d, e, vectors ? u : dummy, vectors ? &ildu : &one, vectors ? vt : dummy,
                        vectors ? &ildvt : &one, dummy, idummy, work.data(), iwork.data(), &info, 1, 1);
  return info;
}

template <typename T>
int sytrd(char uplo, int64_t n, T* a, int64_t lda, T* d, T* e, T* tau) {
  static_assert(!is_complex_v<T>, "sytrd is real");
  using Fn = void (*)(const char*, const int*, void*, const int*, void*, void*, void*, void*, const int*, int*, Len);
  const int in = to_int(n), ilda = to_int(std::max<int64_t>(1, lda));
  int info = 0, lwork = -1;
  T size = 0;
  blas::Slot slot;
  const Fn fn = routine<Fn, T>(Sytrd);
  fn(&uplo, &in, a, &ilda, d, e, tau, &size, &lwork, &info, 1);
  lwork = query_size(size);
  std::vector<T> work(static_cast<size_t>(lwork));
  fn(&uplo, &in, a, &ilda, d, e, tau, work.data(), &lwork, &info, 1);
  return info;
}

template <typename T>
int stedc(char compz, int64_t n, T* d, T* e, T* z, int64_t ldz) {
  static_assert(!is_complex_v<T>, "stedc is real");
  using Fn = void (*)(const char*, const int*, void*, void*, void*, const int*, void*, const int*, int*, const int*,
                      int*, Len);
  const int in = to_int(n), ildz = to_int(std::max<int64_t>(1, ldz));
  // LAPACK's sizes for compz 'I' (n > 1): 1 + 4n + n^2 elements and 3 + 5n integers, each in a 32-bit int
  const int lwork = to_int(1 + 4 * n + n * n), liwork = to_int(3 + 5 * n);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  int info = 0;
  blas::Slot slot;
  routine<Fn, T>(Stedc)(&compz, &in, d, e, z, &ildz, work.data(), &lwork, iwork.data(), &liwork, &info, 1);
  return info;
}

#define YATEN_LAPACK_INSTANTIATE_REAL(T)                                                   \
  template int bdsdc<T>(char, char, int64_t, T*, T*, T*, int64_t, T*, int64_t);            \
  template int sytrd<T>(char, int64_t, T*, int64_t, T*, T*, T*);                           \
  template int stedc<T>(char, int64_t, T*, T*, T*, int64_t);
YATEN_LAPACK_INSTANTIATE_REAL(float)
YATEN_LAPACK_INSTANTIATE_REAL(double)
#undef YATEN_LAPACK_INSTANTIATE_REAL

#define YATEN_LAPACK_INSTANTIATE(T)                                                                                  \
  template int getrf<T>(int64_t, int64_t, T*, int64_t, int*);                                                        \
  template int getrs<T>(char, int64_t, int64_t, const T*, int64_t, const int*, T*, int64_t);                         \
  template int potrf<T>(char, int64_t, T*, int64_t);                                                                 \
  template void trsm<T>(char, char, char, char, int64_t, int64_t, const T*, int64_t, T*, int64_t);                   \
  template int geqrf<T>(int64_t, int64_t, T*, int64_t, T*);                                                          \
  template int orgqr<T>(int64_t, int64_t, int64_t, T*, int64_t, const T*);                                           \
  template int gesdd<T>(char, int64_t, int64_t, T*, int64_t, real_t<T>*, T*, int64_t, T*, int64_t);                  \
  template int syevd<T>(char, char, int64_t, T*, int64_t, real_t<T>*);                                               \
  template int geev<T>(int64_t, T*, int64_t, Complex<real_t<T>>*, Complex<real_t<T>>*, int64_t);                     \
  template int gels<T>(char, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, real_t<T>, int64_t*, real_t<T>*); \
  template int sytrf<T>(bool, int64_t, T*, int64_t, int*);                                                           \
  template int sytrs<T>(bool, int64_t, int64_t, const T*, int64_t, const int*, T*, int64_t);
YATEN_LAPACK_INSTANTIATE(float)
YATEN_LAPACK_INSTANTIATE(double)
YATEN_LAPACK_INSTANTIATE(Complex<float>)
YATEN_LAPACK_INSTANTIATE(Complex<double>)
#undef YATEN_LAPACK_INSTANTIATE

}  // namespace yaten::lapack
