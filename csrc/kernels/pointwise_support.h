// What the pointwise kernels of both backends do on the host before their loop: checks on the operands, and the
// parameters of functors that need more than a cast of a Scalar. The element math is in pointwise_math.h.
#pragma once

#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "iter/tensor_iterator.h"
#include "kernels/pointwise_math.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native {

// torch's rule, checked on the operands as given (before promotion), so `mask - 1` is an error too. Both backends.
inline void check_sub_operands(const TensorIterator& iter) {
  const bool first = iter.input_dtype(0) == ScalarType::Bool, second = iter.input_dtype(1) == ScalarType::Bool;
  YATEN_CHECK(!(first && second), RuntimeError, "sub: subtraction, the `-` operator, with two bool tensors is not "
              "supported. Use the `^` or `logical_xor()` operator instead.");
  YATEN_CHECK(!(first || second), RuntimeError, "sub: subtraction, the `-` operator, with a bool tensor is not "
              "supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

// Ops that do not promote (lerp): every tensor, the out= too, of self's dtype. `names` names the inputs after
// self, in order ("end", "weight").
// With `out_too` false (lerp with a number or a 0-dim weight), the out= may have another dtype, as torch casts into
// it.
inline void check_same_dtypes(const char* op, const TensorIterator& iter, std::initializer_list<const char*> names,
                              bool out_too = true) {
  const ScalarType self = iter.input_dtype(0);
  int i = 1;
  for (const char* name : names) {
    if (i >= iter.ninputs()) break;
    YATEN_CHECK(iter.input_dtype(i) == self, RuntimeError, op, ": expected dtype ", dtype_name(self), " for `", name,
                "` but got dtype ", dtype_name(iter.input_dtype(i)));
    ++i;
  }
  YATEN_CHECK(!out_too || iter.output_dtype() == self, RuntimeError, op, ": Found dtype ",
              dtype_name(iter.output_dtype()),
              " but expected ", dtype_name(self), " (the out= tensor must have self's dtype)");
}

// lerp's weight tensor: self's dtype, unless it is 0-dim (then any dtype, as torch: lerp(a, b, tensor(1))).
inline void check_lerp_weight(const TensorIterator& iter) {
  YATEN_CHECK(iter.input_dim(2) == 0 || iter.input_dtype(2) == iter.input_dtype(0), RuntimeError, "lerp: expected "
              "dtype ", dtype_name(iter.input_dtype(0)), " for `weight` but got dtype ", dtype_name(iter.input_dtype(2)));
}

// pow of an integer (or bool) tensor to a negative integer number: torch's NumPy-compatible error. A 0-dim tensor
// exponent is not checked (integers to negative powers then give 0 unless the base is 1 or -1), as in torch.
// The number must also fit an integer or half-precision dtype it is computed in (torch converts it to that dtype
// with its overflow check; float32 and float64 keep it in double).
inline void check_pow_number_exponent(const TensorIterator& iter) {
  const std::optional<Scalar> exponent = iter.input_number(1);
  if (!exponent) return;
  YATEN_CHECK(!(!exponent->is_floating_point() && is_integral(iter.input_dtype(0), true) &&
                exponent->to<int64_t>() < 0),
              RuntimeError, "pow: Integers to negative integer powers are not allowed.");
  const ScalarType compute = iter.compute_dtype();
  if (is_integral(compute, true) || compute == ScalarType::Half || compute == ScalarType::BFloat16) {
    check_scalar_fits(*exponent, compute);
  }
}

// addcdiv of two integral tensors: torch refuses, rather than divide as integers or truly (its message).
inline void check_addcdiv_operands(const TensorIterator& iter) {
  YATEN_CHECK(!(is_integral(iter.input_dtype(1), true) && is_integral(iter.input_dtype(2), true)), RuntimeError,
              "addcdiv: Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
              "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
              "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
}

// hardtanh's limits: min_val <= max_val (ValueError, as torch's F.hardtanh), and none below zero on an unsigned
// dtype (they would wrap; torch refuses them too).
template <typename scalar_t>
void check_hardtanh_limits(const Scalar& min_val, const Scalar& max_val) {
  YATEN_CHECK(!(min_val.to<double>() > max_val.to<double>()), ValueError,
              "hardtanh: min_val cannot be greater than max_val");
  if constexpr (std::is_unsigned_v<scalar_t> && !std::is_same_v<scalar_t, bool>) {
    YATEN_CHECK(min_val.to<double>() >= 0 && max_val.to<double>() >= 0, RuntimeError,
                "hardtanh: cannot do hardtanh on an unsigned type with negative limits");
  }
}

// softshrink's lambd: from 0 to the dtype's largest finite value (torch's RuntimeError and message).
template <typename scalar_t>
void check_softshrink_lambd(const TensorIterator& iter, const Scalar& lambd) {
  const double l = lambd.to<double>();
  const double top = static_cast<double>(std::numeric_limits<om<scalar_t>>::max());
  YATEN_CHECK(l >= 0 && l <= top, RuntimeError, "softshrink: lambda must be in range [0, ", top,
              "] for input dtype ", dtype_name(iter.input_dtype(0)), ", but found ", l);
}

// Checks and parameters shared by both backends' kernels.
inline void check_isclose(const TensorIterator& iter, double rtol, double atol) {
  YATEN_CHECK(iter.input_dtype(0) == iter.input_dtype(1), RuntimeError, "isclose: expected both inputs to have the "
              "same dtype, but got ", dtype_name(iter.input_dtype(0)), " and ", dtype_name(iter.input_dtype(1)));
  YATEN_CHECK(rtol >= 0, RuntimeError, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  YATEN_CHECK(atol >= 0, RuntimeError, "isclose: atol must be greater than or equal to zero, but got ", atol);
}

// where(condition, self, other): scalar_t is the promoted dtype of self and other (the bool condition never raises
// it); the condition broadcasts with both.
template <typename scalar_t>
TensorIterator where_iterator(const Tensor& condition, const Tensor& self, const Tensor& other) {
  YATEN_CHECK(condition.dtype() == ScalarType::Bool, RuntimeError, "where: expected condition to be a boolean "
              "tensor, but got a tensor with dtype ", dtype_name(condition.dtype()));
  const ScalarType dtype = scalar_type_of<scalar_t>;
  const auto as_dtype = [dtype](const Tensor& t) -> Tensor {
    return t.dtype() == dtype ? t : yaten::_to_copy(t, dtype, std::nullopt);
  };
  const std::vector<int64_t> shape =
      broadcast_shapes("where", broadcast_shapes("where", condition.sizes(), self.sizes()), other.sizes());
  Device device = condition.device();
  for (const Tensor* t : {&condition, &self, &other}) {
    if (!(t->dim() == 0 && t->device().is_cpu())) device = t->device();
  }
  TensorIteratorConfig config;
  config.op_name = "where";
  config.keep_dtypes = true;
  config.output = yaten::detail::empty_tensor(shape, dtype, device);
  config.inputs = {condition, as_dtype(self), as_dtype(other)};
  return TensorIterator(std::move(config));
}

inline void check_gelu_approximate(const std::string& approximate) {
  YATEN_CHECK(approximate == "none" || approximate == "tanh", RuntimeError,
              "gelu: approximate must be 'none' or 'tanh', not '", approximate, "'");
}

// arange's length, as torch computes it for a result of `dtype`: for int64, start, end and step first become int64
// (truncated: arange(0., -8.000001, -4., dtype=int64) is [0, -4]) and the count is exact; for every other dtype it
// is ceil((end - start) / step) in double, of the values as given.
inline int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  const char* op = "arange";
  if (dtype == ScalarType::Long) {
    const int64_t s = start.to_int64(), e = end.to_int64(), d = step.to_int64();
    YATEN_CHECK(d != 0, RuntimeError, op, ": step must be nonzero");
    YATEN_CHECK((d > 0 && e >= s) || (d < 0 && e <= s), RuntimeError, op,
                ": upper bound and larger bound inconsistent with step sign");
    return d > 0 ? (e - s + d - 1) / d : (s - e - d - 1) / -d;
  }
  const double s = start.to_double(), e = end.to_double(), d = step.to_double();
  YATEN_CHECK(d != 0, RuntimeError, op, ": step must be nonzero");
  YATEN_CHECK(std::isfinite(s) && std::isfinite(e), RuntimeError, op, ": unsupported range: ", s, " -> ", e);
  YATEN_CHECK((d > 0 && e >= s) || (d < 0 && e <= s), RuntimeError, op,
              ": upper bound and larger bound inconsistent with step sign");
  const double length = std::ceil((e - s) / d);
  YATEN_CHECK(length < 9.2e18, RuntimeError, op, ": the range holds too many elements (", length, ")");
  return static_cast<int64_t>(length);
}

// masked_fill_(self, mask, value): self read and written in place, the bool mask broadcast against it.
inline TensorIterator masked_fill_iterator(const Tensor& self, const Tensor& mask) {
  YATEN_CHECK(mask.dtype() == ScalarType::Bool, RuntimeError, "masked_fill_: expected a bool mask, got ",
              dtype_name(mask.dtype()));
  TensorIteratorConfig config;
  config.op_name = "masked_fill_";
  config.output = self;
  config.output_is_input = true;
  config.keep_dtypes = true;
  config.inputs = {self, mask};
  return TensorIterator(std::move(config));
}

}  // namespace yaten::native
