// CUDA sorting and selection: sort, topk, kthvalue, median, nanmedian, mode, unique; and searchsorted and histc.
//
// Each op sorts the rows along its dim (moved last, contiguous) once: every value becomes its order-preserving key
// (kernels/sort_support.h, the CPU's; complemented for descending order) and the keys are sorted with their
// positions by cub::DeviceSegmentedSort::StableSortPairs, one segment per row. Stability gives the CPU's answer on
// ties (the earlier element first), so sort and topk return the CPU's indices, and kthvalue/median/nanmedian pick
// the CPU's element of the sorted row (median: the first NaN when there is one; nanmedian: the lower median of the
// numbers). Values are read from the input at the sorted positions, so NaN payloads and signed zeros come out as
// they went in. topk sorts the whole row, O(n log n) where a selection would do: a known cost, left for later.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <tuple>
#include <vector>

#include "core/wrap_dim.h"
#include "cuda/cuda_runtime.h"
#include "kernels/reduce_support.h"
#include "kernels/sort_support.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/amax.h"
#include "yaten/ops/amin.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/isnan.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/squeeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::native::cuda {

namespace sort_detail {

using sorting::key_t;

constexpr int kThreads = 256;

inline unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65536));
}

template <typename scalar_t>
__global__ void make_keys(const scalar_t* x, key_t<scalar_t>* keys, int64_t* positions, int64_t n, int64_t len,
                          bool descending) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const key_t<scalar_t> k = sorting::sort_key(x[i]);
    keys[i] = descending ? key_t<scalar_t>(~k) : k;
    positions[i] = i % len;
  }
}

// out[r, j] = x[r, positions[r, j]] for the first `take` of each row's `len` sorted positions.
template <typename scalar_t>
__global__ void take_sorted(const scalar_t* x, const int64_t* positions, scalar_t* values, int64_t* indices,
                            int64_t rows, int64_t len, int64_t take) {
  const int64_t n = rows * take;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t r = i / take, j = i % take;
    const int64_t p = positions[r * len + j];
    values[i] = x[r * len + p];
    indices[i] = p;
  }
}

// Which sorted position a selection takes: kth (rank k - 1), median (the first NaN, else the lower median), or
// nanmedian (the lower median of the numbers; the first NaN when all are NaN).
enum class Pick { Rank, Median, NanMedian };

template <typename scalar_t>
__global__ void pick_sorted(const scalar_t* x, const key_t<scalar_t>* keys, const int64_t* positions,
                            scalar_t* values, int64_t* indices, int64_t rows, int64_t len, Pick pick, int64_t rank) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  const key_t<scalar_t>* k = keys + r * len;
  int64_t nans = 0;
  while (nans < len && sorting::is_nan_key<scalar_t>(k[len - 1 - nans])) ++nans;  // NaNs sort last, in order
  int64_t at = rank;
  if (pick == Pick::Median) at = nans > 0 ? len - nans : (len - 1) / 2;
  if (pick == Pick::NanMedian) at = nans == len ? 0 : (len - nans - 1) / 2;
  const int64_t p = positions[r * len + at];
  values[r] = x[r * len + p];
  indices[r] = p;
}

// The rows of `layout` sorted: their keys and original positions, in sorted order.
struct Sorted {
  Tensor keys, positions;
};

