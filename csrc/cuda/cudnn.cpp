// cuDNN, opened at run time as cuBLAS is (cublas.cpp; Design rule [Run-time libraries]): convolutions on the GPU
// through cuDNN's convolution API (cudnnConvolutionForward / BackwardData / BackwardFilter, the calls of torch's
// Conv_v7), with no link-time dependency, so `import yaten` works where the nvidia-cudnn wheel is not installed. The
// cuDNN types and constants used are declared below with the values of cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h
// (cuDNN 9).
//
// Note [cuDNN convolutions]: the CUDA kernels of _convolution_forward, _convolution_transpose_forward and
// _convolution_weight_backward (kernels/cuda/conv.cuh) hand a convolution to cuDNN when `cudnn_takes` says so:
// yaten.backends.cudnn.enabled (default True), a libcudnn opened, a floating dtype, and sizes within cuDNN's 32-bit
// ints; otherwise they run yaten's own im2col kernels and cuBLAS, as torch runs its own kernels without cuDNN. Each
// of the three calls describes the *forward* convolution x (N, C, *in) * w (K, C / groups, *kernel) -> y (N, K, *out),
// contiguous: a transposed convolution is that convolution's BackwardData (its input is y, its output x), and its
// weight's gradient that convolution's BackwardFilter with x and y swapped in the same way. 1-D convolutions are
// 2-D ones of height 1, as cuDNN wants four dims at least.
//
// Note [cuDNN execution plans]: by default (benchmark=False) a convolution runs through cuDNN's graph API, as
// torch's does: on a shape's first call the operation graph (one convolution), the instant heuristic's ranked
// engine configurations, then the fallback list's, and the first configuration that the settings allow (by its
// numerical notes: no down-converted inputs, TF32 only where allowed, deterministic only where asked) and that
// finalizes becomes the execution plan kept for the shape; every call after that is a map lookup, a variant pack
// (the three pointers and the workspace) and cudnnBackendExecute. Measured on an H100 with cuDNN 9.19: a forward
// convolution through the _v7 calls below cost the host 108 us a call (descriptors made again, cuDNN finding its
// engine again), through a plan 35 us; a bfloat16 3x3 convolution of a ResNet layer, 51 us on the device, went from
// host-bound at 85 us a call to 59 us. Where no configuration finalizes (or this cuDNN refuses one of the
// descriptors), the shape goes to the _v7 calls; _C._cudnn_call_counts() counts both paths, YATEN_CUDNN_GRAPH=0
// turns the plans off (to compare), and benchmark=True times the _v7 algorithms (cudnnFind*, below).
//
// The algorithm of the _v7 calls: cuDNN's own ranking (the _v7 heuristics), or with
// yaten.backends.cudnn.benchmark each algorithm timed on the first call's tensors (cudnnFind*AlgorithmEx, with a
// workspace of up to 1 GiB), fastest first; the first that succeeds with a workspace the caching allocator can give
// (only deterministic ones with yaten.backends.cudnn.deterministic), remembered per shape (one map lookup per call
// after the first); none succeeding is a RuntimeError, as in torch, never a quiet change of path. Math: float16
// and bfloat16 on tensor cores with float accumulation; float32 with TF32 tensor cores when
// yaten.backends.cudnn.allow_tf32 (default True, as torch's, where float32 matmul's default is False), otherwise
// FMA only; float64 in float64. Handles are per thread and device, as cuBLAS's (Note [cuBLAS handles and
// workspaces]).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/deterministic.h"
#include "core/error.h"
#include "core/storage.h"
#include "cuda/cuda_runtime.h"
#include "cuda/cudnn.h"
#include "cuda/dynamic_library.h"
#include "kernels/sizes_text.h"

namespace yaten::cuda {

namespace {

// ---- the part of the cuDNN 9 headers that yaten uses
using cudnnHandle_t = struct cudnnContext*;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct*;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct*;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct*;
using cudnnStatus_t = int;
constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
constexpr int CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9;
constexpr int CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_FMA_MATH = 3;
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_DETERMINISTIC = 1;
// CUDNN_CONVOLUTION_FWD_ALGO_COUNT, _BWD_DATA_ALGO_COUNT, _BWD_FILTER_ALGO_COUNT, by ConvolutionPass
constexpr int kAlgorithmCounts[3] = {8, 6, 7};
constexpr int kMaxAlgorithms = 8;

// cudnnConvolutionFwdAlgoPerf_t, and the BwdData and BwdFilter ones, which have the same layout.
struct AlgorithmPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

using CreateFn = cudnnStatus_t (*)(cudnnHandle_t*);
using SetStreamFn = cudnnStatus_t (*)(cudnnHandle_t, cudaStream_t);
using ErrorStringFn = const char* (*)(cudnnStatus_t);
using VersionFn = size_t (*)();
using CreateTensorFn = cudnnStatus_t (*)(cudnnTensorDescriptor_t*);
using DestroyTensorFn = cudnnStatus_t (*)(cudnnTensorDescriptor_t);
using SetTensorFn = cudnnStatus_t (*)(cudnnTensorDescriptor_t, int, int, const int*, const int*);
using CreateFilterFn = cudnnStatus_t (*)(cudnnFilterDescriptor_t*);
using DestroyFilterFn = cudnnStatus_t (*)(cudnnFilterDescriptor_t);
using SetFilterFn = cudnnStatus_t (*)(cudnnFilterDescriptor_t, int, int, int, const int*);
using CreateConvFn = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t*);
using DestroyConvFn = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t);
using SetConvFn = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, int, const int*, const int*, const int*, int, int);
using SetConvIntFn = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, int);  // group count, math type
using OutputDimFn = cudnnStatus_t (*)(cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                                      int, int*);
// The three _v7 heuristics differ only in the order of their descriptors, passed as opaque pointers here.
using GetAlgorithmsFn = cudnnStatus_t (*)(cudnnHandle_t, const void*, const void*, cudnnConvolutionDescriptor_t,
                                          const void*, int, int*, AlgorithmPerf*);
