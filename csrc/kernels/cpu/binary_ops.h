// CPU kernels of the arithmetic binary ops. Each is one element function over a TensorIterator that the generated
// wrapper built (broadcast, promoted, allocated); see the contracts at the end of yaten/ops/<op>.h.
#pragma once

#include <cmath>
#include <type_traits>

#include "iter/cpu_loops.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void add_kernel(const TensorIterator& iter, const Scalar& alpha) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    // bool + bool is logical or, as in torch; alpha scales as a bool.
    const bool a = alpha.to<bool>();
    cpu_kernel(iter, [a](bool x, bool y) -> bool { return x || (a && y); });
  } else {
    const opmath a = alpha.to<opmath>();
    if (a == opmath(1)) {
      cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) + opmath(y); });
    } else {
      cpu_kernel(iter, [a](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) + a * opmath(y); });
    }
  }
}

// torch's rule, checked on the operands as given (before promotion), so `mask - 1` is an error too.
inline void check_sub_operands(const TensorIterator& iter) {
  const bool first = iter.input_dtype(0) == ScalarType::Bool, second = iter.input_dtype(1) == ScalarType::Bool;
  YATEN_CHECK(!(first && second), RuntimeError, "sub: subtraction, the `-` operator, with two bool tensors is not "
              "supported. Use the `^` or `logical_xor()` operator instead.");
  YATEN_CHECK(!(first || second), RuntimeError, "sub: subtraction, the `-` operator, with a bool tensor is not "
              "supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

template <typename scalar_t>
void sub_kernel(const TensorIterator& iter, const Scalar& alpha) {
  using opmath = opmath_t<scalar_t>;
  check_sub_operands(iter);
  const opmath a = alpha.to<opmath>();
  cpu_kernel(iter, [a](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) - a * opmath(y); });
}

template <typename scalar_t>
void mul_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool x, bool y) -> bool { return x && y; });
  } else {
    cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) * opmath(y); });
  }
}

template <typename scalar_t>
void div_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) / opmath(y); });
}

}  // namespace yaten::native::cpu

namespace yaten::native::cpu {

// maximum/minimum: NaN propagates, as in torch.
template <typename scalar_t, bool kMax>
void extremum_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    const opmath x = static_cast<opmath>(a), y = static_cast<opmath>(b);
    if constexpr (!std::is_integral_v<opmath>) {
      if (x != x) return a;
      if (y != y) return b;
    }
    return (kMax ? x > y : x < y) ? a : b;
  });
}

template <typename scalar_t>
void maximum_kernel(const TensorIterator& iter) { extremum_kernel<scalar_t, true>(iter); }

template <typename scalar_t>
void minimum_kernel(const TensorIterator& iter) { extremum_kernel<scalar_t, false>(iter); }

}  // namespace yaten::native::cpu

// Division-like ops. Integer division by zero raises ZeroDivisionError, as torch does on the CPU.
namespace yaten::native::cpu {

namespace binary_detail {
// Integer x / y and x % y, C's truncating ones: ZeroDivisionError for y == 0, and y == -1 without the overflow of
// INT_MIN / -1 (the quotient wraps, as in torch; the remainder is 0).
template <typename T>
inline T int_quotient(T x, T y, const char* op) {
  YATEN_CHECK(y != T(0), ZeroDivisionError, op, ": integer division by zero");
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(x));
  }
  return x / y;
}
template <typename T>
inline T int_remainder(T x, T y, const char* op) {
  YATEN_CHECK(y != T(0), ZeroDivisionError, op, ": integer division by zero");
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return 0;
  }
  return x % y;
}
// Python's floor division for floats (torch's formula, so results agree to the last bit).
template <typename T>
inline T floor_divide_float(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}
}  // namespace binary_detail

// remainder: the result has the sign of the divisor (Python's %).
template <typename scalar_t>
void remainder_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t {
    if constexpr (std::is_integral_v<scalar_t>) {
      scalar_t r = binary_detail::int_remainder(x, y, "remainder");
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    } else {
      const opmath a = static_cast<opmath>(x), b = static_cast<opmath>(y);
      opmath r = std::fmod(a, b);
      if (r != opmath(0) && ((b < opmath(0)) != (r < opmath(0)))) r += b;
      return static_cast<scalar_t>(r);
    }
  });
}

// fmod: the result has the sign of the dividend (C's fmod).
template <typename scalar_t>
void fmod_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t {
    if constexpr (std::is_integral_v<scalar_t>) {
      return binary_detail::int_remainder(x, y, "fmod");
    } else {
      return static_cast<scalar_t>(std::fmod(static_cast<opmath>(x), static_cast<opmath>(y)));
    }
  });
}

template <typename scalar_t>
void floor_divide_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t {
    if constexpr (std::is_integral_v<scalar_t>) {
      scalar_t q = binary_detail::int_quotient(x, y, "floor_divide");
      if (binary_detail::int_remainder(x, y, "floor_divide") != 0 && ((x < 0) != (y < 0))) --q;
      return q;
    } else {
      return static_cast<scalar_t>(binary_detail::floor_divide_float<opmath>(x, y));
    }
  });
}

// div(rounding_mode="trunc").
template <typename scalar_t>
void div_trunc_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t {
    if constexpr (std::is_integral_v<scalar_t>) {
      return binary_detail::int_quotient(x, y, "div");
    } else {
      return static_cast<scalar_t>(std::trunc(static_cast<opmath>(x) / static_cast<opmath>(y)));
    }
  });
}

