// _adaptive_avg_pool2d and _adaptive_avg_pool3d's CPU kernels: kernels/pool/adaptive_avg_pool.inc's, over
// pool_detail::adaptive_avg_pool here. A header of its own: an edit recompiles its unit alone (Note [A pooling op per
// header], kernels/cpu/pool/common.h).
#pragma once

#include "kernels/cpu/pool/common.h"

namespace yaten::native::cpu {

namespace pool_detail {

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

}  // namespace pool_detail

#include "kernels/pool/adaptive_avg_pool.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
