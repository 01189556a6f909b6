// sort along a dim: stable, NaN last (first when descending), the indices of the sorted values.
#pragma once

#include "kernels/cpu/sort/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
std::tuple<Tensor, Tensor> sort_kernel(const Tensor& self, int64_t dim, bool descending) {
  const int64_t d = sort_detail::wrap_dim("sort", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  return sort_detail::rowwise<scalar_t>("sort", self, d, len, false,
      [descending](const scalar_t* x, int64_t n, scalar_t* v, int64_t* ix, auto& buf) {
        sort_detail::sort_row<scalar_t>(x, n, descending, buf, ix);
        for (int64_t i = 0; i < n; ++i) v[i] = x[ix[i]];
      });
}

}  // namespace yaten::native::cpu
