// CUDA im2col and col2im (F.unfold, F.fold), locating each value with the CPU's element math (kernels/conv_math.h,
// Note [The column matrix]): im2col a block per column row, col2im a thread per image element, gathering (no
// atomics) in the CPU's order.
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
// A block per column row (one image's row: a channel and kernel offset): one thread works out the row's plan
// (kernels/conv_math.h; its 64-bit divisions cost more than the row's copy), the block's threads.y walk the row's
// output lines and threads.x the entries along each line, so that no element divides, and a warp reads and writes
// consecutive entries.
template <typename scalar_t>
__global__ void im2col_rows(const scalar_t* __restrict__ x, scalar_t* __restrict__ out, conv::Geometry g,
                            int64_t lines) {
  const int64_t rows = g.rows();
  const int last = g.dims - 1;
  const int64_t width = conv::dim_at(g.out, last), out_lines = g.cols / width, stride = conv::dim_at(g.stride, last);
  __shared__ conv::RowPlan plan;
  __shared__ int64_t image_offset;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    __syncthreads();  // the last row's readers are done with them
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      plan = conv::im2col_row(g, line % rows);
      image_offset = (line / rows) * g.image_numel();
    }
    __syncthreads();
    const conv::RowPlan r = plan;
    const scalar_t* image = x + image_offset;
    for (int64_t ol = threadIdx.y; ol < out_lines; ol += blockDim.y) {
      int64_t oc[conv::kMaxSpatialDims] = {0, 0, 0};  // the output coordinates of the dims before the last
      int64_t rest = ol;
      YATEN_UNROLL  // dims last - 1 to 1, by constant indices (Note [No runtime index into a Geometry])
      for (int d = conv::kMaxSpatialDims - 2; d > 0; --d) {
        if (d >= last) continue;
        oc[d] = rest % g.out[d];
        rest /= g.out[d];
      }
      oc[0] = rest;
      const int64_t base = conv::im2col_line_base(g, r, oc);
      scalar_t* dst = out + line * g.cols + ol * width;
      for (int64_t j = threadIdx.x; j < width; j += blockDim.x) {
        dst[j] = base >= 0 && j >= r.lo && j < r.hi ? image[base + j * stride + r.shift] : scalar_t(0);
      }
    }
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
  const int64_t width = conv::dim_at(plan.g.out, plan.g.dims - 1);
  int bx = 1;  // threads along a line: the power of two that covers it, up to 256; the rest of 256 across lines
  while (bx < width && bx < 256) bx *= 2;
  const dim3 block(bx, 256 / bx);
  conv_detail::im2col_rows<scalar_t><<<static_cast<unsigned>(std::min<int64_t>(total / plan.g.cols, 1 << 20)), block,
                                       0, static_cast<cudaStream_t>(yaten::cuda::current_stream(device))>>>(
      x.data<scalar_t>(), out.data<scalar_t>(), plan.g, total / plan.g.cols);
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