// cudnnConvolutionForward(handle, alpha, xDesc, x, wDesc, w, conv, algo, ws, wsSize, beta, yDesc, y), and
// BackwardData(.., wDesc, w, dyDesc, dy, .., dxDesc, dx) and BackwardFilter(.., xDesc, x, dyDesc, dy, .., dwDesc,
// dw): the same shape of call.
using RunFn = cudnnStatus_t (*)(cudnnHandle_t, const void*, const void*, const void*, const void*, const void*,
                                cudnnConvolutionDescriptor_t, int, void*, size_t, const void*, const void*, void*);
// cudnnFindConvolutionForwardAlgorithmEx(handle, xDesc, x, wDesc, w, conv, yDesc, y, requested, returned, perf, ws,
// wsSize), and the BackwardData and BackwardFilter ones in the runs' order: time every algorithm, fastest first.
using FindFn = cudnnStatus_t (*)(cudnnHandle_t, const void*, const void*, const void*, const void*,
                                 cudnnConvolutionDescriptor_t, const void*, void*, int, int*, AlgorithmPerf*, void*,
                                 size_t);

// ---- the graph ("backend") API of cudnn_graph.h: descriptors set attribute by attribute, then finalized
using BackendDescriptor = void*;
using BackendCreateFn = cudnnStatus_t (*)(int, BackendDescriptor*);
using BackendDestroyFn = cudnnStatus_t (*)(BackendDescriptor);
using BackendSetFn = cudnnStatus_t (*)(BackendDescriptor, int, int, int64_t, const void*);
using BackendGetFn = cudnnStatus_t (*)(BackendDescriptor, int, int, int64_t, int64_t*, void*);
using BackendFinalizeFn = cudnnStatus_t (*)(BackendDescriptor);
using BackendExecuteFn = cudnnStatus_t (*)(cudnnHandle_t, BackendDescriptor, BackendDescriptor);
// cudnnBackendDescriptorType_t
constexpr int CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR = 1, CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2,
              CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4,
              CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15,
              CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16, CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17;
// the operation descriptors, by ConvolutionPass: forward, backward data, backward filter
constexpr int kOperationTypes[3] = {10, 12, 11};
// cudnnBackendAttributeType_t
constexpr int CUDNN_TYPE_HANDLE = 0, CUDNN_TYPE_DATA_TYPE = 1, CUDNN_TYPE_INT64 = 3, CUDNN_TYPE_FLOAT = 4,
              CUDNN_TYPE_DOUBLE = 5, CUDNN_TYPE_VOID_PTR = 6, CUDNN_TYPE_CONVOLUTION_MODE = 7,
              CUDNN_TYPE_HEUR_MODE = 8, CUDNN_TYPE_NUMERICAL_NOTE = 11, CUDNN_TYPE_BACKEND_DESCRIPTOR = 15;
// cudnnBackendAttributeName_t
constexpr int CUDNN_ATTR_CONVOLUTION_COMP_TYPE = 100, CUDNN_ATTR_CONVOLUTION_CONV_MODE = 101,
              CUDNN_ATTR_CONVOLUTION_DILATIONS = 102, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 103,
              CUDNN_ATTR_CONVOLUTION_POST_PADDINGS = 104, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 105,
              CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS = 106, CUDNN_ATTR_ENGINEHEUR_MODE = 200,
              CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201, CUDNN_ATTR_ENGINEHEUR_RESULTS = 202,
              CUDNN_ATTR_ENGINECFG_ENGINE = 300, CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400,
              CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
              CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800, CUDNN_ATTR_OPERATIONGRAPH_OPS = 801,
              CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900, CUDNN_ATTR_TENSOR_DATA_TYPE = 901,
              CUDNN_ATTR_TENSOR_DIMENSIONS = 902, CUDNN_ATTR_TENSOR_STRIDES = 903, CUDNN_ATTR_TENSOR_UNIQUE_ID = 906,
              CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
              CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1303;
// An operation's attributes, by ConvolutionPass, in the order alpha, beta, conv, then the three tensors x, w, y
// (the backward passes name theirs dx/dw and dy: x, w and y of the forward convolution all the same).
constexpr int kOperationAttributes[3][6] = {{700, 701, 702, 704, 703, 705},   // X, W, Y
                                            {706, 707, 708, 710, 709, 711},   // DX, W, DY
                                            {712, 713, 714, 716, 715, 717}};  // X, DW, DY
// cudnnBackendHeurMode_t and cudnnBackendNumericalNote_t
constexpr int CUDNN_HEUR_MODE_INSTANT = 0, CUDNN_HEUR_MODE_FALLBACK = 2;
constexpr int CUDNN_NUMERICAL_NOTE_TENSOR_CORE = 0, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 1,
              CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC = 4;

