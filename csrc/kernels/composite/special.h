// CompositeImplicit forms of the special and exponent ops that are written with other ops: ldexp (self * 2^other),
// deg2rad and rad2deg (a product with a constant), positive, and polygamma's in-place method.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "core/type_promotion.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/exp2.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/polygamma.h"

namespace yaten::native {

// torch's polygamma_(n) is a method with self first; its value is the functional's, written into self (so autograd
// sees an in-place copy), which must be able to hold it as any in-place op's self.
inline Tensor polygamma__impl(const Tensor& self, int64_t n) {
  const Tensor result = yaten::polygamma(n, self);
  YATEN_CHECK(can_cast(result.dtype(), self.dtype()), RuntimeError, "polygamma_: result type ",
              dtype_name(result.dtype()), " can't be cast to the desired output type ", dtype_name(self.dtype()));
  return yaten::copy_(self, result);
}

namespace special_detail {
// ldexp computes in torch.result_type(self, other), made floating (the default float dtype for integers and bool):
// 2^other in that dtype, times self. So a bfloat16 self with int32 exponents stays bfloat16. Bool exponents of a
// floating self are torch's NotImplementedError (of an integer or bool self they work, as in torch).
inline Tensor ldexp_power(const Tensor& self, const Tensor& other) {
  ScalarType common = result_type({self, other});
  const bool floating = is_floating_point(common) || is_complex(common);
  YATEN_CHECK(!(floating && other.dtype() == ScalarType::Bool), NotImplementedError,
              "ldexp: exponents of dtype bool are not supported for a ", dtype_name(self.dtype()),
              " self (torch's ldexp_cpu_exp has no Bool kernel)");
  if (!floating) common = default_dtype();
  return yaten::exp2(other.dtype() == common ? other : yaten::_to_copy(other, common));
}
}  // namespace special_detail

inline Tensor ldexp_impl(const Tensor& self, const Tensor& other) {
  return yaten::mul(self, special_detail::ldexp_power(self, other));
}
inline Tensor ldexp__impl(const Tensor& self, const Tensor& other) {
  return yaten::mul_(self, special_detail::ldexp_power(self, other));
}
inline Tensor ldexp_out_impl(const Tensor& self, const Tensor& other, const Tensor& out) {
  return yaten::mul_out(self, special_detail::ldexp_power(self, other), out);
}

namespace special_detail {
constexpr double kDegreesPerRadian = 57.295779513082320876798154814105;
enum class Form { Functional, InPlace, Out };
// deg2rad and rad2deg in each of their three forms: a product with `factor`; complex operands refused as torch's.
inline Tensor scale_angle(const char* op, double factor, Form form, const Tensor& self, const Tensor* out = nullptr) {
  YATEN_CHECK(!is_complex(self.dtype()), RuntimeError, op, form == Form::InPlace ? "_" : "",
              " is not supported for complex tensors.");
  switch (form) {
    case Form::InPlace: return yaten::mul_(self, Scalar(factor));
    case Form::Out: return yaten::mul_out(self, Scalar(factor), *out);
    case Form::Functional: break;
  }
  return yaten::mul(self, Scalar(factor));
}
constexpr double kRadiansPerDegree = 1.0 / kDegreesPerRadian;
}  // namespace special_detail

inline Tensor deg2rad_impl(const Tensor& self) {
  return special_detail::scale_angle("deg2rad", special_detail::kRadiansPerDegree, special_detail::Form::Functional,
                                     self);
}
inline Tensor deg2rad__impl(const Tensor& self) {
  return special_detail::scale_angle("deg2rad", special_detail::kRadiansPerDegree, special_detail::Form::InPlace, self);
}
inline Tensor deg2rad_out_impl(const Tensor& self, const Tensor& out) {
  return special_detail::scale_angle("deg2rad", special_detail::kRadiansPerDegree, special_detail::Form::Out, self,
                                     &out);
}
inline Tensor rad2deg_impl(const Tensor& self) {
  return special_detail::scale_angle("rad2deg", special_detail::kDegreesPerRadian, special_detail::Form::Functional,
                                     self);
}
inline Tensor rad2deg__impl(const Tensor& self) {
  return special_detail::scale_angle("rad2deg", special_detail::kDegreesPerRadian, special_detail::Form::InPlace, self);
}
inline Tensor rad2deg_out_impl(const Tensor& self, const Tensor& out) {
  return special_detail::scale_angle("rad2deg", special_detail::kDegreesPerRadian, special_detail::Form::Out, self,
                                     &out);
}

// unary plus: self itself; bool tensors refuse it as torch's `+` does.
inline Tensor positive_impl(const Tensor& self) {
  YATEN_CHECK(self.dtype() != ScalarType::Bool, RuntimeError,
              "The `+` operator, on a bool tensor is not supported.");
  return self;
}

}  // namespace yaten::native
