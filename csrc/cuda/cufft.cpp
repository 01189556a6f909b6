// cuFFT, opened at run time as cuBLAS is (cublas.cpp): FFTs on the GPU without a link-time dependency, so `import
// yaten` works where the nvidia-cufft wheel is not installed. The cuFFT types and constants used are declared below
// with the values of cufft.h.
//
// Plans are cached per thread and device by (type, precision, sizes, batch), as torch's cuFFT plan cache: making a
// plan costs far more than a small transform. cuFFT allocates each plan's work area itself.
#include <cuda_runtime.h>

#include <climits>
#include <map>
#include <mutex>
#include <tuple>

#include "core/error.h"
#include "cuda/cuda_runtime.h"
#include "cuda/dynamic_library.h"

namespace yaten::cuda {

namespace {

// ---- the part of cufft.h that yaten uses
using cufftHandle = int;
using cufftResult = int;
constexpr cufftResult CUFFT_SUCCESS = 0;
constexpr int CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c,
              CUFFT_Z2Z = 0x69;
constexpr int CUFFT_FORWARD = -1, CUFFT_INVERSE = 1;

using PlanManyFn = cufftResult (*)(cufftHandle*, int, int*, int*, int, int, int*, int, int, int, int);
using SetStreamFn = cufftResult (*)(cufftHandle, cudaStream_t);
using DestroyFn = cufftResult (*)(cufftHandle);
using ExecC2CFn = cufftResult (*)(cufftHandle, void*, void*, int);
using ExecR2CFn = cufftResult (*)(cufftHandle, void*, void*);  // also C2R, D2Z, Z2D
using ExecZ2ZFn = cufftResult (*)(cufftHandle, void*, void*, int);

struct Library {
  std::string path;
  PlanManyFn plan_many = nullptr;
  SetStreamFn set_stream = nullptr;
  DestroyFn destroy = nullptr;
  ExecC2CFn exec_c2c = nullptr;
  ExecR2CFn exec_r2c = nullptr;
  ExecR2CFn exec_c2r = nullptr;
  ExecZ2ZFn exec_z2z = nullptr;
  ExecR2CFn exec_d2z = nullptr;
  ExecR2CFn exec_z2d = nullptr;
};

void bind(Library& lib, const LazyLibrary<Library>::Symbols& symbols) {
  symbols.bind(lib.plan_many, "cufftPlanMany");
  symbols.bind(lib.set_stream, "cufftSetStream");
  symbols.bind(lib.destroy, "cufftDestroy");
  symbols.bind(lib.exec_c2c, "cufftExecC2C");
  symbols.bind(lib.exec_r2c, "cufftExecR2C");
  symbols.bind(lib.exec_c2r, "cufftExecC2R");
  symbols.bind(lib.exec_z2z, "cufftExecZ2Z");
  symbols.bind(lib.exec_d2z, "cufftExecD2Z");
  symbols.bind(lib.exec_z2d, "cufftExecZ2D");
}

LazyLibrary<Library> g_cufft("cuFFT", {"libcufft.so.12", "libcufft.so.11"},
                             "FFTs on CUDA need cuFFT, and no libcufft could be opened: pip install nvidia-cufft (or "
                             "yaten[cuda]), or set YATEN_CUFFT to the path of libcufft.so.",
                             "pip install nvidia-cufft", bind);

const Library& library() { return g_cufft.get(); }

void check(cufftResult status, const char* op, const char* call) {
  YATEN_CHECK(status == CUFFT_SUCCESS, RuntimeError, op, ": ", call, " failed (cuFFT status ", status, ")");
}

int checked_int(const char* op, int64_t v, const char* what) {
  YATEN_CHECK(v >= 0 && v <= INT_MAX, RuntimeError, op, ": ", what, " ", v, " exceeds cuFFT's 32-bit limit");
  return static_cast<int>(v);
}

using PlanKey = std::tuple<int, int, std::vector<int64_t>, int64_t>;  // device, cuFFT type, sizes, batch
constexpr size_t kMaxCachedPlans = 64;

std::map<PlanKey, cufftHandle>& plan_cache() {
  // Leaked on purpose, as cuBLAS handles: plans must outlive static destruction.
  thread_local auto* cache = new std::map<PlanKey, cufftHandle>();
  return *cache;
}

cufftHandle plan_for(const Library& lib, const char* op, int device, int type, const std::vector<int64_t>& signal,
                     int64_t batch) {
  auto& cache = plan_cache();
  const PlanKey key{device, type, signal, batch};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= kMaxCachedPlans) {  // a simple bound: start over
    for (auto& [k, plan] : cache) lib.destroy(plan);
    cache.clear();
  }
  int n[3];
  int64_t real_points = 1, complex_points = 1;
  for (size_t i = 0; i < signal.size(); ++i) {
    n[i] = checked_int(op, signal[i], "signal size");
    real_points *= signal[i];
    complex_points *= i + 1 == signal.size() ? signal[i] / 2 + 1 : signal[i];
  }
  const bool r2c = type == CUFFT_R2C || type == CUFFT_D2Z, c2r = type == CUFFT_C2R || type == CUFFT_Z2D;
  const int64_t idist = c2r ? complex_points : real_points, odist = r2c ? complex_points : real_points;
  cufftHandle plan = 0;
  check(lib.plan_many(&plan, static_cast<int>(signal.size()), n, nullptr, 1, checked_int(op, idist, "signal"),
                      nullptr, 1, checked_int(op, odist, "signal"), type, checked_int(op, batch, "batch")),
        op, "cufftPlanMany");
  cache.emplace(key, plan);
  return plan;
}

}  // namespace

