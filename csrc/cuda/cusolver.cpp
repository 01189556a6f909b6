// cuSOLVER, opened at run time (Design rule [Run-time libraries]) as cuBLAS is: the CUDA linear algebra kernels
// without a link-time dependency, so `import yaten` works where the nvidia-cusolver wheel is not installed. The few
// types and constants used are declared below with the values of cusolverDn.h, cublas_api.h and library_types.h.
//
// Most routines go through cuSOLVER's 64-bit generic API (cusolverDnX*: one entry point for every dtype, named by a
// cudaDataType, with a device and a host workspace); orgqr and ormqr exist only in the typed legacy API (S, D, C, Z).
// Handles follow Note [cuBLAS handles and workspaces]: one per thread and device, never destroyed, its stream set
// on every call; workspaces come from the caching allocator, whose blocks are reused in the stream's order, so they
// are released as soon as the call is queued. The host workspaces of the generic API are used during the call.
#include "cuda/cusolver.h"

#include <cuda_runtime.h>

#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/storage.h"
#include "cuda/cuda_runtime.h"
#include "cuda/dynamic_library.h"

namespace yaten::cuda {

namespace {

// ---- the part of cusolverDn.h, cublas_api.h and library_types.h that yaten uses
using Handle = struct cusolverDnContext*;
using Params = struct cusolverDnParams*;
using Status = int;
constexpr Status kSuccess = 0;
constexpr int CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1;
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2;
constexpr int CUBLAS_SIDE_LEFT = 0;
constexpr int CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1;
constexpr int CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_C_32F = 4, CUDA_C_64F = 5;

using CreateFn = Status (*)(Handle*);
using SetStreamFn = Status (*)(Handle, cudaStream_t);
using CreateParamsFn = Status (*)(Params*);
using GetrfSizeFn = Status (*)(Handle, Params, int64_t, int64_t, int, const void*, int64_t, int, size_t*, size_t*);
using GetrfFn = Status (*)(Handle, Params, int64_t, int64_t, int, void*, int64_t, int64_t*, int, void*, size_t, void*,
                           size_t, int*);
using GetrsFn = Status (*)(Handle, Params, int, int64_t, int64_t, int, const void*, int64_t, const int64_t*, int,
                           void*, int64_t, int*);
using PotrfSizeFn = Status (*)(Handle, Params, int, int64_t, int, const void*, int64_t, int, size_t*, size_t*);
using PotrfFn = Status (*)(Handle, Params, int, int64_t, int, void*, int64_t, int, void*, size_t, void*, size_t, int*);
using GeqrfSizeFn = Status (*)(Handle, Params, int64_t, int64_t, int, const void*, int64_t, int, const void*, int,
                               size_t*, size_t*);
using GeqrfFn = Status (*)(Handle, Params, int64_t, int64_t, int, void*, int64_t, int, void*, int, void*, size_t,
                           void*, size_t, int*);
using SyevdSizeFn = Status (*)(Handle, Params, int, int, int64_t, int, const void*, int64_t, int, const void*, int,
                               size_t*, size_t*);
using SyevdFn = Status (*)(Handle, Params, int, int, int64_t, int, void*, int64_t, int, void*, int, void*, size_t,
                           void*, size_t, int*);
using GesvdSizeFn = Status (*)(Handle, Params, signed char, signed char, int64_t, int64_t, int, const void*, int64_t,
                               int, const void*, int, const void*, int64_t, int, const void*, int64_t, int, size_t*,
                               size_t*);
using GesvdFn = Status (*)(Handle, Params, signed char, signed char, int64_t, int64_t, int, void*, int64_t, int, void*,
                           int, void*, int64_t, int, void*, int64_t, int, void*, size_t, void*, size_t, int*);
// legacy, typed: orgqr/ungqr and ormqr/unmqr
using OrgqrSizeFn = Status (*)(Handle, int, int, int, const void*, int, const void*, int*);
using OrgqrFn = Status (*)(Handle, int, int, int, void*, int, const void*, void*, int, int*);
using OrmqrSizeFn = Status (*)(Handle, int, int, int, int, int, const void*, int, const void*, const void*, int, int*);
using OrmqrFn = Status (*)(Handle, int, int, int, int, int, const void*, int, const void*, void*, int, void*, int,
                           int*);

// legacy, typed, batched: potrfBatched (an array of device pointers), syevjBatched/heevjBatched and gesvdjBatched
// (matrices at a fixed stride, each at most 32 x 32) with their Jacobi parameter objects
using SyevjInfo = struct syevjInfo*;
using GesvdjInfo = struct gesvdjInfo*;
using PotrfBatchedFn = Status (*)(Handle, int, int, void**, int, int*, int);
using CreateSyevjInfoFn = Status (*)(SyevjInfo*);
using SyevjSortFn = Status (*)(SyevjInfo, int);
using SyevjBatchedSizeFn = Status (*)(Handle, int, int, int, const void*, int, const void*, int*, SyevjInfo, int);
using SyevjBatchedFn = Status (*)(Handle, int, int, int, void*, int, void*, void*, int, int*, SyevjInfo, int);
using CreateGesvdjInfoFn = Status (*)(GesvdjInfo*);
using GesvdjSortFn = Status (*)(GesvdjInfo, int);
using GesvdjBatchedSizeFn = Status (*)(Handle, int, int, int, const void*, int, const void*, const void*, int,
                                       const void*, int, int*, GesvdjInfo, int);
using GesvdjBatchedFn = Status (*)(Handle, int, int, int, void*, int, void*, void*, int, void*, int, void*, int, int*,
                                   GesvdjInfo, int);
using GesvdjSizeFn = Status (*)(Handle, int, int, int, int, const void*, int, const void*, const void*, int,
                                const void*, int, int*, GesvdjInfo);
using GesvdjFn = Status (*)(Handle, int, int, int, int, void*, int, void*, void*, int, void*, int, void*, int, int*,
                            GesvdjInfo);

struct Library {
  std::string path;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  CreateParamsFn create_params = nullptr;
  GetrfSizeFn getrf_size = nullptr;
  GetrfFn getrf = nullptr;
  GetrsFn getrs = nullptr;
  PotrfSizeFn potrf_size = nullptr;
  PotrfFn potrf = nullptr;
  GeqrfSizeFn geqrf_size = nullptr;
  GeqrfFn geqrf = nullptr;
  SyevdSizeFn syevd_size = nullptr;
  SyevdFn syevd = nullptr;
  GesvdSizeFn gesvd_size = nullptr;
  GesvdFn gesvd = nullptr;
  OrgqrSizeFn orgqr_size[4] = {};  // float, double, complex64, complex128
  OrgqrFn orgqr[4] = {};
  OrmqrSizeFn ormqr_size[4] = {};
  OrmqrFn ormqr[4] = {};
  PotrfBatchedFn potrf_batched[4] = {};
  CreateSyevjInfoFn create_syevj_info = nullptr;
  SyevjSortFn syevj_sort = nullptr;
  SyevjBatchedSizeFn syevj_batched_size[4] = {};
  SyevjBatchedFn syevj_batched[4] = {};
  CreateGesvdjInfoFn create_gesvdj_info = nullptr;
  GesvdjSortFn gesvdj_sort = nullptr;
  GesvdjBatchedSizeFn gesvdj_batched_size[4] = {};
  GesvdjBatchedFn gesvdj_batched[4] = {};
  GesvdjSizeFn gesvdj_size[4] = {};
  GesvdjFn gesvdj[4] = {};
};

void bind(Library& lib, const LazyLibrary<Library>::Symbols& symbols) {
  symbols.bind(lib.create, "cusolverDnCreate");
  symbols.bind(lib.set_stream, "cusolverDnSetStream");
  symbols.bind(lib.create_params, "cusolverDnCreateParams");
  symbols.bind(lib.getrf_size, "cusolverDnXgetrf_bufferSize");
  symbols.bind(lib.getrf, "cusolverDnXgetrf");
  symbols.bind(lib.getrs, "cusolverDnXgetrs");
  symbols.bind(lib.potrf_size, "cusolverDnXpotrf_bufferSize");
  symbols.bind(lib.potrf, "cusolverDnXpotrf");
  symbols.bind(lib.geqrf_size, "cusolverDnXgeqrf_bufferSize");
  symbols.bind(lib.geqrf, "cusolverDnXgeqrf");
  symbols.bind(lib.syevd_size, "cusolverDnXsyevd_bufferSize");
  symbols.bind(lib.syevd, "cusolverDnXsyevd");
  symbols.bind(lib.gesvd_size, "cusolverDnXgesvd_bufferSize");
  symbols.bind(lib.gesvd, "cusolverDnXgesvd");
  const char* orgqr[4][2] = {{"cusolverDnSorgqr_bufferSize", "cusolverDnSorgqr"},
                             {"cusolverDnDorgqr_bufferSize", "cusolverDnDorgqr"},
                             {"cusolverDnCungqr_bufferSize", "cusolverDnCungqr"},
                             {"cusolverDnZungqr_bufferSize", "cusolverDnZungqr"}};
  const char* ormqr[4][2] = {{"cusolverDnSormqr_bufferSize", "cusolverDnSormqr"},
                             {"cusolverDnDormqr_bufferSize", "cusolverDnDormqr"},
                             {"cusolverDnCunmqr_bufferSize", "cusolverDnCunmqr"},
                             {"cusolverDnZunmqr_bufferSize", "cusolverDnZunmqr"}};
  const char* potrf_batched[4] = {"cusolverDnSpotrfBatched", "cusolverDnDpotrfBatched", "cusolverDnCpotrfBatched",
                                  "cusolverDnZpotrfBatched"};
  const char* syevj[4][2] = {{"cusolverDnSsyevjBatched_bufferSize", "cusolverDnSsyevjBatched"},
                             {"cusolverDnDsyevjBatched_bufferSize", "cusolverDnDsyevjBatched"},
                             {"cusolverDnCheevjBatched_bufferSize", "cusolverDnCheevjBatched"},
                             {"cusolverDnZheevjBatched_bufferSize", "cusolverDnZheevjBatched"}};
  const char* gesvdj_one[4][2] = {{"cusolverDnSgesvdj_bufferSize", "cusolverDnSgesvdj"},
                                  {"cusolverDnDgesvdj_bufferSize", "cusolverDnDgesvdj"},
                                  {"cusolverDnCgesvdj_bufferSize", "cusolverDnCgesvdj"},
                                  {"cusolverDnZgesvdj_bufferSize", "cusolverDnZgesvdj"}};
  const char* gesvdj[4][2] = {{"cusolverDnSgesvdjBatched_bufferSize", "cusolverDnSgesvdjBatched"},
                              {"cusolverDnDgesvdjBatched_bufferSize", "cusolverDnDgesvdjBatched"},
                              {"cusolverDnCgesvdjBatched_bufferSize", "cusolverDnCgesvdjBatched"},
                              {"cusolverDnZgesvdjBatched_bufferSize", "cusolverDnZgesvdjBatched"}};
  for (int t = 0; t < 4; ++t) {
    symbols.bind(lib.orgqr_size[t], orgqr[t][0]);
    symbols.bind(lib.orgqr[t], orgqr[t][1]);
    symbols.bind(lib.ormqr_size[t], ormqr[t][0]);
    symbols.bind(lib.ormqr[t], ormqr[t][1]);
    symbols.bind(lib.potrf_batched[t], potrf_batched[t]);
    symbols.bind(lib.syevj_batched_size[t], syevj[t][0]);
    symbols.bind(lib.syevj_batched[t], syevj[t][1]);
    symbols.bind(lib.gesvdj_batched_size[t], gesvdj[t][0]);
    symbols.bind(lib.gesvdj_batched[t], gesvdj[t][1]);
    symbols.bind(lib.gesvdj_size[t], gesvdj_one[t][0]);
    symbols.bind(lib.gesvdj[t], gesvdj_one[t][1]);
  }
  symbols.bind(lib.create_syevj_info, "cusolverDnCreateSyevjInfo");
  symbols.bind(lib.syevj_sort, "cusolverDnXsyevjSetSortEig");
  symbols.bind(lib.create_gesvdj_info, "cusolverDnCreateGesvdjInfo");
  symbols.bind(lib.gesvdj_sort, "cusolverDnXgesvdjSetSortEig");
}

LazyLibrary<Library> g_cusolver("cuSOLVER", {"libcusolver.so.12", "libcusolver.so.11"},
                                "linear algebra on CUDA needs cuSOLVER, and no libcusolver could be opened: pip "
                                "install nvidia-cusolver (or yaten[cuda]), or set YATEN_CUSOLVER to the path of "
                                "libcusolver.so.",
                                "yaten needs cuSOLVER 11 or later: pip install nvidia-cusolver", bind);

const Library& library() { return g_cusolver.get(); }

// cusolverStatus_t's names (cusolver_common.h); cuSOLVER has no function that spells them.
const char* status_name(Status s) {
  switch (s) {
    case 1: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case 2: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case 3: return "CUSOLVER_STATUS_INVALID_VALUE";
    case 4: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case 6: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case 7: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case 8: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case 9: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "a cuSOLVER error";
  }
}

void check(Status status, const char* op, const char* call) {
  YATEN_CHECK(status == kSuccess, RuntimeError, op, ": ", call, " failed: ", status_name(status), " (cuSOLVER status ",
              status, ")");
}

constexpr int kMaxDevices = 64;

struct ThreadState {
  Handle handles[kMaxDevices] = {};
  Params params[kMaxDevices] = {};
  // the Jacobi routines' parameters (host objects the calls also write their residual and sweeps into): default
  // tolerance (machine precision) and sweeps (100), values sorted as LAPACK's are
  SyevjInfo syevj = nullptr;
  GesvdjInfo gesvdj = nullptr;
};

ThreadState& thread_state() {
  thread_local ThreadState* state = new ThreadState();  // leaked, as the handles (Note [cuBLAS handles and workspaces])
  return *state;
}

// (handle, params) for `device`, on its current stream (Note [cuBLAS handles and workspaces]: per thread, leaked).
std::pair<Handle, Params> handle_for(const Library& lib, const char* op, int device) {
  ThreadState* state = &thread_state();
  YATEN_CHECK(device >= 0 && device < kMaxDevices, RuntimeError, op, ": device cuda:", device, " is out of range");
  Handle& handle = state->handles[device];
  if (handle == nullptr) {
    check(lib.create(&handle), op, "cusolverDnCreate");
    check(lib.create_params(&state->params[device]), op, "cusolverDnCreateParams");
  }
  check(lib.set_stream(handle, static_cast<cudaStream_t>(current_stream(device))), op, "cusolverDnSetStream");
  return {handle, state->params[device]};
}

// The routine's device workspace (from the caching allocator) and host workspace, freed when the call is queued.
struct Workspaces {
  std::shared_ptr<StorageImpl> device_block;
  std::vector<char> host;
  Workspaces(size_t device_bytes, size_t host_bytes, int device) : host(host_bytes) {
    if (device_bytes > 0) {
      const Device d(DeviceType::CUDA, device);
      device_block = std::make_shared<StorageImpl>(allocator_for(DeviceType::CUDA)->allocate(device_bytes, d),
                                                   device_bytes, d);
    }
  }
  void* device_data() const { return device_block ? device_block->data() : nullptr; }
  void* host_data() { return host.empty() ? nullptr : host.data(); }
};

int data_type(const char* op, ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float: return CUDA_R_32F;
    case ScalarType::Double: return CUDA_R_64F;
    case ScalarType::ComplexFloat: return CUDA_C_32F;
    case ScalarType::ComplexDouble: return CUDA_C_64F;
    default:
      YATEN_FAIL(TypeError, op, ": cuSOLVER takes float32, float64, complex64 or complex128, not ", dtype_name(dtype));
  }
}
// The real type of a dtype's values (eigenvalues, singular values).
int real_type(int type) { return type == CUDA_C_32F ? CUDA_R_32F : type == CUDA_C_64F ? CUDA_R_64F : type; }
int type_index(int type) { return type == CUDA_R_32F ? 0 : type == CUDA_R_64F ? 1 : type == CUDA_C_32F ? 2 : 3; }

int operation(char trans) { return trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }

int checked_int(const char* op, int64_t v) {
  YATEN_CHECK(v >= 0 && v <= INT_MAX, RuntimeError, op, ": size ", v, " exceeds cuSOLVER's 32-bit limit");
  return static_cast<int>(v);
}

// The workspaces of a generic-API call, as its last arguments take them.
struct WorkspaceArgs {
  void* device;
  size_t device_bytes;
  void* host;
  size_t host_bytes;
};

// A routine of the 64-bit generic API: query(lib, handle, params, &device_bytes, &host_bytes) for its workspace sizes,
// then run(lib, handle, params, workspaces), each status checked and named (`name`, and its _bufferSize).
template <typename Query, typename Run>
void generic_call(const char* op, int device, const char* name, const Query& query, const Run& run) {
  const Library& lib = library();
  DeviceGuard guard(device);
  auto [handle, params] = handle_for(lib, op, device);
  size_t device_bytes = 0, host_bytes = 0;
  const std::string size_name = std::string(name) + "_bufferSize";
  check(query(lib, handle, params, &device_bytes, &host_bytes), op, size_name.c_str());
  Workspaces work(device_bytes, host_bytes, device);
  check(run(lib, handle, params, WorkspaceArgs{work.device_data(), device_bytes, work.host_data(), host_bytes}), op,
        name);
}

// A routine of the typed legacy API (its S, D, C or Z form by index t): query(lib, t, handle, &lwork) for its device
// workspace in elements, then run(lib, t, handle, workspace, lwork), each status checked and named (`name`, and its
// _bufferSize), as generic_call does for the 64-bit API.
template <typename Query, typename Run>
void typed_call(const char* op, ScalarType dtype, int device, const char* name, const Query& query, const Run& run) {
  const Library& lib = library();
  const int t = type_index(data_type(op, dtype));
  DeviceGuard guard(device);
  Handle handle = handle_for(lib, op, device).first;
  int lwork = 0;
  const std::string size_name = std::string(name) + "_bufferSize";
  check(query(lib, t, handle, &lwork), op, size_name.c_str());
  Workspaces work(size_t(lwork) * element_size(dtype), 0, device);
  check(run(lib, t, handle, work.device_data(), lwork), op, name);
}

// This thread's Jacobi parameters (ThreadState), made once: default tolerance and sweeps, values sorted.
SyevjInfo syevj_params(const Library& lib, const char* op) {
  ThreadState& state = thread_state();
  if (state.syevj == nullptr) {
    check(lib.create_syevj_info(&state.syevj), op, "cusolverDnCreateSyevjInfo");
    check(lib.syevj_sort(state.syevj, 1), op, "cusolverDnXsyevjSetSortEig");
  }
  return state.syevj;
}
GesvdjInfo gesvdj_params(const Library& lib, const char* op) {
  ThreadState& state = thread_state();
  if (state.gesvdj == nullptr) {
    check(lib.create_gesvdj_info(&state.gesvdj), op, "cusolverDnCreateGesvdjInfo");
    check(lib.gesvdj_sort(state.gesvdj, 1), op, "cusolverDnXgesvdjSetSortEig");
  }
  return state.gesvdj;
}

}  // namespace