template <typename scalar_t>
Sorted sort_rows(const char* op, const reduce_plan::RowLayout& layout, bool descending) {
  using K = key_t<scalar_t>;
  const int64_t n = layout.rows * layout.len;
  const Device device = layout.src.device();
  const ScalarType key_dtype = sizeof(K) == 8 ? ScalarType::Long : sizeof(K) == 4 ? ScalarType::Int
                               : sizeof(K) == 2 ? ScalarType::Short : ScalarType::Byte;  // bit containers
  Tensor keys_in = yaten::empty({n}, key_dtype, device), keys_out = yaten::empty({n}, key_dtype, device);
  Tensor pos_in = yaten::empty({n}, ScalarType::Long, device), pos_out = yaten::empty({n}, ScalarType::Long, device);
  if (n == 0) return {keys_out, pos_out};
  const int index = device.index;
  yaten::cuda::DeviceGuard guard(index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(index));
  make_keys<scalar_t><<<blocks_for(n), kThreads, 0, stream>>>(layout.src.data<scalar_t>(),
                                                              static_cast<K*>(keys_in.data_ptr()),
                                                              pos_in.data<int64_t>(), n, layout.len, descending);
  yaten::cuda::check_launch(op);
  const Tensor offsets = yaten::mul(yaten::arange(Scalar(layout.rows + 1), ScalarType::Long, device),
                                    Scalar(layout.len));
  const int64_t* off = offsets.data<int64_t>();
  size_t bytes = 0;
  cudaError_t err = cub::DeviceSegmentedSort::StableSortPairs(
      nullptr, bytes, static_cast<const K*>(keys_in.data_ptr()), static_cast<K*>(keys_out.data_ptr()),
      pos_in.data<int64_t>(), pos_out.data<int64_t>(), n, layout.rows, off, off + 1, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, op, ": cub segmented sort (size query) failed: ",
              cudaGetErrorString(err));
  Tensor temp = yaten::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::Byte, device);
  err = cub::DeviceSegmentedSort::StableSortPairs(
      temp.data_ptr(), bytes, static_cast<const K*>(keys_in.data_ptr()), static_cast<K*>(keys_out.data_ptr()),
      pos_in.data<int64_t>(), pos_out.data<int64_t>(), n, layout.rows, off, off + 1, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, op, ": cub segmented sort failed: ", cudaGetErrorString(err));
  return {keys_out, pos_out};
}

// The first `take` sorted elements of each row, back in self's layout (the dim where it was).
template <typename scalar_t>
std::tuple<Tensor, Tensor> sorted_prefix(const char* op, const Tensor& self, int64_t dim, bool descending,
                                         int64_t take) {
  const auto layout = reduce_plan::rows_along(op, self, dim);
  std::vector<int64_t> shape = layout.src.sizes();
  shape.back() = take;
  Tensor values = yaten::empty(shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(shape, ScalarType::Long, self.device());
  if (layout.rows > 0 && take > 0) {
    const Sorted s = sort_rows<scalar_t>(op, layout, descending);
    const int index = self.device().index;
    yaten::cuda::DeviceGuard guard(index);
    take_sorted<scalar_t><<<blocks_for(layout.rows * take), kThreads, 0,
                            static_cast<cudaStream_t>(yaten::cuda::current_stream(index))>>>(
        layout.src.data<scalar_t>(), s.positions.data<int64_t>(), values.data<scalar_t>(), indices.data<int64_t>(),
        layout.rows, layout.len, take);
    yaten::cuda::check_launch(op);
  }
  return {reduce_plan::from_rows(values, self, layout), reduce_plan::from_rows(indices, self, layout)};
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> select(const char* op, const Tensor& self, int64_t dim, bool keepdim, Pick pick,
                                  int64_t rank) {
  const int64_t d = wrap_dim(op, dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(len > 0, IndexError, op, "(): expected a non-empty dimension ", d, " to select from");
  const auto layout = reduce_plan::rows_along(op, self, d);
  std::vector<int64_t> shape = layout.src.sizes();
  shape.back() = 1;
  Tensor values = yaten::empty(shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(shape, ScalarType::Long, self.device());
  if (layout.rows > 0) {
    const Sorted s = sort_rows<scalar_t>(op, layout, false);
    const int index = self.device().index;
    yaten::cuda::DeviceGuard guard(index);
    pick_sorted<scalar_t><<<static_cast<unsigned>((layout.rows + kThreads - 1) / kThreads), kThreads, 0,
                            static_cast<cudaStream_t>(yaten::cuda::current_stream(index))>>>(
        layout.src.data<scalar_t>(), static_cast<const key_t<scalar_t>*>(s.keys.data_ptr()),
        s.positions.data<int64_t>(), values.data<scalar_t>(), indices.data<int64_t>(), layout.rows, layout.len, pick,
        rank);
    yaten::cuda::check_launch(op);
  }
  Tensor v = reduce_plan::from_rows(values, self, layout), i = reduce_plan::from_rows(indices, self, layout);
  if (!keepdim && self.dim() > 0) {
    v = yaten::squeeze(v, d);
    i = yaten::squeeze(i, d);
  }
  return {v, i};
}

// The insertion point of each value in its row of `seq` (the CPU's binary search on the sort keys).
template <typename scalar_t, typename out_t>
__global__ void search_rows(const scalar_t* seq, const scalar_t* x, out_t* out, int64_t n, int64_t len,
                            int64_t per_row, bool one_row, bool right) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const scalar_t* row = seq + (one_row ? 0 : (i / (per_row > 0 ? per_row : 1)) * len);
    const key_t<scalar_t> key = sorting::sort_key(x[i]);
    int64_t lo = 0, hi = len;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      const key_t<scalar_t> km = sorting::sort_key(row[mid]);
      if (right ? km <= key : km < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[i] = static_cast<out_t>(lo);
  }
}

// histc: each element in [lo, hi] adds one to its bin (the maximum to the last), with 64-bit atomic adds.
template <typename scalar_t>
__global__ void histogram(const scalar_t* x, int64_t n, scalar_t lo, scalar_t hi, int64_t bins,
                          unsigned long long* counts) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t b = sorting::histc_bin(x[i], lo, hi, bins);  // the CPU's arithmetic (kernels/sort_support.h)
    if (b >= 0) atomicAdd(counts + b, 1ull);
  }
}

// mode of each sorted row: the longest run of equal keys (NaNs never equal each other; ties: the first run, the
// smallest value) and the last position where its value occurs, as the CPU.
template <typename scalar_t>
__global__ void mode_rows(const scalar_t* x, const key_t<scalar_t>* keys, const int64_t* positions, scalar_t* values,
                          int64_t* indices, int64_t rows, int64_t len) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  const key_t<scalar_t>* k = keys + r * len;
  const int64_t* p = positions + r * len;
  int64_t best_len = 0, best_last = 0;
  for (int64_t i = 0; i < len;) {
    int64_t j = i + 1;
    if (!sorting::is_nan_key<scalar_t>(k[i])) {
      while (j < len && k[j] == k[i]) ++j;
    }
    if (j - i > best_len) {
      best_len = j - i;
      best_last = p[i];
      for (int64_t t = i + 1; t < j; ++t) best_last = p[t] > best_last ? p[t] : best_last;
    }
    i = j;
  }
  indices[r] = best_last;
  values[r] = x[r * len + best_last];
}

