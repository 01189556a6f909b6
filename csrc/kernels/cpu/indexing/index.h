// Advanced indexing's CPU kernels (x[idx] and its write, index_put_, over several dims at once), beside
// kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

namespace index_detail {
// Advanced indexing over several dims at once. `indices` are int64 tensors of one (broadcast) shape B, one per
// entry of `dims`. Element b of B picks self[..., indices[k][b] at dims[k], ...]; the other dims ("rest") are kept.
// Visits (b, rest position r, offset in self) in the "front" layout B + rest, row-major.
template <typename Fn>
void for_each_advanced(const char* op, const Tensor& self, const std::vector<Tensor>& indices,
                       const std::vector<int64_t>& dims, Fn&& fn) {
  const std::vector<int64_t> wrapped = indexing::check_advanced(op, self, indices, dims);
  std::vector<Tensor> idx;
  std::vector<bool> indexed(self.dim(), false);
  for (size_t k = 0; k < indices.size(); ++k) {
    indexed[wrapped[k]] = true;
    idx.push_back(yaten::_to_copy(indices[k], ScalarType::Long, Device(DeviceType::CPU)));  // contiguous int64
  }
  std::vector<int64_t> rest_sizes, rest_strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!indexed[d]) {
      rest_sizes.push_back(self.sizes()[d]);
      rest_strides.push_back(self.strides()[d]);
    }
  }
  const int64_t nb = idx[0].numel();
  int64_t n_rest = 1;
  for (int64_t s : rest_sizes) n_rest *= s;
  std::vector<int64_t> coord(rest_sizes.size());
  for (int64_t b = 0; b < nb; ++b) {
    int64_t base = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      const int64_t d = wrap_dim(op, dims[k], self.dim());
      const int64_t size = self.sizes()[d];
      base += wrapped_index(op, idx[k].data<int64_t>()[b], size, d) * self.strides()[d];
    }
    std::fill(coord.begin(), coord.end(), 0);
    int64_t offset = base;
    for (int64_t r = 0; r < n_rest; ++r) {
      fn(b * n_rest + r, offset);
      for (int64_t k = static_cast<int64_t>(coord.size()) - 1; k >= 0; --k) {
        if (++coord[k] < rest_sizes[k]) {
          offset += rest_strides[k];
          break;
        }
        offset -= rest_strides[k] * (rest_sizes[k] - 1);
        coord[k] = 0;
      }
    }
  }
}

}  // namespace index_detail

namespace index_detail {
// When the dims that no index reads ("rest") lie contiguously in self (x[idx] of a contiguous x, any leading
// indexed dims), each index position selects one run of n_rest elements: its start offset for each b, the indices
// checked (and negative ones wrapped) first, so the copy can run in parallel. Empty when rest is not contiguous.
inline std::vector<int64_t> contiguous_rest_starts(const Tensor& self, const std::vector<Tensor>& indices,
                                                   const std::vector<int64_t>& wrapped, int64_t& n_rest) {
  std::vector<bool> indexed(self.dim(), false);
  for (int64_t d : wrapped) indexed[d] = true;
  int64_t expected = 1;
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    if (indexed[d] || self.sizes()[d] == 1) continue;
    if (self.strides()[d] != expected) return {};
    expected *= self.sizes()[d];
  }
  n_rest = expected;
  const int64_t nb = indices[0].numel();
  std::vector<int64_t> starts(static_cast<size_t>(nb), 0);
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor idx = cpu_long_index(indices[k]);
    const int64_t* v = idx.data<int64_t>();
    const int64_t d = wrapped[k], size = self.sizes()[d], stride = self.strides()[d];
    parallel_for(nb, kGrainSize, [&](int64_t begin, int64_t end) {  // x[mask]'s coordinates: 1.2x torch serially
      for (int64_t b = begin; b < end; ++b) starts[size_t(b)] += wrapped_index("index", v[b], size, d) * stride;
    });
  }
  return starts;
}
}  // namespace index_detail

template <typename scalar_t>
Tensor index_front_kernel(const Tensor& self, const std::vector<Tensor>& indices, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> wrapped = indexing::check_advanced("index", self, indices, dims);
  const std::vector<int64_t> shape = index_detail::front_shape(self, indices, dims);
  if (self.dim() == 1) {  // x[idx], x[mask] of a vector: each index checked as it is read
    const Tensor idx = index_detail::cpu_long_index(indices[0]);
    return index_detail::gather_vector<scalar_t>("index", self, idx.data<int64_t>(), idx.numel(), shape);
  }
  Tensor out = yaten::empty(shape, self.dtype(), self.device());
  const scalar_t* src = self.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  int64_t n_rest = 0;
  const std::vector<int64_t> starts = out.numel() == 0 ? std::vector<int64_t>{}
                                                       : index_detail::contiguous_rest_starts(self, indices, wrapped,
                                                                                              n_rest);
  if (!starts.empty()) {  // one contiguous run per index position, copied in parallel
    yaten::detail::ScopedGilRelease release_gil(true);
    parallel_for(static_cast<int64_t>(starts.size()), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n_rest, 1)),
                 [&](int64_t b, int64_t e) {
                   if (n_rest == 1) {  // one element per position (x[idx] of a vector, x[mask])
                     for (int64_t i = b; i < e; ++i) dst[i] = src[starts[size_t(i)]];
                     return;
                   }
                   for (int64_t i = b; i < e; ++i) std::copy(src + starts[i], src + starts[i] + n_rest, dst + i * n_rest);
                 });
    return out;
  }
  index_detail::for_each_advanced("index", self, indices, dims,
                                  [&](int64_t out_pos, int64_t offset) { dst[out_pos] = src[offset]; });
  return out;
}

template <typename scalar_t>
Tensor index_put_front_kernel(const Tensor& self, const std::vector<Tensor>& indices,
                              const std::vector<int64_t>& dims, const Tensor& values) {
  indexing::check_advanced("index_put_", self, indices, dims);
  const std::vector<int64_t> shape = index_detail::front_shape(self, indices, dims);
  YATEN_CHECK(values.sizes() == shape, RuntimeError, "index_put_: values have the wrong shape");
  Tensor from = values.dtype() == self.dtype() && values.is_contiguous()
                    ? values
                    : yaten::_to_copy(values, self.dtype(), std::nullopt);
  const scalar_t* src = from.data<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_advanced("index_put_", self, indices, dims,
                                  [&](int64_t in_pos, int64_t offset) { dst[offset] = src[in_pos]; });
  return self;
}

}  // namespace yaten::native::cpu
