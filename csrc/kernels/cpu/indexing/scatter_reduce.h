// _scatter_reduce_'s CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per
// op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

// _scatter_reduce_: self[index[i][j]][j] = combine(self[...], src[i][j]) for dim 0 (prod, amax, amin), one index
// element after another.
template <typename scalar_t>
Tensor scatter_reduce_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                             const std::string& reduce) {
  const char* op = "scatter_reduce_";
  const indexing::ScatterReduce kind = indexing::scatter_reduce_kind(op, reduce);
  indexing::check_scatter_src(op, self, index, src);
  const scalar_t* values = src.data<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_scatter_gather(op, self, dim, index,
                                        [&](int64_t self_offset, const std::vector<int64_t>& coord) {
                                          int64_t src_offset = 0;  // a 0-dim src has one element
                                          for (size_t k = 0; k < coord.size() && k < size_t(src.dim()); ++k) {
                                            src_offset += coord[k] * src.strides()[k];
                                          }
                                          dst[self_offset] = indexing::scatter_combine(kind, dst[self_offset],
                                                                                       values[src_offset]);
                                        });
  return self;
}

}  // namespace yaten::native::cpu
