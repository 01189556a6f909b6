// The CUDA copy_ kernel: device <-> host and device <-> device. Copies between devices move bytes with
// cudaMemcpy (synchronously), then any broadcasting or restriding happens on one device. Converting dtypes on the
// device is not implemented yet and says so; a copy between the host and the device converts on the host.
#pragma once

#include <cuda_runtime.h>

#include "iter/cuda_loops.cuh"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace detail {
template <typename scalar_t>
struct IdentityFunctor {
  __device__ scalar_t operator()(scalar_t x) const { return x; }
};

void memcpy_checked(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind);
}  // namespace detail

template <typename scalar_t>
Tensor copy_kernel(const Tensor& self, const Tensor& src) {
  const char* op = "copy_";
  if (self.is_same(src) || self.numel() == 0) return self;
  YATEN_CHECK(src.dtype() == self.dtype() || !(src.device().is_cuda() && self.device().is_cuda()), NotImplementedError,
              op, ": converting ", dtype_name(src.dtype()), " to ", dtype_name(self.dtype()),
              " on a CUDA device is not implemented yet; convert on the CPU with .to(dtype) first");
  const size_t itemsize = sizeof(scalar_t);
  if (self.device().is_cuda() && src.device().is_cuda()) {
    TensorIteratorConfig config;
    config.op_name = op;
    config.output = self;
    config.output_is_input = true;
    config.keep_dtypes = true;
    config.inputs = {src};
    TensorIterator iter(std::move(config));
    gpu_kernel(iter, detail::IdentityFunctor<scalar_t>{});
    return self;
  }
  if (self.device().is_cuda()) {  // host -> device
    // in self's dtype, converted on the host when it differs (a wrapped Python number, say)
    Tensor host = src.is_contiguous() && src.dtype() == self.dtype() ? src : yaten::_to_copy(src, self.dtype(), std::nullopt);
    if (host.sizes() == self.sizes() && self.is_contiguous()) {
      detail::memcpy_checked(self.data_ptr(), host.data_ptr(), self.numel() * itemsize, cudaMemcpyHostToDevice);
      return self;
    }
    Tensor staged = yaten::empty(host.sizes(), host.dtype(), self.device());
    detail::memcpy_checked(staged.data_ptr(), host.data_ptr(), host.numel() * itemsize, cudaMemcpyHostToDevice);
    return yaten::copy_(self, staged);
  }
  // device -> host
  Tensor device_side = src.is_contiguous() ? src : yaten::_to_copy(src, std::nullopt, std::nullopt);
  if (device_side.sizes() == self.sizes() && self.is_contiguous() && self.dtype() == src.dtype()) {
    detail::memcpy_checked(self.data_ptr(), device_side.data_ptr(), self.numel() * itemsize, cudaMemcpyDeviceToHost);
    return self;
  }
  Tensor host = yaten::empty(device_side.sizes(), device_side.dtype(), Device(DeviceType::CPU));
  detail::memcpy_checked(host.data_ptr(), device_side.data_ptr(), host.numel() * element_size(host.dtype()),
                         cudaMemcpyDeviceToHost);
  return yaten::copy_(self, host);
}

}  // namespace yaten::native::cuda
