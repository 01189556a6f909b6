// CUDA im2col and col2im (F.unfold, F.fold), locating each value with the CPU's element math (kernels/conv_math.h,
// Note [The column matrix]): im2col a block per column row, col2im a thread per image element, gathering (no
// atomics) in the CPU's order. Convolution's three passes go to cuDNN where it takes them (Note [cuDNN
// convolutions], cuda/cudnn.cpp), otherwise to these kernels and cuBLAS.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "cuda/cudnn.h"
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

namespace conv_detail {
// The forward convolution x * w -> y that cuDNN is to compute (Note [cuDNN convolutions]), or nothing where cuDNN
// does not take it (switched off, not installed, sizes past its 32-bit ints): then yaten's own kernels compute it.
inline std::optional<yaten::cuda::ConvolutionDescription> cudnn_description(const Tensor& like,
                                                                            const std::vector<int64_t>& x,
                                                                            const std::vector<int64_t>& w,
                                                                            const std::vector<int64_t>& y,
                                                                            const native::conv_detail::ConvParams& p) {
  yaten::cuda::ConvolutionDescription c{like.dtype(), like.device().index, p.dims, x, w, y, p.padding, p.stride,
                                        p.dilation, p.groups};
  if (!yaten::cuda::cudnn_takes(c)) return std::nullopt;
  return c;
}

inline std::vector<int64_t> with_spatial(std::vector<int64_t> leading, const int64_t* spatial, int dims) {
  leading.insert(leading.end(), spatial, spatial + dims);
  return leading;
}

// Whether a transposed convolution's input is its column grid (output_padding below the stride): cuDNN's
// convolution from the output back to the input then has the input's size.
inline bool grid_is_input(const conv::Geometry& g, const std::vector<int64_t>& input_sizes) {
  for (int i = 0; i < g.dims; ++i) {
    if (g.out[i] != input_sizes[2 + i]) return false;
  }
  return true;
}
}  // namespace conv_detail

// convolution's forward on CUDA: cuDNN's forward pass, or one cuBLAS product of im2col's columns per chunk of images
// through ops (kernels/composite/conv.h); the CPU multiplies tiles of columns instead (Note [Convolution in tiles]).
template <typename scalar_t>
Tensor _convolution_forward_kernel(const Tensor& self, const Tensor& weight, const std::vector<int64_t>& stride,
                                   const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                   int64_t groups) {
  const auto p = native::conv_detail::check_forward(self, weight, stride, padding, dilation, groups);
  const conv::Geometry g = conv::sliding_geometry("convolution", self.sizes()[1], native::conv_detail::spatial(
                                                      self.sizes()), p.kernel, p.dilation, p.padding, p.stride);
  const auto shape = conv_detail::with_spatial({self.sizes()[0], weight.sizes()[0]}, g.out, g.dims);
  if (const auto c = conv_detail::cudnn_description(self, self.sizes(), weight.sizes(), shape, p)) {
    const Tensor x = yaten::contiguous(self), w = yaten::contiguous(weight);
    Tensor out = yaten::empty(shape, self.dtype(), self.device());
    yaten::cuda::cudnn_convolution("_convolution_forward", yaten::cuda::ConvolutionPass::Forward, *c,
                                   x.data<scalar_t>(), w.data<scalar_t>(), out.data<scalar_t>());
    return out;
  }
  return native::conv_detail::forward(self, weight, p);
}

// A transposed convolution on CUDA: cuDNN's backward-data pass of the convolution from its output to its input, or
// col2im of cuBLAS products (kernels/composite/conv.h).
template <typename scalar_t>
Tensor _convolution_transpose_forward_kernel(const Tensor& self, const Tensor& weight,
                                             const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                             const std::vector<int64_t>& dilation,
                                             const std::vector<int64_t>& output_padding, int64_t groups) {
  const auto p = native::conv_detail::check_transpose_forward(self, weight, stride, padding, dilation, output_padding,
                                                              groups);
  const int64_t cout = weight.sizes()[1] * p.groups;
  const conv::Geometry g = native::conv_detail::transposed_geometry("conv_transpose", self.sizes(), cout, p);
  const auto shape = conv_detail::with_spatial({self.sizes()[0], cout}, g.in, g.dims);
  if (conv_detail::grid_is_input(g, self.sizes())) {
    if (const auto c = conv_detail::cudnn_description(self, shape, weight.sizes(), self.sizes(), p)) {
      const Tensor y = yaten::contiguous(self), w = yaten::contiguous(weight);
      Tensor out = yaten::empty(shape, self.dtype(), self.device());
      yaten::cuda::cudnn_convolution("_convolution_transpose_forward", yaten::cuda::ConvolutionPass::BackwardData,
                                     *c, out.data<scalar_t>(), w.data<scalar_t>(), y.data<scalar_t>());
      return out;
    }
  }
  return native::conv_detail::transposed_forward(self, weight, p);
}

// The gradient of a convolution's weight on CUDA: cuDNN's backward-filter pass (for a transposed convolution, of
// the convolution from its output to its input), or sums of cuBLAS products with im2col's columns.
template <typename scalar_t>
Tensor _convolution_weight_backward_kernel(const Tensor& grad_output, const Tensor& input,
                                           const std::vector<int64_t>& weight_size, const std::vector<int64_t>& stride,
                                           const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                           bool transposed, const std::vector<int64_t>& output_padding,
                                           int64_t groups) {
  const auto plan = native::conv_detail::check_weight_backward(grad_output, input, weight_size, stride, padding,
                                                               dilation, transposed, output_padding, groups);
  const Tensor& x = transposed ? grad_output : input;  // the forward convolution's input and output
  const Tensor& y = transposed ? input : grad_output;
  if (!transposed || conv_detail::grid_is_input(plan.g, input.sizes())) {
    if (const auto c = conv_detail::cudnn_description(input, x.sizes(), weight_size, y.sizes(), plan.p)) {
      const Tensor xc = yaten::contiguous(x), yc = yaten::contiguous(y);
      Tensor out = yaten::empty(weight_size, input.dtype(), input.device());
      yaten::cuda::cudnn_convolution("convolution_backward", yaten::cuda::ConvolutionPass::BackwardFilter, *c,
                                     xc.data<scalar_t>(), out.data<scalar_t>(), yc.data<scalar_t>());
      return out;
    }
  }
  return native::conv_detail::weight_backward(grad_output, input, weight_size, plan);
}

}  // namespace yaten::native::cuda
