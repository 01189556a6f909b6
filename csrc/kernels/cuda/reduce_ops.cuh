// CUDA reductions: sum, mean, prod, amax, amin, all, any, over any dims, with keepdim and dtype=.
//
// The layout is the CPU's (kernels/reduce_support.h): reduced dims last, one contiguous row per output element, or,
// for a contiguous tensor reduced over its leading dims, one column per output. Rows are reduced by a warp (short
// rows) or a block (long ones), with 16-byte loads where aligned, and combined through warp shuffles and shared
// memory. When there are too few rows to fill the GPU (a full reduction is one row), each row is cut into segments,
// as many as fill one wave of blocks (cuda/occupancy.cuh), whose partial results a second launch combines: a
// block-then-grid reduction without a host round trip.
// Accumulation follows torch: float for float16/bfloat16/float32, double for float64, int64 for integers.
#pragma once

#include <cuda_runtime.h>

#include <limits>
#include <optional>
#include <vector>

#include "core/convert.h"
#include "cuda/cuda_runtime.h"
#include "cuda/occupancy.cuh"
#include "kernels/reduce_support.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace reduce_detail {
using reduce_plan::acc_type;
using reduce_plan::as_compute_type;

template <typename acc_t>
struct SumReducer {
  using acc = acc_t;
  static __device__ acc_t identity() { return acc_t(0); }
  template <typename T>
  static __device__ acc_t load(T x) { return convert<acc_t>(x); }
  static __device__ acc_t combine(acc_t a, acc_t b) { return a + b; }
};
template <typename acc_t>
struct ProdReducer {
  using acc = acc_t;
  static __device__ acc_t identity() { return acc_t(1); }
  template <typename T>
  static __device__ acc_t load(T x) { return convert<acc_t>(x); }
  static __device__ acc_t combine(acc_t a, acc_t b) { return a * b; }
};
// amax/amin: NaN wins, as in torch.
template <typename acc_t, bool kMax>
struct ExtremeReducer {
  using acc = acc_t;
  static __device__ acc_t identity() {
    if constexpr (std::is_integral_v<acc_t>) {
      return kMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
    } else {
      return kMax ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    }
  }
  template <typename T>
  static __device__ acc_t load(T x) { return convert<acc_t>(x); }
  static __device__ acc_t combine(acc_t a, acc_t b) {
    const acc_t m = kMax ? (a > b ? a : b) : (a < b ? a : b);
    if constexpr (std::is_integral_v<acc_t>) {
      return m;
    } else {
      return (a != a || b != b) ? a + b : m;  // branch-free: a NaN operand makes the sum NaN
    }
  }
};
// all/any: an int of 0 or 1 per element ("nonzero is true"), combined with and/or.
template <bool kAll>
struct LogicalReducer {
  using acc = int;
  static __device__ int identity() { return kAll ? 1 : 0; }
  template <typename T>
  static __device__ int load(T x) { return static_cast<opmath_t<T>>(x) != opmath_t<T>(0); }
  static __device__ int combine(int a, int b) { return kAll ? (a & b) : (a | b); }
};

constexpr int kThreads = 256;

