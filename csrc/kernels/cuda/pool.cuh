// CUDA pooling over 2 or 3 spatial dims: a thread per output element (per input element for the average poolings'
// backwards), each computed by the CPU's element math (kernels/pool_math.h, Note [Pooling windows]), so the values
// and max_pool's indices are the CPU's.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <tuple>

#include "cuda/cuda_runtime.h"
#include "kernels/pool_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace pool_detail {
enum class Kind { Max, Avg, Adaptive, AvgBackward, AdaptiveBackward };

struct Args {
  bool count_include_pad = true;
  int64_t divisor = 0;
};

// out[i] for i < total: an output element (Max, Avg, Adaptive) or an input element (the backwards) of plane
// i / per_plane; src points at the planes read (the input, or the gradient for the backwards).
template <Kind kind, typename scalar_t>
__global__ void pool_elements(const scalar_t* src, scalar_t* out, int64_t* indices, pool::Geometry g, Args args,
                              int64_t total) {
  using acc_t = opmath_t<scalar_t>;
  const bool backward = kind == Kind::AvgBackward || kind == Kind::AdaptiveBackward;
  const int64_t per_plane = backward ? g.in_numel : g.out_numel, src_plane = backward ? g.out_numel : g.in_numel;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(blockDim.x) * gridDim.x) {
    const scalar_t* plane = src + (i / per_plane) * src_plane;
    const int64_t at = i % per_plane;
    if constexpr (kind == Kind::Max) {
      acc_t value;
      pool::max_window<acc_t>(g, plane, at, &value, &indices[i]);
      out[i] = static_cast<scalar_t>(value);
    } else if constexpr (kind == Kind::Avg) {
      out[i] = static_cast<scalar_t>(pool::avg_value<acc_t>(g, plane, at, args.count_include_pad, args.divisor));
    } else if constexpr (kind == Kind::Adaptive) {
      out[i] = static_cast<scalar_t>(pool::adaptive_avg_value<acc_t>(g, plane, at));
    } else if constexpr (kind == Kind::AvgBackward) {
      out[i] = static_cast<scalar_t>(
          pool::avg_backward_value<acc_t>(g, plane, at, args.count_include_pad, args.divisor));
    } else {
      out[i] = static_cast<scalar_t>(pool::adaptive_avg_backward_value<acc_t>(g, plane, at));
    }
  }
}

template <Kind kind, typename scalar_t>
void launch(const char* op, const Tensor& src, Tensor& out, int64_t* indices, const pool::Geometry& g, Args args) {
  const int64_t total = out.numel();
  if (total == 0) return;
  const int device = out.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 65536));
  pool_elements<kind, scalar_t><<<blocks, 256, 0, static_cast<cudaStream_t>(yaten::cuda::current_stream(device))>>>(
      src.data<scalar_t>(), out.data<scalar_t>(), indices, g, args, total);
  yaten::cuda::check_launch(op);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& k,
                                    const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                                    const std::vector<int64_t>& d, bool ceil_mode) {
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, d, ceil_mode);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(plan.out_shape, ScalarType::Long, self.device());
  launch<Kind::Max, scalar_t>(op, yaten::contiguous(self), out, indices.data<int64_t>(), plan.g, Args{});
  return {out, indices};
}

template <typename scalar_t>
Tensor avg_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& k,
                const std::vector<int64_t>& s, const std::vector<int64_t>& p, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  const Args args{count_include_pad, pool::divisor_of(op, divisor_override)};
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  launch<Kind::Avg, scalar_t>(op, yaten::contiguous(self), out, nullptr, plan.g, args);
  return out;
}

template <typename scalar_t>
Tensor avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self,
                         const std::vector<int64_t>& k, const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const Args args{count_include_pad, pool::divisor_of(op, divisor_override)};
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  pool::check_grad_shape(op, grad_output, plan, self);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  launch<Kind::AvgBackward, scalar_t>(op, yaten::contiguous(grad_output), out, nullptr, plan.g, args);
  return out;
}

template <typename scalar_t>
Tensor adaptive_avg_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& output_size) {
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, output_size);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  launch<Kind::Adaptive, scalar_t>(op, yaten::contiguous(self), out, nullptr, plan.g, Args{});
  return out;
}

template <typename scalar_t>
Tensor adaptive_avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self) {
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, trailing_sizes(grad_output.sizes(), dims));
  pool::check_grad_shape(op, grad_output, plan, self);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  launch<Kind::AdaptiveBackward, scalar_t>(op, yaten::contiguous(grad_output), out, nullptr, plan.g, Args{});
  return out;
}
}  // namespace pool_detail

// the kernels, the same text on both backends (Note [A pooling op per header], kernels/cpu/pool/common.h)
#include "kernels/pool/adaptive_avg_pool.inc"
#include "kernels/pool/adaptive_avg_pool_backward.inc"
#include "kernels/pool/avg_pool.inc"
#include "kernels/pool/avg_pool_backward.inc"
#include "kernels/pool/max_pool.inc"

}  // namespace yaten::native::cuda
