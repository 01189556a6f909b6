// CompositeImplicit kernels of the copying ops.
#pragma once

#include <optional>

#include "core/memory_format.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/empty_strided.h"
#include "yaten/ops/fill.h"

namespace yaten::native {

inline Tensor to_copy_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                           bool non_blocking) {
  Tensor out = yaten::empty(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
  return yaten::copy_(out, self, non_blocking);
}

inline Tensor clone_impl(const Tensor& self, std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return yaten::_to_copy(self, std::nullopt, std::nullopt);
  }
  Tensor out = yaten::empty_strided(self.sizes(), strides_for("clone", memory_format, self.sizes(), &self),
                                    self.dtype(), self.device());
  return yaten::copy_(out, self, false);
}

inline Tensor contiguous_impl(const Tensor& self, std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return self.is_contiguous() ? self : yaten::_to_copy(self, std::nullopt, std::nullopt);
  }
  if (*memory_format == int64_t(MemoryFormat::Preserve) && self.is_contiguous()) return self;  // as torch's
  YATEN_CHECK(*memory_format != int64_t(MemoryFormat::Preserve), RuntimeError,
              "contiguous: preserve memory format is unsupported by the contiguous operator.");
  const int64_t rank = *memory_format == int64_t(MemoryFormat::ChannelsLast) ? 4 : 5;
  if (has_channels_last_strides(self, rank)) return self;
  Tensor out = yaten::empty_strided(self.sizes(), strides_for("contiguous", memory_format, self.sizes(), nullptr),
                                    self.dtype(), self.device());
  return yaten::copy_(out, self, false);
}

inline Tensor zero_impl(const Tensor& self) { return yaten::fill_(self, Scalar(int64_t(0))); }

}  // namespace yaten::native
