// CompositeImplicit random ops: the factories (rand, randn, randint, randperm, normal, *_like) allocate and call the
// in-place random kernels; bernoulli and dropout build on bernoulli_.
#pragma once

#include <optional>
#include <vector>

#include "core/generator.h"
#include "core/type_promotion.h"
#include "kernels/composite/common.h"
#include "yaten/ops/_randperm.h"
#include "yaten/ops/add.h"
#include "yaten/ops/bernoulli.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/empty_like.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/any.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/normal.h"
#include "yaten/ops/random.h"
#include "yaten/ops/uniform.h"
#include "yaten/ops/zeros_like.h"

namespace yaten::native {

namespace random_detail {
inline ScalarType float_dtype(const char* op, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(default_dtype());
  YATEN_CHECK(is_floating_point(t), TypeError, op, "(): expected a floating dtype, got ", dtype_name(t));
  return t;
}
inline Device device_of(std::optional<Device> device) { return device.value_or(Device(DeviceType::CPU)); }
}  // namespace random_detail

inline Tensor rand_impl(const std::vector<int64_t>& size, const std::optional<Generator>& generator,
                        std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor out = yaten::empty(size, random_detail::float_dtype("rand", dtype), random_detail::device_of(device));
  return yaten::uniform_(out, 0.0, 1.0, generator);
}
inline Tensor randn_impl(const std::vector<int64_t>& size, const std::optional<Generator>& generator,
                         std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor out = yaten::empty(size, random_detail::float_dtype("randn", dtype), random_detail::device_of(device));
  return yaten::normal_(out, 0.0, 1.0, generator);
}
inline Tensor randint_low_impl(int64_t low, int64_t high, const std::vector<int64_t>& size,
                               const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                               std::optional<Device> device) {
  YATEN_CHECK(low < high, RuntimeError, "randint(): expected low < high, but got low=", low, " and high=", high);
  Tensor out = yaten::empty(size, dtype.value_or(ScalarType::Long), random_detail::device_of(device));
  return yaten::random_(out, low, high, generator);
}
inline Tensor randint_impl(int64_t high, const std::vector<int64_t>& size, const std::optional<Generator>& generator,
                           std::optional<ScalarType> dtype, std::optional<Device> device) {
  return randint_low_impl(0, high, size, generator, dtype, device);
}
inline Tensor random_to_impl(const Tensor& self, int64_t to, const std::optional<Generator>& generator) {
  return yaten::random_(self, 0, to, generator);
}
inline Tensor randperm_impl(int64_t n, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                            std::optional<Device> device) {
  YATEN_CHECK(n >= 0, RuntimeError, "randperm(): n must be non-negative, got ", n);
  Tensor out = yaten::empty({n}, dtype.value_or(ScalarType::Long), random_detail::device_of(device));
  return yaten::_randperm_(out, generator);
}
inline Tensor rand_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return rand_impl(self.sizes(), std::nullopt, dtype.value_or(self.dtype()), device.value_or(self.device()));
}
inline Tensor randn_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return randn_impl(self.sizes(), std::nullopt, dtype.value_or(self.dtype()), device.value_or(self.device()));
}

