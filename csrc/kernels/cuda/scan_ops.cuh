// CUDA scans: cumsum, cumprod, cummax, cummin along one dim.
//
// The rows are the CPU's (reduce_plan::rows_along: the dim moved last, contiguous). Rows of up to 64 elements are
// scanned by one thread each, longer rows in chunks of a block each (cub::BlockScan over 2048 elements at a time,
// the running total carried from one stretch to the next, and between chunks by a reduce-then-scan; see below), and
// up to four rows of a million or more (cumsum of floating dtypes) by cub::DeviceScan, in one pass over memory as
// torch's. Accumulation is the CPU's: double for floats, int64 for integers and bool; cummax/cummin follow torch's
// rule (a NaN sticks, and a later NaN takes the index; ties take the later index), which is a maximum over (is NaN,
// value, index) and so an associative scan.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <optional>
#include <tuple>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "kernels/reduce_support.h"
#include "kernels/special_math.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace scan_detail {

constexpr int kThreads = 256;
constexpr int64_t kThreadRowMax = 64;  // rows up to this long: one thread each

template <typename T>
__device__ __host__ T to_out(double v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// cumsum/cumprod: the state is the running total, in double or int64.
template <typename scalar_t, bool kSum>
struct Cumulative {
  using acc_t = std::conditional_t<std::is_integral_v<scalar_t> || std::is_same_v<scalar_t, bool>, int64_t, double>;
  using State = acc_t;
  // cumsum of floating dtypes into their own dtype may take cub::DeviceScan (below): each instantiation of it costs
  // a second of build, so the other cases keep the blocks' passes.
  static constexpr bool kDeviceScan = kSum && std::is_same_v<acc_t, double>;
  __device__ State identity() const { return kSum ? acc_t(0) : acc_t(1); }
  __device__ State load(scalar_t x, int64_t) const { return static_cast<acc_t>(static_cast<opmath_t<scalar_t>>(x)); }
  __device__ State operator()(State a, State b) const { return kSum ? a + b : a * b; }
};

// logcumsumexp: the running log-sum-exp in double, combined with logaddexp's functor (associative: the order of
// the block scan's combinations changes only rounding). The combination is called out of line, one body for every
// dtype (Note [Heavy functors out of line], iter/cuda_loops.cuh): a block scan combines states at some twenty
// places per thread, and inlined there, logaddexp's exp and log1p made logcumsumexp's four dtypes 40% of
// scan_ops.cu's PTX.
struct LogAddExpDouble {
  static __device__ __noinline__ double combine(double a, double b) { return LogaddexpOp<double>{}(a, b); }
};

template <typename scalar_t>
struct LogCumSumExp {
  using State = double;
  static constexpr bool kDeviceScan = false;
  __device__ State identity() const { return -std::numeric_limits<double>::infinity(); }
  __device__ State load(scalar_t x, int64_t) const { return static_cast<double>(static_cast<opmath_t<scalar_t>>(x)); }
  __device__ State operator()(State a, State b) const { return LogAddExpDouble::combine(a, b); }
};

// uint64 compares as itself: in int64, values at and above 2^63 would be negative
template <typename scalar_t>
using key_t = std::conditional_t<
    std::is_same_v<scalar_t, uint64_t>, uint64_t,
    std::conditional_t<std::is_integral_v<scalar_t> || std::is_same_v<scalar_t, bool>, int64_t, double>>;

template <typename scalar_t>
struct Running {
  key_t<scalar_t> value;
  int64_t index;  // -1: nothing yet
};

// cummax/cummin: `a` comes before `b` in the row.
template <typename scalar_t, bool kMax>
struct CumExtreme {
  using State = Running<scalar_t>;
  static constexpr bool kDeviceScan = false;
  __device__ State identity() const { return {key_t<scalar_t>(0), -1}; }
  __device__ State load(scalar_t x, int64_t k) const {
    return {static_cast<key_t<scalar_t>>(static_cast<opmath_t<scalar_t>>(x)), k};
  }
  __device__ State operator()(const State& a, const State& b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    if (b.value != b.value) return b;  // a later NaN takes over
    if (a.value != a.value) return a;  // an earlier NaN sticks
    return (kMax ? b.value >= a.value : b.value <= a.value) ? b : a;
  }
};

// Thread `row` scans its row.
template <typename scalar_t, typename Scan, typename Store>
__global__ void __launch_bounds__(kThreads) scan_thread_rows(const scalar_t* src, int64_t rows, int64_t len, Scan scan,
                                                             Store store) {
  const int64_t row = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (row >= rows) return;
  typename Scan::State acc = scan.identity();
  for (int64_t k = 0; k < len; ++k) {
    acc = scan(acc, scan.load(src[row * len + k], k));
    store(row * len + k, acc);
  }
}

// ---- long rows: chunks of a row scanned by one block each, in up to three passes
//
// A row too long for one block to scan at memory speed (a few rows, or one of 128M elements) is cut into chunks,
// one block each: pass 1 reduces each chunk to its total, pass 2 scans each row's totals into the carry that enters
// each chunk, pass 3 scans each chunk again from its carry and stores. That reads the input twice and writes once
// (torch's single-pass decoupled look-back reads it once); when the rows alone fill the GPU, a chunk is the whole
// row and pass 3 alone runs. A block takes kItems consecutive elements per thread per stretch (a blocked
// arrangement, loaded through a warp transpose so the loads coalesce), so that enough loads are in flight.

constexpr int kItems = 8;
constexpr int64_t kStretch = int64_t(kThreads) * kItems;

template <typename scalar_t, typename State>
struct ChunkTypes {
  using Load = cub::BlockLoad<scalar_t, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<State, kThreads>;
  union Temp {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
  };
};

// Thread t's kItems elements of the stretch at `base` (row-relative), as states, and their in-order total.
template <typename scalar_t, typename Scan, typename Temp>
__device__ typename Scan::State load_stretch(const scalar_t* row_src, int64_t base, int64_t end, Scan scan,
                                             Temp& temp, typename Scan::State (&items)[kItems]) {
  using Types = ChunkTypes<scalar_t, typename Scan::State>;
  scalar_t raw[kItems];
  const int valid = static_cast<int>(end - base < kStretch ? end - base : kStretch);
  if (valid == kStretch) {
    typename Types::Load(temp.load).Load(row_src + base, raw);
  } else {
    typename Types::Load(temp.load).Load(row_src + base, raw, valid, scalar_t{});
  }
  __syncthreads();  // temp is reused by the scan
  typename Scan::State total = scan.identity();
  for (int i = 0; i < kItems; ++i) {
    const int64_t k = base + threadIdx.x * kItems + i;
    items[i] = k < end ? scan.load(raw[i], k) : scan.identity();
    total = scan(total, items[i]);
  }
  return total;
}

// Pass 1: block b reduces chunk b % chunks of row b / chunks to totals[b].
template <typename scalar_t, typename Scan>
__global__ void __launch_bounds__(kThreads) scan_chunk_totals(const scalar_t* src, int64_t len, int64_t chunks,
                                                              int64_t chunk, Scan scan,
                                                              typename Scan::State* totals) {
  using State = typename Scan::State;
  using Types = ChunkTypes<scalar_t, State>;
  __shared__ typename Types::Temp temp;
  const int64_t row = blockIdx.x / chunks, begin = (blockIdx.x % chunks) * chunk;
  const int64_t end = begin + chunk < len ? begin + chunk : len;
  State carry = scan.identity();
  for (int64_t base = begin; base < end; base += kStretch) {
    State items[kItems];
    const State mine = load_stretch<scalar_t>(src + row * len, base, end, scan, temp, items);
    State before, total;
    typename Types::Scan(temp.scan).InclusiveScan(mine, before, scan, total);
    __syncthreads();
    carry = scan(carry, total);
  }
  if (threadIdx.x == 0) totals[blockIdx.x] = carry;
}

// Pass 2: block `row` turns the row's chunk totals into the carry entering each chunk (an exclusive scan).
template <typename Scan>
__global__ void __launch_bounds__(kThreads) scan_chunk_carries(typename Scan::State* totals, int64_t chunks,
                                                               Scan scan) {
  using State = typename Scan::State;
  using BlockScan = cub::BlockScan<State, kThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  State* row = totals + blockIdx.x * chunks;
  State carry = scan.identity();
  for (int64_t base = 0; base < chunks; base += kThreads) {
    const int64_t k = base + threadIdx.x;
    const State x = k < chunks ? row[k] : scan.identity();
    State before, total;
    BlockScan(temp).ExclusiveScan(x, before, scan.identity(), scan, total);
    __syncthreads();
    if (k < chunks) row[k] = scan(carry, before);
    carry = scan(carry, total);
  }
}

// Pass 3: block b scans its chunk from carries[b] (the identity without carries) and stores every prefix.
template <typename scalar_t, typename Scan, typename Store>
__global__ void __launch_bounds__(kThreads) scan_chunks(const scalar_t* src, int64_t len, int64_t chunks,
                                                        int64_t chunk, Scan scan,
                                                        const typename Scan::State* carries, Store store) {
  using State = typename Scan::State;
  using Types = ChunkTypes<scalar_t, State>;
  __shared__ typename Types::Temp temp;
  const int64_t row = blockIdx.x / chunks, begin = (blockIdx.x % chunks) * chunk;
  const int64_t end = begin + chunk < len ? begin + chunk : len;
  State carry = carries != nullptr ? carries[blockIdx.x] : scan.identity();
  for (int64_t base = begin; base < end; base += kStretch) {
    State items[kItems];
    const State mine = load_stretch<scalar_t>(src + row * len, base, end, scan, temp, items);
    State before, total;
    typename Types::Scan(temp.scan).ExclusiveScan(mine, before, scan.identity(), scan, total);
    __syncthreads();
    State running = scan(carry, before);
    for (int i = 0; i < kItems; ++i) {
      const int64_t k = base + threadIdx.x * kItems + i;
      running = scan(running, items[i]);
      if (k < end) store(row * len + k, running);
    }
    carry = scan(carry, total);
  }
}

template <typename out_t, typename acc_t>
struct TotalStore {
  out_t* out;
  __device__ void operator()(int64_t at, acc_t v) const {
    if constexpr (std::is_integral_v<acc_t>) {
      out[at] = static_cast<out_t>(v);
    } else {
      out[at] = to_out<out_t>(v);
    }
  }
};

// ---- a few very long rows of cumsum: cub::DeviceScan, one pass per row
//
// Its decoupled look-back reads the row once and writes it once, as torch's CUDA cumsum does; the blocks' pass 1 to
// 3 above read it twice. It serves cumsum of floating dtypes (Cumulative::kDeviceScan), one row at a time, so only
// rows long enough to fill the GPU alone take it.
constexpr int64_t kDeviceScanMinLen = int64_t(1) << 20;
constexpr int64_t kDeviceScanMaxRows = 4;

template <typename scalar_t, typename Scan>
struct LoadState {  // an element as the scan's state (cumsum/cumprod ignore the position)
  Scan scan;
  __device__ typename Scan::State operator()(scalar_t x) const { return scan.load(x, 0); }
};

template <typename Store>
struct StoreAt {  // the row's k-th prefix to element offset + k of the output
  Store store;
  int64_t offset;
  template <typename State>
  __device__ void operator()(int64_t k, const State& v) const {
    store(offset + k, v);
  }
};

template <typename scalar_t, typename Scan, typename Store>
void device_scan_rows(const char* op, const scalar_t* src, int64_t rows, int64_t len, Scan scan, Store store,
                      const Tensor& like, cudaStream_t stream) {
  using State = typename Scan::State;
  const auto in = [&](int64_t row) {
    return thrust::transform_iterator<LoadState<scalar_t, Scan>, const scalar_t*, State>(
        src + row * len, LoadState<scalar_t, Scan>{scan});
  };
  const auto out = [&](int64_t row) {
    return thrust::make_tabulate_output_iterator(StoreAt<Store>{store, row * len});
  };
  size_t bytes = 0;
  YATEN_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, in(0), out(0), scan, len, stream) == cudaSuccess,
              RuntimeError, op, ": cub::DeviceScan could not plan the scan");
  const Tensor temp = yaten::empty({static_cast<int64_t>(std::max<size_t>(bytes, 1))}, ScalarType::Byte,
                                   like.device());
  for (int64_t row = 0; row < rows; ++row) {
    size_t used = bytes;
    YATEN_CHECK(cub::DeviceScan::InclusiveScan(temp.data_ptr(), used, in(row), out(row), scan, len, stream) ==
                    cudaSuccess,
                RuntimeError, op, ": cub::DeviceScan failed");
  }
  yaten::cuda::check_launch(op);
}

