// histc's CPU kernel, a header of its own beside kernels/cpu/sort/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/sort/common.h"

namespace yaten::native::cpu {

// histc: counts of the elements in `bins` equal-width bins over [min, max] (the data's range when both are 0;
// elements outside are ignored, the maximum falls in the last bin; sorting::histc_bin), in self's dtype.
template <typename scalar_t>
Tensor histc_kernel(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  const Tensor src = yaten::contiguous(self);
  const scalar_t* x = src.data<scalar_t>();
  const int64_t n = src.numel();
  double lo, hi;
  std::tie(lo, hi) = sorting::histc_range<scalar_t>(bins, min, max);
  if (lo == hi && n > 0) {
    lo = hi = static_cast<double>(x[0]);
    for (int64_t i = 0; i < n && lo == lo; ++i) {
      const double v = static_cast<double>(x[i]);
      lo = v != v ? v : std::min(lo, v);  // a NaN makes the range NaN
      hi = v != v ? v : std::max(hi, v);
    }
    sorting::check_histc_data_range(lo, hi);
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  std::vector<int64_t> counts(bins, 0);
  const scalar_t low = static_cast<scalar_t>(lo), high = static_cast<scalar_t>(hi);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = sorting::histc_bin(x[i], low, high, bins);
    if (b >= 0) ++counts[b];
  }
  Tensor out = yaten::empty({bins}, self.dtype(), self.device());
  scalar_t* o = out.data<scalar_t>();
  for (int64_t b = 0; b < bins; ++b) o[b] = static_cast<scalar_t>(static_cast<float>(counts[b]));
  return out;
}

}  // namespace yaten::native::cpu