template <typename R>
__device__ typename R::acc warp_combine(typename R::acc v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = R::combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

// Row r of `rows * segments` reduces segment s = r % segments of row r / segments with TPR threads and writes the
// result, times `scale` when it is not 1, to dst[r]. Segment s is the row's tiles s, s + segments, s + 2 * segments,
// ... of TPR 16-byte packs each (and the row's last few elements when s is 0), so that all blocks stream through a
// row together: with a contiguous stretch of the row per block, sum() of 128M float32 read 3.77 TB/s on an H200,
// interleaved 4.26 TB/s (torch 4.14).
template <typename in_t, typename R, int TPR>
__global__ void __launch_bounds__(kThreads) reduce_rows(const in_t* src, typename R::acc* dst, int64_t rows,
                                                        int64_t len, int64_t segments, double scale) {
  using acc_t = typename R::acc;
  constexpr int kRowsPerBlock = kThreads / TPR;
  __shared__ acc_t shared[kThreads / 32];
  const int64_t r = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / TPR;
  const int lane = threadIdx.x % TPR;
  acc_t acc = R::identity();
  if (r < rows * segments) {
    const int64_t row = r / segments, s = r % segments;
    const in_t* p = src + row * len;
    // p[first], p[first + step], ...: 16-byte packs where the row is aligned, else elements
    int64_t first = s * TPR + lane, step = segments * TPR;
    constexpr int V = sizeof(in_t) <= 16 ? 16 / sizeof(in_t) : 1;
    int64_t done = 0;
    if (V > 1 && reinterpret_cast<uintptr_t>(p) % 16 == 0) {
      struct alignas(16) Pack { in_t v[V]; };
      const Pack* packs = reinterpret_cast<const Pack*>(p);
      const int64_t npacks = len / V;
      acc_t lanes[V];  // one accumulator per vector lane: independent chains, so the combines pipeline
#pragma unroll
      for (int k = 0; k < V; ++k) lanes[k] = R::identity();
      int64_t i = first;
      for (; i + 3 * step < npacks; i += 4 * step) {  // four loads in flight per thread
        Pack pack[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) pack[u] = packs[i + u * step];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
#pragma unroll
          for (int k = 0; k < V; ++k) lanes[k] = R::combine(lanes[k], R::load(pack[u].v[k]));
        }
      }
      for (; i < npacks; i += step) {
        const Pack pack = packs[i];
#pragma unroll
        for (int k = 0; k < V; ++k) lanes[k] = R::combine(lanes[k], R::load(pack.v[k]));
      }
#pragma unroll
      for (int k = 0; k < V; ++k) acc = R::combine(acc, lanes[k]);
      done = npacks * V;
      first = s == 0 ? lane : len;  // the elements after the last whole pack: segment 0's
      step = TPR;
    }
    for (int64_t i = done + first; i < len; i += step) acc = R::combine(acc, R::load(p[i]));
  }
  acc = warp_combine<R>(acc);
  if constexpr (TPR > 32) {
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) shared[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = threadIdx.x < TPR / 32 ? shared[threadIdx.x] : R::identity();
      acc = warp_combine<R>(acc);
    }
  }
  if (lane == 0 && r < rows * segments) {
    if (scale != 1.0) acc = static_cast<acc_t>(acc * scale);
    dst[r] = acc;
  }
}

// Column j of `width` reduces rows [slice * per_slice, ...) of a row-major (rows, width) block into
// dst[slice * width + j]: the threads of a warp read consecutive columns, so every load is coalesced.
template <typename in_t, typename R>
__global__ void __launch_bounds__(kThreads) reduce_columns(const in_t* src, typename R::acc* dst, int64_t rows,
                                                           int64_t width, int64_t per_slice, double scale) {
  using acc_t = typename R::acc;
  const int64_t j = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (j >= width) return;
  const int64_t begin = int64_t(blockIdx.y) * per_slice;
  const int64_t end = begin + per_slice < rows ? begin + per_slice : rows;
  acc_t acc = R::identity();
  for (int64_t i = begin; i < end; ++i) acc = R::combine(acc, R::load(src[i * width + j]));
  if (scale != 1.0) acc = static_cast<acc_t>(acc * scale);
  dst[int64_t(blockIdx.y) * width + j] = acc;
}


template <typename in_t, typename R>
void launch_rows(const in_t* src, typename R::acc* dst, int64_t rows, int64_t len, int64_t segments, double scale,
                 cudaStream_t stream) {
  const int64_t total = rows * segments;
  if (total == 0) return;
  if (len >= 1024) {
    reduce_rows<in_t, R, kThreads><<<static_cast<unsigned>(total), kThreads, 0, stream>>>(
        src, dst, rows, len, segments, scale);
  } else {
    constexpr int kPerBlock = kThreads / 32;
    reduce_rows<in_t, R, 32><<<static_cast<unsigned>((total + kPerBlock - 1) / kPerBlock), kThreads, 0, stream>>>(
        src, dst, rows, len, segments, scale);
  }
}

