// max_pool's backward, for every device: each output's gradient added at the input position its index names (a
// scatter_add over planes, whose own derivative is a gather, so gradients of gradients follow). The poolings
// themselves are kernels (kernels/cpu/pool/, kernels/cuda/pool.cuh, kernels/pool_math.h).
#pragma once

#include <vector>

#include "kernels/sizes_text.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

namespace pool_detail {
inline Tensor max_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self,
                                const Tensor& indices) {
  YATEN_CHECK(indices.dtype() == ScalarType::Long && indices.sizes() == grad_output.sizes(), RuntimeError, op,
              ": expected int64 indices of grad_output's size ", sizes_text(grad_output.sizes()), ", but got ",
              dtype_name(indices.dtype()), " indices of size ", sizes_text(indices.sizes()));
  YATEN_CHECK(self.dim() == grad_output.dim() && self.dim() > dims, RuntimeError, op, ": expected grad_output of ",
              self.dim(), " dims for an input of size ", sizes_text(self.sizes()));
  int64_t planes = 1, in_numel = 1, out_numel = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    YATEN_CHECK(i >= self.dim() - dims || self.sizes()[i] == grad_output.sizes()[i], RuntimeError, op,
                ": grad_output of size ", sizes_text(grad_output.sizes()), " does not match the input of size ",
                sizes_text(self.sizes()));
    (i < self.dim() - dims ? planes : in_numel) *= self.sizes()[i];
    if (i >= self.dim() - dims) out_numel *= grad_output.sizes()[i];
  }
  const Tensor zeros = yaten::zeros({planes, in_numel}, grad_output.dtype(), grad_output.device());
  return yaten::reshape(yaten::scatter_add(zeros, 1, yaten::reshape(indices, {planes, out_numel}),
                                           yaten::reshape(grad_output, {planes, out_numel})),
                        self.sizes());
}
}  // namespace pool_detail

inline Tensor max_pool2d_with_indices_backward_impl(const Tensor& grad_output, const Tensor& self,
                                                    const std::vector<int64_t>&, const std::vector<int64_t>&,
                                                    const std::vector<int64_t>&, const std::vector<int64_t>&, bool,
                                                    const Tensor& indices) {
  return pool_detail::max_pool_backward("max_pool2d_with_indices_backward", 2, grad_output, self, indices);
}

inline Tensor max_pool3d_with_indices_backward_impl(const Tensor& grad_output, const Tensor& self,
                                                    const std::vector<int64_t>&, const std::vector<int64_t>&,
                                                    const std::vector<int64_t>&, const std::vector<int64_t>&, bool,
                                                    const Tensor& indices) {
  return pool_detail::max_pool_backward("max_pool3d_with_indices_backward", 3, grad_output, self, indices);
}

}  // namespace yaten::native
