// CompositeImplicit indexing ops: the functional forms of the in-place scatters; index_fill and take.
#pragma once

#include <vector>

#include "core/error.h"
#include "core/wrap_dim.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/index_copy.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/scatter.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/where.h"

namespace yaten::native {

inline Tensor scatter_src_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return yaten::scatter_(yaten::clone(self), dim, index, src);
}
inline Tensor scatter_add_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return yaten::scatter_add_(yaten::clone(self), dim, index, src);
}
inline Tensor scatter_value_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return yaten::scatter_(yaten::clone(self), dim, index, value);
}

namespace indexing_detail {
// Negative indices count from the end (index_fill and take allow them; index_copy and index_select check bounds).
inline Tensor from_the_end(const Tensor& index, int64_t size) {
  return yaten::where(yaten::lt(index, Scalar(int64_t(0))), yaten::add(index, Scalar(size)), index);
}
}  // namespace indexing_detail

// index_fill_: the slices of self at `index` along `dim` set to the 0-dim `value` (an index_copy_ of the value
// expanded to their shape, so a value that requires grad gets the sum of their gradient).
inline Tensor index_fill__tensor_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  YATEN_CHECK(value.dim() == 0, RuntimeError, "index_fill_ only supports a 0-dimensional value tensor, but got "
              "tensor with ", value.dim(), " dimension(s).");
  YATEN_CHECK(index.dtype() == ScalarType::Long, IndexError, "index_fill_(): Expected dtype int64 for index, got ",
              dtype_name(index.dtype()));
  YATEN_CHECK(index.dim() <= 1, IndexError, "index_fill_(): Index is supposed to be a vector");
  const int64_t d = wrap_dim("index_fill_", dim, self.dim());
  const Tensor idx = indexing_detail::from_the_end(yaten::reshape(index, {-1}), self.dim() ? self.sizes()[d] : 1);
  std::vector<int64_t> shape = self.sizes();
  if (self.dim() > 0) shape[d] = idx.numel();
  const bool same = value.dtype() == self.dtype() && value.device() == self.device();
  const Tensor v = same ? value : yaten::_to_copy(value, self.dtype(), self.device());
  return yaten::index_copy_(self, d, idx, yaten::expand(v, shape));
}
inline Tensor index_fill__scalar_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill__tensor_impl(self, dim, index, detail::wrapped_scalar_tensor(value));
}
inline Tensor index_fill_tensor_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill__tensor_impl(yaten::clone(self), dim, index, value);
}
inline Tensor index_fill_scalar_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill__scalar_impl(yaten::clone(self), dim, index, value);
}

// take: self as 1-D, read at `index` (negative from the end), in index's shape.
inline Tensor take_impl(const Tensor& self, const Tensor& index) {
  YATEN_CHECK(index.dtype() == ScalarType::Long, RuntimeError, "take(): Expected a long tensor for index, but got ",
              dtype_name(index.dtype()));
  const Tensor flat = yaten::reshape(self, {-1});
  const Tensor idx = indexing_detail::from_the_end(yaten::reshape(index, {-1}), flat.numel());
  return yaten::reshape(yaten::index_select(flat, 0, idx), index.sizes());
}

}  // namespace yaten::native
