// scatter's CPU kernels (a src or a value), a header of their own beside kernels/cpu/indexing/common.h (Note [A
// header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor scatter_src_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  indexing::check_scatter_src("scatter_", self, index, src);
  Tensor from = src.dtype() == self.dtype() ? src : yaten::_to_copy(src, self.dtype(), std::nullopt);
  const scalar_t* values = from.data<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_scatter_gather("scatter_", self, dim, index,
                                        [&](int64_t self_offset, const std::vector<int64_t>& coord) {
                                          int64_t src_offset = 0;
                                          for (size_t k = 0; k < coord.size() && k < size_t(from.dim()); ++k) {
                                            src_offset += coord[k] * from.strides()[k];  // 0-dim src: one element
                                          }
                                          dst[self_offset] = values[src_offset];
                                        });
  return self;
}

template <typename scalar_t>
Tensor scatter_value_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  if (index.numel() == 0) {  // as torch: nothing to write, so the value is not converted (nor checked)
    indexing::check_scatter_gather_index("scatter_", self, dim, index);
    return self;
  }
  const scalar_t v = value.to<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_scatter_gather("scatter_", self, dim, index,
                                        [&](int64_t self_offset, const std::vector<int64_t>&) { dst[self_offset] = v; });
  return self;
}

}  // namespace yaten::native::cpu