template <typename scalar_t, typename Scan, typename Store>
void run(const char* op, const reduce_plan::RowLayout& layout, Scan scan, Store store) {
  using State = typename Scan::State;
  if (layout.rows == 0 || layout.len == 0) return;
  const int device = layout.src.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
  const scalar_t* src = layout.src.data<scalar_t>();
  const int64_t rows = layout.rows, len = layout.len;
  if (len <= kThreadRowMax) {
    scan_thread_rows<scalar_t><<<static_cast<unsigned>((rows + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        src, rows, len, scan, store);
    yaten::cuda::check_launch(op);
    return;
  }
  if constexpr (Scan::kDeviceScan && std::is_same_v<Store, TotalStore<scalar_t, State>>) {
    if (rows <= kDeviceScanMaxRows && len >= kDeviceScanMinLen) {
      device_scan_rows<scalar_t>(op, src, rows, len, scan, store, layout.src, stream);
      return;
    }
  }
  // Enough blocks for four per multiprocessor, but no chunk shorter than four stretches.
  const int64_t target = 4 * int64_t(yaten::cuda::multiprocessor_count(device));
  int64_t chunks = 1;
  if (rows < target) chunks = std::max<int64_t>(1, std::min((target + rows - 1) / rows, len / (4 * kStretch)));
  const int64_t chunk = (len + chunks - 1) / chunks;
  chunks = (len + chunk - 1) / chunk;
  YATEN_CHECK(rows * chunks < (int64_t(1) << 31), RuntimeError, op, ": too many rows for one launch");
  const auto blocks = static_cast<unsigned>(rows * chunks);
  State* carries = nullptr;
  Tensor buffer;
  if (chunks > 1) {
    buffer = yaten::empty({static_cast<int64_t>(rows * chunks * sizeof(State))}, ScalarType::Byte,
                          layout.src.device());
    carries = static_cast<State*>(buffer.data_ptr());
    scan_chunk_totals<scalar_t><<<blocks, kThreads, 0, stream>>>(src, len, chunks, chunk, scan, carries);
    scan_chunk_carries<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(carries, chunks, scan);
  }
  scan_chunks<scalar_t><<<blocks, kThreads, 0, stream>>>(src, len, chunks, chunk, scan, carries, store);
  yaten::cuda::check_launch(op);
}

template <typename scalar_t>
struct RunningStore {
  scalar_t* values;
  int64_t* indices;
  __device__ void operator()(int64_t at, const Running<scalar_t>& r) const {
    values[at] = static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(r.value));
    indices[at] = r.index;
  }
};

