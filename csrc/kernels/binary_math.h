// The element math of the binary pointwise ops (arithmetic, bitwise, shifts), written once for both backends: the
// functors of kernels/pointwise_math.h's Design rule [Shared element math]. A family's functors have a header of their
// own so that an edit to one recompiles that family's units alone (Note [Functor headers per family],
// pointwise_math.h).
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// ------------------------------------------------------------------------------------------------ arithmetic

template <typename T>
struct AddOp {  // bool + bool is logical or, as in torch (the int sum converts back as "nonzero")
  om<T> alpha;
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    return static_cast<T>(wrapping_add(om<T>(x), wrapping_mul(alpha, om<T>(y))));
  }
};
template <typename T>
struct SubOp {
  om<T> alpha;
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    return static_cast<T>(wrapping_sub(om<T>(x), wrapping_mul(alpha, om<T>(y))));
  }
};
template <typename T>
struct MulOp {  // bool * bool is logical and
  YATEN_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(wrapping_mul(om<T>(x), om<T>(y))); }
};
template <typename T>
struct DivOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(om<T>(x) / om<T>(y)); }
};

// maximum/minimum: NaN propagates. fmax/fmin: a NaN loses to a number.
template <typename T, bool kMax, bool kNanWins>
struct ExtremumOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    if constexpr (!std::is_integral_v<om<T>>) {
      if (x != x) return kNanWins ? a : b;
      if (y != y) return kNanWins ? b : a;
    }
    return (kMax ? x > y : x < y) ? a : b;
  }
};
template <typename T>
using MaximumOp = ExtremumOp<T, true, true>;
template <typename T>
using MinimumOp = ExtremumOp<T, false, true>;
template <typename T>
using FmaxOp = ExtremumOp<T, true, false>;
template <typename T>
using FminOp = ExtremumOp<T, false, false>;

// remainder: the result has the sign of the divisor (Python's %).
template <typename T>
struct RemainderOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      T r = math::int_remainder(x, y, "remainder");
      if constexpr (std::is_signed_v<T>) {  // an unsigned remainder has the divisor's sign already
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
      }
      return r;
    } else {
      const om<T> a = static_cast<om<T>>(x), b = static_cast<om<T>>(y);
      om<T> r = std::fmod(a, b);
      if (r != om<T>(0) && ((b < om<T>(0)) != (r < om<T>(0)))) r += b;
      return static_cast<T>(r);
    }
  }
};
// fmod: the result has the sign of the dividend (C's fmod).
template <typename T>
struct FmodOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return math::int_remainder(x, y, "fmod");
    } else {
      return static_cast<T>(std::fmod(static_cast<om<T>>(x), static_cast<om<T>>(y)));
    }
  }
};
template <typename T>
struct FloorDivideOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      T q = math::int_quotient(x, y, "floor_divide");
      if constexpr (std::is_signed_v<T>) {  // unsigned division already rounds down
        if (math::int_remainder(x, y, "floor_divide") != 0 && ((x < 0) != (y < 0))) --q;
      }
      return q;
    } else {
      return static_cast<T>(math::floor_divide_float<om<T>>(x, y));
    }
  }
};
// div(rounding_mode="trunc").
template <typename T>
struct DivTruncOp {
  YATEN_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return math::int_quotient(x, y, "div");
    } else {
      // the quotient rounded to T first (float16 and bfloat16: 17.95 is 18 before the truncation), as torch
      return static_cast<T>(std::trunc(static_cast<om<T>>(static_cast<T>(static_cast<om<T>>(x) /
                                                                         static_cast<om<T>>(y)))));
    }
  }
};
// pow: integers by repeated squaring (a negative exponent gives 0 unless the base is 1 or -1, as in torch).
template <typename T>
struct PowOp {
  YATEN_HOST_DEVICE T operator()(T base, T exponent) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (exponent < 0) {
          if (base == 1) return 1;
          if (base == -1) return (exponent & 1) ? -1 : 1;
          return 0;
        }
      }
      using wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      wide result = 1, b = base;
      for (auto e = static_cast<uint64_t>(exponent); e; e >>= 1) {
        if (e & 1) result = static_cast<wide>(static_cast<uint64_t>(result) * static_cast<uint64_t>(b));
        b = static_cast<wide>(static_cast<uint64_t>(b) * static_cast<uint64_t>(b));
      }
      return static_cast<T>(result);
    } else if constexpr (is_complex_v<T>) {  // exp(e * log(x)), as std::pow of complex numbers
      if (exponent == T(2)) return base * base;
      if (exponent == T(0)) return T(1);
      if (base == T(0)) return exponent.re > 0 ? T(0) : T(std::numeric_limits<decltype(base.re)>::quiet_NaN(), 0);
      // in double: the float form's log and exp would each add their rounding to a result that can be large
      const Complex<double> b(base.re, base.im), e(exponent.re, exponent.im);
      const Complex<double> r = complex_exp(e * complex_log(b));
      return T(static_cast<decltype(base.re)>(r.re), static_cast<decltype(base.re)>(r.im));
    } else {
      const om<T> e = static_cast<om<T>>(exponent), x = static_cast<om<T>>(base);
      if (e == om<T>(2)) return static_cast<T>(x * x);
      if (e == om<T>(0.5)) return static_cast<T>(std::sqrt(x));
      return static_cast<T>(std::pow(x, e));
    }
  }
};
template <typename T>
struct Atan2Op {
  YATEN_HOST_DEVICE T operator()(T y, T x) const { return static_cast<T>(std::atan2(om<T>(y), om<T>(x))); }
};
template <typename T>
struct HypotOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(std::hypot(om<T>(a), om<T>(b))); }
};
template <typename T>
struct LerpScalarOp {
  om<T> weight;
  YATEN_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(math::lerp(om<T>(a), om<T>(b), weight)); }
};
template <typename T>
struct LerpTensorOp {
  YATEN_HOST_DEVICE T operator()(T a, T b, T w) const {
    return static_cast<T>(math::lerp(om<T>(a), om<T>(b), om<T>(w)));
  }
};
template <typename T>
struct AddcmulOp {
  om<T> value;
  YATEN_HOST_DEVICE T operator()(T s, T a, T b) const {
    return static_cast<T>(om<T>(s) + value * om<T>(a) * om<T>(b));
  }
};
template <typename T>
struct AddcdivOp {
  om<T> value;
  YATEN_HOST_DEVICE T operator()(T s, T a, T b) const {
    return static_cast<T>(om<T>(s) + value * (om<T>(a) / om<T>(b)));
  }
};

// ------------------------------------------------------------------------------------------------ bitwise

template <typename T>
struct BitwiseAndOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a & b); }
};
template <typename T>
struct BitwiseOrOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a | b); }
};
template <typename T>
struct BitwiseXorOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};
template <typename T>
struct BitwiseNotOp {
  YATEN_HOST_DEVICE T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>) {
      return !a;
    } else {
      return static_cast<T>(~a);
    }
  }
};
// A shift by a negative amount or by the width or more gives 0 (left) or the sign fill (right), as in torch.
template <typename T>
struct LeftShiftOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    if (static_cast<U>(b) >= sizeof(T) * 8) return 0;
    return static_cast<T>(static_cast<U>(a) << b);
  }
};
template <typename T>
struct RightShiftOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    if (static_cast<std::make_unsigned_t<T>>(b) >= sizeof(T) * 8) {
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      return 0;
    }
    return static_cast<T>(a >> b);
  }
};

}  // namespace yaten::native
