// CompositeImplicit pointwise ops: written with other ops, so they work on every backend those ops support.
#pragma once

#include <optional>
#include <string>

#include "core/dtype_switch.h"
#include "core/tensor.h"
#include "core/type_promotion.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/_div_trunc.h"
#include "yaten/ops/_clamp.h"
#include "yaten/ops/clamp_max.h"
#include "yaten/ops/clamp_min.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/div.h"
#include "yaten/ops/elu.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/floor_divide.h"
#include "yaten/ops/hardtanh.h"
#include "yaten/ops/masked_fill.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/where.h"

namespace yaten::native {

inline Tensor div_mode_impl(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  if (!rounding_mode) return yaten::div(self, other);
  if (*rounding_mode == "trunc") return yaten::_div_trunc(self, other);
  if (*rounding_mode == "floor") return yaten::floor_divide(self, other);
  YATEN_FAIL(RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
             *rounding_mode, "'");
}
inline Tensor div_scalar_mode_impl(const Tensor& self, const Scalar& other,
                                   const std::optional<std::string>& rounding_mode) {
  return div_mode_impl(self, yaten::detail::wrapped_scalar_tensor(other), rounding_mode);
}
inline Tensor div__mode_impl(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  if (!rounding_mode) return yaten::div_(self, other);
  if (*rounding_mode == "trunc") return yaten::_div_trunc_(self, other);
  if (*rounding_mode == "floor") return yaten::floor_divide_(self, other);
  YATEN_FAIL(RuntimeError, "div_ expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
             *rounding_mode, "'");
}

// square(x) is pow(x, 2): bool squares to int64, as in torch.
inline Tensor square_impl(const Tensor& self) { return yaten::pow(self, Scalar(int64_t(2))); }

inline Tensor relu6_impl(const Tensor& self) { return yaten::hardtanh(self, Scalar(int64_t(0)), Scalar(int64_t(6))); }
inline Tensor relu6__impl(const Tensor& self) { return yaten::hardtanh_(self, Scalar(int64_t(0)), Scalar(int64_t(6))); }
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
inline Tensor selu_impl(const Tensor& self) { return yaten::elu(self, Scalar(kSeluAlpha), Scalar(kSeluScale), Scalar(1.0)); }
inline Tensor selu__impl(const Tensor& self) { return yaten::elu_(self, Scalar(kSeluAlpha), Scalar(kSeluScale), Scalar(1.0)); }

// clamp: one pass with both bounds, clamp_min/clamp_max with one; type promotion includes the bounds, as in torch.
inline Tensor clamp_tensor_impl(const Tensor& self, const Tensor& min, const Tensor& max) {
  YATEN_CHECK(min.defined() || max.defined(), RuntimeError,
              "clamp: At least one of 'min' or 'max' must not be None");
  if (min.defined() && max.defined()) return yaten::_clamp(self, min, max);
  return min.defined() ? yaten::clamp_min(self, min) : yaten::clamp_max(self, max);
}
inline Tensor clamp__tensor_impl(const Tensor& self, const Tensor& min, const Tensor& max) {
  YATEN_CHECK(min.defined() || max.defined(), RuntimeError,
              "clamp_: At least one of 'min' or 'max' must not be None");
  if (min.defined() && max.defined()) return yaten::_clamp_(self, min, max);
  return min.defined() ? yaten::clamp_min_(self, min) : yaten::clamp_max_(self, max);
}
inline Tensor optional_wrapped(const std::optional<Scalar>& s) {
  return s ? yaten::detail::wrapped_scalar_tensor(*s) : Tensor();
}
// torch converts number bounds to the computation's dtype: one that does not fit is its overflow RuntimeError.
inline void check_bounds_fit(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                             bool in_place) {
  ResultTypeState state;
  state.add(self);
  for (const auto& bound : {min, max}) {
    if (bound) state.add(*bound);
  }
  const ScalarType result = in_place ? self.dtype() : state.result();
  YATEN_CHECK(result != ScalarType::Bool, NotImplementedError, "clamp: not implemented for bool with number bounds "
              "(as torch; tensor bounds work)");
  for (const auto& bound : {min, max}) {
    if (bound) check_scalar_fits(*bound, result);
  }
}
inline Tensor clamp_min_scalar_impl(const Tensor& self, const Scalar& min) {
  check_bounds_fit(self, min, std::nullopt, false);
  return yaten::clamp_min(self, yaten::detail::wrapped_scalar_tensor(min));
}
inline Tensor clamp_min__scalar_impl(const Tensor& self, const Scalar& min) {
  check_bounds_fit(self, min, std::nullopt, true);
  return yaten::clamp_min_(self, yaten::detail::wrapped_scalar_tensor(min));
}
inline Tensor clamp_max_scalar_impl(const Tensor& self, const Scalar& max) {
  check_bounds_fit(self, std::nullopt, max, false);
  return yaten::clamp_max(self, yaten::detail::wrapped_scalar_tensor(max));
}
inline Tensor clamp_max__scalar_impl(const Tensor& self, const Scalar& max) {
  check_bounds_fit(self, std::nullopt, max, true);
  return yaten::clamp_max_(self, yaten::detail::wrapped_scalar_tensor(max));
}
inline Tensor clamp_impl(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  check_bounds_fit(self, min, max, false);
  return clamp_tensor_impl(self, optional_wrapped(min), optional_wrapped(max));
}
inline Tensor clamp__impl(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  check_bounds_fit(self, min, max, true);
  return clamp__tensor_impl(self, optional_wrapped(min), optional_wrapped(max));
}

// where with numbers: each number must fit the result's dtype, as torch converts it (its overflow RuntimeError).
inline void check_where_numbers(const Tensor& self, const Tensor& other, std::initializer_list<Scalar> numbers) {
  ResultTypeState state;
  if (self.defined()) state.add(self);
  if (other.defined()) state.add(other);
  for (const Scalar& v : numbers) state.add(v);
  for (const Scalar& v : numbers) check_scalar_fits(v, state.result());
}
inline Tensor where_scalar_other_impl(const Tensor& condition, const Tensor& self, const Scalar& other) {
  check_where_numbers(self, Tensor(), {other});
  return yaten::where(condition, self, yaten::detail::wrapped_scalar_tensor(other));
}
inline Tensor where_scalar_self_impl(const Tensor& condition, const Scalar& self, const Tensor& other) {
  check_where_numbers(Tensor(), other, {self});
  return yaten::where(condition, yaten::detail::wrapped_scalar_tensor(self), other);
}
inline Tensor where_scalar_impl(const Tensor& condition, const Scalar& self, const Scalar& other) {
  check_where_numbers(Tensor(), Tensor(), {self, other});
  return yaten::where(condition, yaten::detail::wrapped_scalar_tensor(self), yaten::detail::wrapped_scalar_tensor(other));
}

// masked_fill: the result has the broadcast shape of self and mask.
inline Tensor masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const std::vector<int64_t> shape = broadcast_shapes("masked_fill", self.sizes(), mask.sizes());
  Tensor result = yaten::clone(yaten::expand(self, shape));
  return yaten::masked_fill_(result, mask, value);
}

// masked_fill with a 0-dim tensor value (torch's masked_fill.Tensor): where(mask, value, self) after the value takes
// self's dtype and device, so a value that requires grad gets the sum of the gradient where mask is True.
inline Tensor masked_fill_tensor_impl(const Tensor& self, const Tensor& mask, const Tensor& value) {
  YATEN_CHECK(value.dim() == 0, RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got "
              "tensor with ", value.dim(), " dimension(s).");
  YATEN_CHECK(mask.dtype() == ScalarType::Bool, RuntimeError, "masked_fill_ only supports boolean masks, but got "
              "mask with dtype ", dtype_name(mask.dtype()));
  const bool same = value.dtype() == self.dtype() && value.device() == self.device();
  return yaten::where(mask, same ? value : yaten::_to_copy(value, self.dtype(), self.device()), self);
}

}  // namespace yaten::native