// unique: marks the sorted elements that start a new value (every NaN does) with 1.
template <typename scalar_t>
__global__ void unique_starts(const key_t<scalar_t>* keys, int64_t* starts, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    starts[i] = (i == 0 || sorting::is_nan_key<scalar_t>(keys[i]) || keys[i] != keys[i - 1]) ? 1 : 0;
  }
}
// With ids the inclusive scan of the starts (the 1-based number of each sorted element's value): the values, where
// each value's run starts, and each element's value number in its original place.
template <typename scalar_t>
__global__ void unique_write(const scalar_t* x, const int64_t* positions, const int64_t* starts, const int64_t* ids,
                             int64_t n, scalar_t* values, int64_t* run_starts, int64_t* inverse) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t u = ids[i] - 1;
    if (starts[i]) {
      values[u] = x[positions[i]];
      run_starts[u] = i;
    }
    if (inverse != nullptr) inverse[positions[i]] = u;
  }
}
__global__ void unique_counts(const int64_t* run_starts, int64_t m, int64_t n, int64_t* counts) {
  for (int64_t u = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; u < m; u += int64_t(blockDim.x) * gridDim.x) {
    counts[u] = (u + 1 < m ? run_starts[u + 1] : n) - run_starts[u];
  }
}

inline double host_value(const Tensor& t) {  // one element of a CUDA tensor, as double (waits for the device)
  return yaten::_to_copy(t, ScalarType::Double, Device()).data<double>()[0];
}

}  // namespace sort_detail

