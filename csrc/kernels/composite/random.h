// CompositeImplicit random ops: the factories (rand, randn, randint, randperm, normal, *_like) allocate and call the
// in-place random kernels; bernoulli and dropout build on bernoulli_.
#pragma once

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/memory_format.h"
#include "core/type_promotion.h"
#include "kernels/composite/common.h"
#include "yaten/ops/_randperm.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/bernoulli.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/empty_like.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/logical_not.h"
#include "yaten/ops/any.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/normal.h"
#include "yaten/ops/ones_like.h"
#include "yaten/ops/random.h"
#include "yaten/ops/uniform.h"
#include "yaten/ops/zeros.h"
#include "yaten/ops/zeros_like.h"

namespace yaten::native {

namespace random_detail {
inline ScalarType float_dtype(const char* op, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(default_dtype());
  YATEN_CHECK(is_floating_point(t) || is_complex(t), NotImplementedError, op, "(): not implemented for ",
              dtype_name(t), " (it draws floating-point or complex numbers)");
  return t;
}
inline Device device_of(std::optional<Device> device) { return device.value_or(Device(DeviceType::CPU)); }
inline bool is_empty(const std::vector<int64_t>& size) {
  return std::any_of(size.begin(), size.end(), [](int64_t n) { return n == 0; });
}
}  // namespace random_detail

// Note [Random ops on empty tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// torch's normal_ and bernoulli_ return before they look at the dtype when there is nothing to fill, so normal,
// randn, randn_like, bernoulli and dropout of an empty integer or bool tensor give an empty tensor of that dtype
// (rand and uniform_ check first, in torch and here). yaten follows, so that code working on torch's empty batches
// works here.

inline Tensor rand_impl(const std::vector<int64_t>& size, const std::optional<Generator>& generator,
                        std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor out = yaten::empty(size, random_detail::float_dtype("rand", dtype), random_detail::device_of(device));
  return yaten::uniform_(out, 0.0, 1.0, generator);  // complex: each part (the kernel's real view)
}
inline Tensor randn_impl(const std::vector<int64_t>& size, const std::optional<Generator>& generator,
                         std::optional<ScalarType> dtype, std::optional<Device> device) {
  if (random_detail::is_empty(size)) {  // Note [Random ops on empty tensors]
    return yaten::empty(size, dtype.value_or(default_dtype()), random_detail::device_of(device));
  }
  Tensor out = yaten::empty(size, random_detail::float_dtype("randn", dtype), random_detail::device_of(device));
  return yaten::normal_(out, 0.0, 1.0, generator);  // complex: each part of variance 1/2
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
inline Tensor rand_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                             std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return rand_impl(self.sizes(), std::nullopt, dtype.value_or(self.dtype()), device.value_or(self.device()));
  }
  const Tensor out = yaten::empty_like(self, dtype, device, memory_format);
  random_detail::float_dtype("rand_like", out.dtype());
  return yaten::uniform_(out, 0.0, 1.0, std::nullopt);
}
inline Tensor randn_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                              std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return randn_impl(self.sizes(), std::nullopt, dtype.value_or(self.dtype()), device.value_or(self.device()));
  }
  const Tensor out = yaten::empty_like(self, dtype, device, memory_format);
  if (out.numel() == 0) return out;  // Note [Random ops on empty tensors]
  random_detail::float_dtype("randn_like", out.dtype());
  return yaten::normal_(out, 0.0, 1.0, std::nullopt);
}