// The reduction of `self` (already in its compute dtype) over `dims` with R, times `scale(n)` for n elements per
// output; the result is in R's accumulation dtype, converted to `out_dtype` when that differs.
template <typename scalar_t, typename R, typename Scale>
Tensor reduce(const char* op, const Tensor& self, const std::vector<int64_t>& dims, bool keepdim,
              ScalarType out_dtype, bool nonempty, Scale scale_of) {
  using acc_t = typename R::acc;
  const int device = self.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
  const ScalarType acc_dtype = scalar_type_of<acc_t>;
  const int target_blocks = 8 * yaten::cuda::multiprocessor_count(device);
  Tensor result;
  const auto lp = reduce_plan::leading_plan(self, dims);
  if (lp.applies) {
    YATEN_CHECK(!nonempty || lp.rows > 0 || lp.width == 0, IndexError, op,
                "(): Expected reduction dim to have non-zero size.");
    result = yaten::empty(reduce_plan::leading_out_shape(self, static_cast<int64_t>(dims.size()), keepdim),
                          acc_dtype, self.device());
    const double scale = scale_of(lp.rows);
    const int64_t column_blocks = (lp.width + kThreads - 1) / kThreads;
    int64_t slices = 1;
    if (column_blocks < target_blocks && lp.rows >= 64) {
      slices = std::min<int64_t>((target_blocks + column_blocks - 1) / column_blocks, (lp.rows + 31) / 32);
    }
    const int64_t per_slice = (lp.rows + slices - 1) / slices;
    if (lp.width > 0) {
      if (slices == 1) {
        reduce_columns<scalar_t, R><<<dim3(unsigned(column_blocks), 1), kThreads, 0, stream>>>(
            self.data<scalar_t>(), result.data<acc_t>(), lp.rows, lp.width, per_slice, scale);
      } else {
        Tensor partial = yaten::empty({slices, lp.width}, acc_dtype, self.device());
        reduce_columns<scalar_t, R><<<dim3(unsigned(column_blocks), unsigned(slices)), kThreads, 0, stream>>>(
            self.data<scalar_t>(), partial.data<acc_t>(), lp.rows, lp.width, per_slice, 1.0);
        reduce_columns<acc_t, R><<<dim3(unsigned(column_blocks), 1), kThreads, 0, stream>>>(
            partial.data<acc_t>(), result.data<acc_t>(), slices, lp.width, slices, scale);
      }
    }
  } else {
    const auto p = reduce_plan::plan(op, self, dims, keepdim);
    YATEN_CHECK(!nonempty || p.inner > 0 || p.outer == 0, IndexError, op,
                "(): Expected reduction dim to have non-zero size.");
    result = yaten::empty(p.out_shape, acc_dtype, self.device());
    const double scale = scale_of(p.inner);
    const int64_t rows_per_block = p.inner >= 1024 ? 1 : kThreads / 32;
    const int64_t row_blocks = (p.outer + rows_per_block - 1) / rows_per_block;
    int64_t segments = 1;
    if (p.inner >= 8192) {  // one block per row (segment): cut rows into segments to fill one wave, not more
      const int64_t wave = yaten::cuda::full_wave(reduce_rows<scalar_t, R, kThreads>, kThreads, device);
      if (row_blocks < wave) segments = std::max<int64_t>(1, std::min(wave / row_blocks, p.inner / 4096));
    }
    if (segments == 1) {
      launch_rows<scalar_t, R>(p.src.data<scalar_t>(), result.data<acc_t>(), p.outer, p.inner, 1, scale, stream);
    } else {
      Tensor partial = yaten::empty({p.outer, segments}, acc_dtype, self.device());
      launch_rows<scalar_t, R>(p.src.data<scalar_t>(), partial.data<acc_t>(), p.outer, p.inner, segments, 1.0,
                               stream);
      launch_rows<acc_t, R>(partial.data<acc_t>(), result.data<acc_t>(), p.outer, segments, 1, scale, stream);
    }
  }
  yaten::cuda::check_launch(op);
  return out_dtype == acc_dtype ? result : yaten::_to_copy(result, out_dtype, std::nullopt);
}