template <typename scalar_t>
Tensor searchsorted_kernel(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right) {
  YATEN_CHECK(sorted_sequence.device() == self.device(), RuntimeError, "searchsorted: expected both tensors on one "
              "device, but got ", sorted_sequence.device().str(), " and ", self.device().str());
  sorting::check_searchsorted("_searchsorted", sorted_sequence, self, true);
  const Tensor seq = yaten::contiguous(sorted_sequence);
  const Tensor values = yaten::contiguous(self);
  const int64_t len = seq.dim() == 0 ? 1 : seq.sizes().back();
  const int64_t per_row = seq.dim() <= 1 ? values.numel() : (values.dim() == 0 ? 1 : values.sizes().back());
  Tensor out = yaten::empty(self.sizes(), out_int32 ? ScalarType::Int : ScalarType::Long, self.device());
  const int64_t n = values.numel();
  if (n == 0) return out;
  const int index = self.device().index;
  yaten::cuda::DeviceGuard guard(index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(index));
  if (out_int32) {
    sort_detail::search_rows<scalar_t, int32_t><<<sort_detail::blocks_for(n), sort_detail::kThreads, 0, stream>>>(
        seq.data<scalar_t>(), values.data<scalar_t>(), out.data<int32_t>(), n, len, per_row, seq.dim() <= 1, right);
  } else {
    sort_detail::search_rows<scalar_t, int64_t><<<sort_detail::blocks_for(n), sort_detail::kThreads, 0, stream>>>(
        seq.data<scalar_t>(), values.data<scalar_t>(), out.data<int64_t>(), n, len, per_row, seq.dim() <= 1, right);
  }
  yaten::cuda::check_launch("searchsorted");
  return out;
}

