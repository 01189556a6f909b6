// cuBLAS, opened at run time (Design rule [Run-time libraries]): matmul on the GPU without a link-time dependency, so
// `import yaten` works where the nvidia-cublas wheel is not installed. The handful of cuBLAS types and constants
// used here are declared below with the values of cublas_api.h (the toolkit's headers need not include cuBLAS).
//
// Note [cuBLAS handles and workspaces]: a handle is not safe to use from two threads at once, so each thread makes
// its own, one per device, on first use (they live as long as the process: destroying them at exit races the
// driver's own teardown). cublasSetStream resets the handle's workspace, so every call sets the stream and then a
// workspace of ours: one per (thread, device, stream), taken from the caching allocator on that stream, so its
// reuse is ordered by the stream like every other block.
#include <cuda_runtime.h>

#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "core/blas.h"
#include "core/error.h"
#include "core/storage.h"
#include "cuda/cuda_runtime.h"
#include "cuda/cusolver.h"
#include "cuda/dynamic_library.h"

namespace yaten::cuda {

namespace {

// ---- the part of cublas_api.h and library_types.h that yaten uses
using cublasHandle_t = struct cublasContext*;
using cublasStatus_t = int;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2;
constexpr int CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1, CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1;
constexpr int CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1;
constexpr int CUBLAS_GEMM_DEFAULT = -1;
constexpr int CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70;
constexpr int CUDA_R_16F = 2, CUDA_R_16BF = 14, CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_C_32F = 4, CUDA_C_64F = 5;

using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
using SetWorkspaceFn = cublasStatus_t (*)(cublasHandle_t, void*, size_t);
using StatusStringFn = const char* (*)(cublasStatus_t);
using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*,
                                                  int, int, long long, const void*, int, int, long long, const void*,
                                                  void*, int, int, long long, int, int, int);
// cublas<t>trsm_v2 (alpha a host scalar of the matrix's type)
using TrsmFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, int, int, int, const void*, const void*, int, void*,
                                  int);

// cublas<t>getrfBatched and getrsBatched: arrays of device pointers to square column-major matrices, int32 pivots
using GetrfBatchedFn = cublasStatus_t (*)(cublasHandle_t, int, void* const*, int, int*, int*, int);
using GetrsBatchedFn = cublasStatus_t (*)(cublasHandle_t, int, int, int, const void* const*, int, const int*,
                                          void* const*, int, int*, int);

struct Library {
  std::string path;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkspaceFn set_workspace = nullptr;
  StatusStringFn status_string = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched_ex = nullptr;
  TrsmFn trsm[4] = {};  // float, double, complex64, complex128
  GetrfBatchedFn getrf_batched[4] = {};
  GetrsBatchedFn getrs_batched[4] = {};
};