template <typename scalar_t, bool kSum>
Tensor cumulative(const char* op, const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  const Tensor self = reduce_plan::as_compute_type<scalar_t>(input);
  const ScalarType out_dtype = dtype.value_or(is_integral(input.dtype(), true) ? ScalarType::Long : input.dtype());
  const auto layout = reduce_plan::rows_along(op, self, dim);
  Tensor out = yaten::empty(layout.src.sizes(), out_dtype, self.device());
  using S = Cumulative<scalar_t, kSum>;
  if (out_dtype == scalar_type_of<scalar_t>) {
    run<scalar_t>(op, layout, S{}, TotalStore<scalar_t, typename S::acc_t>{out.data<scalar_t>()});
  } else {
    YATEN_CHECK(out_dtype == ScalarType::Long, RuntimeError, op, ": unexpected result dtype ", dtype_name(out_dtype));
    run<scalar_t>(op, layout, S{}, TotalStore<int64_t, typename S::acc_t>{out.data<int64_t>()});
  }
  return reduce_plan::from_rows(out, self, layout);
}

template <typename scalar_t>
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  const auto layout = reduce_plan::rows_along("logcumsumexp", self, dim);
  Tensor out = yaten::empty(layout.src.sizes(), self.dtype(), self.device());
  run<scalar_t>("logcumsumexp", layout, LogCumSumExp<scalar_t>{}, TotalStore<scalar_t, double>{out.data<scalar_t>()});
  return reduce_plan::from_rows(out, self, layout);
}

