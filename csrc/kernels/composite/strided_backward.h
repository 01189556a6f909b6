// The gradient of as_strided, built from dispatched ops (so it is differentiable in turn).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "kernels/composite/views.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/add.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gather.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/scatter.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

namespace strided_detail {
// The storage position of every element of a (sizes, strides, offset) layout, as an int64 tensor of that shape.
inline Tensor storage_positions(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                int64_t offset, Device device) {
  Tensor pos = yaten::full({}, Scalar(offset), ScalarType::Long, device);
  const size_t ndim = sizes.size();
  for (size_t k = 0; k < ndim; ++k) {
    std::vector<int64_t> shape(ndim, 1);
    shape[k] = sizes[k];
    const Tensor along = yaten::arange(Scalar(int64_t(0)), Scalar(sizes[k]), Scalar(int64_t(1)), ScalarType::Long,
                                       device);
    pos = yaten::add(pos, yaten::reshape(yaten::mul(along, Scalar(strides[k])), shape), Scalar(int64_t(1)));
  }
  return pos;
}

inline int64_t last_position(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t offset) {
  int64_t last = offset;
  for (size_t k = 0; k < sizes.size(); ++k) last += std::max<int64_t>(sizes[k] - 1, 0) * strides[k];
  return last;
}
}  // namespace strided_detail

// Each element of grad goes to the element of self over the same memory (several, for an overlapping view, add
// up); memory that self does not cover gets none. Where self itself overlaps, one of its elements gets it.
inline Tensor as_strided_backward_impl(const Tensor& grad, const Tensor& self, const std::vector<int64_t>& size,
                                       const std::vector<int64_t>& stride, std::optional<int64_t> storage_offset) {
  using strided_detail::last_position;
  using strided_detail::storage_positions;
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  checked_strided_layout("_as_strided_backward", size, stride, offset);
  YATEN_CHECK(grad.sizes() == size, RuntimeError, "_as_strided_backward: grad has shape ",
              sizes_text(grad.sizes()), " but the view's size is ", sizes_text(size));
  const Device device = grad.device();
  const Tensor in_pos = yaten::reshape(storage_positions(self.sizes(), self.strides(), self.storage_offset(), device),
                                       {-1});
  const Tensor out_pos = yaten::reshape(storage_positions(size, stride, offset, device), {-1});
  const int64_t span = std::max(last_position(self.sizes(), self.strides(), self.storage_offset()),
                                last_position(size, stride, offset)) + 1;
  // storage position -> the element of self there, or -1
  Tensor owner = yaten::full({span}, Scalar(int64_t(-1)), ScalarType::Long, device);
  if (self.numel() > 0) {
    owner = yaten::scatter(owner, 0, in_pos, yaten::arange(Scalar(int64_t(0)), Scalar(self.numel()),
                                                           Scalar(int64_t(1)), ScalarType::Long, device));
  }
  Tensor flat = yaten::zeros({self.numel()}, grad.dtype(), device);
  if (out_pos.numel() > 0) {
    const Tensor which = yaten::gather(owner, 0, out_pos);
    const Tensor inside = yaten::ge(which, Scalar(int64_t(0)));
    const Tensor g = yaten::where(inside, yaten::reshape(grad, {-1}), yaten::zeros({}, grad.dtype(), device));
    const Tensor at = yaten::where(inside, which, yaten::zeros({}, ScalarType::Long, device));
    flat = yaten::scatter_add(flat, 0, at, g);
  }
  return yaten::reshape(flat, self.sizes());
}

}  // namespace yaten::native