// normal with tensor arguments, as torch computes it: standard normals in mean's dtype (std's for a number mean) and
// the broadcast shape, scaled by std and shifted by mean in place.
namespace random_detail {
inline void check_std(const Tensor& std) {
  // NaN fails too, as in torch
  YATEN_CHECK(!composite_detail::item_bool(yaten::any(yaten::logical_not(yaten::ge(std, Scalar(0.0))))), RuntimeError,
              "normal(): expects all elements of std >= 0.0");
}
}  // namespace random_detail
inline Tensor normal_tensor_tensor_impl(const Tensor& mean, const Tensor& std, const std::optional<Generator>& generator) {
  // (an empty integer mean still gets torch's in-place mul_ by std below: a float std cannot be cast into it)
  Tensor out = yaten::empty(broadcast_shapes("normal", mean.sizes(), std.sizes()), mean.dtype(), mean.device());
  if (out.numel() > 0) {  // Note [Random ops on empty tensors]
    YATEN_CHECK(is_floating_point(mean.dtype()), NotImplementedError, "normal(): not implemented for a mean of ",
                dtype_name(mean.dtype()), " (the result has mean's dtype)");
    random_detail::check_std(std);
    yaten::normal_(out, 0.0, 1.0, generator);
  }
  return yaten::add_(yaten::mul_(out, std), mean, Scalar(int64_t(1)));
}
inline Tensor normal_tensor_float_impl(const Tensor& mean, double std, const std::optional<Generator>& generator) {
  YATEN_CHECK(std >= 0.0, RuntimeError, "normal(): expects std >= 0.0, but found std ", std);
  Tensor out = yaten::empty_like(mean, std::nullopt, std::nullopt);
  if (out.numel() == 0 && !is_floating_point(out.dtype())) return out;  // nothing to draw or differentiate
  if (out.numel() > 0) {
    YATEN_CHECK(is_floating_point(mean.dtype()), NotImplementedError, "normal(): not implemented for a mean of ",
                dtype_name(mean.dtype()), " (the result has mean's dtype)");
    yaten::normal_(out, 0.0, std, generator);
  }
  return yaten::add_(out, mean, Scalar(int64_t(1)));
}
inline Tensor normal_float_tensor_impl(double mean, const Tensor& std, const std::optional<Generator>& generator) {
  check_scalar_fits(Scalar(mean), std.dtype());  // torch converts mean to std's dtype, even with nothing to draw
  Tensor out = yaten::empty_like(std, std::nullopt, std::nullopt);
  if (out.numel() == 0 && !is_floating_point(out.dtype())) return out;  // nothing to draw or differentiate
  if (out.numel() > 0) {
    YATEN_CHECK(is_floating_point(std.dtype()), NotImplementedError, "normal(): not implemented for a std of ",
                dtype_name(std.dtype()), " (the result has std's dtype)");
    random_detail::check_std(std);
    yaten::normal_(out, 0.0, 1.0, generator);
  }
  return yaten::add_(yaten::mul_(out, std), Scalar(mean), Scalar(int64_t(1)));
}
inline Tensor normal_float_float_impl(double mean, double std, const std::vector<int64_t>& size,
                                      const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
                                      std::optional<Device> device) {
  YATEN_CHECK(std >= 0.0, RuntimeError, "normal(): expects std >= 0.0, but found std ", std);
  if (random_detail::is_empty(size)) return yaten::empty(size, dtype.value_or(default_dtype()), random_detail::device_of(device));
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
inline void check_dropout_p(const char* op, double p) {
  YATEN_CHECK(p >= 0 && p <= 1, ValueError, op, ": dropout probability has to be between 0 and 1, but got ", p);
}
// The dropout mask for `input` (0 < p < 1): 1/(1-p) with probability 1-p, else 0, in input's dtype.
inline Tensor dropout_mask(const char* op, const Tensor& input, double p) {
  YATEN_CHECK(is_floating_point(input.dtype()), RuntimeError, op, ": expected a floating input, got ",
              dtype_name(input.dtype()), " (its mask 1/(1-p) cannot be written in it)");
  Tensor mask = yaten::empty_like(input, std::nullopt, std::nullopt);
  yaten::bernoulli_(mask, 1.0 - p, std::nullopt);
  return yaten::mul_(mask, Scalar(1.0 / (1.0 - p)));
}
}  // namespace random_detail

// dropout as torch's: p == 0, not training, or an empty input gives the input itself; p == 1 gives zeros (of any
// dtype); otherwise the input times the mask.
inline Tensor dropout_impl(const Tensor& input, double p, bool train) {
  random_detail::check_dropout_p("dropout", p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (p == 1) return yaten::mul(input, yaten::zeros({}, input.dtype(), input.device()));
  return yaten::mul(input, random_detail::dropout_mask("dropout", input, p));
}
inline Tensor dropout_inplace_impl(const Tensor& self, double p, bool train) {
  random_detail::check_dropout_p("dropout_", p);
  if (p == 0 || !train || self.numel() == 0) return self;
  if (p == 1) return yaten::mul_(self, yaten::zeros({}, self.dtype(), self.device()));
  return yaten::mul_(self, random_detail::dropout_mask("dropout_", self, p));
}

// native_dropout, torch's Core ATen op: the output and the bool mask of the elements kept (drawn as dropout draws
// them, so that with one seed both keep the same elements); when not training (train=False), a copy of the input
// and a mask of ones. As torch's: an empty input gives itself and an empty mask of its dtype, and p is checked only
// when training.
inline std::tuple<Tensor, Tensor> native_dropout_impl(const Tensor& input, double p, std::optional<bool> train) {
  const char* op = "native_dropout";
  if (input.numel() == 0) return {input, yaten::empty_like(input, std::nullopt, std::nullopt)};
  if (train.has_value() && !*train) {
    return {yaten::clone(input), yaten::ones_like(input, ScalarType::Bool, std::nullopt)};
  }
  random_detail::check_dropout_p(op, p);
  YATEN_CHECK(is_floating_point(input.dtype()), RuntimeError, op, ": expected a floating input, got ",
              dtype_name(input.dtype()));
  Tensor keep = yaten::empty_like(input, std::nullopt, std::nullopt);
  yaten::bernoulli_(keep, 1.0 - p, std::nullopt);
  const Tensor output = yaten::mul(yaten::mul(input, keep), Scalar(p == 1 ? 0.0 : 1.0 / (1.0 - p)));
  return {output, yaten::_to_copy(keep, ScalarType::Bool, std::nullopt)};
}

}  // namespace yaten::native