void set_cufft_candidates(const std::vector<std::string>& paths) { g_cufft.set_candidates(paths); }

std::string cufft_path() { return library().path; }

void fft(const char* op, FftType type, ScalarType real_dtype, const std::vector<int64_t>& signal, int64_t batch,
         const void* in, void* out, bool forward, int device) {
  YATEN_CHECK(!signal.empty() && signal.size() <= 3, RuntimeError, op, ": cuFFT transforms 1 to 3 dims, got ",
              signal.size());
  YATEN_CHECK(real_dtype == ScalarType::Float || real_dtype == ScalarType::Double, TypeError, op,
              ": cuFFT takes float32 and float64 data, not ", dtype_name(real_dtype));
  const bool dbl = real_dtype == ScalarType::Double;
  const int cufft_type = type == FftType::C2C ? (dbl ? CUFFT_Z2Z : CUFFT_C2C)
                         : type == FftType::R2C ? (dbl ? CUFFT_D2Z : CUFFT_R2C)
                                                : (dbl ? CUFFT_Z2D : CUFFT_C2R);
  const Library& lib = library();
  DeviceGuard guard(device);
  const cufftHandle plan = plan_for(lib, op, device, cufft_type, signal, batch);
  check(lib.set_stream(plan, static_cast<cudaStream_t>(current_stream(device))), op, "cufftSetStream");
  void* src = const_cast<void*>(in);
  const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  switch (cufft_type) {
    case CUFFT_C2C: check(lib.exec_c2c(plan, src, out, direction), op, "cufftExecC2C"); break;
    case CUFFT_Z2Z: check(lib.exec_z2z(plan, src, out, direction), op, "cufftExecZ2Z"); break;
    case CUFFT_R2C: check(lib.exec_r2c(plan, src, out), op, "cufftExecR2C"); break;
    case CUFFT_D2Z: check(lib.exec_d2z(plan, src, out), op, "cufftExecD2Z"); break;
    case CUFFT_C2R: check(lib.exec_c2r(plan, src, out), op, "cufftExecC2R"); break;
    default: check(lib.exec_z2d(plan, src, out), op, "cufftExecZ2D"); break;
  }
}

}  // namespace yaten::cuda