// pow: integers by repeated squaring (a negative exponent gives 0 unless the base is 1 or -1, as in torch).
template <typename scalar_t>
void pow_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t base, scalar_t exponent) -> scalar_t {
    if constexpr (std::is_integral_v<scalar_t>) {
      if constexpr (std::is_signed_v<scalar_t>) {
        if (exponent < 0) {
          if (base == 1) return 1;
          if (base == -1) return (exponent & 1) ? -1 : 1;
          return 0;
        }
      }
      using wide = std::conditional_t<std::is_signed_v<scalar_t>, int64_t, uint64_t>;
      wide result = 1, b = base;
      for (auto e = static_cast<uint64_t>(exponent); e; e >>= 1) {
        if (e & 1) result = static_cast<wide>(static_cast<uint64_t>(result) * static_cast<uint64_t>(b));
        b = static_cast<wide>(static_cast<uint64_t>(b) * static_cast<uint64_t>(b));
      }
      return static_cast<scalar_t>(result);
    } else {
      const opmath e = static_cast<opmath>(exponent);
      const opmath x = static_cast<opmath>(base);
      if (e == opmath(2)) return static_cast<scalar_t>(x * x);
      if (e == opmath(0.5)) return static_cast<scalar_t>(std::sqrt(x));
      return static_cast<scalar_t>(std::pow(x, e));
    }
  });
}

template <typename scalar_t>
void atan2_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t y, scalar_t x) -> scalar_t {
    return static_cast<scalar_t>(std::atan2(static_cast<opmath>(y), static_cast<opmath>(x)));
  });
}

template <typename scalar_t>
void hypot_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    return static_cast<scalar_t>(std::hypot(static_cast<opmath>(a), static_cast<opmath>(b)));
  });
}

// fmax/fmin: like maximum/minimum, but a NaN loses to a number.
template <typename scalar_t, bool kMax>
void fextremum_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    const opmath x = static_cast<opmath>(a), y = static_cast<opmath>(b);
    if constexpr (!std::is_integral_v<opmath>) {
      if (x != x) return b;
      if (y != y) return a;
    }
    return (kMax ? x > y : x < y) ? a : b;
  });
}
template <typename scalar_t>
void fmax_kernel(const TensorIterator& iter) { fextremum_kernel<scalar_t, true>(iter); }
template <typename scalar_t>
void fmin_kernel(const TensorIterator& iter) { fextremum_kernel<scalar_t, false>(iter); }

// lerp: torch's two-sided formula, exact at both ends.
template <typename T>
inline T lerp_value(T start, T end, T weight) {
  return weight < T(0.5) ? start + weight * (end - start) : end - (end - start) * (T(1) - weight);
}
template <typename scalar_t>
void lerp_scalar_kernel(const TensorIterator& iter, const Scalar& weight) {
  using opmath = opmath_t<scalar_t>;
  const opmath w = weight.to<opmath>();
  cpu_kernel(iter, [w](scalar_t a, scalar_t b) -> scalar_t {
    return static_cast<scalar_t>(lerp_value<opmath>(static_cast<opmath>(a), static_cast<opmath>(b), w));
  });
}
template <typename scalar_t>
void lerp_tensor_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b, scalar_t w) -> scalar_t {
    return static_cast<scalar_t>(
        lerp_value<opmath>(static_cast<opmath>(a), static_cast<opmath>(b), static_cast<opmath>(w)));
  });
}

template <typename scalar_t>
void addcmul_kernel(const TensorIterator& iter, const Scalar& value) {
  using opmath = opmath_t<scalar_t>;
  const opmath v = value.to<opmath>();
  cpu_kernel(iter, [v](scalar_t s, scalar_t a, scalar_t b) -> scalar_t {
    return static_cast<scalar_t>(static_cast<opmath>(s) + v * static_cast<opmath>(a) * static_cast<opmath>(b));
  });
}

template <typename scalar_t>
void addcdiv_kernel(const TensorIterator& iter, const Scalar& value) {
  using opmath = opmath_t<scalar_t>;
  const opmath v = value.to<opmath>();
  cpu_kernel(iter, [v](scalar_t s, scalar_t a, scalar_t b) -> scalar_t {
    return static_cast<scalar_t>(static_cast<opmath>(s) + v * (static_cast<opmath>(a) / static_cast<opmath>(b)));
  });
}

}  // namespace yaten::native::cpu

// Bitwise ops (integers and bool) and shifts (integers).
namespace yaten::native::cpu {

template <typename scalar_t>
void bitwise_and_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return static_cast<scalar_t>(a & b); });
}
template <typename scalar_t>
void bitwise_or_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return static_cast<scalar_t>(a | b); });
}
template <typename scalar_t>
void bitwise_xor_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return static_cast<scalar_t>(a ^ b); });
}
template <typename scalar_t>
void bitwise_not_kernel(const TensorIterator& iter) {
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool a) -> bool { return !a; });
  } else {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return static_cast<scalar_t>(~a); });
  }
}

// A shift by a negative amount or by the width or more gives 0 (left) or the sign fill (right), as in torch.
template <typename scalar_t>
void bitwise_left_shift_kernel(const TensorIterator& iter) {
  using U = std::make_unsigned_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    if (static_cast<std::make_unsigned_t<scalar_t>>(b) >= sizeof(scalar_t) * 8) return 0;
    return static_cast<scalar_t>(static_cast<U>(a) << b);
  });
}
template <typename scalar_t>
void bitwise_right_shift_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    if (static_cast<std::make_unsigned_t<scalar_t>>(b) >= sizeof(scalar_t) * 8) {
      if constexpr (std::is_signed_v<scalar_t>) return a < 0 ? scalar_t(-1) : scalar_t(0);
      return 0;
    }
    return static_cast<scalar_t>(a >> b);
  });
}

}  // namespace yaten::native::cpu
