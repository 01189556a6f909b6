// CompositeImplicit kernels of the factory ops: written with other ops, so every backend gets them.
#pragma once

#include <optional>

#include "core/memory_format.h"
#include "core/type_promotion.h"
#include "kernels/wrapper_support.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/empty_strided.h"
#include "yaten/ops/fill.h"
#include "yaten/ops/full.h"

namespace yaten::native {

inline Tensor empty_impl(const std::vector<int64_t>& size, std::optional<ScalarType> dtype,
                         std::optional<Device> device, std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return yaten::detail::empty_tensor(size, dtype.value_or(default_dtype()), device.value_or(Device(DeviceType::CPU)));
  }
  YATEN_CHECK(*memory_format != int64_t(MemoryFormat::Preserve), RuntimeError,
              "empty: preserve memory format is unsupported; use empty_like to preserve a tensor's layout");
  return yaten::empty_strided(size, strides_for("empty", memory_format, size, nullptr), dtype, device);
}

inline Tensor full_impl(const std::vector<int64_t>& size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                        std::optional<Device> device) {
  Tensor out = yaten::empty(size, factory_dtype(dtype, {fill_value}), device);
  return yaten::fill_(out, fill_value);
}

inline Tensor zeros_impl(const std::vector<int64_t>& size, std::optional<ScalarType> dtype,
                         std::optional<Device> device) {
  return yaten::full(size, Scalar(int64_t(0)), dtype.value_or(default_dtype()), device);
}

inline Tensor ones_impl(const std::vector<int64_t>& size, std::optional<ScalarType> dtype,
                        std::optional<Device> device) {
  return yaten::full(size, Scalar(int64_t(1)), dtype.value_or(default_dtype()), device);
}

inline Tensor arange_end_impl(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return yaten::arange(Scalar(int64_t(0)), end, Scalar(int64_t(1)), dtype, device);
}

}  // namespace yaten::native
