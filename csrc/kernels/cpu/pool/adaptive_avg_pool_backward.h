// _adaptive_avg_pool2d_backward and _adaptive_avg_pool3d_backward's CPU kernels:
// kernels/pool/adaptive_avg_pool_backward.inc's, over pool_detail::adaptive_avg_pool_backward here. A header of its
// own: an edit recompiles its unit alone (Note [A pooling op per header], kernels/cpu/pool/common.h).
#pragma once

#include "kernels/cpu/pool/common.h"

namespace yaten::native::cpu {

namespace pool_detail {

template <typename scalar_t>
Tensor adaptive_avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self) {
  using acc_t = opmath_t<scalar_t>;
  const pool::Plan plan = pool::adaptive_plan(op, self, dims, trailing_sizes(grad_output.sizes(), dims));
  pool::check_grad_shape(op, grad_output, plan, self);
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

#include "kernels/pool/adaptive_avg_pool_backward.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
