// mode's CPU kernel, a header of its own beside kernels/cpu/sort/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/sort/common.h"

namespace yaten::native::cpu {

// mode: the most frequent value of each row (ties: the smallest), and the last index where it occurs; NaNs never
// equal each other, as in torch.
template <typename scalar_t>
std::tuple<Tensor, Tensor> mode_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = sort_detail::wrap_dim("mode", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(len > 0, IndexError, "mode(): expected a non-empty dimension ", d);
  using K = sort_detail::key_t<scalar_t>;
  return sort_detail::rowwise<scalar_t>("mode", self, d, 1, !keepdim && self.dim() > 0,
      [](const scalar_t* x, int64_t n, scalar_t* v, int64_t* ix, sort_detail::RowBuffers<K>& buf) {
        std::vector<int64_t> order(n);
        sort_detail::sort_row<scalar_t>(x, n, false, buf, order.data());
        int64_t best_len = 0, best_last = 0;
        for (int64_t i = 0; i < n;) {
          const K key = sort_detail::sort_key(x[order[i]]);
          int64_t j = i + 1;
          if (!sort_detail::is_nan_key<scalar_t>(key)) {
            while (j < n && sort_detail::sort_key(x[order[j]]) == key) ++j;
          }
          if (j - i > best_len) {
            best_len = j - i;
            best_last = *std::max_element(order.begin() + i, order.begin() + j);
          }
          i = j;
        }
        *ix = best_last;
        *v = x[best_last];
      });
}

}  // namespace yaten::native::cpu
