// Small helpers shared by the composite kernels.
#pragma once

#include "core/tensor.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::composite_detail {
// The value of a one-element tensor as a bool (copied to the CPU first).
inline bool item_bool(const Tensor& t) {
  const Tensor cpu = yaten::_to_copy(t, ScalarType::Bool, Device(DeviceType::CPU));
  return *cpu.data<bool>();
}
// The value of a one-element real tensor as a double (copied to the CPU first).
inline double item_double(const Tensor& t) {
  const Tensor cpu = yaten::_to_copy(t, ScalarType::Double, Device(DeviceType::CPU));
  return *cpu.data<double>();
}
}  // namespace yaten::native::composite_detail