// The heuristics and the calls, by ConvolutionPass.
const char* const kHeuristicNames[3] = {"cudnnGetConvolutionForwardAlgorithm_v7",
                                        "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                                        "cudnnGetConvolutionBackwardFilterAlgorithm_v7"};
const char* const kRunNames[3] = {"cudnnConvolutionForward", "cudnnConvolutionBackwardData",
                                  "cudnnConvolutionBackwardFilter"};
const char* const kFindNames[3] = {"cudnnFindConvolutionForwardAlgorithmEx",
                                   "cudnnFindConvolutionBackwardDataAlgorithmEx",
                                   "cudnnFindConvolutionBackwardFilterAlgorithmEx"};

struct Library {
  std::string path;
  int64_t version = 0;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  ErrorStringFn error_string = nullptr;
  CreateTensorFn create_tensor = nullptr;
  DestroyTensorFn destroy_tensor = nullptr;
  SetTensorFn set_tensor = nullptr;
  CreateFilterFn create_filter = nullptr;
  DestroyFilterFn destroy_filter = nullptr;
  SetFilterFn set_filter = nullptr;
  CreateConvFn create_conv = nullptr;
  DestroyConvFn destroy_conv = nullptr;
  SetConvFn set_conv = nullptr;
  SetConvIntFn set_group_count = nullptr;
  SetConvIntFn set_math_type = nullptr;
  OutputDimFn output_dim = nullptr;
  GetAlgorithmsFn get_algorithms[3] = {};  // by ConvolutionPass
  RunFn run[3] = {};
  FindFn find[3] = {};
  BackendCreateFn backend_create = nullptr;
  BackendDestroyFn backend_destroy = nullptr;
  BackendSetFn backend_set = nullptr;
  BackendGetFn backend_get = nullptr;
  BackendFinalizeFn backend_finalize = nullptr;
  BackendExecuteFn backend_execute = nullptr;
};

std::mutex g_mutex;
std::vector<std::string> g_candidates;
Library* g_library = nullptr;  // set once, never freed
std::string g_failure;          // why no library opened, once tried (cleared when the candidates change)

// The library, or nullptr with g_failure saying why; the caller holds g_mutex.
const Library* open_library() {
  if (g_library != nullptr || !g_failure.empty()) return g_library;
  const OpenedLibrary opened = open_first(g_candidates, {"libcudnn.so.9"});
  if (opened.handle == nullptr) {
    g_failure = "no libcudnn could be opened: pip install nvidia-cudnn-cu13 (or yaten[cuda]), or set YATEN_CUDNN "
                "to the path of libcudnn.so.9. Tried:" + opened.tried;
    return nullptr;
  }
  try {
    const auto symbol = [&](const char* name) {
      return library_symbol(opened, name, "cuDNN", "yaten needs cuDNN 9: pip install nvidia-cudnn-cu13");
    };
    auto lib = std::make_unique<Library>();
    lib->path = opened.path;
    lib->version = static_cast<int64_t>(reinterpret_cast<VersionFn>(symbol("cudnnGetVersion"))());
    lib->create = reinterpret_cast<CreateFn>(symbol("cudnnCreate"));
    lib->set_stream = reinterpret_cast<SetStreamFn>(symbol("cudnnSetStream"));
    lib->error_string = reinterpret_cast<ErrorStringFn>(symbol("cudnnGetErrorString"));
    lib->create_tensor = reinterpret_cast<CreateTensorFn>(symbol("cudnnCreateTensorDescriptor"));
    lib->destroy_tensor = reinterpret_cast<DestroyTensorFn>(symbol("cudnnDestroyTensorDescriptor"));
    lib->set_tensor = reinterpret_cast<SetTensorFn>(symbol("cudnnSetTensorNdDescriptor"));
    lib->create_filter = reinterpret_cast<CreateFilterFn>(symbol("cudnnCreateFilterDescriptor"));
    lib->destroy_filter = reinterpret_cast<DestroyFilterFn>(symbol("cudnnDestroyFilterDescriptor"));
    lib->set_filter = reinterpret_cast<SetFilterFn>(symbol("cudnnSetFilterNdDescriptor"));
    lib->create_conv = reinterpret_cast<CreateConvFn>(symbol("cudnnCreateConvolutionDescriptor"));
    lib->destroy_conv = reinterpret_cast<DestroyConvFn>(symbol("cudnnDestroyConvolutionDescriptor"));
    lib->set_conv = reinterpret_cast<SetConvFn>(symbol("cudnnSetConvolutionNdDescriptor"));
    lib->set_group_count = reinterpret_cast<SetConvIntFn>(symbol("cudnnSetConvolutionGroupCount"));
    lib->set_math_type = reinterpret_cast<SetConvIntFn>(symbol("cudnnSetConvolutionMathType"));
    lib->output_dim = reinterpret_cast<OutputDimFn>(symbol("cudnnGetConvolutionNdForwardOutputDim"));
    for (int i = 0; i < 3; ++i) {
      lib->get_algorithms[i] = reinterpret_cast<GetAlgorithmsFn>(symbol(kHeuristicNames[i]));
      lib->run[i] = reinterpret_cast<RunFn>(symbol(kRunNames[i]));
      lib->find[i] = reinterpret_cast<FindFn>(symbol(kFindNames[i]));
    }
    lib->backend_create = reinterpret_cast<BackendCreateFn>(symbol("cudnnBackendCreateDescriptor"));
    lib->backend_destroy = reinterpret_cast<BackendDestroyFn>(symbol("cudnnBackendDestroyDescriptor"));
    lib->backend_set = reinterpret_cast<BackendSetFn>(symbol("cudnnBackendSetAttribute"));
    lib->backend_get = reinterpret_cast<BackendGetFn>(symbol("cudnnBackendGetAttribute"));
    lib->backend_finalize = reinterpret_cast<BackendFinalizeFn>(symbol("cudnnBackendFinalize"));
    lib->backend_execute = reinterpret_cast<BackendExecuteFn>(symbol("cudnnBackendExecute"));
    YATEN_CHECK(lib->version >= 90000, RuntimeError, "cuDNN: ", opened.path, " is cuDNN ", lib->version,
                "; yaten needs cuDNN 9: pip install nvidia-cudnn-cu13");
    g_library = lib.release();
  } catch (const Error& e) {
    g_failure = e.what();
  }
  return g_library;
}

const Library& library(const char* op) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Library* lib = open_library();
  YATEN_CHECK(lib != nullptr, RuntimeError, op, ": cuDNN is not available: ", g_failure);
  return *lib;
}