void bind(Library& lib, const LazyLibrary<Library>::Symbols& symbols) {
  symbols.bind(lib.create, "cublasCreate_v2");
  symbols.bind(lib.set_stream, "cublasSetStream_v2");
  symbols.bind(lib.set_workspace, "cublasSetWorkspace_v2");
  symbols.bind(lib.status_string, "cublasGetStatusString");
  symbols.bind(lib.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx");
  const char* trsm[4] = {"cublasStrsm_v2", "cublasDtrsm_v2", "cublasCtrsm_v2", "cublasZtrsm_v2"};
  const char* getrf[4] = {"cublasSgetrfBatched", "cublasDgetrfBatched", "cublasCgetrfBatched", "cublasZgetrfBatched"};
  const char* getrs[4] = {"cublasSgetrsBatched", "cublasDgetrsBatched", "cublasCgetrsBatched", "cublasZgetrsBatched"};
  for (int t = 0; t < 4; ++t) {
    symbols.bind(lib.trsm[t], trsm[t]);
    symbols.bind(lib.getrf_batched[t], getrf[t]);
    symbols.bind(lib.getrs_batched[t], getrs[t]);
  }
}

LazyLibrary<Library> g_cublas("cuBLAS", {"libcublas.so.13", "libcublas.so.12"},
                              "matmul on CUDA needs cuBLAS, and no libcublas could be opened: pip install "
                              "nvidia-cublas (or yaten[cuda]), or set YATEN_CUBLAS to the path of libcublas.so.",
                              "yaten needs cuBLAS 12 or later: pip install nvidia-cublas", bind);

const Library& library() { return g_cublas.get(); }

void check_status(const Library& lib, cublasStatus_t status, const char* op, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  YATEN_FAIL(RuntimeError, op, ": ", call, " failed: ", lib.status_string ? lib.status_string(status) : "",
             " (cuBLAS status ", status, ")");
}

constexpr int kMaxDevices = 64;

struct ThreadState {
  cublasHandle_t handles[kMaxDevices] = {};
  // (device, stream) -> this thread's workspace for it (Note [cuBLAS handles and workspaces])
  std::map<std::pair<int, cudaStream_t>, std::shared_ptr<StorageImpl>> workspaces;
};

ThreadState& thread_state() {
  // Leaked on purpose: the handles must outlive static destruction (Note [cuBLAS handles and workspaces]).
  thread_local ThreadState* state = new ThreadState();
  return *state;
}

size_t workspace_size(int device) {
  // As torch: 32 MiB from Hopper on (its cuBLAS kernels use more), 4 MiB before.
  return device_properties(device)[0] >= 9 ? (size_t{32} << 20) : (size_t{4} << 20);
}

// A handle for `device`, on its current stream, with a workspace ordered by that stream.
cublasHandle_t handle_for(const Library& lib, const char* op, int device) {
  ThreadState& state = thread_state();
  YATEN_CHECK(device >= 0 && device < kMaxDevices, RuntimeError, op, ": device cuda:", device, " is out of range");
  cublasHandle_t& handle = state.handles[device];
  if (handle == nullptr) check_status(lib, lib.create(&handle), op, "cublasCreate");
  auto stream = static_cast<cudaStream_t>(current_stream(device));
  check_status(lib, lib.set_stream(handle, stream), op, "cublasSetStream");
  auto& workspace = state.workspaces[{device, stream}];
  if (!workspace) {
    const size_t bytes = workspace_size(device);
    workspace = std::make_shared<StorageImpl>(allocator_for(DeviceType::CUDA)->allocate(bytes,
                                                                                      Device(DeviceType::CUDA, device)),
                                              bytes, Device(DeviceType::CUDA, device));
  }
  check_status(lib, lib.set_workspace(handle, workspace->data(), workspace->nbytes()), op, "cublasSetWorkspace");
  return handle;
}

int checked_int(const char* op, int64_t v, const char* what) {
  YATEN_CHECK(v >= 0 && v <= INT_MAX, RuntimeError, op, ": ", what, " ", v, " exceeds cuBLAS's 32-bit limit");
  return static_cast<int>(v);
}

}  // namespace

void set_cublas_candidates(const std::vector<std::string>& paths) { g_cublas.set_candidates(paths); }

std::string cublas_path() { return library().path; }

void gemm(const char* op, ScalarType dtype, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
          const GemmOperand& b, void* c, int64_t ldc, int64_t c_batch_stride, int64_t batch, int device) {
  int type = 0, compute = CUBLAS_COMPUTE_32F;
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const float one_c[2] = {1.0f, 0.0f}, zero_c[2] = {0.0f, 0.0f};
  const double one_z[2] = {1.0, 0.0}, zero_z[2] = {0.0, 0.0};
  const void* alpha = &one_f;
  const void* beta = &zero_f;
  switch (dtype) {
    case ScalarType::Half: type = CUDA_R_16F; break;
    case ScalarType::BFloat16: type = CUDA_R_16BF; break;
    case ScalarType::Float:
      type = CUDA_R_32F;
      if (blas::float32_matmul_precision() != blas::Float32MatmulPrecision::Highest) {
        compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      }
      break;
    case ScalarType::Double:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      alpha = &one_d;
      beta = &zero_d;
      break;
    case ScalarType::ComplexFloat:  // alpha and beta are complex numbers of the same type
      type = CUDA_C_32F;
      alpha = one_c;
      beta = zero_c;
      break;
    case ScalarType::ComplexDouble:
      type = CUDA_C_64F;
      compute = CUBLAS_COMPUTE_64F;
      alpha = one_z;
      beta = zero_z;
      break;
    default:
      YATEN_FAIL(TypeError, op, ": cuBLAS matmul takes float16, bfloat16, float32, float64, complex64 or "
                 "complex128, not ", dtype_name(dtype));
  }
  const Library& lib = library();
  DeviceGuard guard(device);
  cublasHandle_t handle = handle_for(lib, op, device);
  check_status(lib,
               lib.gemm_strided_batched_ex(
                   handle, a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
                   checked_int(op, m, "size"), checked_int(op, n, "size"), checked_int(op, k, "size"), alpha, a.data,
                   type, checked_int(op, a.ld, "stride"), a.batch_stride, b.data, type,
                   checked_int(op, b.ld, "stride"), b.batch_stride, beta, c, type, checked_int(op, ldc, "stride"),
                   c_batch_stride, checked_int(op, batch, "batch size"), compute, CUBLAS_GEMM_DEFAULT),
               op, "cublasGemmStridedBatchedEx");
}