void set_cusolver_candidates(const std::vector<std::string>& paths) { g_cusolver.set_candidates(paths); }

std::string cusolver_path() { return library().path; }

namespace solver {

void getrf(const char* op, ScalarType dtype, int device, int64_t m, int64_t n, void* a, int64_t lda, int64_t* ipiv,
           int* info) {
  const int type = data_type(op, dtype);
  generic_call(
      op, device, "cusolverDnXgetrf",
      [&](const Library& lib, Handle h, Params p, size_t* dev, size_t* host) {
        return lib.getrf_size(h, p, m, n, type, a, lda, type, dev, host);
      },
      [&](const Library& lib, Handle h, Params p, const WorkspaceArgs& w) {
        return lib.getrf(h, p, m, n, type, a, lda, ipiv, type, w.device, w.device_bytes, w.host, w.host_bytes, info);
      });
}

void getrs(const char* op, ScalarType dtype, int device, char trans, int64_t n, int64_t nrhs, const void* a,
           int64_t lda, const int64_t* ipiv, void* b, int64_t ldb, int* info) {
  const Library& lib = library();
  const int type = data_type(op, dtype);
  DeviceGuard guard(device);
  auto [handle, params] = handle_for(lib, op, device);
  check(lib.getrs(handle, params, operation(trans), n, nrhs, type, a, lda, ipiv, type, b, ldb, info), op,
        "cusolverDnXgetrs");
}

void potrf(const char* op, ScalarType dtype, int device, bool upper, int64_t n, void* a, int64_t lda, int* info) {
  const int type = data_type(op, dtype), uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  generic_call(
      op, device, "cusolverDnXpotrf",
      [&](const Library& lib, Handle h, Params p, size_t* dev, size_t* host) {
        return lib.potrf_size(h, p, uplo, n, type, a, lda, type, dev, host);
      },
      [&](const Library& lib, Handle h, Params p, const WorkspaceArgs& w) {
        return lib.potrf(h, p, uplo, n, type, a, lda, type, w.device, w.device_bytes, w.host, w.host_bytes, info);
      });
}

void geqrf(const char* op, ScalarType dtype, int device, int64_t m, int64_t n, void* a, int64_t lda, void* tau,
           int* info) {
  const int type = data_type(op, dtype);
  generic_call(
      op, device, "cusolverDnXgeqrf",
      [&](const Library& lib, Handle h, Params p, size_t* dev, size_t* host) {
        return lib.geqrf_size(h, p, m, n, type, a, lda, type, tau, type, dev, host);
      },
      [&](const Library& lib, Handle h, Params p, const WorkspaceArgs& w) {
        return lib.geqrf(h, p, m, n, type, a, lda, type, tau, type, w.device, w.device_bytes, w.host, w.host_bytes,
                         info);
      });
}

void orgqr(const char* op, ScalarType dtype, int device, int64_t m, int64_t n, int64_t k, void* a, int64_t lda,
           const void* tau, int* info) {
  const int im = checked_int(op, m), in = checked_int(op, n), ik = checked_int(op, k), ilda = checked_int(op, lda);
  typed_call(
      op, dtype, device, "cusolverDn<t>orgqr",
      [&](const Library& lib, int t, Handle h, int* lwork) {
        return lib.orgqr_size[t](h, im, in, ik, a, ilda, tau, lwork);
      },
      [&](const Library& lib, int t, Handle h, void* work, int lwork) {
        return lib.orgqr[t](h, im, in, ik, a, ilda, tau, work, lwork, info);
      });
}

void ormqr_left(const char* op, ScalarType dtype, int device, char trans, int64_t m, int64_t n, int64_t k,
                const void* a, int64_t lda, const void* tau, void* c, int64_t ldc, int* info) {
  // the adjoint of a real Q is its transpose (Sormqr and Dormqr refuse 'C')
  const int tr = trans == 'N' ? CUBLAS_OP_N : is_complex(dtype) ? CUBLAS_OP_C : CUBLAS_OP_T;
  const int im = checked_int(op, m), in = checked_int(op, n), ik = checked_int(op, k);
  const int ilda = checked_int(op, lda), ildc = checked_int(op, ldc);
  typed_call(
      op, dtype, device, "cusolverDn<t>ormqr",
      [&](const Library& lib, int t, Handle h, int* lwork) {
        return lib.ormqr_size[t](h, CUBLAS_SIDE_LEFT, tr, im, in, ik, a, ilda, tau, c, ildc, lwork);
      },
      [&](const Library& lib, int t, Handle h, void* work, int lwork) {
        return lib.ormqr[t](h, CUBLAS_SIDE_LEFT, tr, im, in, ik, a, ilda, tau, c, ildc, work, lwork, info);
      });
}

void syevd(const char* op, ScalarType dtype, int device, bool vectors, bool upper, int64_t n, void* a, int64_t lda,
           void* w, int* info) {
  const int type = data_type(op, dtype), wtype = real_type(type);
  const int jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  generic_call(
      op, device, "cusolverDnXsyevd",
      [&](const Library& lib, Handle h, Params p, size_t* dev, size_t* host) {
        return lib.syevd_size(h, p, jobz, uplo, n, type, a, lda, wtype, w, type, dev, host);
      },
      [&](const Library& lib, Handle h, Params p, const WorkspaceArgs& ws) {
        return lib.syevd(h, p, jobz, uplo, n, type, a, lda, wtype, w, type, ws.device, ws.device_bytes, ws.host,
                         ws.host_bytes, info);
      });
}

void gesvd(const char* op, ScalarType dtype, int device, char jobu, char jobvt, int64_t m, int64_t n, void* a,
           int64_t lda, void* s, void* u, int64_t ldu, void* vt, int64_t ldvt, int* info) {
  YATEN_CHECK(m >= n, RuntimeError, op, ": cuSOLVER's gesvd takes m >= n, got ", m, " x ", n);
  const int type = data_type(op, dtype), stype = real_type(type);
  const auto ju = static_cast<signed char>(jobu), jv = static_cast<signed char>(jobvt);
  generic_call(
      op, device, "cusolverDnXgesvd",
      [&](const Library& lib, Handle h, Params p, size_t* dev, size_t* host) {
        return lib.gesvd_size(h, p, ju, jv, m, n, type, a, lda, stype, s, type, u, ldu, type, vt, ldvt, type, dev,
                              host);
      },
      [&](const Library& lib, Handle h, Params p, const WorkspaceArgs& w) {
        return lib.gesvd(h, p, ju, jv, m, n, type, a, lda, stype, s, type, u, ldu, type, vt, ldvt, type, w.device,
                         w.device_bytes, w.host, w.host_bytes, info);
      });
}

void potrf_batched(const char* op, ScalarType dtype, int device, bool upper, int64_t n, void** a, int64_t lda,
                   int* info, int64_t count) {
  const Library& lib = library();
  const int t = type_index(data_type(op, dtype));
  DeviceGuard guard(device);
  Handle handle = handle_for(lib, op, device).first;
  check(lib.potrf_batched[t](handle, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, checked_int(op, n), a,
                             checked_int(op, lda), info, checked_int(op, count)),
        op, "cusolverDn<t>potrfBatched");
}

void syevj_batched(const char* op, ScalarType dtype, int device, bool vectors, bool upper, int64_t n, void* a,
                   int64_t lda, void* w, int* info, int64_t count) {
  YATEN_CHECK(n <= kMaxJacobiBatchedSize, RuntimeError, op, ": cuSOLVER's syevjBatched takes n <= ",
              kMaxJacobiBatchedSize, ", got ", n);
  const int jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const int in = checked_int(op, n), ilda = checked_int(op, lda), batch = checked_int(op, count);
  typed_call(
      op, dtype, device, "cusolverDn<t>syevjBatched",
      [&](const Library& lib, int t, Handle h, int* lwork) {
        return lib.syevj_batched_size[t](h, jobz, uplo, in, a, ilda, w, lwork, syevj_params(lib, op), batch);
      },
      [&](const Library& lib, int t, Handle h, void* work, int lwork) {
        return lib.syevj_batched[t](h, jobz, uplo, in, a, ilda, w, work, lwork, info, syevj_params(lib, op), batch);
      });
}

void gesvdj_batched(const char* op, ScalarType dtype, int device, bool vectors, int64_t m, int64_t n, void* a,
                    int64_t lda, void* s, void* u, int64_t ldu, void* v, int64_t ldv, int* info, int64_t count) {
  YATEN_CHECK(m <= kMaxJacobiBatchedSize && n <= kMaxJacobiBatchedSize, RuntimeError, op, ": cuSOLVER's "
              "gesvdjBatched takes matrices of at most ", kMaxJacobiBatchedSize, " x ", kMaxJacobiBatchedSize,
              ", got ", m, " x ", n);
  const int jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int im = checked_int(op, m), in = checked_int(op, n), ilda = checked_int(op, lda);
  const int ildu = checked_int(op, ldu), ildv = checked_int(op, ldv), batch = checked_int(op, count);
  typed_call(
      op, dtype, device, "cusolverDn<t>gesvdjBatched",
      [&](const Library& lib, int t, Handle h, int* lwork) {
        return lib.gesvdj_batched_size[t](h, jobz, im, in, a, ilda, s, u, ildu, v, ildv, lwork, gesvdj_params(lib, op),
                                          batch);
      },
      [&](const Library& lib, int t, Handle h, void* work, int lwork) {
        return lib.gesvdj_batched[t](h, jobz, im, in, a, ilda, s, u, ildu, v, ildv, work, lwork, info,
                                     gesvdj_params(lib, op), batch);
      });
}

void gesvdj(const char* op, ScalarType dtype, int device, bool vectors, bool economy, int64_t m, int64_t n, void* a,
            int64_t lda, void* s, void* u, int64_t ldu, void* v, int64_t ldv, int* info) {
  const int jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR, econ = economy ? 1 : 0;
  const int im = checked_int(op, m), in = checked_int(op, n), ilda = checked_int(op, lda);
  const int ildu = checked_int(op, ldu), ildv = checked_int(op, ldv);
  typed_call(
      op, dtype, device, "cusolverDn<t>gesvdj",
      [&](const Library& lib, int t, Handle h, int* lwork) {
        return lib.gesvdj_size[t](h, jobz, econ, im, in, a, ilda, s, u, ildu, v, ildv, lwork, gesvdj_params(lib, op));
      },
      [&](const Library& lib, int t, Handle h, void* work, int lwork) {
        return lib.gesvdj[t](h, jobz, econ, im, in, a, ilda, s, u, ildu, v, ildv, work, lwork, info,
                             gesvdj_params(lib, op));
      });
}

}  // namespace solver
}  // namespace yaten::cuda
