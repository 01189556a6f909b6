// topk: the k best of each row (largest or smallest), sorted; a single long row is split between threads, each
// keeping a heap of its k best.
#pragma once

#include "kernels/cpu/sort/common.h"

namespace yaten::native::cpu {

namespace sort_detail {
// The k best elements of x[0, n) by key (largest keys first, ties to the lower index), in that order.
template <typename scalar_t>
void select_best(const scalar_t* x, int64_t n, int64_t k, bool largest, int64_t* out_idx,
                 RowBuffers<key_t<scalar_t>>& buf) {
  using K = key_t<scalar_t>;
  using Entry = std::pair<K, int64_t>;
  const auto key = [largest](scalar_t v) { return largest ? sort_key(v) : K(~sort_key(v)); };
  const EntryBetter<K> better{};
  if (k * 16 > n) {  // a large share of the row: sort it all (descending by key, stable)
    buf.reserve(n);
    for (int64_t i = 0; i < n; ++i) buf.keys[i] = K(~key(x[i]));
    int64_t* idx = buf.idx.data();
    std::iota(idx, idx + n, int64_t(0));
    if (n <= kSmallRow) {
      std::stable_sort(idx, idx + n, KeyLess<K>{buf.keys.data()});
      std::copy(idx, idx + k, out_idx);
    } else {
      const auto sorted = radix_sort<K>(buf.keys.data(), buf.idx.data(), buf.keys_tmp.data(), buf.idx_tmp.data(), n);
      std::copy(sorted.second, sorted.second + k, out_idx);
    }
    return;
  }
  // A heap of the k best so far, its worst on top; one pass over the row, splitting a long row between threads.
  const int64_t chunks = n >= (int64_t(1) << 18) ? std::min<int64_t>(get_num_threads(), n >> 17) : 1;
  std::vector<std::vector<Entry>> heaps(chunks);
  const auto scan = [&](int64_t c) {
    const int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    std::vector<Entry>& heap = heaps[c];
    heap.reserve(k);
    int64_t i = b;
    for (; i < e && int64_t(heap.size()) < k; ++i) {
      heap.emplace_back(key(x[i]), i);
      std::push_heap(heap.begin(), heap.end(), better);
    }
    K worst = heap.empty() ? K(0) : heap.front().first;
    for (; i < e; ++i) {
      const K kv = key(x[i]);
      if (kv <= worst) continue;  // not better than the worst kept (ties keep the earlier index)
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.back() = Entry(kv, i);
      std::push_heap(heap.begin(), heap.end(), better);
      worst = heap.front().first;
    }
  };
  if (chunks == 1) {
    scan(0);
  } else {
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) scan(c);
    });
  }
  std::vector<Entry> all;
  for (auto& h : heaps) all.insert(all.end(), h.begin(), h.end());
  std::sort(all.begin(), all.end(), better);
  for (int64_t j = 0; j < k; ++j) out_idx[j] = all[j].second;
}
}  // namespace sort_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> topk_kernel(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // always sorted: an order is as good as any when unsorted results are asked for
  const int64_t d = sort_detail::wrap_dim("topk", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(k >= 0 && k <= len, IndexError, "topk(): selected index k out of range (k = ", k,
              ", but the dimension has ", len, " elements)");
  if (self.dim() == 0) k = 1;  // a 0-dim result holds the element whatever k is, as torch's
  return sort_detail::rowwise<scalar_t>("topk", self, d, k, false,
      [k, largest](const scalar_t* x, int64_t n, scalar_t* v, int64_t* ix, auto& buf) {
        if (k == 0) return;
        sort_detail::select_best<scalar_t>(x, n, k, largest, ix, buf);
        for (int64_t i = 0; i < k; ++i) v[i] = x[ix[i]];
      });
}

}  // namespace yaten::native::cpu
