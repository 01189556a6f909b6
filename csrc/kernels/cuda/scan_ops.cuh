// CUDA scans: cumsum, cumprod, cummax, cummin along one dim.
//
// The rows are the CPU's (reduce_plan::rows_along: the dim moved last, contiguous). Rows of up to 64 elements are
// scanned by one thread each, longer rows by a block each: cub::BlockScan over 256 elements at a time, with the
// running total carried from one stretch to the next. Accumulation is the CPU's: double for floats, int64 for
// integers and bool; cummax/cummin follow torch's rule (a NaN sticks, and a later NaN takes the index; ties take
// the later index), which is a maximum over (is NaN, value, index) and so an associative scan.
#pragma once

#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>
#include <optional>
#include <tuple>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "kernels/reduce_support.h"
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
  __device__ State identity() const { return kSum ? acc_t(0) : acc_t(1); }
  __device__ State load(scalar_t x, int64_t) const { return static_cast<acc_t>(static_cast<opmath_t<scalar_t>>(x)); }
  __device__ State operator()(State a, State b) const { return kSum ? a + b : a * b; }
};

template <typename scalar_t>
using key_t = std::conditional_t<std::is_integral_v<scalar_t> || std::is_same_v<scalar_t, bool>, int64_t, double>;

template <typename scalar_t>
struct Running {
  key_t<scalar_t> value;
  int64_t index;  // -1: nothing yet
};

// cummax/cummin: `a` comes before `b` in the row.
template <typename scalar_t, bool kMax>
struct CumExtreme {
  using State = Running<scalar_t>;
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

// Block `row` scans its row, kThreads elements at a time.
template <typename scalar_t, typename Scan, typename Store>
__global__ void __launch_bounds__(kThreads) scan_block_rows(const scalar_t* src, int64_t len, Scan scan,
                                                            Store store) {
  using State = typename Scan::State;
  using BlockScan = cub::BlockScan<State, kThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const int64_t row = blockIdx.x;
  State carry = scan.identity();
  for (int64_t base = 0; base < len; base += kThreads) {
    const int64_t k = base + threadIdx.x;
    const State x = k < len ? scan.load(src[row * len + k], k) : scan.identity();
    State y, total;
    BlockScan(temp).InclusiveScan(x, y, scan, total);
    __syncthreads();  // temp is reused by the next stretch
    if (k < len) store(row * len + k, scan(carry, y));
    carry = scan(carry, total);
  }
}

template <typename scalar_t, typename Scan, typename Store>
void run(const char* op, const reduce_plan::RowLayout& layout, Scan scan, Store store) {
  if (layout.rows == 0 || layout.len == 0) return;
  const int device = layout.src.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
  const scalar_t* src = layout.src.data<scalar_t>();
  if (layout.len <= kThreadRowMax) {
    scan_thread_rows<scalar_t><<<static_cast<unsigned>((layout.rows + kThreads - 1) / kThreads), kThreads, 0,
                                 stream>>>(src, layout.rows, layout.len, scan, store);
  } else {
    YATEN_CHECK(layout.rows < (int64_t(1) << 31), RuntimeError, op, ": too many rows for one launch");
    scan_block_rows<scalar_t><<<static_cast<unsigned>(layout.rows), kThreads, 0, stream>>>(src, layout.len, scan,
                                                                                          store);
  }
  yaten::cuda::check_launch(op);
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
  return scan_detail::cumulative<scalar_t, true>("cumsum", self, dim, dtype);
}
template <typename scalar_t>
Tensor cumprod_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_detail::cumulative<scalar_t, false>("cumprod", self, dim, dtype);
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
