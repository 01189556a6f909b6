// CPU pooling over 2 or 3 spatial dims: max with indices, average and adaptive average, and the average poolings'
// backwards. Each output element comes from kernels/pool_math.h (Note [Pooling windows]), which CUDA shares; the CPU
// walks the output coordinates of a plane in order instead of dividing a flat index.
#pragma once

#include <algorithm>
#include <optional>
#include <tuple>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/pool_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace pool_detail {
// Calls fn(plane, flat index of the row's first output, the row's coordinates of dims 0 and 1) for every row of
// outputs (all of a plane's outputs along the last dim), in parallel over rows.
template <typename Fn>
void for_each_row(const pool::Geometry& g, int64_t planes, int64_t work_per_output, Fn&& fn) {
  const int64_t rows = planes * g.out[0] * g.out[1];
  if (rows == 0 || g.out[2] == 0) return;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.out[2] * work_per_output));
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) fn(r / (g.out[0] * g.out[1]), r * g.out[2], (r / g.out[1]) % g.out[0],
                                              r % g.out[1]);
  });
}

// Calls fn(plane, flat output index, output coordinates) for every output element, a plane's rows at a time.
template <typename Fn>
void for_each_output(const pool::Geometry& g, int64_t planes, int64_t work_per_output, Fn&& fn) {
  for_each_row(g, planes, work_per_output, [&](int64_t plane, int64_t o, int64_t oc0, int64_t oc1) {
    int64_t oc[3] = {oc0, oc1, 0};
    for (; oc[2] < g.out[2]; ++oc[2], ++o) fn(plane, o, oc);
  });
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& k,
                                    const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                                    const std::vector<int64_t>& d, bool ceil_mode) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, d, ceil_mode);
  const pool::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(plan.out_shape, ScalarType::Long, self.device());
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  int64_t* idx = indices.data<int64_t>();
  for_each_row(g, plan.planes, g.kernel[0] * g.kernel[1] * g.kernel[2], [&](int64_t plane, int64_t o, int64_t oc0,
                                                                             int64_t oc1) {
    pool::MaxDim w[3] = {pool::max_dim(g, 0, oc0), pool::max_dim(g, 1, oc1), {}};  // dims 0 and 1: once per row
    for (int64_t oc2 = 0; oc2 < g.out[2]; ++oc2, ++o) {
      w[2] = pool::max_dim(g, 2, oc2);
      acc_t value;
      pool::max_over<acc_t>(g, src + plane * g.in_numel, w, &value, &idx[o]);
      dst[o] = static_cast<scalar_t>(value);
    }
  });
  return {out, indices};
}

template <typename scalar_t>
Tensor avg_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& k,
                const std::vector<int64_t>& s, const std::vector<int64_t>& p, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  using acc_t = opmath_t<scalar_t>;
  const int64_t divisor = pool::divisor_of(op, divisor_override);
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  const pool::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  for_each_row(g, plan.planes, g.kernel[0] * g.kernel[1] * g.kernel[2], [&](int64_t plane, int64_t o, int64_t oc0,
                                                                             int64_t oc1) {
    pool::AvgDim w[3] = {pool::avg_dim(g, 0, oc0), pool::avg_dim(g, 1, oc1), {}};  // dims 0 and 1: once per row
    for (int64_t oc2 = 0; oc2 < g.out[2]; ++oc2, ++o) {
      w[2] = pool::avg_dim(g, 2, oc2);
      dst[o] = static_cast<scalar_t>(
          pool::avg_over<acc_t>(g, src + plane * g.in_numel, w, count_include_pad, divisor));
    }
  });
  return out;
}

// Calls fn(flat input index, plane, index within the plane) for every input element.
template <typename Fn>
void for_each_input(int64_t planes, int64_t in_numel, int64_t work, Fn&& fn) {
  const int64_t total = planes * in_numel;
  if (total == 0) return;
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(total, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i, i / in_numel, i % in_numel);
  });
}

template <typename scalar_t>
Tensor avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self,
                         const std::vector<int64_t>& k, const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  using acc_t = opmath_t<scalar_t>;
  const int64_t divisor = pool::divisor_of(op, divisor_override);
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  pool::check_grad_shape(op, grad_output, plan);
  const pool::Geometry& g = plan.g;
  const Tensor grad = yaten::contiguous(grad_output);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  const scalar_t* src = grad.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  for_each_input(plan.planes, g.in_numel, 4, [&](int64_t i, int64_t plane, int64_t at) {
    dst[i] = static_cast<scalar_t>(
        pool::avg_backward_value<acc_t>(g, src + plane * g.out_numel, at, count_include_pad, divisor));
  });
  return out;
}

