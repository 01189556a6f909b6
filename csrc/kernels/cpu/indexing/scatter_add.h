// scatter_add_'s CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

// scatter_add_: repeated indices accumulate. Index elements that differ in a coordinate other than `dim` write to
// different elements of self, so the lines along `dim` run in parallel without atomics.
template <typename scalar_t>
Tensor scatter_add_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const char* op = "scatter_add_";
  const int64_t d = index_detail::check_scatter_gather_index(op, self, dim, index);
  indexing::check_scatter_src(op, self, index, src);
  if (index.numel() == 0) return self;
  const Tensor from = src.dtype() == self.dtype() ? src : yaten::_to_copy(src, self.dtype(), std::nullopt);
  const int64_t bound = self.dim() ? self.sizes()[d] : 1, self_st = self.dim() ? self.strides()[d] : 0;
  const int64_t src_st = from.dim() ? from.strides()[d] : 0;
  if (index_detail::scatter_add_slices<scalar_t>(op, self, d, index, from)) return self;
  if (index_detail::scatter_add_counts<scalar_t>(op, self, index, from)) return self;
  const scalar_t* sv = from.data<scalar_t>();
  scalar_t* out = self.data<scalar_t>();
  index_detail::for_each_line(self, d, index_detail::long_index(index), from,
                              [&](const int64_t* iv, int64_t is, int64_t so, int64_t oo, int64_t n) {
    index_detail::check_line(op, iv, is, n, d, bound);
    scalar_t* to = out + so;
    const scalar_t* from = sv + oo;
    for (int64_t j = 0; j < n; ++j) {
      scalar_t& slot = to[iv[j * is] * self_st];
      slot = static_cast<scalar_t>(slot + from[j * src_st]);
    }
  });
  return self;
}

}  // namespace yaten::native::cpu
