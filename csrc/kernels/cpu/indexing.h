// CPU kernels of the indexing ops: index_select, index_copy_, masked_fill_, nonzero. Index tensors may be int32
// or int64; negative indices count from the end, as in Python indexing.
#pragma once

#include "core/wrap_dim.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/dtype_switch.h"
#include "core/gil.h"
#include "iter/cpu_loops.h"
#include "kernels/indexing_support.h"
#include "kernels/pointwise_support.h"
#include "core/parallel.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/select.h"

namespace yaten::native::cpu {

namespace index_detail {
// v counted from the end when negative, after the check that it lies in [-size, size) (torch's IndexError).
inline int64_t wrapped_index(const char* op, int64_t v, int64_t size, int64_t dim) {
  YATEN_CHECK(v >= -size && v < size, IndexError, op, ": index ", v, " is out of bounds for dimension ", dim,
              " with size ", size);
  return v < 0 ? v + size : v;
}

// The indices of `index` (a 0-d or 1-d integer tensor) as int64, wrapped and checked against `size`.
inline std::vector<int64_t> read_indices(const char* op, const Tensor& index, int64_t size, int64_t dim) {
  YATEN_CHECK(index.dim() <= 1, IndexError, op, ": index should have at most 1 dimension, got ", index.dim());
  YATEN_CHECK(is_integral(index.dtype(), /*include_bool=*/false), IndexError, op,
              ": tensors used as indices must be long or int, got ", dtype_name(index.dtype()));
  Tensor flat = yaten::_to_copy(index, ScalarType::Long, Device(DeviceType::CPU));
  std::vector<int64_t> out(flat.numel());
  const int64_t* data = flat.data<int64_t>();
  for (int64_t i = 0; i < flat.numel(); ++i) out[i] = wrapped_index(op, data[i], size, dim);
  return out;
}

using ::yaten::wrap_dim;

// Calls fn(dst_offset, src_offset) for every element of `sizes`, with per-dim strides of dst and src.
template <typename Fn>
void for_each_pair(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dst_strides,
                   const std::vector<int64_t>& src_strides, Fn&& fn) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  const int64_t dims = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> counter(dims, 0);
  int64_t dst = 0, src = 0;
  for (int64_t i = 0; i < n; ++i) {
    fn(dst, src);
    for (int64_t d = dims - 1; d >= 0; --d) {
      if (++counter[d] < sizes[d]) {
        dst += dst_strides[d];
        src += src_strides[d];
        break;
      }
      dst -= dst_strides[d] * (sizes[d] - 1);
      src -= src_strides[d] * (sizes[d] - 1);
      counter[d] = 0;
    }
  }
}

// gather/scatter: index has self's number of dims; along `dim` its values pick positions, elsewhere its
// coordinates are the positions. Calls fn(position in self, position in index/src) for every index element.
using indexing::check_scatter_gather_index;
using indexing::front_shape;

// An int64, contiguous copy of a gather/scatter index (itself when it is one).
inline Tensor long_index(const Tensor& index) {
  return yaten::contiguous(index.dtype() == ScalarType::Long ? index
                                                              : yaten::_to_copy(index, ScalarType::Long, std::nullopt));
}
// long_index on the CPU (an index tensor of another device copied here), for the CPU kernels that read it in place.
inline Tensor cpu_long_index(const Tensor& index) {
  return long_index(index.device().is_cpu() ? index
                                            : yaten::_to_copy(index, ScalarType::Long, Device(DeviceType::CPU)));
}
// self[v[i]] for the n indices v of a vector self, into a new tensor of `shape` (n elements), each index wrapped from
// the end and checked (IndexError naming op), in parallel: a block of 1,024 indices that all lie in [0, size), which
// one vectorized test finds, is gathered without a check per element (checked one by one, x[idx] of in-order indices
// took 1.2x torch's time on AVX2); the other blocks index by index.
template <typename scalar_t>
Tensor gather_vector(const char* op, const Tensor& self, const int64_t* v, int64_t n,
                     const std::vector<int64_t>& shape) {
  Tensor out = yaten::empty(shape, self.dtype(), self.device());
  const scalar_t* src = self.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const int64_t size = self.sizes()[0], stride = self.strides()[0];
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(n, kGrainSize, [&](int64_t b, int64_t e) {
    constexpr int64_t kBlock = 1024;
    for (int64_t b0 = b; b0 < e; b0 += kBlock) {
      const int64_t e0 = std::min(e, b0 + kBlock);
      uint64_t outside = 0;
      for (int64_t i = b0; i < e0; ++i) outside |= static_cast<uint64_t>(v[i]) >= static_cast<uint64_t>(size);
      if (outside == 0) {
        for (int64_t i = b0; i < e0; ++i) dst[i] = src[v[i] * stride];
      } else {
        for (int64_t i = b0; i < e0; ++i) dst[i] = src[wrapped_index(op, v[i], size, 0) * stride];
      }
    }
  });
  return out;
}
template <typename Fn>
void for_each_scatter_gather(const char* op, const Tensor& self, int64_t dim, const Tensor& index, Fn&& fn) {
  const int64_t d = check_scatter_gather_index(op, self, dim, index);
  const Tensor idx = long_index(index);
  const int64_t* values = idx.data<int64_t>();
  const int64_t size = self.dim() ? self.sizes()[d] : 1;
  const int64_t dims = idx.dim();
  std::vector<int64_t> coord(dims, 0);
  for (int64_t i = 0; i < idx.numel(); ++i) {
    const int64_t v = values[i];
    YATEN_CHECK(v >= 0 && v < size, IndexError, op, ": index ", v, " is out of bounds for dimension ", d,
                " with size ", size);
    int64_t self_offset = 0;
    for (int64_t k = 0; k < dims && k < self.dim(); ++k) {  // a 0-d self (1-d index) has one element
      self_offset += (k == d ? v : coord[k]) * self.strides()[k];
    }
    fn(self_offset, coord);
    for (int64_t k = dims - 1; k >= 0; --k) {
      if (++coord[k] < idx.sizes()[k]) break;
      coord[k] = 0;
    }
  }
}
// gather and scatter_add_ by lines: the index's elements that share every coordinate but `d` form a line, and the
// lines run in parallel (scatter_add_'s write disjoint parts of self, so no atomics). For each line, fn(iv, is,
// self_offset, other_offset, n): the line's n indices iv[0], iv[is], ..., and the offsets of its start in self (the
// coordinate along d left out) and in `other` (gather's result, scatter_add_'s src), which has the index's shape.
// The index is already checked against self (check_scatter_gather_index) and int64 and contiguous; a 0-dim self
// or other counts as one element.
template <typename Fn>
void for_each_line(const Tensor& self, int64_t d, const Tensor& idx, const Tensor& other, Fn&& fn) {
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  const auto dim_or_one = [](const Tensor& t, int64_t k, bool stride) -> int64_t {
    if (t.dim() == 0) return stride ? 0 : 1;
    return stride ? t.strides()[k] : t.sizes()[k];
  };
  std::vector<int64_t> sizes(ndim), idx_st(ndim), other_st(ndim), self_st(ndim);
  for (int64_t k = 0; k < ndim; ++k) {
    sizes[k] = dim_or_one(idx, k, false);
    idx_st[k] = dim_or_one(idx, k, true);
    other_st[k] = dim_or_one(other, k, true);
    self_st[k] = dim_or_one(self, k, true);
  }
  const int64_t n = sizes[d], lines = idx.numel() / n;
  const int64_t* iv = idx.data<int64_t>();
  yaten::detail::ScopedGilRelease release_gil(idx.numel() >= yaten::detail::kGilReleaseElements);
  parallel_for(lines, std::max<int64_t>(1, kGrainSize / (4 * n)), [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      int64_t rest = line, io = 0, oo = 0, so = 0;
      for (int64_t k = ndim - 1; k >= 0; --k) {  // the line's coordinates in the dims other than d
        if (k == d) continue;
        const int64_t c = rest % sizes[k];
        rest /= sizes[k];
        io += c * idx_st[k];
        oo += c * other_st[k];
        so += c * self_st[k];
      }
      fn(iv + io, idx_st[d], so, oo, n);
    }
  });
}
// Checks a line's indices against [0, bound) in one vectorizable pass (an unsigned compare takes the negatives too),
// raising torch's IndexError for the first one outside.
inline void check_line(const char* op, const int64_t* iv, int64_t is, int64_t n, int64_t d, int64_t bound) {
  const auto ubound = static_cast<uint64_t>(bound);
  bool ok = true;
  if (is == 1) {
    for (int64_t j = 0; j < n; ++j) ok &= static_cast<uint64_t>(iv[j]) < ubound;
  } else {
    for (int64_t j = 0; j < n; ++j) ok &= static_cast<uint64_t>(iv[j * is]) < ubound;
  }
  if (__builtin_expect(ok, 1)) return;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t v = iv[j * is];
    YATEN_CHECK(v >= 0 && v < bound, IndexError, op, ": index ", v, " is out of bounds for dimension ", d,
                " with size ", bound);
  }
}
// scatter_add_ by slices, where the index varies only along d (index_add's vector, expanded: stride 0 elsewhere) and
// self's and src's dims after d are the index's and contiguous: self[.., index[i], ..] += src[.., i, ..] for i in
// order, each a contiguous run (vectorized) of the dims after d. Every element of self sees its contributions in
// the order the lines would add them, so the sums are the same; the threads split the outer coordinates and the
// run into disjoint parts. By lines, index_add_(0, idx, src) of 1024 x 1024 float32 walked each column with a
// 4 KiB stride (18 ms, 73x torch's time). Returns false, touching nothing, where the shapes do not allow it.
template <typename scalar_t>
bool scatter_add_slices(const char* op, const Tensor& self, int64_t d, const Tensor& index, const Tensor& src) {
  const int64_t ndim = self.dim();
  if (ndim == 0 || index.dim() != ndim || src.dim() != ndim) return false;
  int64_t inner = 1, outer = 1;
  for (int64_t k = ndim - 1; k >= 0; --k) {
    const int64_t size = index.sizes()[k];
    if (k != d && size != 1 && index.strides()[k] != 0) return false;
    if (k > d) {
      if (self.sizes()[k] != size || src.sizes()[k] != size) return false;
      if (size != 1 && (self.strides()[k] != inner || src.strides()[k] != inner)) return false;
      inner *= size;
    } else if (k < d) {
      outer *= size;
    }
  }
  const int64_t n = index.sizes()[d];
  if (inner < 16) return false;  // short runs: the lines serve as well
  Tensor line = index;  // the n indices along d
  for (int64_t k = ndim - 1; k >= 0; --k) {
    if (k != d) line = yaten::select(line, k, 0);
  }
  const Tensor iv_tensor = long_index(line);
  const int64_t* iv = iv_tensor.data<int64_t>();
  const int64_t bound = self.sizes()[d];
  check_line(op, iv, 1, n, d, bound);
  scalar_t* out = self.data<scalar_t>();
  const scalar_t* sv = src.data<scalar_t>();
  const int64_t self_d = self.strides()[d], src_d = src.strides()[d];
  constexpr int64_t kRun = 512;  // elements of a run per task (a run of 1024 floats still splits over two threads)
  const int64_t runs = (inner + kRun - 1) / kRun;
  yaten::detail::ScopedGilRelease release_gil(n * inner * outer >= yaten::detail::kGilReleaseElements);
  parallel_for(outer * runs, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * std::min(inner, kRun))),
               [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t rest = task / runs, so = 0, oo = 0;
      for (int64_t k = d - 1; k >= 0; --k) {  // the outer coordinates
        const int64_t c = rest % index.sizes()[k];
        rest /= index.sizes()[k];
        so += c * self.strides()[k];
        oo += c * src.strides()[k];
      }
      const int64_t c0 = (task % runs) * kRun, c1 = std::min(inner, c0 + kRun);
      for (int64_t i = 0; i < n; ++i) {
        scalar_t* to = out + so + iv[i] * self_d;
        const scalar_t* from = sv + oo + i * src_d;
        for (int64_t c = c0; c < c1; ++c) to[c] = static_cast<scalar_t>(to[c] + from[c]);
      }
    }
  });
  return true;
}
// scatter_add_ into a vector of integers from an index much longer than it (bincount's counting, with a broadcast 1
// as src): the sums go to eight interleaved partial counts per slot, so that a run of one index does not wait on the
// previous store to that slot (one slot at a time, bincount took 1.5x torch's time), and self takes their sum at the
// end. Integer sums are exact in any order (wrapping, in uint64, as the slot's own type wraps); every index is
// checked before self is written.
template <typename scalar_t>
bool scatter_add_counts(const char* op, const Tensor& self, const Tensor& index, const Tensor& from) {
  if constexpr (!std::is_integral_v<scalar_t> || std::is_same_v<scalar_t, bool>) {
    return false;
  } else {
    constexpr int64_t kLanes = 8;
    const int64_t n = index.numel();
    if (self.dim() != 1 || n < 4096 || self.sizes()[0] > std::min<int64_t>(n / 8, 1 << 16)) return false;
    const int64_t bound = self.sizes()[0];
    const Tensor idx = long_index(index);
    const int64_t* iv = idx.data<int64_t>();
    check_line(op, iv, 1, n, 0, bound);
    const scalar_t* sv = from.data<scalar_t>();
    const int64_t src_st = from.strides()[0];
    std::vector<uint64_t> counts(static_cast<size_t>(bound * kLanes), 0);
    uint64_t* c = counts.data();
    yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
    const auto count = [&](auto value) {  // value(j): src's j-th element, as uint64
      int64_t j = 0;
      for (; j + kLanes <= n; j += kLanes) {
        for (int64_t k = 0; k < kLanes; ++k) c[iv[j + k] * kLanes + k] += value(j + k);
      }
      for (; j < n; ++j) c[iv[j] * kLanes] += value(j);
    };
    if (src_st == 0) {  // a broadcast number (bincount's 1)
      const auto v = static_cast<uint64_t>(sv[0]);
      count([v](int64_t) { return v; });
    } else {
      count([sv, src_st](int64_t j) { return static_cast<uint64_t>(sv[j * src_st]); });
    }
    scalar_t* out = self.data<scalar_t>();
    const int64_t self_st = self.strides()[0];
    for (int64_t b = 0; b < bound; ++b) {
      uint64_t sum = static_cast<uint64_t>(out[b * self_st]);
      for (int64_t k = 0; k < kLanes; ++k) sum += c[b * kLanes + k];
      out[b * self_st] = static_cast<scalar_t>(sum);
    }
    return true;
  }
}
}  // namespace index_detail

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

