// CPU kernels of the comparisons. Their dtype rule is `compare`: the iterator promotes the inputs and allocates a
// bool output, so each kernel is one element function from two scalar_t to bool.
#pragma once

#include <cstring>
#include <type_traits>

#include <cmath>
#include <limits>
#include <optional>

#include "iter/cpu_loops.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void eq_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) == opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void ne_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) != opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void lt_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) < opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void le_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) <= opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void gt_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) > opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void ge_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) >= opmath_t<scalar_t>(b); });
}

}  // namespace yaten::native::cpu

namespace yaten::native::cpu {

// isnan/isinf/isfinite: integers and bool are always finite.
template <typename scalar_t>
void isnan_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t x) -> bool {
    const auto v = static_cast<opmath_t<scalar_t>>(x);
    return v != v;
  });
}
template <typename scalar_t>
void isinf_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t x) -> bool {
    if constexpr (std::is_integral_v<scalar_t>) {
      return false;
    } else {
      return std::isinf(static_cast<opmath_t<scalar_t>>(x));
    }
  });
}
template <typename scalar_t>
void isfinite_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t x) -> bool {
    if constexpr (std::is_integral_v<scalar_t>) {
      return true;
    } else {
      return std::isfinite(static_cast<opmath_t<scalar_t>>(x));
    }
  });
}

// The logical ops read any dtype as "nonzero is true".
template <typename scalar_t>
bool truthy(scalar_t x) { return static_cast<opmath_t<scalar_t>>(x) != opmath_t<scalar_t>(0); }
template <typename scalar_t>
void logical_and_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return truthy(a) && truthy(b); });
}
template <typename scalar_t>
void logical_or_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return truthy(a) || truthy(b); });
}
template <typename scalar_t>
void logical_xor_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return truthy(a) != truthy(b); });
}
template <typename scalar_t>
void logical_not_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a) -> bool { return !truthy(a); });
}

}  // namespace yaten::native::cpu

// isclose, nan_to_num, clamp, where.
namespace yaten::native::cpu {

template <typename T>
T max_finite() {
  if constexpr (std::is_same_v<T, Half>) {
    return T(65504.0f);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return T(3.38953138925153547590470800371487866880e+38f);
  } else {
    return std::numeric_limits<T>::max();
  }
}
template <typename T>
T lowest_finite() { return T(-static_cast<float>(max_finite<T>())); }
template <>
inline double lowest_finite<double>() { return std::numeric_limits<double>::lowest(); }

// |a - b| <= atol + rtol * |b|, or equal (infinities included), or both NaN with equal_nan. Torch requires one
// dtype for both inputs; integers compare in double.
template <typename scalar_t>
void isclose_kernel(const TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  YATEN_CHECK(iter.input_dtype(0) == iter.input_dtype(1), RuntimeError, "isclose: expected both inputs to have the "
              "same dtype, but got ", dtype_name(iter.input_dtype(0)), " and ", dtype_name(iter.input_dtype(1)));
  YATEN_CHECK(rtol >= 0, ValueError, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  YATEN_CHECK(atol >= 0, ValueError, "isclose: atol must be greater than or equal to zero, but got ", atol);
  using T = std::conditional_t<std::is_integral_v<scalar_t>, double, opmath_t<scalar_t>>;
  const T rt = static_cast<T>(rtol), at = static_cast<T>(atol);
  cpu_kernel(iter, [=](scalar_t x, scalar_t y) -> bool {
    const T a = static_cast<T>(x), b = static_cast<T>(y);
    if (a == b) return true;
    if (a != a || b != b) return equal_nan && a != a && b != b;
    const T diff = std::abs(a - b);
    return std::isfinite(diff) && diff <= at + rt * std::abs(b);
  });
}

// NaN, +inf and -inf become the given numbers (by default 0 and the dtype's largest and lowest finite values).
template <typename scalar_t>
void nan_to_num_kernel(const TensorIterator& iter, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) -> scalar_t { return x; });
  } else {
    using opmath = opmath_t<scalar_t>;
    const scalar_t n = static_cast<scalar_t>(static_cast<opmath>(nan.value_or(0.0)));
    const scalar_t hi = posinf ? static_cast<scalar_t>(static_cast<opmath>(*posinf)) : max_finite<scalar_t>();
    const scalar_t lo = neginf ? static_cast<scalar_t>(static_cast<opmath>(*neginf)) : lowest_finite<scalar_t>();
    cpu_kernel(iter, [=](scalar_t v) -> scalar_t {
      const opmath x = static_cast<opmath>(v);
      if (x != x) return n;
      if (x == std::numeric_limits<opmath>::infinity()) return hi;
      if (x == -std::numeric_limits<opmath>::infinity()) return lo;
      return v;
    });
  }
}

// clamp with both bounds: min(max(x, lo), hi), NaN anywhere giving NaN, and hi winning when lo > hi (as torch).
template <typename scalar_t>
void clamp_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t v, scalar_t l, scalar_t h) -> scalar_t {
    const opmath x = static_cast<opmath>(v), lo = static_cast<opmath>(l), hi = static_cast<opmath>(h);
    if constexpr (!std::is_integral_v<opmath>) {
      if (x != x || lo != lo || hi != hi) return static_cast<scalar_t>(x + lo + hi);
    }
    const opmath m = x < lo ? lo : x;
    return static_cast<scalar_t>(m > hi ? hi : m);
  });
}

// where(condition, self, other): scalar_t is the promoted dtype of self and other (the bool condition never raises
// it); the condition broadcasts with both.
namespace detail {
// c ? a : b as bit masking (no branch, so loops over it vectorize and never mispredict).
template <typename T>
inline T select(bool c, T a, T b) {
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t,
              std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    U ua, ub;
    std::memcpy(&ua, &a, sizeof(T));
    std::memcpy(&ub, &b, sizeof(T));
    const U mask = U(0) - U(c);
    const U r = U((ua & mask) | (ub & U(~mask)));
    T out;
    std::memcpy(&out, &r, sizeof(T));
    return out;
  } else {
    return c ? a : b;
  }
}
}  // namespace detail

template <typename scalar_t>
Tensor where_kernel(const Tensor& condition, const Tensor& self, const Tensor& other) {
  YATEN_CHECK(condition.dtype() == ScalarType::Bool, RuntimeError, "where: expected condition to be a boolean "
              "tensor, but got a tensor with dtype ", dtype_name(condition.dtype()));
  const ScalarType dtype = scalar_type_of<scalar_t>;
  const auto as_dtype = [dtype](const Tensor& t) -> Tensor {
    return t.dtype() == dtype ? t : yaten::_to_copy(t, dtype, std::nullopt);
  };
  const std::vector<int64_t> shape =
      broadcast_shapes("where", broadcast_shapes("where", condition.sizes(), self.sizes()), other.sizes());
  TensorIteratorConfig config;
  config.op_name = "where";
  config.keep_dtypes = true;
  config.output = yaten::detail::empty_tensor(shape, dtype, condition.device());
  config.inputs = {condition, as_dtype(self), as_dtype(other)};
  TensorIterator iter(std::move(config));
  // Branch-free: with a condition that is true at random (a relu mask), `c ? a : b` mispredicts half the time.
  cpu_kernel(iter, [](bool c, scalar_t a, scalar_t b) -> scalar_t { return detail::select(c, a, b); });
  return iter.finish();
}

}  // namespace yaten::native::cpu
