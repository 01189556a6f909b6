// What the CPU sorting and selection kernels build on (sort, topk, kthvalue, median, nanmedian, mode, unique,
// searchsorted and histc each have a header beside this one, so an edit to one recompiles its families' unit alone:
// Note [A header per op], kernels/binary_math.h): the keys, the radix sort, the rows.
//
// Every value is first mapped to an unsigned key whose integer order is torch's order of the values: NaN above
// +inf, -0.0 equal to +0.0, negative numbers below positive ones (kernels/sort_support.h, shared with CUDA). Sorting
// then works on keys alone: a row of more than kSmallRow elements is sorted by an LSD radix sort (8-bit digits, passes
// whose digit is the same for every key skipped), which is stable, so `descending` sorts the complemented keys and
// keeps equal elements in their original order; shorter rows use std::stable_sort on the keys. Values are written by gathering the input at the sorted
// indices, so NaN payloads and signed zeros come out as they went in. Rows (the chosen dim moved last) run in
// parallel; topk of a single long row is split between threads, each keeping a heap of its k best.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "core/wrap_dim.h"
#include "kernels/sort_support.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/squeeze.h"

namespace yaten::native::cpu {

namespace sort_detail {

using sorting::bits_of;
using sorting::is_nan_key;
using sorting::key_t;
using sorting::sort_key;

constexpr int64_t kSmallRow = 256;

// Sorts keys[0, n) ascending, carrying idx along; stable. Returns where the sorted keys/indices ended up (keys and
// idx, or the scratch buffers).
template <typename K>
std::pair<K*, int64_t*> radix_sort(K* keys, int64_t* idx, K* keys_tmp, int64_t* idx_tmp, int64_t n) {
  constexpr int kPasses = sizeof(K);
  std::vector<int64_t> hist(kPasses * 256, 0);
  for (int64_t i = 0; i < n; ++i) {
    const K k = keys[i];
    for (int p = 0; p < kPasses; ++p) ++hist[p * 256 + ((k >> (8 * p)) & 0xFF)];
  }
  K* ks = keys;
  int64_t* is = idx;
  K* kd = keys_tmp;
  int64_t* id = idx_tmp;
  for (int p = 0; p < kPasses; ++p) {
    int64_t* h = hist.data() + p * 256;
    if (std::any_of(h, h + 256, [n](int64_t c) { return c == n; })) continue;  // one digit everywhere: no-op pass
    int64_t offset = 0;
    for (int b = 0; b < 256; ++b) {
      const int64_t c = h[b];
      h[b] = offset;
      offset += c;
    }
    const int shift = 8 * p;
    for (int64_t i = 0; i < n; ++i) {
      const K k = ks[i];
      const int64_t at = h[(k >> shift) & 0xFF]++;
      kd[at] = k;
      id[at] = is[i];
    }
    std::swap(ks, kd);
    std::swap(is, id);
  }
  return {ks, is};
}

// Scratch for one thread's rows.
template <typename K>
struct RowBuffers {
  std::vector<K> keys, keys_tmp;
  std::vector<int64_t> idx, idx_tmp;
  std::vector<std::pair<K, int64_t>> entries;  // sized by its user (select_rank)
  void reserve(int64_t n) {
    keys.resize(n);
    keys_tmp.resize(n);
    idx.resize(n);
    idx_tmp.resize(n);
  }
};

// Comparators of positions by their keys. Named types, one per key type, so that each std::stable_sort,
// nth_element and heap below is compiled once per key width; a lambda is a new type in every dtype's instantiation
// of every function that writes one.
template <typename K>
struct KeyLess {
  const K* keys;
  bool operator()(int64_t a, int64_t b) const { return keys[a] < keys[b]; }
};
template <typename K>
struct EntryBetter {  // (key, position): the larger key first, ties to the lower position
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }
};

// Stable sort of one row by key (complemented when descending): sorted indices into `out_idx`.
template <typename scalar_t>
void sort_row(const scalar_t* x, int64_t n, bool descending, RowBuffers<key_t<scalar_t>>& buf, int64_t* out_idx) {
  using K = key_t<scalar_t>;
  buf.reserve(n);
  K* keys = buf.keys.data();
  for (int64_t i = 0; i < n; ++i) keys[i] = descending ? K(~sort_key(x[i])) : sort_key(x[i]);
  if (n <= kSmallRow) {
    std::iota(out_idx, out_idx + n, int64_t(0));
    std::stable_sort(out_idx, out_idx + n, KeyLess<K>{keys});
    return;
  }
  std::iota(buf.idx.begin(), buf.idx.begin() + n, int64_t(0));
  const auto sorted = radix_sort<K>(keys, buf.idx.data(), buf.keys_tmp.data(), buf.idx_tmp.data(), n);
  std::copy(sorted.second, sorted.second + n, out_idx);
}

using ::yaten::wrap_dim;

// Runs row(x, len, values_out, indices_out) over the rows of `self` along `dim`, each writing `out_len` values and
// indices. The outputs come back with `dim` in place (size out_len), removed when `squeeze` is set.
template <typename scalar_t, typename Row>
std::tuple<Tensor, Tensor> rowwise(const char* op, const Tensor& self, int64_t dim, int64_t out_len, bool squeeze,
                                   Row row) {
  const int64_t d = wrap_dim(op, dim, self.dim());
  const Tensor src = yaten::contiguous(self.dim() == 0 ? yaten::reshape(self, {1}) : yaten::movedim(self, d, -1));
  const int64_t len = src.sizes().back();
  int64_t rows = 1;
  for (int64_t k = 0; k + 1 < src.dim(); ++k) rows *= src.sizes()[k];
  std::vector<int64_t> shape = src.sizes();
  shape.back() = out_len;
  Tensor values = yaten::empty(shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(shape, ScalarType::Long, self.device());
  const scalar_t* x = src.data<scalar_t>();
  scalar_t* v = values.data<scalar_t>();
  int64_t* ix = indices.data<int64_t>();
  yaten::detail::ScopedGilRelease release_gil(src.numel() >= yaten::detail::kGilReleaseElements);
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
    RowBuffers<key_t<scalar_t>> buf;
    for (int64_t r = b; r < e; ++r) row(x + r * len, len, v + r * out_len, ix + r * out_len, buf);
  });
  if (self.dim() == 0) {
    return {yaten::reshape(values, {}), yaten::reshape(indices, {})};
  }
  values = yaten::movedim(values, -1, d);
  indices = yaten::movedim(indices, -1, d);
  if (squeeze) return {yaten::squeeze(values, d), yaten::squeeze(indices, d)};
  return {yaten::contiguous(values), yaten::contiguous(indices)};
}

}  // namespace sort_detail

}  // namespace yaten::native::cpu
