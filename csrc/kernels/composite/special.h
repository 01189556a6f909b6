// CompositeImplicit forms of the special and exponent ops that are written with other ops: ldexp (self * 2^other),
// deg2rad and rad2deg (a product with a constant), positive, polygamma's in-place method, special.ndtr (erfc) and
// mvlgamma (lgamma).
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "core/type_promotion.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/exp2.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/polygamma.h"
#include "yaten/ops/add.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/erfc.h"
#include "yaten/ops/lgamma.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"

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

// The standard normal distribution function: erfc(-x / sqrt(2)) / 2, accurate in both tails (no 1 - small number).
inline Tensor special_ndtr_impl(const Tensor& self) {
  return yaten::mul(yaten::erfc(yaten::mul(self, Scalar(-0.70710678118654752440))), Scalar(0.5));
}

// The multivariate log-gamma function of dimension p: p(p-1)/4 log(pi) + sum_{i<p} lgamma(self - i/2) (lgamma's value
// below (p-1)/2 too, as torch 2.13 gives it; p >= 1 as torch checks).
inline Tensor mvlgamma_impl(const Tensor& self, int64_t p) {
  YATEN_CHECK(p >= 1, RuntimeError, "p has to be greater than or equal to 1");
  YATEN_CHECK(!is_complex(self.dtype()), RuntimeError, "mvlgamma: complex inputs are not supported");
  YATEN_CHECK(self.dtype() != ScalarType::Bool, RuntimeError, "The input tensor may not be a boolean tensor.");
  const Tensor x = is_floating_point(self.dtype()) ? self : yaten::_to_copy(self, default_dtype());
  const Tensor halves = yaten::mul(yaten::arange(Scalar(p), x.dtype(), x.device()), Scalar(-0.5));  // -i/2
  const Tensor terms = yaten::lgamma(yaten::add(yaten::unsqueeze(x, -1), halves));
  const double constant = double(p) * double(p - 1) / 4 * 1.14472988584940017414;  // log(pi)
  return yaten::add(yaten::sum(terms, std::vector<int64_t>{-1}, false, std::nullopt), Scalar(constant));
}

}  // namespace yaten::native