void check_status(const Library& lib, cudnnStatus_t status, const char* op, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  YATEN_FAIL(RuntimeError, op, ": ", call, " failed: ", lib.error_string(status), " (cuDNN status ", status, ")");
}

constexpr int kMaxDevices = 64;

cudnnHandle_t handle_for(const Library& lib, const char* op, int device) {
  // Leaked on purpose, as cuBLAS's handles (Note [cuBLAS handles and workspaces]).
  thread_local auto* handles = new std::array<cudnnHandle_t, kMaxDevices>();
  YATEN_CHECK(device >= 0 && device < kMaxDevices, RuntimeError, op, ": device cuda:", device, " is out of range");
  cudnnHandle_t& handle = (*handles)[device];
  if (handle == nullptr) check_status(lib, lib.create(&handle), op, "cudnnCreate");
  check_status(lib, lib.set_stream(handle, static_cast<cudaStream_t>(current_stream(device))), op, "cudnnSetStream");
  return handle;
}

int data_type(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half: return CUDNN_DATA_HALF;
    case ScalarType::BFloat16: return CUDNN_DATA_BFLOAT16;
    case ScalarType::Float: return CUDNN_DATA_FLOAT;
    case ScalarType::Double: return CUDNN_DATA_DOUBLE;
    default: return -1;
  }
}

