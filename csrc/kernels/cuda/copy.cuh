// The CUDA copy_ kernel: host <-> device and device <-> device, any layout, any pair of dtypes.
//
// Bytes cross the bus only as they are: a strided or broadcast source is made contiguous on its own side, in its
// own dtype, and every conversion, broadcast and restride happens on the device, in one gpu_kernel pass (whose
// loads convert dtypes). Copies run on the current stream; with non_blocking, a copy from or to pinned host memory
// returns at once (see cuda::memcpy), and any other waits for its end.
#pragma once

#include "cuda/cuda_runtime.h"
#include "iter/cuda_loops.cuh"
#include "kernels/copy_support.h"
#include "kernels/pointwise_math.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cuda {

namespace copy_detail {
inline size_t nbytes(const Tensor& t) { return static_cast<size_t>(t.numel() * element_size(t.dtype())); }

// self and src on one CUDA device: a memcpy when the bytes already match, else one converting pass.
template <typename scalar_t>
void copy_on_device(const Tensor& self, const Tensor& src) {
  if (src.dtype() == self.dtype() && src.sizes() == self.sizes() && src.is_contiguous() && self.is_contiguous()) {
    yaten::cuda::memcpy(self.data_ptr(), src.data_ptr(), nbytes(self), yaten::cuda::CopyKind::DeviceToDevice,
                        self.device().index, false);
    return;
  }
  check_no_partial_overlap("copy_", self, src);
  TensorIteratorConfig config;
  config.op_name = "copy_";
  config.output = self;
  config.output_is_input = true;
  config.keep_dtypes = true;
  config.inputs = {src};
  TensorIterator iter(std::move(config));
  // A contiguous conversion runs vectorized with the pair's own functor (gpu_kernel would convert on load,
  // element by element); the vectorized path alone is instantiated for each of the 144 pairs of the twelve common
  // dtypes. A wide unsigned integer (uint16/32/64) on either side converts on load.
  if constexpr (!std::is_same_v<scalar_t, uint16_t> && !std::is_same_v<scalar_t, uint32_t> &&
                !std::is_same_v<scalar_t, uint64_t>) {
    if (src.dtype() != self.dtype() && !is_wide_unsigned(src.dtype())) {
      const bool done = visit_dtype_and_complex("copy_", src.dtype(), [&](auto tag) {
        return gpu_kernel_if_vectorizable(iter, ConvertOp<scalar_t, decltype(tag)>{});
      });
      if (done) return;
    }
  }
  gpu_kernel(iter, IdentityOp<scalar_t>{});
}
}  // namespace copy_detail

template <typename scalar_t>
Tensor copy_kernel(const Tensor& self, const Tensor& src, bool non_blocking) {
  using namespace copy_detail;
  using yaten::cuda::CopyKind;
  if (self.is_same(src)) return self;
  if (self.numel() == 0) {  // nothing to write, but src must still broadcast to self's shape, as in torch
    YATEN_CHECK(broadcast_shapes("copy_", self.sizes(), src.sizes()) == self.sizes(), RuntimeError,
                "copy_: src of shape ", sizes_text(src.sizes()), " cannot be broadcast to self's shape ",
                sizes_text(self.sizes()));
    return self;
  }
  warn_if_discarding_imaginary(self, src);
  const bool to_device = self.device().is_cuda(), from_device = src.device().is_cuda();
  if (to_device && from_device) {
    if (self.device() == src.device()) {
      copy_on_device<scalar_t>(self, src);
      return self;
    }
    // Another GPU: its contiguous bytes come over (peer to peer where the devices allow), then as on one device.
    Tensor dense = yaten::contiguous(src);
    Tensor staged = yaten::empty(src.sizes(), src.dtype(), self.device());
    yaten::cuda::DeviceGuard guard(src.device().index);
    yaten::cuda::memcpy(staged.data_ptr(), dense.data_ptr(), nbytes(dense), CopyKind::DeviceToDevice,
                        src.device().index, true);
    copy_on_device<scalar_t>(self, staged);
    return self;
  }
  if (to_device) {  // host -> device
    Tensor host = yaten::contiguous(src);
    if (host.dtype() == self.dtype() && host.sizes() == self.sizes() && self.is_contiguous()) {
      yaten::cuda::memcpy(self.data_ptr(), host.data_ptr(), nbytes(self), CopyKind::HostToDevice,
                          self.device().index, !non_blocking);
      return self;
    }
    Tensor staged = yaten::empty(host.sizes(), host.dtype(), self.device());
    yaten::cuda::memcpy(staged.data_ptr(), host.data_ptr(), nbytes(host), CopyKind::HostToDevice,
                        self.device().index, !non_blocking);
    copy_on_device<scalar_t>(self, staged);
    return self;
  }
  // device -> host: convert and broadcast on the device into self's dtype and shape, then one transfer.
  const int device = src.device().index;
  Tensor dense = src;
  if (src.dtype() != self.dtype() || src.sizes() != self.sizes() || !src.is_contiguous()) {
    dense = yaten::empty(self.sizes(), self.dtype(), src.device());
    copy_on_device<scalar_t>(dense, src);
  }
  if (self.is_contiguous()) {
    yaten::cuda::memcpy(self.data_ptr(), dense.data_ptr(), nbytes(self), CopyKind::DeviceToHost, device,
                        !non_blocking);
    return self;
  }
  Tensor host = yaten::empty(self.sizes(), self.dtype(), Device(DeviceType::CPU));
  yaten::cuda::memcpy(host.data_ptr(), dense.data_ptr(), nbytes(host), CopyKind::DeviceToHost, device, true);
  return yaten::copy_(self, host);
}

}  // namespace yaten::native::cuda
