// CompositeImplicit indexing ops: the functional forms of the in-place scatters, scatter_reduce and scatter's
// reduce= forms; index_fill and take.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype_switch.h"
#include "autograd/autograd.h"
#include "core/error.h"
#include "core/wrap_dim.h"
#include "yaten/ops/_scatter_reduce.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/full.h"
#include "yaten/ops/index_copy.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/masked_fill.h"
#include "yaten/ops/ones_like.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/scatter.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros_like.h"

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
// What a position starts from when include_self=False: the identity of the reduction in self's dtype.
inline Scalar scatter_reduce_identity(const std::string& reduce, ScalarType dtype) {
  if (reduce == "sum" || reduce == "mean") return Scalar(int64_t(0));
  if (reduce == "prod") return Scalar(int64_t(1));
  const bool lowest = reduce == "amax";
  if (is_floating_point(dtype)) {
    return Scalar(lowest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  }
  if (dtype == ScalarType::Bool) return Scalar(!lowest);
  return visit_dtype("scatter_reduce_", dtype, [&](auto tag) {
    using T = decltype(tag);
    return Scalar(static_cast<int64_t>(lowest ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
  });
}

// The reduce of torch's older scatter(..., reduce=): 'add' or 'multiply', as scatter_reduce's name.
inline std::string old_scatter_reduce(const std::string& reduce) {
  YATEN_CHECK(reduce == "add" || reduce == "multiply", RuntimeError,
              "scatter_: reduce argument must be either add or multiply, got ", reduce);
  return reduce == "add" ? "sum" : "prod";
}
}  // namespace indexing_detail

// scatter_reduce_: sum and mean are scatter_add_ (so they differentiate); prod, amax and amin are _scatter_reduce_.
// A mean divides by how many values each position received (counting self's own when include_self), floor division
// for integers, as torch; positions that received nothing keep their value.
inline Tensor scatter_reduce__impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                   const std::string& reduce, bool include_self) {
  YATEN_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              RuntimeError, "scatter_reduce_: reduce argument must be either sum, prod, mean, amax or amin, got ",
              reduce);
  if (!include_self && index.numel() > 0) {
    yaten::scatter_(self, dim, index, indexing_detail::scatter_reduce_identity(reduce, self.dtype()));
  }
  if (reduce != "sum" && reduce != "mean") return yaten::_scatter_reduce_(self, dim, index, src, reduce);
  yaten::scatter_add_(self, dim, index, src);
  if (reduce == "mean" && index.numel() > 0) {
    Tensor count = include_self ? yaten::ones_like(self, std::nullopt, std::nullopt)
                                : yaten::zeros_like(self, std::nullopt, std::nullopt);
    yaten::scatter_add_(count, dim, index, yaten::ones_like(src, std::nullopt, std::nullopt));
    yaten::masked_fill_(count, yaten::eq(count, Scalar(int64_t(0))), Scalar(int64_t(1)));
    const Tensor mean = is_floating_point(self.dtype())
                            ? yaten::div(self, count)
                            : yaten::div(self, count, std::optional<std::string>("floor"));
    yaten::copy_(self, mean, false);
  }
  return self;
}
inline Tensor scatter_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                  const std::string& reduce, bool include_self) {
  return scatter_reduce__impl(yaten::clone(self), dim, index, src, reduce, include_self);
}
inline Tensor scatter__reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                   const std::string& reduce) {
  return scatter_reduce__impl(self, dim, index, src, indexing_detail::old_scatter_reduce(reduce), true);
}
inline Tensor scatter__value_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                         const std::string& reduce) {
  const std::string r = indexing_detail::old_scatter_reduce(reduce);
  const Tensor src = yaten::full(index.sizes(), value, self.dtype(), self.device());
  return scatter_reduce__impl(self, dim, index, src, r, true);
}
inline Tensor scatter_reduce_old_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      const std::string& reduce) {
  return scatter__reduce_impl(yaten::clone(self), dim, index, src, reduce);
}
inline Tensor scatter_value_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                        const std::string& reduce) {
  return scatter__value_reduce_impl(yaten::clone(self), dim, index, value, reduce);
}

namespace indexing_detail {
// Negative indices count from the end (index_fill and take allow them; index_copy and index_select check bounds).
// Indices in [-size, 0) counted from the end; others as they are, so that the kernel's own check still refuses one
// below -size (wrapped once more there, -6 of 5 elements was read as 4, where torch raises).
inline Tensor from_the_end(const Tensor& index, int64_t size) {
  const Tensor wraps = yaten::logical_and(yaten::lt(index, Scalar(int64_t(0))), yaten::ge(index, Scalar(-size)));
  return yaten::where(wraps, yaten::add(index, Scalar(size)), index);
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
  check_scalar_fits(value, self.dtype());  // torch's overflow RuntimeError
  return index_fill__tensor_impl(self, dim, index, yaten::detail::wrapped_scalar_tensor(value));
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
  // index_select counts negative indices from the end and checks them in its one pass over the index; where a
  // gradient is recorded, its backward (scatter_add) takes only indices in range, so they are wrapped first
  const Tensor flat = yaten::reshape(self, {-1});
  Tensor idx = yaten::reshape(index, {-1});
  if (autograd::compute_requires_grad({&self})) idx = indexing_detail::from_the_end(idx, flat.numel());
  return yaten::reshape(yaten::index_select(flat, 0, idx), index.sizes());
}

}  // namespace yaten::native
