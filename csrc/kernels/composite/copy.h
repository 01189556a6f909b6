// CompositeImplicit kernels of the copying ops.
#pragma once

#include <optional>

#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/fill.h"

namespace yaten::native {

inline Tensor to_copy_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                           bool non_blocking) {
  Tensor out = yaten::empty(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
  return yaten::copy_(out, self, non_blocking);
}

inline Tensor clone_impl(const Tensor& self) { return yaten::_to_copy(self, std::nullopt, std::nullopt); }

inline Tensor contiguous_impl(const Tensor& self) {
  return self.is_contiguous() ? self : yaten::_to_copy(self, std::nullopt, std::nullopt);
}

inline Tensor zero_impl(const Tensor& self) { return yaten::fill_(self, Scalar(int64_t(0))); }

}  // namespace yaten::native
