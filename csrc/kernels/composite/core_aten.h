// Core ATen operators that are short compositions of yaten's ops, for every device (autograd from the ops called):
// select_scatter, slice_scatter, masked_scatter, split_with_sizes, alias, empty_strided, scalar_tensor,
// constant_pad_nd, and the distances _cdist_forward and _pdist_forward (yaten.cdist, F.pdist).
// docs/core-aten.md maps every Core ATen operator to the yaten op that implements it.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/type_promotion.h"
#include "iter/tensor_iterator.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/ceil.h"
#include "yaten/ops/clamp_max.h"
#include "yaten/ops/amax.h"
#include "yaten/ops/as_strided.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/index_copy.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/nonzero.h"
#include "yaten/ops/pad.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/select.h"
#include "yaten/ops/slice.h"
#include "yaten/ops/split.h"
#include "yaten/ops/sqrt.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/view.h"
#include "yaten/ops/where.h"

namespace yaten::native {

// self with the `index`th slice along `dim` replaced by src.
inline Tensor select_scatter_impl(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  Tensor out = yaten::clone(self);
  const Tensor target = yaten::select(out, dim, index);
  YATEN_CHECK(src.sizes() == target.sizes(), RuntimeError, "select_scatter: expected src to have a size equal to the "
              "slice of self. src size = ", sizes_text(src.sizes()), ", slice size = ", sizes_text(target.sizes()));
  yaten::copy_(target, src);
  return out;
}

inline Tensor slice_scatter_impl(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                                 std::optional<int64_t> end, int64_t step) {
  Tensor out = yaten::clone(self);
  const Tensor target = yaten::slice(out, dim, start, end, step);
  YATEN_CHECK(src.sizes() == target.sizes(), RuntimeError, "slice_scatter: expected src to have a size equal to the "
              "slice of self. src size = ", sizes_text(src.sizes()), ", slice size = ", sizes_text(target.sizes()));
  yaten::copy_(target, src);
  return out;
}

// self with its elements where mask is True replaced, in order, by source's first elements; self and mask broadcast
// together first (torch's out-of-place form: a mask of more dims than self gives a larger result).
inline Tensor masked_scatter_impl(const Tensor& input, const Tensor& mask, const Tensor& source) {
  YATEN_CHECK(mask.dtype() == ScalarType::Bool, TypeError, "masked_scatter: expected a bool mask, got ",
              dtype_name(mask.dtype()));
  YATEN_CHECK(source.dtype() == input.dtype(), RuntimeError, "masked_scatter: expected self and source to have the "
              "same dtype, but got self ", dtype_name(input.dtype()), " and source ", dtype_name(source.dtype()));
  const std::vector<int64_t> shape = broadcast_shapes("masked_scatter", input.sizes(), mask.sizes());
  const Tensor self = yaten::expand(input, shape);
  const Tensor flat_mask = yaten::reshape(yaten::expand(mask, shape), {-1});
  const Tensor positions = yaten::reshape(yaten::nonzero(flat_mask), {-1});
  const int64_t count = positions.sizes()[0];
  YATEN_CHECK(source.numel() >= count, RuntimeError, "masked_scatter: expected source to have at least ", count,
              " elements (the True values of mask), but got ", source.numel());
  Tensor out = yaten::clone(self);
  if (count > 0) {
    yaten::index_copy_(yaten::reshape(out, {-1}), 0, positions, yaten::narrow(yaten::reshape(source, {-1}), 0, 0,
                                                                             count));
  }
  return out;
}

inline std::vector<Tensor> split_with_sizes_impl(const Tensor& self, const std::vector<int64_t>& split_sizes,
                                                 int64_t dim) {
  return yaten::split(self, split_sizes, dim);  // split.sizes checks the sizes
}

inline Tensor alias_impl(const Tensor& self) { return yaten::view(self, self.sizes()); }

// A tensor of `size` whose elements sit `stride` apart in a new storage just large enough.
inline Tensor empty_strided_impl(const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
                                 std::optional<ScalarType> dtype, std::optional<Device> device) {
  YATEN_CHECK(size.size() == stride.size(), RuntimeError, "empty_strided: mismatch in length of strides and shape (",
              size.size(), " sizes, ", stride.size(), " strides)");
  int64_t extent = 1;
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    YATEN_CHECK(size[i] >= 0, RuntimeError, "empty_strided: Trying to create tensor with negative dimension ",
                size[i], ": ", sizes_text(size));
    empty = empty || size[i] == 0;
  }
  // The strides of a tensor with no elements address nothing: a negative one is taken, and becomes 1, as torch's
  // empty_strided gives it. With elements, yaten has no negative strides (torch's storage size overflows).
  std::vector<int64_t> strides = stride;
  for (size_t i = 0; i < size.size(); ++i) {
    YATEN_CHECK(stride[i] >= 0 || empty, RuntimeError, "empty_strided: negative strides are not supported, got ",
                sizes_text(stride));
    if (stride[i] < 0) strides[i] = 1;
  }
  for (size_t i = 0; i < size.size(); ++i) {
    YATEN_CHECK(size[i] <= 1 || strides[i] <= (std::numeric_limits<int64_t>::max() - extent) / (size[i] - 1),
                RuntimeError, "empty_strided: the storage extent of size ", sizes_text(size), " and stride ",
                sizes_text(stride), " overflows int64");
    if (size[i] > 1) extent += (size[i] - 1) * strides[i];
  }
  const Tensor storage = yaten::empty({empty ? 0 : extent}, dtype, device);
  return yaten::as_strided(storage, size, strides, int64_t(0));
}

