// cuDNN, opened at run time as cuBLAS is (cublas.cpp; DESIGN.md section 5a): convolutions on the GPU through cuDNN's
// convolution API (cudnnConvolutionForward / BackwardData / BackwardFilter, the calls of torch's Conv_v7), with no
// link-time dependency, so `import yaten` works where the nvidia-cudnn wheel is not installed. The cuDNN types and
// constants used are declared below with the values of cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h (cuDNN 9).
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
// The algorithm: cuDNN's own ranking (the _v7 heuristics; torch's default, benchmark=False), or with
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
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

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

// Sizes as cuDNN takes them: 1-D convolutions as 2-D ones of height 1.
std::vector<int> dims_of(const std::vector<int64_t>& sizes, bool one_d) {
  std::vector<int> out(sizes.begin(), sizes.end());
  if (one_d) out.insert(out.begin() + 2, 1);
  return out;
}

std::vector<int> contiguous_int_strides(const std::vector<int>& dims) {
  std::vector<int> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

void describe(Descriptors& d, const char* op, const ConvolutionDescription& c, int math_type) {
  const Library& lib = d.lib;
  const bool one_d = c.dims == 1;
  const int type = data_type(c.dtype);
  const std::vector<int> x = dims_of(c.input, one_d), y = dims_of(c.output, one_d), w = dims_of(c.weight, one_d);
  check_status(lib, lib.create_tensor(&d.x), op, "cudnnCreateTensorDescriptor");
  check_status(lib, lib.set_tensor(d.x, type, int(x.size()), x.data(), contiguous_int_strides(x).data()), op,
               "cudnnSetTensorNdDescriptor");
  check_status(lib, lib.create_tensor(&d.y), op, "cudnnCreateTensorDescriptor");
  check_status(lib, lib.set_tensor(d.y, type, int(y.size()), y.data(), contiguous_int_strides(y).data()), op,
               "cudnnSetTensorNdDescriptor");
  check_status(lib, lib.create_filter(&d.w), op, "cudnnCreateFilterDescriptor");
  check_status(lib, lib.set_filter(d.w, type, CUDNN_TENSOR_NCHW, int(w.size()), w.data()), op,
               "cudnnSetFilterNdDescriptor");
  std::vector<int> pad, stride, dilation;
  if (one_d) {
    pad.push_back(0);
    stride.push_back(1);
    dilation.push_back(1);
  }
  for (int i = 0; i < c.dims; ++i) {
    pad.push_back(int(c.padding[i]));
    stride.push_back(int(c.stride[i]));
    dilation.push_back(int(c.dilation[i]));
  }
  const int compute = c.dtype == ScalarType::Double ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  check_status(lib, lib.create_conv(&d.conv), op, "cudnnCreateConvolutionDescriptor");
  check_status(lib, lib.set_conv(d.conv, int(pad.size()), pad.data(), stride.data(), dilation.data(),
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

// A workspace of `bytes` on c's device from the caching allocator, ordered by the current stream (nothing for 0).
std::unique_ptr<StorageImpl> workspace_for(const ConvolutionDescription& c, size_t bytes) {
  if (bytes == 0) return nullptr;
  const Device device(DeviceType::CUDA, c.device);
  return std::make_unique<StorageImpl>(allocator_for(DeviceType::CUDA)->allocate(bytes, device), bytes, device);
}

// With benchmark, the workspace the timing may use: the largest any algorithm asks for, up to this.
constexpr size_t kMaxBenchmarkWorkspace = size_t{1} << 30;

// Runs one algorithm: its math type on the descriptor, a workspace from the caching allocator (OutOfMemoryError
// when it cannot be had), the call. alpha = 1 and beta = 0, in float (double for float64) as cuDNN wants them.
void run_algorithm(const Library& lib, cudnnHandle_t handle, const Descriptors& d, const char* op,
                   ConvolutionPass pass, const ConvolutionDescription& c, const Choice& choice, const Operands& o) {
  check_status(lib, lib.set_math_type(d.conv, choice.math_type), op, "cudnnSetConvolutionMathType");
  YATEN_CHECK(choice.memory < (size_t{1} << 40), OutOfMemoryError, op, ": cuDNN asked for a workspace of ",
              choice.memory, " bytes");
  const std::unique_ptr<StorageImpl> workspace = workspace_for(c, choice.memory);
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const bool is_double = c.dtype == ScalarType::Double;
  const int p = int(pass);
  check_status(lib, lib.run[p](handle, is_double ? static_cast<const void*>(&one_d) : &one_f, o.desc[0], o.in[0],
                               o.desc[1], o.in[1], d.conv, choice.algo, workspace ? workspace->data() : nullptr,
                               choice.memory, is_double ? static_cast<const void*>(&zero_d) : &zero_f, o.desc[2],
                               o.out),
               op, kRunNames[p]);
}

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
  const CudnnSettings settings = cudnn_settings();
  const int math = allowed_math(c.dtype, settings.allow_tf32);
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
      workspace = workspace_for(c, most);
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
