// index_select's CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor index_select_kernel(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* op = "index_select";
  const int64_t d = index_detail::wrap_dim(op, dim, self.dim());
  indexing::check_index_select_index(index);
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  if (self.dim() == 1) {  // a vector (take's too) as x[idx] (read into a vector of indices first, then gathered, it
                          // took 2.0x torch's time)
    const Tensor idx = index_detail::cpu_long_index(index);
    return index_detail::gather_vector<scalar_t>(op, self, idx.data<int64_t>(), idx.numel(), {idx.numel()});
  }
  std::vector<int64_t> indices = index_detail::read_indices(op, index, size, d);
  std::vector<int64_t> out_sizes = self.sizes();
  if (self.dim() > 0) out_sizes[d] = static_cast<int64_t>(indices.size());
  Tensor out = yaten::empty(out_sizes, self.dtype(), self.device());
  if (self.dim() == 0) {
    if (!indices.empty()) *out.data<scalar_t>() = *self.data<scalar_t>();
    return out;
  }
  scalar_t* dst = out.data<scalar_t>();
  if (self.is_contiguous()) {
    // out viewed as (outer, count, inner) and self as (outer, size, inner): rows of `inner` elements copied, or
    // with inner == 1 (the last dim) one gather per outer row; in parallel over outer rows (and their indices).
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; ++i) outer *= self.sizes()[i];
    for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
    const int64_t count = static_cast<int64_t>(indices.size());
    const scalar_t* src = self.data<scalar_t>();
    const int64_t* at = indices.data();
    yaten::detail::ScopedGilRelease release_gil(true);
    if (inner == 1) {
      parallel_for(outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(count, 1)), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          const scalar_t* row = src + o * size;
          scalar_t* to = dst + o * count;
          for (int64_t j = 0; j < count; ++j) to[j] = row[at[j]];
        }
      });
    } else {
      const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1));
      parallel_for(outer * count, grain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const scalar_t* from = src + ((r / count) * size + at[r % count]) * inner;
          std::copy(from, from + inner, dst + r * inner);
        }
      });
    }
    return out;
  }
  // For each index, copy the slice self[..., indices[i], ...] into out[..., i, ...].
  std::vector<int64_t> slice_sizes = self.sizes();
  slice_sizes[d] = 1;
  const scalar_t* src = self.data<scalar_t>();
  for (size_t i = 0; i < indices.size(); ++i) {
    const scalar_t* src_base = src + indices[i] * self.strides()[d];
    scalar_t* dst_base = dst + static_cast<int64_t>(i) * out.strides()[d];
    index_detail::for_each_pair(slice_sizes, out.strides(), self.strides(),
                                [&](int64_t o, int64_t s) { dst_base[o] = src_base[s]; });
  }
  return out;
}

}  // namespace yaten::native::cpu
