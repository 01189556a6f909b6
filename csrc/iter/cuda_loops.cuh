// gpu_kernel(iter, functor): runs an element functor over a TensorIterator on a CUDA device.
//
// The functor has a __device__ operator() taking one scalar_t per input. Each thread turns a linear index into
// per-operand byte offsets with the iterator's (coalesced) shape and strides; a contiguous iterator skips that.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "iter/function_traits.h"
#include "iter/tensor_iterator.h"

namespace yaten::native {

namespace cuda_detail {
constexpr int kMaxDims = 12;

template <int N>
struct Launch {
  char* data[N];
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims][N];
  bool contiguous;
  int64_t item_sizes[N];
};

template <typename Op, int N, size_t... I>
__device__ __forceinline__ void apply_at(const Op& op, const Launch<N>& p, int64_t linear, std::index_sequence<I...>) {
  using traits = detail::function_traits<Op>;
  using out_t = typename traits::result;
  int64_t offsets[N];
  if (p.contiguous) {
    for (int k = 0; k < N; ++k) offsets[k] = linear * p.item_sizes[k];
  } else {
    for (int k = 0; k < N; ++k) offsets[k] = 0;
    int64_t rest = linear;
    for (int d = 0; d < p.ndim; ++d) {
      const int64_t idx = rest % p.sizes[d];
      rest /= p.sizes[d];
      for (int k = 0; k < N; ++k) offsets[k] += idx * p.strides[d][k];
    }
  }
  *reinterpret_cast<out_t*>(p.data[0] + offsets[0]) =
      op(*reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(p.data[I + 1] + offsets[I + 1])...);
}

template <typename Op, int N>
__global__ void elementwise_kernel(int64_t n, Launch<N> p, Op op) {
  using indices = std::make_index_sequence<N - 1>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    apply_at(op, p, i, indices{});
  }
}

template <typename Args, size_t... I>
void fill_input_sizes(int64_t* sizes, std::index_sequence<I...>) {
  ((sizes[I + 1] = sizeof(std::tuple_element_t<I, Args>)), ...);
}

void check_launch(const char* what);
}  // namespace cuda_detail

template <typename Op>
void gpu_kernel(const TensorIterator& iter, const Op& op) {
  using traits = detail::function_traits<Op>;
  constexpr int N = traits::arity + 1;
  YATEN_CHECK(iter.ninputs() == traits::arity, RuntimeError, "gpu_kernel: the functor takes ", traits::arity,
              " inputs but the iterator has ", iter.ninputs());
  const int64_t n = iter.numel();
  if (n == 0) return;
  YATEN_CHECK(iter.ndim() <= cuda_detail::kMaxDims, RuntimeError, "gpu_kernel: ", iter.ndim(),
              " dimensions after coalescing; at most ", cuda_detail::kMaxDims, " are supported");
  cuda_detail::Launch<N> p{};
  p.ndim = iter.ndim();
  p.contiguous = iter.is_contiguous();
  for (int k = 0; k < N; ++k) p.data[k] = iter.data(k);
  p.item_sizes[0] = sizeof(typename traits::result);
  cuda_detail::fill_input_sizes<typename traits::args>(p.item_sizes, std::make_index_sequence<N - 1>{});
  for (int d = 0; d < p.ndim; ++d) {
    p.sizes[d] = iter.shape()[d];
    for (int k = 0; k < N; ++k) p.strides[d][k] = iter.strides(k)[d];
  }
  constexpr int threads = 256;
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, int64_t(1) << 30);
  cuda_detail::elementwise_kernel<Op, N><<<static_cast<unsigned>(blocks), threads>>>(n, p, op);
  cuda_detail::check_launch("gpu_kernel");
}

}  // namespace yaten::native
