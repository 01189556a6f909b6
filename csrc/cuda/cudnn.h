// cuDNN (cudnn.cpp), opened with dlopen the first time a convolution on CUDA asks for it, as cuBLAS is
// (Note [cuDNN convolutions]). Apart from cuda_runtime.h, which every CUDA unit includes, so that a change here
// recompiles only the convolution kernels and the Python binding of yaten.backends.cudnn.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/scalar_type.h"

namespace yaten::cuda {

void set_cudnn_candidates(const std::vector<std::string>& paths);
// Whether a libcudnn (9 or later) opens; never raises.
bool cudnn_available();
// The path and version (cudnnGetVersion, e.g. 92801) of the loaded libcudnn; RuntimeError saying what to install
// when none opens.
std::string cudnn_path();
int64_t cudnn_version();
// How many convolutions ran through an execution plan (the graph API) and through the _v7 calls, in this process
// (Note [cuDNN execution plans]); for tests and the benchmarks.
std::pair<int64_t, int64_t> cudnn_call_counts();
// yaten.backends.cudnn's switches, with torch's defaults (held in cudnn_settings.cpp, in builds with and without CUDA).
struct CudnnSettings {
  bool enabled = true;        // convolutions on CUDA go to cuDNN where it takes them
  bool allow_tf32 = true;     // float32 convolutions may use TF32 tensor cores
  bool deterministic = false; // only algorithms that give the same bits every run
  bool benchmark = false;     // time every algorithm on a shape's first call and keep the fastest
};
CudnnSettings cudnn_settings();
void set_cudnn_settings(const CudnnSettings& settings);

// A forward convolution x (N, C, *in) * w (K, C / groups, *kernel) -> y (N, K, *out) of contiguous tensors, 1 to 3
// spatial dims, as cuDNN computes it (cross-correlation).
struct ConvolutionDescription {
  ScalarType dtype;
  int device;
  int dims;  // spatial
  std::vector<int64_t> input, weight, output;  // whole sizes: x, w, y
  std::vector<int64_t> padding, stride, dilation;
  int64_t groups;
};
enum class ConvolutionPass { Forward, BackwardData, BackwardFilter };
// Whether cuDNN takes `c`: enabled, a libcudnn opened, a floating dtype, no empty tensor, sizes within int32.
bool cudnn_takes(const ConvolutionDescription& c);
// The output size cuDNN works out for `c`'s input, weight and geometry (c.output is not read): the check, made on a
// shape's first convolution, that the descriptors say what yaten means; for tests, it needs no GPU.
std::vector<int64_t> cudnn_output_size(const ConvolutionDescription& c);
// On `c.device`'s current stream, by the pass: Forward writes y from x and w; BackwardData writes x (the gradient of
// the input, or a transposed convolution's output) from w and y; BackwardFilter writes w from x and y. RuntimeError
// naming `op` when cuDNN fails.
void cudnn_convolution(const char* op, ConvolutionPass pass, const ConvolutionDescription& c, void* x, void* w,
                       void* y);

}  // namespace yaten::cuda
