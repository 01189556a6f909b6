// index_copy_'s CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor index_copy_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const char* op = "index_copy_";
  const int64_t d = index_detail::wrap_dim(op, dim, self.dim());
  indexing::check_index_copy_args(self, index, source);
  std::vector<int64_t> indices = index_detail::read_indices(op, index, self.dim() ? self.sizes()[d] : 1, d);
  std::vector<int64_t> expected = self.sizes();
  if (self.dim() > 0) expected[d] = static_cast<int64_t>(indices.size());
  YATEN_CHECK(source.sizes() == expected, RuntimeError, op, ": source has the wrong shape for ", indices.size(),
              " indices along dimension ", d);
  Tensor src = source.dtype() == self.dtype() && source.device() == self.device()
                   ? source
                   : yaten::_to_copy(source, self.dtype(), self.device());
  std::vector<int64_t> slice_sizes = self.sizes();
  if (self.dim() > 0) slice_sizes[d] = 1;
  scalar_t* dst = self.data<scalar_t>();
  const scalar_t* from = src.data<scalar_t>();
  for (size_t i = 0; i < indices.size(); ++i) {
    scalar_t* dst_base = dst + (self.dim() ? indices[i] * self.strides()[d] : 0);
    const scalar_t* src_base = from + (self.dim() ? static_cast<int64_t>(i) * src.strides()[d] : 0);
    index_detail::for_each_pair(slice_sizes, self.strides(), src.strides(),
                                [&](int64_t o, int64_t s) { dst_base[o] = src_base[s]; });
  }
  return self;
}

}  // namespace yaten::native::cpu
