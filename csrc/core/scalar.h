// A Python number on its way into an op: a bool, an integer or a float, remembering which.
//
// The kind matters for type promotion (a Python float beside an int tensor gives the default float dtype), so a
// Scalar is never collapsed to double before the op has seen it.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"

namespace yaten {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Integral, Floating };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { value_.i = v; }
  Scalar(int v) : kind_(Kind::Integral) { value_.i = v; }
  Scalar(int64_t v) : kind_(Kind::Integral) { value_.i = v; }
  Scalar(double v) : kind_(Kind::Floating) { value_.d = v; }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Integral; }
  bool is_floating_point() const { return kind_ == Kind::Floating; }

  // The value converted to T, as C++ converts (float -> int truncates).
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return kind_ == Kind::Floating ? value_.d != 0 : value_.i != 0;
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      return T(kind_ == Kind::Floating ? static_cast<float>(value_.d) : static_cast<float>(value_.i));
    } else {
      return kind_ == Kind::Floating ? static_cast<T>(value_.d) : static_cast<T>(value_.i);
    }
  }
  double to_double() const { return to<double>(); }
  int64_t to_int64() const { return to<int64_t>(); }

  // The dtype torch gives a Python number of this kind when it stands alone: bool, int64 or float64.
  ScalarType natural_dtype() const {
    return kind_ == Kind::Bool ? ScalarType::Bool : kind_ == Kind::Integral ? ScalarType::Long : ScalarType::Double;
  }

 private:
  Kind kind_;
  union {
    int64_t i;
    double d;
  } value_;
};

}  // namespace yaten