// The descriptors of one convolution, destroyed with it.
struct Descriptors {
  const Library& lib;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descriptors(const Library& l) : lib(l) {}
  ~Descriptors() {
    if (x) lib.destroy_tensor(x);
    if (y) lib.destroy_tensor(y);
    if (w) lib.destroy_filter(w);
    if (conv) lib.destroy_conv(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
};

// Sizes as cuDNN takes them (int for the _v7 descriptors, int64 for the graph API's): 1-D convolutions as 2-D ones
// of height 1.
template <typename T>
std::vector<T> dims_of(const std::vector<int64_t>& sizes, bool one_d) {
  std::vector<T> out(sizes.begin(), sizes.end());
  if (one_d) out.insert(out.begin() + 2, 1);
  return out;
}

template <typename T>
std::vector<T> contiguous_strides(const std::vector<T>& dims) {
  std::vector<T> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

// The padding, stride and dilation per spatial dim as cuDNN takes them (a 1-D convolution's height first).
template <typename T>
struct Geometry {
  std::vector<T> pad, stride, dilation;
  explicit Geometry(const ConvolutionDescription& c) {
    if (c.dims == 1) {
      pad.push_back(0);
      stride.push_back(1);
      dilation.push_back(1);
    }
    for (int i = 0; i < c.dims; ++i) {
      pad.push_back(T(c.padding[i]));
      stride.push_back(T(c.stride[i]));
      dilation.push_back(T(c.dilation[i]));
    }
  }
};

// alpha = 1 and beta = 0 of every convolution, in float (double for float64) as cuDNN wants them.
const float kOneFloat = 1.0f, kZeroFloat = 0.0f;
const double kOneDouble = 1.0, kZeroDouble = 0.0;
const void* alpha_of(ScalarType dtype) {
  return dtype == ScalarType::Double ? static_cast<const void*>(&kOneDouble) : &kOneFloat;
}
const void* beta_of(ScalarType dtype) {
  return dtype == ScalarType::Double ? static_cast<const void*>(&kZeroDouble) : &kZeroFloat;
}

void describe(Descriptors& d, const char* op, const ConvolutionDescription& c, int math_type) {
  const Library& lib = d.lib;
  const bool one_d = c.dims == 1;
  const int type = data_type(c.dtype);
  const std::vector<int> x = dims_of<int>(c.input, one_d), y = dims_of<int>(c.output, one_d);
  const std::vector<int> w = dims_of<int>(c.weight, one_d);
  check_status(lib, lib.create_tensor(&d.x), op, "cudnnCreateTensorDescriptor");
  check_status(lib, lib.set_tensor(d.x, type, int(x.size()), x.data(), contiguous_strides(x).data()), op,
               "cudnnSetTensorNdDescriptor");
  check_status(lib, lib.create_tensor(&d.y), op, "cudnnCreateTensorDescriptor");
  check_status(lib, lib.set_tensor(d.y, type, int(y.size()), y.data(), contiguous_strides(y).data()), op,
               "cudnnSetTensorNdDescriptor");
  check_status(lib, lib.create_filter(&d.w), op, "cudnnCreateFilterDescriptor");
  check_status(lib, lib.set_filter(d.w, type, CUDNN_TENSOR_NCHW, int(w.size()), w.data()), op,
               "cudnnSetFilterNdDescriptor");
  const Geometry<int> g(c);
  const int compute = c.dtype == ScalarType::Double ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  check_status(lib, lib.create_conv(&d.conv), op, "cudnnCreateConvolutionDescriptor");
  check_status(lib, lib.set_conv(d.conv, int(g.pad.size()), g.pad.data(), g.stride.data(), g.dilation.data(),
                                 CUDNN_CROSS_CORRELATION, compute), op, "cudnnSetConvolutionNdDescriptor");
  check_status(lib, lib.set_group_count(d.conv, int(c.groups)), op, "cudnnSetConvolutionGroupCount");
  check_status(lib, lib.set_math_type(d.conv, math_type), op, "cudnnSetConvolutionMathType");
}

// The forward output's sizes as cuDNN works them out from the descriptors (what yaten's sizes must equal).
std::vector<int64_t> described_output(const Descriptors& d, const char* op, const ConvolutionDescription& c) {
  const int nb = c.dims + 2 + (c.dims == 1 ? 1 : 0);
  int out[6] = {};
  check_status(d.lib, d.lib.output_dim(d.conv, d.x, d.w, nb, out), op, "cudnnGetConvolutionNdForwardOutputDim");
  std::vector<int64_t> sizes(out, out + nb);
  if (c.dims == 1) sizes.erase(sizes.begin() + 2);
  return sizes;
}

// The math type a convolution may use: tensor cores for the 16-bit types, for float32 only with TF32 allowed.
int allowed_math(ScalarType dtype, bool allow_tf32) {
  if (dtype == ScalarType::Half || dtype == ScalarType::BFloat16) return CUDNN_TENSOR_OP_MATH;
  if (dtype == ScalarType::Float && !allow_tf32) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

// A pass's operands in the order its heuristic, Find and run calls take them: two inputs, then the output, each a
// descriptor (the heuristic takes the three alone) and its data.
struct Operands {
  const void* desc[3];
  const void* in[2];
  void* out;
};
Operands operands(ConvolutionPass pass, const Descriptors& d, void* x, void* w, void* y) {
  switch (pass) {
    case ConvolutionPass::Forward: return {{d.x, d.w, d.y}, {x, w}, y};         // x, w -> y
    case ConvolutionPass::BackwardData: return {{d.w, d.y, d.x}, {w, y}, x};    // w, dy -> dx
    case ConvolutionPass::BackwardFilter: return {{d.x, d.y, d.w}, {x, y}, w};  // x, dy -> dw
  }
  return {};
}

// A chosen algorithm, per (pass, dtype, device, math, sizes, geometry).
struct Choice {
  int algo;
  int math_type;
  size_t memory;
};
std::mutex g_choice_mutex;
std::map<std::vector<int64_t>, Choice> g_choices;

std::vector<int64_t> choice_key(ConvolutionPass pass, const ConvolutionDescription& c, int math_type,
                                const CudnnSettings& settings) {
  std::vector<int64_t> key = {int64_t(pass), int64_t(c.dtype), c.device, math_type, settings.deterministic,
                              settings.benchmark, c.dims, c.groups};
  for (const auto* v : {&c.input, &c.weight, &c.output, &c.padding, &c.stride, &c.dilation}) {
    key.insert(key.end(), v->begin(), v->end());
  }
  return key;
}

// A workspace of `bytes` on c's device from the caching allocator, ordered by the current stream (nothing for 0);
// OutOfMemoryError when it cannot be had.
std::unique_ptr<StorageImpl> workspace_for(const char* op, const ConvolutionDescription& c, size_t bytes) {
  if (bytes == 0) return nullptr;
  YATEN_CHECK(bytes < (size_t{1} << 40), OutOfMemoryError, op, ": cuDNN asked for a workspace of ", bytes, " bytes");
  const Device device(DeviceType::CUDA, c.device);
  return std::make_unique<StorageImpl>(allocator_for(DeviceType::CUDA)->allocate(bytes, device), bytes, device);
}

// With benchmark, the workspace the timing may use: the largest any algorithm asks for, up to this.
constexpr size_t kMaxBenchmarkWorkspace = size_t{1} << 30;

// Runs one algorithm: its math type on the descriptor, a workspace from the caching allocator, the call.
void run_algorithm(const Library& lib, cudnnHandle_t handle, const Descriptors& d, const char* op,
                   ConvolutionPass pass, const ConvolutionDescription& c, const Choice& choice, const Operands& o) {
  check_status(lib, lib.set_math_type(d.conv, choice.math_type), op, "cudnnSetConvolutionMathType");
  const std::unique_ptr<StorageImpl> workspace = workspace_for(op, c, choice.memory);
  const int p = int(pass);
  check_status(lib, lib.run[p](handle, alpha_of(c.dtype), o.desc[0], o.in[0], o.desc[1], o.in[1], d.conv, choice.algo,
                               workspace ? workspace->data() : nullptr, choice.memory, beta_of(c.dtype), o.desc[2],
                               o.out),
               op, kRunNames[p]);
}

// ---- the graph API path (Note [cuDNN execution plans])

// One backend descriptor, destroyed with this.
class Backend {
 public:
  Backend(const Library& lib, int type, const char* op) : lib_(&lib) {
    check_status(lib, lib.backend_create(type, &d_), op, "cudnnBackendCreateDescriptor");
  }
  ~Backend() {
    if (d_ != nullptr) lib_->backend_destroy(d_);
  }
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  BackendDescriptor get() const { return d_; }
  BackendDescriptor* address() { return &d_; }
  void set(int name, int type, int64_t count, const void* values, const char* op) {
    check_status(*lib_, lib_->backend_set(d_, name, type, count, values), op, "cudnnBackendSetAttribute");
  }
  void set_descriptor(int name, const Backend& other, const char* op) {
    const BackendDescriptor d = other.get();
    set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d, op);
  }
  cudnnStatus_t finalize() { return lib_->backend_finalize(d_); }

 private:
  const Library* lib_;
  BackendDescriptor d_ = nullptr;
};

// A finalized execution plan and the workspace it needs.
struct ExecutionPlan {
  std::shared_ptr<Backend> plan;
  int64_t workspace = 0;
};

// The largest power of two up to 16 that divides a pointer: the alignment a plan is made for (part of its key).
int64_t alignment_of(const void* p) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  int64_t a = 16;
  while (a > 1 && address % uintptr_t(a) != 0) a /= 2;
  return a;
}

// The tensor x (uid 1), w (2) or y (3) of the forward convolution, contiguous.
std::unique_ptr<Backend> tensor_descriptor(const Library& lib, const char* op, const ConvolutionDescription& c,
                                           const std::vector<int64_t>& sizes, int64_t uid, int64_t alignment) {
  const std::vector<int64_t> dims = dims_of<int64_t>(sizes, c.dims == 1), strides = contiguous_strides(dims);
  auto t = std::make_unique<Backend>(lib, CUDNN_BACKEND_TENSOR_DESCRIPTOR, op);
  const int type = data_type(c.dtype);
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, op);
  t->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, int64_t(dims.size()), dims.data(), op);
  t->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, int64_t(strides.size()), strides.data(), op);
  t->set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, op);
  t->set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment, op);
  check_status(lib, t->finalize(), op, "cudnnBackendFinalize(tensor)");
  return t;
}

