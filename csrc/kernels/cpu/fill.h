// CPU kernels that write values: fill_ and arange.
#pragma once

#include <cmath>

#include "core/dtype_switch.h"
#include "core/tensor.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

namespace detail {
// Calls fn(offset) for the element offset of every element of `t`, in row-major order.
template <typename Fn>
void for_each_offset(const Tensor& t, Fn&& fn) {
  const int64_t dims = t.dim();
  const int64_t n = t.numel();
  if (n == 0) return;
  if (t.is_contiguous()) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<int64_t> counter(dims, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    fn(offset);
    for (int64_t d = dims - 1; d >= 0; --d) {
      if (++counter[d] < t.sizes()[d]) {
        offset += t.strides()[d];
        break;
      }
      offset -= t.strides()[d] * (t.sizes()[d] - 1);
      counter[d] = 0;
    }
  }
}
}  // namespace detail

template <typename scalar_t>
Tensor fill_kernel(const Tensor& self, const Scalar& value) {
  YATEN_CHECK(self.device().is_cpu(), RuntimeError, "fill_: expected a CPU tensor, got ", self.device().str());
  const scalar_t v = value.to<scalar_t>();
  scalar_t* data = self.data<scalar_t>();
  detail::for_each_offset(self, [&](int64_t offset) { data[offset] = v; });
  return self;
}

template <typename scalar_t>
Tensor arange_kernel(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType>,
                     std::optional<Device> device) {
  const char* op = "arange";
  const Device dev = device.value_or(Device(DeviceType::CPU));
  YATEN_CHECK(dev.is_cpu(), RuntimeError, op, ": expected the CPU, got ", dev.str());
  // Like torch, compute the length in double for floats and exactly for integers.
  int64_t length;
  if (start.is_floating_point() || end.is_floating_point() || step.is_floating_point()) {
    const double s = start.to_double(), e = end.to_double(), d = step.to_double();
    YATEN_CHECK(d != 0, ValueError, op, ": step must be nonzero");
    YATEN_CHECK(std::isfinite(s) && std::isfinite(e), ValueError, op, ": unsupported range: ", s, " -> ", e);
    YATEN_CHECK((d > 0 && e >= s) || (d < 0 && e <= s), ValueError, op,
                ": upper bound and larger bound inconsistent with step sign");
    length = static_cast<int64_t>(std::ceil((e - s) / d));
  } else {
    const int64_t s = start.to_int64(), e = end.to_int64(), d = step.to_int64();
    YATEN_CHECK(d != 0, ValueError, op, ": step must be nonzero");
    YATEN_CHECK((d > 0 && e >= s) || (d < 0 && e <= s), ValueError, op,
                ": upper bound and larger bound inconsistent with step sign");
    length = d > 0 ? (e - s + d - 1) / d : (s - e - d - 1) / -d;
  }
  Tensor out = yaten::empty({length}, scalar_type_of<scalar_t>, dev);
  scalar_t* data = out.data<scalar_t>();
  using opmath = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, double>;
  const opmath s = start.to<opmath>(), d = step.to<opmath>();
  for (int64_t i = 0; i < length; ++i) data[i] = static_cast<scalar_t>(s + static_cast<opmath>(i) * d);
  return out;
}

}  // namespace yaten::native::cpu