// normal with tensor arguments: standard normals in the broadcast shape, scaled by std and shifted by mean.
inline Tensor normal_tensor_tensor_impl(const Tensor& mean, const Tensor& std, const std::optional<Generator>& generator) {
  // torch needs a floating mean (the result has its dtype); std may be integral
  YATEN_CHECK(is_floating_point(mean.dtype()), TypeError, "normal(): expected a floating mean, got ",
              dtype_name(mean.dtype()), " (and std ", dtype_name(std.dtype()), ")");
  YATEN_CHECK(!composite_detail::item_bool(yaten::any(yaten::lt(std, Scalar(0.0)))), RuntimeError, "normal(): expects all elements "
              "of std >= 0.0");
  const Tensor shifted = yaten::add(yaten::mul(yaten::zeros_like(std, std::nullopt, std::nullopt), Scalar(0.0)), mean,
                                    Scalar(int64_t(1)));  // the broadcast shape and promoted dtype
  Tensor z = yaten::empty_like(shifted, std::nullopt, std::nullopt);
  yaten::normal_(z, 0.0, 1.0, generator);
  return yaten::add(mean, yaten::mul(z, std), Scalar(int64_t(1)));
}
inline Tensor normal_tensor_float_impl(const Tensor& mean, double std, const std::optional<Generator>& generator) {
  YATEN_CHECK(is_floating_point(mean.dtype()), TypeError, "normal(): expected a floating mean, got ",
              dtype_name(mean.dtype()));
  YATEN_CHECK(std >= 0.0, RuntimeError, "normal(): expects std >= 0.0, but found std ", std);
  Tensor z = yaten::empty_like(mean, std::nullopt, std::nullopt);
  yaten::normal_(z, 0.0, std, generator);
  return yaten::add(z, mean, Scalar(int64_t(1)));
}
inline Tensor normal_float_tensor_impl(double mean, const Tensor& std, const std::optional<Generator>& generator) {
  YATEN_CHECK(is_floating_point(std.dtype()), TypeError, "normal(): expected a floating std, got ",
              dtype_name(std.dtype()));
  YATEN_CHECK(!composite_detail::item_bool(yaten::any(yaten::lt(std, Scalar(0.0)))), RuntimeError, "normal(): expects all elements "
              "of std >= 0.0");
  Tensor z = yaten::empty_like(std, std::nullopt, std::nullopt);
  yaten::normal_(z, 0.0, 1.0, generator);
  return yaten::add(yaten::mul(z, std), Scalar(mean), Scalar(int64_t(1)));
}
inline Tensor normal_float_float_impl(double mean, double std, const std::vector<int64_t>& size,
                                      const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                                      std::optional<Device> device) {
  Tensor out = yaten::empty(size, random_detail::float_dtype("normal", dtype), random_detail::device_of(device));
  return yaten::normal_(out, mean, std, generator);
}

inline Tensor bernoulli_impl(const Tensor& self, const std::optional<Generator>& generator) {
  Tensor out = yaten::empty_like(self, std::nullopt, std::nullopt);
  return yaten::bernoulli_(out, self, generator);
}
inline Tensor bernoulli_p_impl(const Tensor& self, double p, const std::optional<Generator>& generator) {
  Tensor out = yaten::empty_like(self, std::nullopt, std::nullopt);
  return yaten::bernoulli_(out, p, generator);
}

namespace random_detail {
// The dropout mask for `input`: 1/(1-p) with probability 1-p, else 0, in input's dtype.
inline Tensor dropout_mask(const char* op, const Tensor& input, double p) {
  YATEN_CHECK(p >= 0 && p <= 1, ValueError, op, ": dropout probability has to be between 0 and 1, but got ", p);
  YATEN_CHECK(is_floating_point(input.dtype()), TypeError, op, ": expected a floating input, got ",
              dtype_name(input.dtype()));
  Tensor mask = yaten::empty_like(input, std::nullopt, std::nullopt);
  yaten::bernoulli_(mask, 1.0 - p, std::nullopt);
  return p < 1 ? yaten::mul_(mask, Scalar(1.0 / (1.0 - p))) : mask;
}
}  // namespace random_detail

inline Tensor dropout_impl(const Tensor& input, double p, bool train) {
  if (!train) {
    YATEN_CHECK(p >= 0 && p <= 1, ValueError, "dropout: dropout probability has to be between 0 and 1, but got ", p);
    return input;
  }
  return yaten::mul(input, random_detail::dropout_mask("dropout", input, p));
}
inline Tensor dropout_inplace_impl(const Tensor& self, double p, bool train) {
  YATEN_CHECK(p >= 0 && p <= 1, ValueError, "dropout_: dropout probability has to be between 0 and 1, but got ", p);
  if (!train) return self;
  return yaten::mul_(self, random_detail::dropout_mask("dropout_", self, p));
}

}  // namespace yaten::native