// Whether an engine configuration may run under the settings, from its engine's numerical notes, as torch filters
// them: never one that converts its inputs down, no TF32 tensor cores for float32 unless allowed, and with
// deterministic only deterministic ones.
bool config_allowed(const Library& lib, const char* op, const Backend& config, const ConvolutionDescription& c,
                    const CudnnSettings& settings) {
  Backend engine(lib, CUDNN_BACKEND_ENGINE_DESCRIPTOR, op);
  int64_t count = 0;
  if (lib.backend_get(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count,
                      engine.address()) != CUDNN_STATUS_SUCCESS) {
    return false;
  }
  int notes[32] = {};
  if (lib.backend_get(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 32, &count,
                      notes) != CUDNN_STATUS_SUCCESS) {
    return false;
  }
  for (int64_t i = 0; i < count && i < 32; ++i) {
    if (notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return false;
    if (notes[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC && settings.deterministic) return false;
    if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE && c.dtype == ScalarType::Float && !settings.allow_tf32) {
      return false;
    }
  }
  return true;
}

// The plan for one convolution: its operation graph, cuDNN's ranked engine configurations (the instant heuristic's,
// then the fallback list's), and the first that is allowed and finalizes. Nothing when none does.
std::optional<ExecutionPlan> make_plan(const Library& lib, cudnnHandle_t handle, const char* op,
                                       ConvolutionPass pass, const ConvolutionDescription& c,
                                       const CudnnSettings& settings, const int64_t alignments[3]) {
  const std::unique_ptr<Backend> x = tensor_descriptor(lib, op, c, c.input, 1, alignments[0]);
  const std::unique_ptr<Backend> w = tensor_descriptor(lib, op, c, c.weight, 2, alignments[1]);
  const std::unique_ptr<Backend> y = tensor_descriptor(lib, op, c, c.output, 3, alignments[2]);
  Backend conv(lib, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, op);
  const int compute = c.dtype == ScalarType::Double ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const int mode = CUDNN_CROSS_CORRELATION;
  const Geometry<int64_t> g(c);
  const int64_t spatial = int64_t(g.pad.size());
  conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute, op);
  conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, op);
  conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial, op);
  conv.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, spatial, g.dilation.data(), op);
  conv.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, spatial, g.stride.data(), op);
  conv.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, spatial, g.pad.data(), op);
  conv.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, spatial, g.pad.data(), op);
  check_status(lib, conv.finalize(), op, "cudnnBackendFinalize(convolution)");

  const int p = int(pass);
  Backend operation(lib, kOperationTypes[p], op);
  const int scalar_type = c.dtype == ScalarType::Double ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT;
  operation.set(kOperationAttributes[p][0], scalar_type, 1, alpha_of(c.dtype), op);
  operation.set(kOperationAttributes[p][1], scalar_type, 1, beta_of(c.dtype), op);
  operation.set_descriptor(kOperationAttributes[p][2], conv, op);
  operation.set_descriptor(kOperationAttributes[p][3], *x, op);
  operation.set_descriptor(kOperationAttributes[p][4], *w, op);
  operation.set_descriptor(kOperationAttributes[p][5], *y, op);
  check_status(lib, operation.finalize(), op, "cudnnBackendFinalize(convolution operation)");

  Backend graph(lib, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, op);
  graph.set_descriptor(CUDNN_ATTR_OPERATIONGRAPH_OPS, operation, op);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, op);
  check_status(lib, graph.finalize(), op, "cudnnBackendFinalize(operation graph)");

  for (const int heuristic_mode : {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK}) {
    Backend heuristic(lib, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, op);
    heuristic.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph, op);
    heuristic.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heuristic_mode, op);
    if (heuristic.finalize() != CUDNN_STATUS_SUCCESS) continue;
    int64_t count = 0;
    if (lib.backend_get(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                        nullptr) != CUDNN_STATUS_SUCCESS || count <= 0) {
      continue;
    }
    std::vector<std::unique_ptr<Backend>> configs;
    std::vector<BackendDescriptor> raw;
    for (int64_t i = 0; i < count; ++i) {
      configs.push_back(std::make_unique<Backend>(lib, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, op));
      raw.push_back(configs.back()->get());
    }
    int64_t returned = 0;
    if (lib.backend_get(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                        &returned, raw.data()) != CUDNN_STATUS_SUCCESS) {
      continue;
    }
    for (int64_t i = 0; i < returned && i < count; ++i) {
      if (!config_allowed(lib, op, *configs[size_t(i)], c, settings)) continue;
      auto plan = std::make_shared<Backend>(lib, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, op);
      plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, op);
      plan->set_descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *configs[size_t(i)], op);
      if (plan->finalize() != CUDNN_STATUS_SUCCESS) continue;
      int64_t workspace = 0, got = 0;
      if (lib.backend_get(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                          &workspace) != CUDNN_STATUS_SUCCESS || workspace < 0) {
        continue;
      }
      return ExecutionPlan{plan, workspace};
    }
  }
  return std::nullopt;
}

