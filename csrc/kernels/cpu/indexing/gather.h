// gather's CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

// gather by lines (index_detail::for_each_line): one element after another through per-element coordinate vectors,
// gather(x, 1, idx) of 1024 x 1024 float32 took 4x torch's time at one thread.
template <typename scalar_t>
Tensor gather_kernel(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* op = "gather";
  const int64_t d = index_detail::check_scatter_gather_index(op, self, dim, index);
  Tensor out = yaten::empty(index.sizes(), self.dtype(), self.device());
  if (index.numel() == 0) return out;
  const scalar_t* src = self.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const int64_t bound = self.dim() ? self.sizes()[d] : 1, self_st = self.dim() ? self.strides()[d] : 0;
  const int64_t out_st = out.dim() ? out.strides()[d] : 0;
  index_detail::for_each_line(self, d, index_detail::long_index(index), out,
                              [&](const int64_t* iv, int64_t is, int64_t so, int64_t oo, int64_t n) {
    index_detail::check_line(op, iv, is, n, d, bound);
    const scalar_t* from = src + so;
    scalar_t* to = dst + oo;
    if (is == 1 && out_st == 1 && self_st == 1) {  // a row of a contiguous gather
      for (int64_t j = 0; j < n; ++j) to[j] = from[iv[j]];
    } else {
      for (int64_t j = 0; j < n; ++j) to[j * out_st] = from[iv[j * is] * self_st];
    }
  });
  return out;
}

}  // namespace yaten::native::cpu
