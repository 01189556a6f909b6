// A Python number on its way into an op: a bool, an integer, a float or a complex number, remembering which.
//
// The kind matters for type promotion (a Python float beside an int tensor gives the default float dtype), so a
// Scalar is never collapsed to double before the op has seen it.
#pragma once

#include <cstdint>
#include <limits>

#include "core/convert.h"
#include "core/scalar_type.h"

namespace yaten {

// RuntimeError: "value cannot be converted to type <dtype> without overflow".
[[noreturn]] void scalar_overflow(ScalarType type);
class Scalar;
// That RuntimeError when `value` does not fit `type` (Scalar::to's check, for a dtype known only at run time).
void check_scalar_fits(const Scalar& value, ScalarType type);

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Integral, Floating, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { value_.i = v; }
  Scalar(int v) : kind_(Kind::Integral) { value_.i = v; }
  Scalar(int64_t v) : kind_(Kind::Integral) { value_.i = v; }
  Scalar(double v) : kind_(Kind::Floating) { value_.d = v; }
  template <typename T>
  Scalar(Complex<T> v) : kind_(Kind::Complex), imag_(static_cast<double>(v.im)) { value_.d = static_cast<double>(v.re); }

  // A Python int in [2^63, 2^64): only uint64 (and the floating types) can hold it; value_.i keeps its bits.
  static Scalar from_uint64(uint64_t v) {
    Scalar s(static_cast<int64_t>(v));
    s.big_unsigned_ = v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return s;
  }
  bool is_big_unsigned() const { return big_unsigned_; }
  uint64_t to_uint64_bits() const { return static_cast<uint64_t>(value_.i); }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Integral; }
  bool is_floating_point() const { return kind_ == Kind::Floating; }
  bool is_complex() const { return kind_ == Kind::Complex; }
  Complex<double> to_complex() const { return {to_real_part(), imag_}; }

  // The value converted to T, as torch's Scalar::to converts: a float into an integer truncates, a negative
  // integer into uint8 wraps; a finite value outside T's range is a RuntimeError ("value cannot be converted to type
  // int8 without overflow"), as in torch (infinities and NaN convert to a floating T, and overflow an integral one).
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return floating_like() ? value_.d != 0 || imag_ != 0 : value_.i != 0;
    } else if constexpr (is_complex_v<T>) {  // each part as a float of T's width (no overflow check, as torch's)
      return T(static_cast<real_of_t<T>>(to_real_part()), static_cast<real_of_t<T>>(imag_));
    } else {
      if (__builtin_expect(overflows<T>(), 0)) scalar_overflow(CppTypeToScalarType<T>::value);
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        return T(floating_like() || big_unsigned_ ? static_cast<float>(to_real_part()) : static_cast<float>(value_.i));
      } else if constexpr (std::is_integral_v<T>) {
        return floating_like() ? convert<T>(value_.d) : static_cast<T>(value_.i);  // a big unsigned one is a uint64
      } else {
        return floating_like() ? static_cast<T>(value_.d)
               : big_unsigned_ ? static_cast<T>(static_cast<uint64_t>(value_.i))
                               : static_cast<T>(value_.i);
      }
    }
  }
  double to_double() const { return to<double>(); }
  int64_t to_int64() const { return to<int64_t>(); }

  // Whether to<T>() would overflow (torch's c10::overflows).
  template <typename T>
  bool overflows() const {
    if (kind_ == Kind::Complex && imag_ != 0) return !is_complex_v<T>;  // a real type cannot hold it, as in torch
    if constexpr (is_complex_v<T>) {
      return false;
    } else if constexpr (std::is_integral_v<T>) {
      if (floating_like()) {  // NaN and the infinities overflow too, as in torch
        return !(value_.d >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
                 value_.d <= static_cast<double>(std::numeric_limits<T>::max()));
      }
      const int64_t v = value_.i;
      if (big_unsigned_) return !std::is_same_v<T, uint64_t>;
      if constexpr (std::is_unsigned_v<T>) {  // negative values wrap (uint8: -1 is 255), as in torch
        const uint64_t magnitude = v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        return magnitude > static_cast<uint64_t>(std::numeric_limits<T>::max());
      } else {
        return v < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
               v > static_cast<int64_t>(std::numeric_limits<T>::max());
      }
    } else {
      const double v = to_real_part();
      double max;
      if constexpr (std::is_same_v<T, Half>) {
        max = 65504.0;
      } else if constexpr (std::is_same_v<T, BFloat16>) {
        max = 3.3895313892515355e38;
      } else {
        max = static_cast<double>(std::numeric_limits<T>::max());
      }
      return (v < -max || v > max) && v - v == 0;  // finite and out of range
    }
  }

  // The dtype torch gives a Python number of this kind when it stands alone: bool, int64, float64 or complex128.
  // A Python int past int64's range is a uint64.
  ScalarType natural_dtype() const {
    return big_unsigned_             ? ScalarType::UInt64
           : kind_ == Kind::Bool     ? ScalarType::Bool
           : kind_ == Kind::Integral ? ScalarType::Long
           : kind_ == Kind::Floating ? ScalarType::Double
                                     : ScalarType::ComplexDouble;
  }

 private:
  bool floating_like() const { return kind_ == Kind::Floating || kind_ == Kind::Complex; }
  double to_real_part() const {
    return floating_like() ? value_.d
           : big_unsigned_ ? static_cast<double>(static_cast<uint64_t>(value_.i))
                           : static_cast<double>(value_.i);
  }

  Kind kind_;
  bool big_unsigned_ = false;
  double imag_ = 0;  // the imaginary part of a complex number (value_.d holds its real part)
  union {
    int64_t i;
    double d;
  } value_;
};

}  // namespace yaten