// Runs a plan on x, w, y with a workspace from the caching allocator.
void run_plan(const Library& lib, cudnnHandle_t handle, const char* op, const ExecutionPlan& plan,
              const ConvolutionDescription& c, void* x, void* w, void* y) {
  const std::unique_ptr<StorageImpl> workspace = workspace_for(op, c, size_t(plan.workspace));
  void* workspace_data = workspace ? workspace->data() : nullptr;
  Backend pack(lib, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, op);
  const int64_t uids[3] = {1, 2, 3};
  void* const data[3] = {x, w, y};
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids, op);
  pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, data, op);
  pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace_data, op);
  check_status(lib, pack.finalize(), op, "cudnnBackendFinalize(variant pack)");
  check_status(lib, lib.backend_execute(handle, plan.plan->get(), pack.get()), op, "cudnnBackendExecute");
}

// Whether convolutions use execution plans: YATEN_CUDNN_GRAPH=0 sends them to the _v7 calls instead (to compare).
bool graph_api_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("YATEN_CUDNN_GRAPH");
    return v == nullptr || std::string(v) != "0";
  }();
  return enabled;
}

std::atomic<int64_t> g_plan_runs{0}, g_v7_runs{0};

}  // namespace

void set_cudnn_candidates(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_candidates = paths;
  if (g_library == nullptr) g_failure.clear();  // try again with these
}

bool cudnn_available() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return open_library() != nullptr;
}

std::string cudnn_path() { return library("cuDNN").path; }
std::pair<int64_t, int64_t> cudnn_call_counts() { return {g_plan_runs.load(), g_v7_runs.load()}; }
int64_t cudnn_version() { return library("cuDNN").version; }

std::vector<int64_t> cudnn_output_size(const ConvolutionDescription& c) {
  const Library& lib = library("cuDNN");
  Descriptors d(lib);
  describe(d, "cuDNN", c, allowed_math(c.dtype, false));
  return described_output(d, "cuDNN", c);
}

bool cudnn_takes(const ConvolutionDescription& c) {
  if (!cudnn_settings().enabled || data_type(c.dtype) < 0 || c.dims < 1 || c.dims > 3 || c.groups < 1 ||
      c.groups > INT_MAX) {
    return false;
  }
  for (const auto* sizes : {&c.input, &c.weight, &c.output}) {
    if (int64_t(sizes->size()) != c.dims + 2) return false;
    int64_t numel = 1;
    for (int64_t s : *sizes) {
      if (s <= 0 || s > INT_MAX) return false;  // empty tensors take yaten's own path, which returns early
      numel *= s;
      if (numel > INT_MAX) return false;
    }
  }
  for (const auto* v : {&c.padding, &c.stride, &c.dilation}) {
    if (int64_t(v->size()) != c.dims) return false;
    for (int64_t s : *v) {
      if (s < 0 || s > INT_MAX) return false;
    }
  }
  return cudnn_available();
}

