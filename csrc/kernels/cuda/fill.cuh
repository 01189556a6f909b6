// The CUDA fill_ kernel.
#pragma once

#include "iter/cuda_loops.cuh"

namespace yaten::native::cuda {

template <typename scalar_t>
struct FillFunctor {
  scalar_t value;
  __device__ scalar_t operator()() const { return value; }
};

template <typename scalar_t>
Tensor fill_kernel(const Tensor& self, const Scalar& value) {
  YATEN_CHECK(self.device().is_cuda(), RuntimeError, "fill_: expected a CUDA tensor, got ", self.device().str());
  TensorIteratorConfig config;
  config.op_name = "fill_";
  config.output = self;
  config.output_is_input = true;
  config.keep_dtypes = true;
  TensorIterator iter(std::move(config));
  gpu_kernel(iter, FillFunctor<scalar_t>{value.to<scalar_t>()});
  return self;
}

}  // namespace yaten::native::cuda
