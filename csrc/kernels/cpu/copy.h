// The CPU copy kernel: any layout to any layout, converting dtypes. The wrapper switches over the destination's
// dtype; this kernel switches over the source's, so every pair of dtypes is one small loop.
#pragma once

#include <cstring>

#include "core/convert.h"
#include "core/dtype_switch.h"
#include "iter/tensor_iterator.h"
#include "kernels/copy_support.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::cpu {


template <typename scalar_t>
Tensor copy_kernel(const Tensor& self, const Tensor& src, bool /*non_blocking: a CPU copy always ends first*/) {
  const char* op = "copy_";
  YATEN_CHECK(self.device().is_cpu() && src.device().is_cpu(), RuntimeError, op,
              ": the CPU kernel copies between CPU tensors, got ", self.device().str(), " <- ", src.device().str());
  if (self.is_same(src)) return self;
  if (self.numel() == 0) {  // nothing to write, but src must still broadcast to self's shape, as in torch
    YATEN_CHECK(broadcast_shapes("copy_", self.sizes(), src.sizes()) == self.sizes(), RuntimeError,
                "copy_: src of shape ", sizes_text(src.sizes()), " cannot be broadcast to self's shape ",
                sizes_text(self.sizes()));
    return self;
  }
  check_no_partial_overlap(op, self, src);
  warn_if_discarding_imaginary(self, src);
  if (src.dtype() == self.dtype() && src.sizes() == self.sizes() && src.is_contiguous() && self.is_contiguous()) {
    std::memcpy(self.data_ptr(), src.data_ptr(), static_cast<size_t>(self.numel() * element_size(self.dtype())));
    return self;
  }
  // The iterator broadcasts src to self's shape and keeps both dtypes: converting is this kernel's job. It is built
  // once, outside the switch over src's dtype, so that the fifteen cases differ only in their loop.
  TensorIteratorConfig config;
  config.op_name = op;
  config.output = self;
  config.output_is_input = true;
  config.inputs = {src};
  config.keep_dtypes = true;
  const TensorIterator iter(std::move(config));
  visit_any_dtype(op, src.dtype(), [&](auto src_tag) {
    using src_t = decltype(src_tag);
    iter.for_each_row([](char** data, const int64_t* strides, int64_t n) {
      with_tile_length(n, [&](auto len) {
        char* out = data[0];
        const char* in = data[1];
        for (int64_t i = 0; i < len; ++i) {
          *reinterpret_cast<scalar_t*>(out + i * strides[0]) =
              convert<scalar_t>(*reinterpret_cast<const src_t*>(in + i * strides[1]));
        }
      });
    });
  });
  return self;
}

}  // namespace yaten::native::cpu
