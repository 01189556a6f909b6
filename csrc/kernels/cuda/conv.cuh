// CUDA im2col and col2im (F.unfold, F.fold): a thread per output element, each locating its value with the CPU's
// element math (kernels/conv_math.h, Note [The column matrix]). col2im gathers (no atomics), in the CPU's order.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/cuda_runtime.h"
#include "kernels/composite/conv.h"
#include "kernels/conv_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace conv_detail {
template <typename scalar_t>
__global__ void im2col_elements(const scalar_t* x, scalar_t* out, conv::Geometry g, int64_t total) {
  const int64_t per_image = g.rows() * g.cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t n = i / per_image, rest = i % per_image;
    const int64_t src = conv::im2col_source(g, rest / g.cols, rest % g.cols);
    out[i] = src >= 0 ? x[n * g.image_numel() + src] : scalar_t(0);
  }
}

template <typename scalar_t>
__global__ void col2im_elements(const scalar_t* cols, scalar_t* out, conv::Geometry g, int64_t total) {
  const int64_t per_image = g.image_numel();
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(blockDim.x) * gridDim.x) {
    const scalar_t* image_cols = cols + (i / per_image) * g.rows() * g.cols;
    out[i] = static_cast<scalar_t>(conv::col2im_value<opmath_t<scalar_t>>(g, image_cols, i % per_image));
  }
}

inline unsigned blocks_for(int64_t total) { return static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 65536)); }
}  // namespace conv_detail

template <typename scalar_t>
Tensor im2col_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  const conv::ColumnsPlan plan = conv::im2col_plan(self, kernel_size, dilation, padding, stride);
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.columns_shape(), self.dtype(), self.device());
  const int64_t total = out.numel();
  if (total == 0) return out;
  const int device = self.device().index;
  yaten::cuda::DeviceGuard guard(device);
  conv_detail::im2col_elements<scalar_t><<<conv_detail::blocks_for(total), 256, 0,
                                           static_cast<cudaStream_t>(yaten::cuda::current_stream(device))>>>(
      x.data<scalar_t>(), out.data<scalar_t>(), plan.g, total);
  yaten::cuda::check_launch("im2col");
  return out;
}

template <typename scalar_t>
Tensor col2im_kernel(const Tensor& self, const std::vector<int64_t>& output_size,
                     const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  const conv::ColumnsPlan plan = conv::col2im_plan(self, output_size, kernel_size, dilation, padding, stride);
  const Tensor cols = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.image_shape(), self.dtype(), self.device());
  const int64_t total = out.numel();
  if (total == 0) return out;
  const int device = self.device().index;
  yaten::cuda::DeviceGuard guard(device);
  conv_detail::col2im_elements<scalar_t><<<conv_detail::blocks_for(total), 256, 0,
                                           static_cast<cudaStream_t>(yaten::cuda::current_stream(device))>>>(
      cols.data<scalar_t>(), out.data<scalar_t>(), plan.g, total);
  yaten::cuda::check_launch("col2im");
  return out;
}

// convolution's forward on CUDA: one cuBLAS product per chunk of images (up to 1 GiB of columns), through ops
// (kernels/composite/conv.h); the CPU multiplies tiles of columns instead (Note [Convolution in tiles]).
template <typename scalar_t>
Tensor _convolution_forward_kernel(const Tensor& self, const Tensor& weight, const std::vector<int64_t>& stride,
                                   const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                   int64_t groups) {
  const auto p = native::conv_detail::check_forward(self, weight, stride, padding, dilation, groups);
  return native::conv_detail::forward(self, weight, p);
}

}  // namespace yaten::native::cuda
