// CPU kernels that write values: fill_ and arange.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/dtype_switch.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "kernels/pointwise_support.h"
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
  if (self.is_contiguous()) {  // over the threads, as a contiguous copy (kParallelCopyBytes)
    parallel_for(self.numel(), kParallelCopyBytes / int64_t(sizeof(scalar_t)), [&](int64_t begin, int64_t end) {
      std::fill(data + begin, data + end, v);
    });
    return self;
  }
  detail::for_each_offset(self, [&](int64_t offset) { data[offset] = v; });
  return self;
}

template <typename scalar_t>
Tensor arange_kernel(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType>,
                     std::optional<Device> device) {
  const Device dev = device.value_or(Device(DeviceType::CPU));
  YATEN_CHECK(dev.is_cpu(), RuntimeError, "arange: expected the CPU, got ", dev.str());
  const int64_t length = arange_length(start, end, step, scalar_type_of<scalar_t>);
  Tensor out = yaten::empty({length}, scalar_type_of<scalar_t>, dev);
  scalar_t* data = out.data<scalar_t>();
  using C = typename ArangeOp<scalar_t>::C;
  const ArangeOp<scalar_t> element{start.to<C>(), step.to<C>()};
  for (int64_t i = 0; i < length; ++i) data[i] = element(i);
  return out;
}

}  // namespace yaten::native::cpu