// histc as on the CPU; the range, when taken from the data (min == max == 0), is read back to the host first.
template <typename scalar_t>
Tensor histc_kernel(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  const Tensor src = yaten::contiguous(self);
  const int64_t n = src.numel();
  double lo, hi;
  std::tie(lo, hi) = sorting::histc_range<scalar_t>(bins, min, max);
  if (lo == hi && n > 0) {
    // the CPU's rule: the range of the data, NaN when any element is NaN (amin and amax propagate NaN)
    lo = sort_detail::host_value(yaten::amin(src, {}, false));
    hi = sort_detail::host_value(yaten::amax(src, {}, false));
    sorting::check_histc_data_range(lo, hi);
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  Tensor counts = yaten::zeros({bins}, ScalarType::Long, self.device());
  if (n > 0) {
    const int index = self.device().index;
    yaten::cuda::DeviceGuard guard(index);
    sort_detail::histogram<scalar_t><<<sort_detail::blocks_for(n), sort_detail::kThreads, 0,
                                       static_cast<cudaStream_t>(yaten::cuda::current_stream(index))>>>(
        src.data<scalar_t>(), n, static_cast<scalar_t>(lo), static_cast<scalar_t>(hi), bins,
        reinterpret_cast<unsigned long long*>(counts.data<int64_t>()));
    yaten::cuda::check_launch("histc");
  }
  return yaten::_to_copy(yaten::_to_copy(counts, ScalarType::Float, std::nullopt), self.dtype(), std::nullopt);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> mode_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim("mode", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(len > 0, IndexError, "mode(): expected a non-empty dimension ", d);
  const auto layout = reduce_plan::rows_along("mode", self, d);
  std::vector<int64_t> shape = layout.src.sizes();
  shape.back() = 1;
  Tensor values = yaten::empty(shape, self.dtype(), self.device());
  Tensor indices = yaten::empty(shape, ScalarType::Long, self.device());
  if (layout.rows > 0) {
    const sort_detail::Sorted s = sort_detail::sort_rows<scalar_t>("mode", layout, false);
    const int index = self.device().index;
    yaten::cuda::DeviceGuard guard(index);
    sort_detail::mode_rows<scalar_t><<<static_cast<unsigned>((layout.rows + sort_detail::kThreads - 1) /
                                                             sort_detail::kThreads),
                                       sort_detail::kThreads, 0,
                                       static_cast<cudaStream_t>(yaten::cuda::current_stream(index))>>>(
        layout.src.data<scalar_t>(), static_cast<const sorting::key_t<scalar_t>*>(s.keys.data_ptr()),
        s.positions.data<int64_t>(), values.data<scalar_t>(), indices.data<int64_t>(), layout.rows, layout.len);
    yaten::cuda::check_launch("mode");
  }
  Tensor v = reduce_plan::from_rows(values, self, layout), i = reduce_plan::from_rows(indices, self, layout);
  if (!keepdim && self.dim() > 0) {
    v = yaten::squeeze(v, d);
    i = yaten::squeeze(i, d);
  }
  return {v, i};
}

// unique over all elements, sorted (one stable sort of every element, then a scan that numbers the values); the
// number of values is read back to size the results.
template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> unique_kernel(const Tensor& self, bool sorted, bool return_inverse,
                                                 bool return_counts) {
  (void)sorted;  // always sorted, as on the CPU
  using namespace sort_detail;
  const Tensor flat = yaten::reshape(yaten::contiguous(self), {-1});
  const int64_t n = flat.numel();
  Tensor inverse = yaten::empty(return_inverse ? self.sizes() : std::vector<int64_t>{0}, ScalarType::Long,
                                self.device());
  if (n == 0) {
    return {yaten::empty({0}, self.dtype(), self.device()), inverse,
            yaten::empty({0}, ScalarType::Long, self.device())};
  }
  const auto layout = reduce_plan::rows_along("unique", flat, 0);
  const Sorted s = sort_rows<scalar_t>("unique", layout, false);
  const int index = self.device().index;
  yaten::cuda::DeviceGuard guard(index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(index));
  Tensor starts = yaten::empty({n}, ScalarType::Long, self.device());
  Tensor ids = yaten::empty({n}, ScalarType::Long, self.device());
  unique_starts<scalar_t><<<blocks_for(n), kThreads, 0, stream>>>(
      static_cast<const key_t<scalar_t>*>(s.keys.data_ptr()), starts.data<int64_t>(), n);
  size_t bytes = 0;
  cudaError_t err = cub::DeviceScan::InclusiveSum(nullptr, bytes, starts.data<int64_t>(), ids.data<int64_t>(), n,
                                                  stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "unique: cub scan failed: ", cudaGetErrorString(err));
  Tensor temp = yaten::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::Byte, self.device());
  err = cub::DeviceScan::InclusiveSum(temp.data_ptr(), bytes, starts.data<int64_t>(), ids.data<int64_t>(), n, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "unique: cub scan failed: ", cudaGetErrorString(err));
  const int64_t m = static_cast<int64_t>(host_value(yaten::narrow(ids, 0, n - 1, 1)));
  Tensor values = yaten::empty({m}, self.dtype(), self.device());
  Tensor run_starts = yaten::empty({m}, ScalarType::Long, self.device());
  unique_write<scalar_t><<<blocks_for(n), kThreads, 0, stream>>>(
      layout.src.data<scalar_t>(), s.positions.data<int64_t>(), starts.data<int64_t>(), ids.data<int64_t>(), n,
      values.data<scalar_t>(), run_starts.data<int64_t>(), return_inverse ? inverse.data<int64_t>() : nullptr);
  Tensor counts = yaten::empty({return_counts ? m : 0}, ScalarType::Long, self.device());
  if (return_counts) {
    unique_counts<<<blocks_for(m), kThreads, 0, stream>>>(run_starts.data<int64_t>(), m, n, counts.data<int64_t>());
  }
  yaten::cuda::check_launch("unique");
  return {values, inverse, counts};
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> sort_kernel(const Tensor& self, int64_t dim, bool descending) {
  const int64_t d = wrap_dim("sort", dim, self.dim());
  return sort_detail::sorted_prefix<scalar_t>("sort", self, d, descending, self.dim() == 0 ? 1 : self.sizes()[d]);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> topk_kernel(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // always sorted, as on the CPU
  const int64_t d = wrap_dim("topk", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(k >= 0 && k <= len, IndexError, "topk(): selected index k out of range (k = ", k,
              ", but the dimension has ", len, " elements)");
  if (self.dim() == 0) k = 1;  // a 0-dim result holds the element whatever k is, as torch's
  return sort_detail::sorted_prefix<scalar_t>("topk", self, d, largest, k);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> kthvalue_kernel(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim("kthvalue", dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.sizes()[d];
  YATEN_CHECK(k >= 1 && k <= len, IndexError, "kthvalue(): selected number k out of range for dimension ", d,
              " (k = ", k, ", size ", len, ")");
  return sort_detail::select<scalar_t>("kthvalue", self, d, keepdim, sort_detail::Pick::Rank, k - 1);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> median_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return sort_detail::select<scalar_t>("median", self, dim, keepdim, sort_detail::Pick::Median, 0);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> nanmedian_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return sort_detail::select<scalar_t>("nanmedian", self, dim, keepdim, sort_detail::Pick::NanMedian, 0);
}

}  // namespace yaten::native::cuda