// A 0-dim tensor holding s, of the default floating dtype unless dtype says otherwise (torch's rule, whatever s is).
inline Tensor scalar_tensor_impl(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return yaten::full({}, s, dtype.value_or(default_dtype()), device);
}

inline Tensor constant_pad_nd_impl(const Tensor& self, const std::vector<int64_t>& pad, const Scalar& value) {
  return yaten::pad(self, pad, "constant", value.to<double>());
}

namespace distance_detail {
// The p-norm of diff along its last dim, with a zero gradient where the norm is 0 (torch's cdist backward), not the
// NaN of 0 * inf that the chain rule through pow or sqrt would give.
inline Tensor p_norm_last(const Tensor& diff, double p) {
  const std::vector<int64_t> last = {-1};
  // p = 0 counts the nonzero differences as torch does, min(ceil(|d|), 1), so a NaN gives NaN
  if (p == 0) return yaten::sum(yaten::clamp_max(yaten::ceil(yaten::abs(diff)), Scalar(int64_t(1))), last, false,
                                std::nullopt);
  if (std::isinf(p)) return yaten::amax(yaten::abs(diff), last, false);
  // exponents as 0-dim tensors of diff's dtype: a Scalar exponent's derivative loses float64 precision today
  const auto exponent = [&](double e) { return yaten::full({}, Scalar(e), diff.dtype(), diff.device()); };
  const Tensor powered = p == 2 ? yaten::mul(diff, diff) : yaten::pow(yaten::abs(diff), exponent(p));
  const Tensor total = yaten::sum(powered, last, false);
  if (p == 1) return total;
  const Tensor positive = yaten::gt(total, Scalar(int64_t(0)));
  const Tensor safe = yaten::where(positive, total, Scalar(int64_t(1)));
  const Tensor root = p == 2 ? yaten::sqrt(safe) : yaten::pow(safe, exponent(1.0 / p));
  return yaten::where(positive, root, Scalar(int64_t(0)));
}
}  // namespace distance_detail

// The p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R).
inline Tensor _cdist_forward_impl(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t>) {
  YATEN_CHECK(x1.dim() >= 2 && x2.dim() >= 2, RuntimeError, "cdist only supports at least 2D tensors, X1 got: ",
              x1.dim(), "D, X2 got: ", x2.dim(), "D");
  YATEN_CHECK(x1.sizes().back() == x2.sizes().back(), RuntimeError, "cdist: X1 and X2 must have the same number of "
              "columns. X1: ", x1.sizes().back(), " X2: ", x2.sizes().back());
  YATEN_CHECK(p >= 0, RuntimeError, "cdist only supports non-negative p values");
  YATEN_CHECK(is_floating_point(x1.dtype()) && x1.dtype() == x2.dtype(), RuntimeError, "cdist only supports floating-"
              "point dtypes of one kind, X1 got: ", dtype_name(x1.dtype()), ", X2 got: ", dtype_name(x2.dtype()));
  return distance_detail::p_norm_last(yaten::sub(yaten::unsqueeze(x1, -2), yaten::unsqueeze(x2, -3),
                                                 Scalar(int64_t(1))), p);
}

// The distances between every pair of rows i < j of self (N, M), in row-major order of the pairs.
inline Tensor _pdist_forward_impl(const Tensor& self, double p) {
  YATEN_CHECK(self.dim() == 2, RuntimeError, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  YATEN_CHECK(p >= 0, RuntimeError, "pdist only supports non-negative p values");
  const int64_t n = self.sizes()[0];
  Tensor pairs = yaten::empty({n > 1 ? n * (n - 1) / 2 : 0}, ScalarType::Long, Device(DeviceType::CPU));
  int64_t* at = pairs.data<int64_t>();
  for (int64_t i = 0, k = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) at[k++] = i * n + j;
  }
  if (!self.device().is_cpu()) pairs = yaten::_to_copy(pairs, ScalarType::Long, self.device());
  return yaten::index_select(yaten::reshape(_cdist_forward_impl(self, self, p, std::nullopt), {n * n}), 0, pairs);
}

}  // namespace yaten::native