template <typename scalar_t>
Tensor scatter_src_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  indexing::check_scatter_src("scatter_", self, index, src);
  Tensor from = src.dtype() == self.dtype() ? src : yaten::_to_copy(src, self.dtype(), std::nullopt);
  const scalar_t* values = from.data<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_scatter_gather("scatter_", self, dim, index,
                                        [&](int64_t self_offset, const std::vector<int64_t>& coord) {
                                          int64_t src_offset = 0;
                                          for (size_t k = 0; k < coord.size() && k < size_t(from.dim()); ++k) {
                                            src_offset += coord[k] * from.strides()[k];  // 0-dim src: one element
                                          }
                                          dst[self_offset] = values[src_offset];
                                        });
  return self;
}

// _scatter_reduce_: self[index[i][j]][j] = combine(self[...], src[i][j]) for dim 0 (prod, amax, amin), one index
// element after another.
template <typename scalar_t>
Tensor scatter_reduce_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                             const std::string& reduce) {
  const char* op = "scatter_reduce_";
  const indexing::ScatterReduce kind = indexing::scatter_reduce_kind(op, reduce);
  indexing::check_scatter_src(op, self, index, src);
  const scalar_t* values = src.data<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_scatter_gather(op, self, dim, index,
                                        [&](int64_t self_offset, const std::vector<int64_t>& coord) {
                                          int64_t src_offset = 0;  // a 0-dim src has one element
                                          for (size_t k = 0; k < coord.size() && k < size_t(src.dim()); ++k) {
                                            src_offset += coord[k] * src.strides()[k];
                                          }
                                          dst[self_offset] = indexing::scatter_combine(kind, dst[self_offset],
                                                                                       values[src_offset]);
                                        });
  return self;
}

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

