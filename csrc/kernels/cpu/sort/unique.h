// unique's CPU kernel, a header of its own beside kernels/cpu/sort/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/sort/common.h"

namespace yaten::native::cpu {

// unique over all elements, sorted: the values, the inverse (each element's position among them, self's shape) and
// the counts. NaNs are each their own value, as in torch.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> unique_kernel(const Tensor& self, bool sorted, bool return_inverse,
                                                 bool return_counts) {
  (void)sorted;  // the result is always sorted
  const Tensor src = yaten::contiguous(self);
  const int64_t n = src.numel();
  const scalar_t* x = src.data<scalar_t>();
  using K = sort_detail::key_t<scalar_t>;
  sort_detail::RowBuffers<K> buf;
  std::vector<int64_t> order(n);
  {
    yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
    sort_detail::sort_row<scalar_t>(x, n, false, buf, order.data());
  }
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < n; ++i) {
    const K key = sort_detail::sort_key(x[order[i]]);
    if (i == 0 || sort_detail::is_nan_key<scalar_t>(key) || key != sort_detail::sort_key(x[order[i - 1]])) {
      starts.push_back(i);
    }
  }
  const int64_t m = starts.size();
  Tensor values = yaten::empty({m}, self.dtype(), self.device());
  Tensor inverse = yaten::empty(return_inverse ? self.sizes() : std::vector<int64_t>{0}, ScalarType::Long,
                                self.device());
  Tensor counts = yaten::empty({return_counts ? m : 0}, ScalarType::Long, self.device());
  scalar_t* v = values.data<scalar_t>();
  int64_t* inv = inverse.data<int64_t>();
  int64_t* cnt = counts.data<int64_t>();
  for (int64_t u = 0; u < m; ++u) {
    const int64_t b = starts[u], e = u + 1 < m ? starts[u + 1] : n;
    v[u] = x[order[b]];
    if (return_counts) cnt[u] = e - b;
    if (return_inverse) {
      for (int64_t j = b; j < e; ++j) inv[order[j]] = u;
    }
  }
  return {values, inverse, counts};
}

}  // namespace yaten::native::cpu
