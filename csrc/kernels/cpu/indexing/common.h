// What the CPU indexing kernels build on (gather, the scatters, advanced indexing, index_select, index_copy_,
// masked_fill_ and nonzero each have a header beside this one, so an edit to one recompiles its families' unit alone:
// Note [A header per op], kernels/binary_math.h): the walks over lines and slices of the tensors. Index tensors may
// be int32 or int64; negative indices count from the end, as in Python indexing.
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
// Adds value(j) to slot(j) for j < n in eight interleaved partial sums per slot, so that a run of one slot does not
// wait on the previous add to it (one sum a slot, bincount took 1.5x torch's time), then hands each slot's sum to
// total(slot, sum). Integer sums, exact in any order (wrapping, in uint64).
template <typename Slot, typename Value, typename Total>
void interleaved_sums(int64_t n, int64_t slots, Slot slot, Value value, Total total) {
  constexpr int64_t kLanes = 8;
  std::vector<uint64_t> partial(static_cast<size_t>(slots * kLanes), 0);
  uint64_t* c = partial.data();
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) c[slot(j + k) * kLanes + k] += value(j + k);
  }
  for (; j < n; ++j) c[slot(j) * kLanes] += value(j);
  for (int64_t b = 0; b < slots; ++b) {
    uint64_t sum = 0;
    for (int64_t k = 0; k < kLanes; ++k) sum += c[b * kLanes + k];
    total(b, sum);
  }
}
// scatter_add_ into a vector of integers from an index much longer than it (bincount's counting, with a broadcast 1
// as src), by interleaved_sums, self taking the sums at the end (as the slot's own type wraps); every index is
// checked before self is written.
template <typename scalar_t>
bool scatter_add_counts(const char* op, const Tensor& self, const Tensor& index, const Tensor& from) {
  if constexpr (!std::is_integral_v<scalar_t> || std::is_same_v<scalar_t, bool>) {
    return false;
  } else {
    const int64_t n = index.numel();
    if (self.dim() != 1 || n < 4096 || self.sizes()[0] > std::min<int64_t>(n / 8, 1 << 16)) return false;
    const int64_t bound = self.sizes()[0];
    const Tensor idx = long_index(index);
    const int64_t* iv = idx.data<int64_t>();
    check_line(op, iv, 1, n, 0, bound);
    const scalar_t* sv = from.data<scalar_t>();
    const int64_t src_st = from.strides()[0];
    scalar_t* out = self.data<scalar_t>();
    const int64_t self_st = self.strides()[0];
    yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
    const auto slot = [iv](int64_t j) { return iv[j]; };
    const auto add = [out, self_st](int64_t b, uint64_t sum) {
      out[b * self_st] = static_cast<scalar_t>(static_cast<uint64_t>(out[b * self_st]) + sum);
    };
    if (src_st == 0) {  // a broadcast number (bincount's 1)
      const auto v = static_cast<uint64_t>(sv[0]);
      interleaved_sums(n, bound, slot, [v](int64_t) { return v; }, add);
    } else {
      interleaved_sums(n, bound, slot, [sv, src_st](int64_t j) { return static_cast<uint64_t>(sv[j * src_st]); }, add);
    }
    return true;
  }
}
}  // namespace index_detail

}  // namespace yaten::native::cpu
