// CUDA softmax and log_softmax over one dim, fused: a row that fits in registers (up to 8,192 elements) is read
// once and written once: its maximum, the sum of exponentials and the result come from the values each thread
// holds. Longer rows take three passes over memory. Rows up to 1,024 elements go to a warp each, longer ones to a
// block. Math in opmath_t, as on the CPU (kernels/cpu/softmax.h); NaN anywhere in a row makes the row NaN. A dim
// other than the last is moved last first (a copy), as on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <limits>
#include <optional>

#include "cuda/cuda_runtime.h"
#include "kernels/reduce_support.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace softmax_detail {
constexpr int kItems = 32;  // values per thread held in registers

template <typename T>
__device__ T max_nan(T a, T b) { return (a != a || a > b) ? a : b; }

// The combination over the TPR threads of a row (a warp, or the whole block through shared memory).
template <int TPR, bool kMax, typename T>
__device__ T row_combine(T v, T* shared) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const T other = __shfl_xor_sync(0xffffffffu, v, offset);
    v = kMax ? max_nan(v, other) : v + other;
  }
  if constexpr (TPR > 32) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // `shared` may still be read from the previous combination
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = shared[0];
    for (int w = 1; w < TPR / 32; ++w) v = kMax ? max_nan(v, shared[w]) : v + shared[w];
  }
  return v;
}

// One row per TPR threads. With kInRegisters, each thread keeps its kItems values; otherwise it reads the row three
// times (maximum, sum, result).
template <typename scalar_t, bool kLog, int TPR, bool kInRegisters>
__global__ void __launch_bounds__(256) softmax_rows(const scalar_t* x, scalar_t* y, int64_t rows, int64_t len) {
  using T = opmath_t<scalar_t>;
  __shared__ T shared[256 / 32];
  constexpr int kRowsPerBlock = 256 / TPR;
  const int64_t row = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / TPR;
  const int lane = threadIdx.x % TPR;
  const bool active = row < rows;  // inactive threads still take part in the combinations
  const scalar_t* in = x + (active ? row : 0) * len;
  scalar_t* out = y + (active ? row : 0) * len;
  T m = -std::numeric_limits<T>::infinity();
  T values[kInRegisters ? kItems : 1];
  if constexpr (kInRegisters) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t i = lane + int64_t(k) * TPR;
      values[k] = active && i < len ? static_cast<T>(in[i]) : -std::numeric_limits<T>::infinity();
      m = max_nan(m, values[k]);
    }
  } else {
    for (int64_t i = lane; active && i < len; i += TPR) m = max_nan(m, static_cast<T>(in[i]));
  }
  m = row_combine<TPR, true>(m, shared);
  T sum = 0;
  if constexpr (kInRegisters) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const T e = lane + int64_t(k) * TPR < len ? std::exp(values[k] - m) : T(0);
      if constexpr (!kLog) values[k] = e;
      sum += e;
    }
  } else {
    for (int64_t i = lane; active && i < len; i += TPR) sum += std::exp(static_cast<T>(in[i]) - m);
  }
  sum = row_combine<TPR, false>(sum, shared);
  if (!active) return;
  const T log_sum = std::log(sum), scale = T(1) / sum;
  if constexpr (kInRegisters) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t i = lane + int64_t(k) * TPR;
      if (i < len) out[i] = static_cast<scalar_t>(kLog ? (values[k] - m) - log_sum : values[k] * scale);
    }
  } else {
    for (int64_t i = lane; i < len; i += TPR) {
      const T v = static_cast<T>(in[i]) - m;
      out[i] = static_cast<scalar_t>(kLog ? v - log_sum : std::exp(v) * scale);
    }
  }
}

template <typename scalar_t, bool kLog>
Tensor softmax(const char* op, const Tensor& input, int64_t dim) {
  const Tensor self = reduce_plan::as_compute_type<scalar_t>(input);
  const auto layout = reduce_plan::rows_along(op, self, dim);
  const Tensor& src = layout.src;
  const int64_t len = layout.len, rows = layout.rows;
  Tensor out = yaten::empty(src.sizes(), src.dtype(), src.device());
  if (rows > 0) {
    const int device = src.device().index;
    yaten::cuda::DeviceGuard guard(device);
    const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
    const scalar_t* x = src.data<scalar_t>();
    scalar_t* y = out.data<scalar_t>();
    if (len <= 32 * kItems) {
      softmax_rows<scalar_t, kLog, 32, true><<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(x, y, rows, len);
    } else if (len <= 256 * kItems) {
      softmax_rows<scalar_t, kLog, 256, true><<<static_cast<unsigned>(rows), 256, 0, stream>>>(x, y, rows, len);
    } else {
      softmax_rows<scalar_t, kLog, 256, false><<<static_cast<unsigned>(rows), 256, 0, stream>>>(x, y, rows, len);
    }
    yaten::cuda::check_launch(op);
  }
  return reduce_plan::from_rows(out, self, layout);
}
}  // namespace softmax_detail

template <typename scalar_t>
Tensor softmax_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_detail::softmax<scalar_t, false>("softmax", self, dim);
}

template <typename scalar_t>
Tensor log_softmax_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_detail::softmax<scalar_t, true>("log_softmax", self, dim);
}

}  // namespace yaten::native::cuda