template <typename scalar_t>
Tensor scatter_value_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  if (index.numel() == 0) {  // as torch: nothing to write, so the value is not converted (nor checked)
    indexing::check_scatter_gather_index("scatter_", self, dim, index);
    return self;
  }
  const scalar_t v = value.to<scalar_t>();
  scalar_t* dst = self.data<scalar_t>();
  index_detail::for_each_scatter_gather("scatter_", self, dim, index,
                                        [&](int64_t self_offset, const std::vector<int64_t>&) { dst[self_offset] = v; });
  return self;
}

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

template <typename scalar_t>
Tensor masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value) {
  TensorIterator iter = masked_fill_iterator(self, mask);
  cpu_kernel(iter, MaskedFillOp<scalar_t>{value.to<scalar_t>()});
  return self;
}

// nonzero in two parallel passes over chunks of the elements: count each chunk's nonzeros, then each chunk writes
// its coordinates at its offset (the counts' prefix sum), starting from its first element's coordinates. One serial
// pass appending to a vector took 1.5x torch's time at one thread (2.9x at two). The writing pass has no branch per
// element: every element's coordinates are written and the position advances only past a nonzero's, so random masks
// cost no mispredictions (with a branch, a mask of half True elements took 8.4x NumPy's time). The writes go to a
// buffer of one block first: the slot after a chunk's last nonzero is the next chunk's, written by another thread.
// A chunk of a tensor of 3 or more dims with under 1 in 16 nonzero keeps the branch, which is then predicted and
// writes less (1.24x -> 0.82x torch at 1 in 20 over 64 x 128 x 128; with one or two coordinates to write, writing
// them all stayed faster: 0.65 ms branch-free, 1.04 ms with the branch, 1M elements at 1 in 20).
template <typename scalar_t>
Tensor nonzero_kernel(const Tensor& self) {
  Tensor src = self.is_contiguous() ? self : yaten::_to_copy(self, std::nullopt, std::nullopt);
  const scalar_t* data = src.data<scalar_t>();
  const int64_t n = src.numel(), dims = src.dim();
  const auto nonzero = [data](int64_t i) {
    return static_cast<opmath_t<scalar_t>>(data[i]) != opmath_t<scalar_t>(0);
  };
  if (dims == 0) return yaten::empty({n == 1 && nonzero(0) ? 1 : 0, 0}, ScalarType::Long, self.device());
  constexpr int64_t kChunk = 1 << 16;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<int64_t> counts(size_t(chunks) + 1, 0);
  yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t count = 0;
      for (int64_t i = c * kChunk, end = std::min(n, i + kChunk); i < end; ++i) count += nonzero(i) ? 1 : 0;
      counts[size_t(c) + 1] = count;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) counts[size_t(c) + 1] += counts[size_t(c)];
  Tensor out = yaten::empty({counts[size_t(chunks)], dims}, ScalarType::Long, self.device());
  int64_t* found = out.data<int64_t>();
  const std::vector<int64_t>& sizes = src.sizes();
  constexpr int64_t kBlock = 512;
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> coord(static_cast<size_t>(dims), 0), storage(size_t(kBlock * dims));
    int64_t* const buffer = storage.data();
    for (int64_t c = b; c < e; ++c) {
      int64_t at = counts[size_t(c)] * dims;
      const int64_t first = c * kChunk, end = std::min(n, first + kChunk);
      const bool sparse = dims > 2 && (counts[size_t(c) + 1] - counts[size_t(c)]) * 16 < end - first;
      for (int64_t d = dims - 1, rest = first; d >= 0; --d) {  // the chunk's first element's coordinates
        coord[size_t(d)] = rest % sizes[size_t(d)];
        rest /= sizes[size_t(d)];
      }
      // a row (the last dim) at a time: its leading coordinates are fixed, the last one is the position in it
      const int64_t last = sizes[size_t(dims - 1)];
      for (int64_t i = first; i < end;) {
        const int64_t stop = std::min(end, i + (last - coord[size_t(dims - 1)]));
        for (int64_t j = coord[size_t(dims - 1)]; i < stop;) {
          const int64_t block_end = std::min(stop, i + kBlock);
          int64_t k = 0;
          if (sparse) {  // few nonzeros: the branch is nearly always predicted, and writes only what is found
            for (; i < block_end; ++i, ++j) {
              if (!nonzero(i)) continue;
              for (int64_t d = 0; d + 1 < dims; ++d) found[at + d] = coord[size_t(d)];
              found[at + dims - 1] = j;
              at += dims;
            }
            continue;
          }
          if (dims == 1) {
            for (; i < block_end; ++i, ++j) {
              buffer[k] = j;
              k += nonzero(i);
            }
          } else if (dims == 2) {
            const int64_t row = coord[0];
            for (; i < block_end; ++i, ++j) {
              buffer[k] = row;
              buffer[k + 1] = j;
              k += 2 * int64_t(nonzero(i));
            }
          } else {
            for (; i < block_end; ++i, ++j) {
              for (int64_t d = 0; d + 1 < dims; ++d) buffer[k + d] = coord[size_t(d)];
              buffer[k + dims - 1] = j;
              k += dims * int64_t(nonzero(i));
            }
          }
          std::memcpy(found + at, buffer, size_t(k) * sizeof(int64_t));
          at += k;
        }
        coord[size_t(dims - 1)] = 0;  // the next row (or the chunk's end, where coord is not used again)
        for (int64_t d = dims - 2; d >= 0; --d) {
          if (++coord[size_t(d)] < sizes[size_t(d)]) break;
          coord[size_t(d)] = 0;
        }
      }
    }
  });
  return out;
}

}  // namespace yaten::native::cpu