inline double no_scale(int64_t) { return 1.0; }

inline ScalarType sum_dtype(const Tensor& input, std::optional<ScalarType> dtype) {
  return dtype.value_or(is_integral(input.dtype(), true) ? ScalarType::Long : input.dtype());
}
template <typename scalar_t, bool kAll>
Tensor all_any(const char* op, const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const ScalarType out_dtype = self.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  return reduce<scalar_t, LogicalReducer<kAll>>(op, self, dims, keepdim, out_dtype, false, no_scale);
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor sum_dim_kernel(const Tensor& input, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                      std::optional<ScalarType> dtype) {
  const std::vector<int64_t> dim = dims.value_or(std::vector<int64_t>{});  // None: every dim
  using namespace reduce_detail;
  const Tensor self = as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_reduction("sum", self, dim, [&](const Tensor& real, const std::vector<int64_t>& dims) {
      return sum_dim_kernel<real_of_t<scalar_t>>(real, dims, keepdim, std::nullopt);
    });
  } else {
    return reduce<scalar_t, SumReducer<acc_type<scalar_t>>>("sum", self, dim, keepdim, sum_dtype(self, dtype), false,
                                                            no_scale);
  }
}
template <typename scalar_t>
Tensor sum_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_dim_kernel<scalar_t>(self, {}, false, dtype);
}
template <typename scalar_t>
Tensor mean_dim_kernel(const Tensor& input, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                       std::optional<ScalarType>) {
  const std::vector<int64_t> dim = dims.value_or(std::vector<int64_t>{});  // None: every dim
  using namespace reduce_detail;
  const Tensor self = as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_reduction("mean", self, dim, [&](const Tensor& real, const std::vector<int64_t>& dims) {
      return mean_dim_kernel<real_of_t<scalar_t>>(real, dims, keepdim, std::nullopt);
    });
  } else {
    return reduce<scalar_t, SumReducer<acc_type<scalar_t>>>("mean", self, dim, keepdim, self.dtype(), false,
                                                            [](int64_t n) { return n == 0 ? NAN : 1.0 / double(n); });
  }
}
template <typename scalar_t>
Tensor mean_kernel(const Tensor& self, std::optional<ScalarType> dtype) {
  return mean_dim_kernel<scalar_t>(self, {}, false, dtype);
}
template <typename scalar_t>
Tensor prod_dim_kernel(const Tensor& input, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  using namespace reduce_detail;
  const Tensor self = as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_product("prod", self, dim, keepdim);
  } else {
    return reduce<scalar_t, ProdReducer<acc_type<scalar_t>>>("prod", self, {dim}, keepdim, sum_dtype(input, dtype),
                                                             false, no_scale);
  }
}
template <typename scalar_t>
Tensor prod_kernel(const Tensor& input, std::optional<ScalarType> dtype) {
  using namespace reduce_detail;
  const Tensor self = as_compute_type<scalar_t>(input);
  if constexpr (is_complex_v<scalar_t>) {
    return reduce_plan::complex_product("prod", self, std::nullopt, false);
  } else {
    return reduce<scalar_t, ProdReducer<acc_type<scalar_t>>>("prod", self, {}, false, sum_dtype(input, dtype), false,
                                                             no_scale);
  }
}
template <typename scalar_t>
Tensor amax_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  using namespace reduce_detail;
  return reduce<scalar_t, ExtremeReducer<acc_type<scalar_t>, true>>("amax", self, dim, keepdim, self.dtype(), true,
                                                                    no_scale);
}
template <typename scalar_t>
Tensor amin_kernel(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  using namespace reduce_detail;
  return reduce<scalar_t, ExtremeReducer<acc_type<scalar_t>, false>>("amin", self, dim, keepdim, self.dtype(), true,
                                                                     no_scale);
}
#include "kernels/reduce/all_any.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cuda