void cudnn_convolution(const char* op, ConvolutionPass pass, const ConvolutionDescription& c, void* x, void* w,
                       void* y) {
  const Library& lib = library(op);
  DeviceGuard guard(c.device);
  cudnnHandle_t handle = handle_for(lib, op, c.device);
  CudnnSettings settings = cudnn_settings();
  // use_deterministic_algorithms(True) restricts cuDNN to its deterministic algorithms, as in torch
  if (deterministic_algorithms_mode() != 0) settings.deterministic = true;
  const int math = allowed_math(c.dtype, settings.allow_tf32);
  if (!settings.benchmark && graph_api_enabled()) {
    // Note [cuDNN execution plans]: one plan per (thread, pass, dtype, device, settings, sizes, geometry,
    // alignments), made on first use; a call after that is a lookup, a variant pack and cudnnBackendExecute.
    // Leaked on purpose, as the handles are.
    thread_local auto* plans = new std::map<std::vector<int64_t>, std::optional<ExecutionPlan>>();
    const int64_t alignments[3] = {alignment_of(x), alignment_of(w), alignment_of(y)};
    std::vector<int64_t> key = choice_key(pass, c, math, settings);
    key.insert(key.end(), alignments, alignments + 3);
    auto it = plans->find(key);
    if (it == plans->end()) {
      std::optional<ExecutionPlan> plan;
      try {
        plan = make_plan(lib, handle, op, pass, c, settings, alignments);
      } catch (const Error&) {  // a descriptor this cuDNN refuses: the shape takes the _v7 calls (counted below)
        cudaGetLastError();
      }
      it = plans->emplace(key, std::move(plan)).first;
    }
    if (it->second) {
      run_plan(lib, handle, op, *it->second, c, x, w, y);
      g_plan_runs.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    // no engine configuration finalized for it: the _v7 calls below, which cuDNN ranks by their own heuristic
  }
  g_v7_runs.fetch_add(1, std::memory_order_relaxed);
  Descriptors d(lib);
  describe(d, op, c, math);
  const Operands o = operands(pass, d, x, w, y);
  const std::vector<int64_t> key = choice_key(pass, c, math, settings);
  std::optional<Choice> known;
  {
    std::lock_guard<std::mutex> lock(g_choice_mutex);
    auto it = g_choices.find(key);
    if (it != g_choices.end()) known = it->second;
  }
  if (known) {
    try {
      run_algorithm(lib, handle, d, op, pass, c, *known, o);
      return;
    } catch (const Error& e) {  // its workspace cannot be had now: ask again, as torch does
      if (e.type() != ErrorType::OutOfMemoryError) throw;
      cudaGetLastError();
    }
  }
  // First use of this shape: the descriptors must describe yaten's convolution (its output size is the check).
  const std::vector<int64_t> described = described_output(d, op, c);
  YATEN_CHECK(described == c.output, RuntimeError, op, ": cuDNN's descriptors give an output of size ",
              native::sizes_text(described), " where the convolution's is ", native::sizes_text(c.output),
              " (a bug in yaten: please report it)");
  AlgorithmPerf perf[kMaxAlgorithms] = {};
  int count = 0;
  check_status(lib, lib.get_algorithms[int(pass)](handle, o.desc[0], o.desc[1], d.conv, o.desc[2],
                                                  kAlgorithmCounts[int(pass)], &count, perf),
               op, kHeuristicNames[int(pass)]);
  if (settings.benchmark) {  // time them all on these tensors (which the runs overwrite), fastest first
    size_t most = 0;
    for (int i = 0; i < count && i < kMaxAlgorithms; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS) most = std::max(most, perf[i].memory);
    }
    most = std::min(most, kMaxBenchmarkWorkspace);
    std::unique_ptr<StorageImpl> workspace;
    try {
      workspace = workspace_for(op, c, most);
    } catch (const Error& e) {  // then only the algorithms that need no workspace are timed
      if (e.type() != ErrorType::OutOfMemoryError) throw;
      cudaGetLastError();
      most = 0;
    }
    check_status(lib, lib.find[int(pass)](handle, o.desc[0], o.in[0], o.desc[1], o.in[1], d.conv, o.desc[2], o.out,
                                          kAlgorithmCounts[int(pass)], &count, perf,
                                          workspace ? workspace->data() : nullptr, most),
                 op, kFindNames[int(pass)]);
  }
  std::string why = "cuDNN offered no algorithm";
  for (int i = 0; i < count && i < kMaxAlgorithms; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (settings.deterministic && perf[i].determinism != CUDNN_DETERMINISTIC) continue;
    // TF32 off: keep to FMA kernels even where the heuristic names another math type (torch asserts the same).
    const int math_type = math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : perf[i].math_type;
    const Choice choice{perf[i].algo, math_type, perf[i].memory};
    try {
      run_algorithm(lib, handle, d, op, pass, c, choice, o);
    } catch (const Error& e) {  // a workspace too large, or an algorithm that refuses: the next one
      why = e.what();
      cudaGetLastError();
      continue;
    }
    std::lock_guard<std::mutex> lock(g_choice_mutex);
    g_choices[key] = choice;
    return;
  }
  YATEN_FAIL(RuntimeError, op, ": no cuDNN convolution algorithm ran (", why, ")");
}

}  // namespace yaten::cuda
