// kthvalue, median and nanmedian along a dim: the element of a rank in each row (sort_detail::select_rank).
#pragma once

#include "kernels/cpu/sort/common.h"

namespace yaten::native::cpu {

namespace sort_detail {
// The element of rank `rank` (0-based, ascending, NaN last) of each row; with `nan_propagates` a row holding a NaN
// yields its first NaN (median), with `skip_nan` the rank counts only the non-NaN elements (nanmedian; rank < 0
// means "the lower median of what is left").
template <typename scalar_t>
std::tuple<Tensor, Tensor> select_rank(const char* op, const Tensor& self, int64_t dim, bool keepdim, int64_t rank,
                                       bool nan_propagates, bool skip_nan) {
  const int64_t d = wrap_dim(op, dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(len > 0, IndexError, op, "(): expected a non-empty dimension ", d, " to select from");
  using K = key_t<scalar_t>;
  return rowwise<scalar_t>(op, self, d, 1, !keepdim && self.dim() > 0,
      [=](const scalar_t* x, int64_t n, scalar_t* v, int64_t* ix, RowBuffers<K>& buf) {
        buf.reserve(n);
        int64_t nans = 0, first_nan = -1;
        for (int64_t i = 0; i < n; ++i) {
          buf.keys[i] = sort_key(x[i]);
          if (is_nan_key<scalar_t>(buf.keys[i]) && nans++ == 0) first_nan = i;
        }
        if (nans > 0 && (nan_propagates || nans == n)) {
          *ix = first_nan;
          *v = x[first_nan];
          return;
        }
        const int64_t valid = skip_nan ? n - nans : n;
        const int64_t r = rank >= 0 ? rank : (valid - 1) / 2;
        // (key, position) as one value, ordered by key then position, so nth_element compares the values it moves
        // (through positions, each comparison looked both keys up: kthvalue of 1,024-element rows took 1.19x
        // torch's time): keys of 32 bits or less packed in the uint64 of the position buffer, wider ones as pairs
        if constexpr (sizeof(K) <= 4) {
          if (n <= int64_t(UINT32_MAX)) {
            uint64_t* packed = reinterpret_cast<uint64_t*>(buf.idx.data());
            for (int64_t i = 0; i < n; ++i) packed[i] = (uint64_t(buf.keys[i]) << 32) | uint64_t(i);
            std::nth_element(packed, packed + r, packed + n);
            *ix = int64_t(packed[r] & 0xffffffffu);
            *v = x[*ix];
            return;
          }
        }
        buf.entries.resize(size_t(n));
        for (int64_t i = 0; i < n; ++i) buf.entries[size_t(i)] = {buf.keys[i], i};
        std::nth_element(buf.entries.begin(), buf.entries.begin() + r, buf.entries.end());
        *ix = buf.entries[size_t(r)].second;
        *v = x[*ix];
      });
}
}  // namespace sort_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> kthvalue_kernel(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = sort_detail::wrap_dim("kthvalue", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(k >= 1 && k <= len, IndexError, "kthvalue(): selected number k out of range for dimension ", d,
              " (k = ", k, ", size ", len, ")");
  return sort_detail::select_rank<scalar_t>("kthvalue", self, d, keepdim, k - 1, false, false);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> median_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return sort_detail::select_rank<scalar_t>("median", self, dim, keepdim, -1, true, false);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> nanmedian_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return sort_detail::select_rank<scalar_t>("nanmedian", self, dim, keepdim, -1, false, true);
}

}  // namespace yaten::native::cpu