template <typename scalar_t>
Tensor adaptive_avg_pool(const char* op, int dims, const Tensor& self, const std::vector<int64_t>& output_size) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, output_size);
  const pool::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.out_shape, self.dtype(), self.device());
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const int64_t work = g.out_numel ? std::max<int64_t>(1, g.in_numel / g.out_numel) : 1;
  for_each_output(g, plan.planes, work, [&](int64_t plane, int64_t o, const int64_t* oc) {
    dst[o] = static_cast<scalar_t>(pool::adaptive_avg_value_at<acc_t>(g, src + plane * g.in_numel, oc));
  });
  return out;
}

template <typename scalar_t>
Tensor adaptive_avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, trailing_sizes(grad_output.sizes(), dims));
  pool::check_grad_shape(op, grad_output, plan);
  const pool::Geometry& g = plan.g;
  const Tensor grad = yaten::contiguous(grad_output);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  const scalar_t* src = grad.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  for_each_input(plan.planes, g.in_numel, 4, [&](int64_t i, int64_t plane, int64_t at) {
    dst[i] = static_cast<scalar_t>(pool::adaptive_avg_backward_value<acc_t>(g, src + plane * g.out_numel, at));
  });
  return out;
}
}  // namespace pool_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_pool2d_with_indices_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                                          const std::vector<int64_t>& stride,
                                                          const std::vector<int64_t>& padding,
                                                          const std::vector<int64_t>& dilation, bool ceil_mode) {
  return pool_detail::max_pool<scalar_t>("max_pool2d", 2, self, kernel_size, stride, padding, dilation, ceil_mode);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_pool3d_with_indices_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                                          const std::vector<int64_t>& stride,
                                                          const std::vector<int64_t>& padding,
                                                          const std::vector<int64_t>& dilation, bool ceil_mode) {
  return pool_detail::max_pool<scalar_t>("max_pool3d", 3, self, kernel_size, stride, padding, dilation, ceil_mode);
}

template <typename scalar_t>
Tensor avg_pool2d_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  return pool_detail::avg_pool<scalar_t>("avg_pool2d", 2, self, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override);
}

template <typename scalar_t>
Tensor avg_pool3d_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  return pool_detail::avg_pool<scalar_t>("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override);
}

template <typename scalar_t>
Tensor avg_pool2d_backward_kernel(const Tensor& grad_output, const Tensor& self, const std::vector<int64_t>& kernel_size,
                                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return pool_detail::avg_pool_backward<scalar_t>("avg_pool2d_backward", 2, grad_output, self, kernel_size, stride,
                                                  padding, ceil_mode, count_include_pad, divisor_override);
}

template <typename scalar_t>
Tensor avg_pool3d_backward_kernel(const Tensor& grad_output, const Tensor& self, const std::vector<int64_t>& kernel_size,
                                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return pool_detail::avg_pool_backward<scalar_t>("avg_pool3d_backward", 3, grad_output, self, kernel_size, stride,
                                                  padding, ceil_mode, count_include_pad, divisor_override);
}

template <typename scalar_t>
Tensor _adaptive_avg_pool2d_kernel(const Tensor& self, const std::vector<int64_t>& output_size) {
  return pool_detail::adaptive_avg_pool<scalar_t>("adaptive_avg_pool2d", 2, self, output_size);
}

template <typename scalar_t>
Tensor _adaptive_avg_pool3d_kernel(const Tensor& self, const std::vector<int64_t>& output_size) {
  return pool_detail::adaptive_avg_pool<scalar_t>("adaptive_avg_pool3d", 3, self, output_size);
}

template <typename scalar_t>
Tensor _adaptive_avg_pool2d_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return pool_detail::adaptive_avg_pool_backward<scalar_t>("adaptive_avg_pool2d_backward", 2, grad_output, self);
}

template <typename scalar_t>
Tensor _adaptive_avg_pool3d_backward_kernel(const Tensor& grad_output, const Tensor& self) {
  return pool_detail::adaptive_avg_pool_backward<scalar_t>("adaptive_avg_pool3d_backward", 3, grad_output, self);
}

}  // namespace yaten::native::cpu