namespace {
// The index of a typed cuBLAS routine's S, D, C or Z form.
int typed_index(const char* op, ScalarType dtype, const char* routine) {
  switch (dtype) {
    case ScalarType::Float: return 0;
    case ScalarType::Double: return 1;
    case ScalarType::ComplexFloat: return 2;
    case ScalarType::ComplexDouble: return 3;
    default:
      YATEN_FAIL(TypeError, op, ": cuBLAS's ", routine, " takes float32, float64, complex64 or complex128, not ",
                 dtype_name(dtype));
  }
}
}  // namespace

void solver::trsm(const char* op, ScalarType dtype, int device, bool left, bool upper, char trans, bool unit_diagonal,
                  int64_t m, int64_t n, const void* a, int64_t lda, void* b, int64_t ldb) {
  const double one[2] = {1.0, 0.0};
  const float one_f[2] = {1.0f, 0.0f};
  const int t = typed_index(op, dtype, "trsm");
  const Library& lib = library();
  DeviceGuard guard(device);
  cublasHandle_t handle = handle_for(lib, op, device);
  const int op_a = trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
  check_status(lib,
               lib.trsm[t](handle, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
                           upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, op_a,
                           unit_diagonal ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, checked_int(op, m, "size"),
                           checked_int(op, n, "size"), t % 2 == 0 ? static_cast<const void*>(one_f) : one, a,
                           checked_int(op, lda, "stride"), b, checked_int(op, ldb, "stride")),
               op, "cublas<t>trsm");
}

void solver::getrf_batched(const char* op, ScalarType dtype, int device, int64_t n, void* const* a, int64_t lda,
                           int* ipiv, int* info, int64_t count) {
  const int t = typed_index(op, dtype, "getrfBatched");
  const Library& lib = library();
  DeviceGuard guard(device);
  cublasHandle_t handle = handle_for(lib, op, device);
  check_status(lib,
               lib.getrf_batched[t](handle, checked_int(op, n, "size"), a, checked_int(op, lda, "stride"), ipiv, info,
                                    checked_int(op, count, "batch")),
               op, "cublas<t>getrfBatched");
}

void solver::getrs_batched(const char* op, ScalarType dtype, int device, char trans, int64_t n, int64_t nrhs,
                           const void* const* a, int64_t lda, const int* ipiv, void* const* b, int64_t ldb,
                           int64_t count) {
  const int t = typed_index(op, dtype, "getrsBatched");
  const Library& lib = library();
  DeviceGuard guard(device);
  cublasHandle_t handle = handle_for(lib, op, device);
  const int op_a = trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
  int info = 0;  // on the host: the arguments' check, not the matrices'
  check_status(lib,
               lib.getrs_batched[t](handle, op_a, checked_int(op, n, "size"), checked_int(op, nrhs, "size"), a,
                                    checked_int(op, lda, "stride"), ipiv, b, checked_int(op, ldb, "stride"), &info,
                                    checked_int(op, count, "batch")),
               op, "cublas<t>getrsBatched");
  YATEN_CHECK(info == 0, RuntimeError, op, ": cublas<t>getrsBatched refused argument ", -info);
}

}  // namespace yaten::cuda
