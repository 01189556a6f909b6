// Batch normalization on CUDA: native_batch_norm and _batch_norm_backward_fused run the device-generic passes of
// kernels/composite/norm.h (Note [Batch norm in a few passes]), whose passes over the input are CUDA ops, with the
// per-channel math of kernels/norm_math.h, the CPU's, in a thread per channel: one launch where the composite
// launched a dozen.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <tuple>

#include "cuda/cuda_runtime.h"
#include "kernels/composite/norm.h"
#include "kernels/norm_math.h"

namespace yaten::native::cuda {

namespace norm_detail {
template <typename Step>
__global__ void per_channel(Step step, int64_t channels) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c < channels) step(c);
}

struct Channels {
  template <typename Step>
  static void run(const Step& step, int64_t channels, Device device) {
    if (channels == 0) return;
    yaten::cuda::DeviceGuard guard(device.index);
    const unsigned blocks = static_cast<unsigned>((channels + 127) / 128);
    per_channel<<<blocks, 128, 0, static_cast<cudaStream_t>(yaten::cuda::current_stream(device.index))>>>(step,
                                                                                                       channels);
    yaten::cuda::check_launch("batch_norm");
  }
};
}  // namespace norm_detail

#include "kernels/norm_kernels.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cuda