template <typename scalar_t, bool kMax>
std::tuple<Tensor, Tensor> cum_extreme(const char* op, const Tensor& self, int64_t dim) {
  const auto layout = reduce_plan::rows_along(op, self, dim);
  Tensor values = yaten::empty(layout.src.sizes(), self.dtype(), self.device());
  Tensor indices = yaten::empty(layout.src.sizes(), ScalarType::Long, self.device());
  run<scalar_t>(op, layout, CumExtreme<scalar_t, kMax>{},
                RunningStore<scalar_t>{values.data<scalar_t>(), indices.data<int64_t>()});
  return {reduce_plan::from_rows(values, self, layout), reduce_plan::from_rows(indices, self, layout)};
}

}  // namespace scan_detail

template <typename scalar_t>
Tensor cumsum_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  reduce_plan::check_cumulative_dtype("cumsum", self, dtype);
  return scan_detail::cumulative<scalar_t, true>("cumsum", self, dim, dtype);
}
template <typename scalar_t>
Tensor cumprod_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  reduce_plan::check_cumulative_dtype("cumprod", self, dtype);
  return scan_detail::cumulative<scalar_t, false>("cumprod", self, dim, dtype);
}
template <typename scalar_t>
Tensor logcumsumexp_kernel(const Tensor& self, int64_t dim) {
  return scan_detail::logcumsumexp<scalar_t>(self, dim);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> cummax_kernel(const Tensor& self, int64_t dim) {
  return scan_detail::cum_extreme<scalar_t, true>("cummax", self, dim);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> cummin_kernel(const Tensor& self, int64_t dim) {
  return scan_detail::cum_extreme<scalar_t, false>("cummin", self, dim);
}

}  // namespace yaten::native::cuda
