// CUDA kernels that write values: fill_, masked_fill_ and arange, with the element functors the CPU uses.
#pragma once

#include <optional>

#include "cuda/cuda_runtime.h"
#include "iter/cuda_loops.cuh"
#include "kernels/pointwise_support.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace fill_detail {
template <typename T>
__global__ void arange_elements(T* out, int64_t n, ArangeOp<T> element) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    out[i] = element(i);
  }
}
}  // namespace fill_detail

template <typename scalar_t>
Tensor fill_kernel(const Tensor& self, const Scalar& value) {
  YATEN_CHECK(self.device().is_cuda(), RuntimeError, "fill_: expected a CUDA tensor, got ", self.device().str());
  TensorIteratorConfig config;
  config.op_name = "fill_";
  config.output = self;
  config.output_is_input = true;
  config.keep_dtypes = true;
  TensorIterator iter(std::move(config));
  gpu_kernel(iter, FillOp<scalar_t>{value.to<scalar_t>()});
  return self;
}

template <typename scalar_t>
Tensor masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value) {
  TensorIterator iter = masked_fill_iterator(self, mask);
  gpu_kernel(iter, MaskedFillOp<scalar_t>{value.to<scalar_t>()});
  return self;
}

template <typename scalar_t>
Tensor arange_kernel(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType>,
                     std::optional<Device> device) {
  const int64_t length = arange_length(start, end, step, scalar_type_of<scalar_t>);
  Tensor out = yaten::empty({length}, scalar_type_of<scalar_t>, *device);
  if (length == 0) return out;
  using C = typename ArangeOp<scalar_t>::C;
  const int index = out.device().index;
  yaten::cuda::DeviceGuard guard(index);
  const int64_t blocks = std::min<int64_t>((length + 255) / 256, 65536);
  fill_detail::arange_elements<<<static_cast<unsigned>(blocks), 256, 0,
                                 static_cast<cudaStream_t>(yaten::cuda::current_stream(index))>>>(
      out.data<scalar_t>(), length, ArangeOp<scalar_t>{start.to<C>(), step.to<C>()});
  yaten::cuda::check_launch("arange");
  return out;
}

}  // namespace yaten::native::cuda
