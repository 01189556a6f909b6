// The element math of every pointwise op, written once for both backends (Design rule [Shared element math]).
//
// Each op is a functor whose call operator is YATEN_HOST_DEVICE: g++ reads it for cpu_kernel, nvcc for gpu_kernel,
// so what the CPU tests check is what the GPU runs. Functors compute in opmath_t (float for float16/bfloat16) and
// round once on return; parameters (alpha, bounds, slopes) are members set by the kernel from its Scalars. The CPU
// may pair a functor with a vectorized form (iter/vec.h); the functor stays the definition of the math.
//
// Integer division by zero: the CPU raises ZeroDivisionError from inside the functor (in Python also a
// RuntimeError, as torch raises); device code cannot raise, and there the quotient is -1 and the remainder the
// dividend (PTX's div and rem), as in torch on CUDA.
#pragma once

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "core/convert.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/scalar_type.h"

namespace yaten::native {

template <typename T>
using om = opmath_t<T>;

// Integer arithmetic wraps around on overflow (two's complement), as in torch: int64 max + 1 is int64 min. C++
// leaves signed overflow undefined (UBSan reports it), so signed types of int's width or wider add, subtract,
// multiply and negate in their unsigned type, which compiles to the same instructions. Narrower ones are promoted
// to int first and cannot overflow; floating-point and bool types compute as they are.
template <typename T>
inline constexpr bool kWrapsInUnsigned = std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= sizeof(int);
template <typename T>
YATEN_HOST_DEVICE inline T wrapping_add(T a, T b) {
  if constexpr (kWrapsInUnsigned<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
YATEN_HOST_DEVICE inline T wrapping_sub(T a, T b) {
  if constexpr (kWrapsInUnsigned<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
YATEN_HOST_DEVICE inline T wrapping_mul(T a, T b) {
  if constexpr (kWrapsInUnsigned<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  } else {
    return static_cast<T>(a * b);
  }
}
template <typename T>
YATEN_HOST_DEVICE inline T wrapping_neg(T a) {
  if constexpr (kWrapsInUnsigned<T>) {
    return static_cast<T>(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(a));
  } else {
    return static_cast<T>(-a);
  }
}

namespace math {
#if defined(__CUDA_ARCH__)
#define YATEN_CHECK_HOST_ONLY(cond, type, ...) ((void)0)
#else
#define YATEN_CHECK_HOST_ONLY(cond, type, ...) YATEN_CHECK(cond, type, __VA_ARGS__)
#endif

// C's truncating x / y and x % y for integers: ZeroDivisionError on the host for y == 0; y == -1 without the
// overflow of INT_MIN / -1 (the quotient wraps, as in torch; the remainder is 0).
template <typename T>
YATEN_HOST_DEVICE inline T int_quotient(T x, T y, const char* op) {
  YATEN_CHECK_HOST_ONLY(y != T(0), ZeroDivisionError, op, ": integer division by zero");
  if (y == T(0)) return T(-1);
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(x));
  }
  return x / y;
}
template <typename T>
YATEN_HOST_DEVICE inline T int_remainder(T x, T y, const char* op) {
  YATEN_CHECK_HOST_ONLY(y != T(0), ZeroDivisionError, op, ": integer division by zero");
  if (y == T(0)) return x;
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return 0;
  }
  return x % y;
}
// Python's floor division for floats (torch's formula, so results agree to the last bit).
template <typename T>
YATEN_HOST_DEVICE inline T floor_divide_float(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}
// lerp: torch's two-sided formula, exact at both ends.
template <typename T>
YATEN_HOST_DEVICE inline T lerp(T start, T end, T weight) {
  bool small;  // which side: |weight| < 0.5 for a complex weight, as torch decides
  if constexpr (is_complex_v<T>) {
    small = std::hypot(weight.re, weight.im) < decltype(weight.re)(0.5);
  } else {
    small = weight < T(0.5);
  }
  return small ? start + weight * (end - start) : end - (end - start) * (T(1) - weight);
}
// erfinv's first guess, erfinv(y) / y as polynomials of degree 12 (lowest degree first) in t = w - 2.5 for w < 5,
// sqrt(w) - 3 for w < 16 and sqrt(w) - 5 beyond (to the last double below 1), w = -log(1 - y^2): least squares in
// mpmath's arithmetic (tools/vec_poly_fit.py), within 4e-11, 7e-11 and 6e-13 relative. Shared with the float64
// vector form (iter/vec_double_erf.h).
YATEN_HOST_DEVICE constexpr double erfinv_guess(int piece, int i) {
  constexpr double c[3][13] = {
      {1.5014093511307296, 0.24664027679468034, -0.004177318038629195, -0.0012527081133215396,
       0.00021825107431056642, -4.9958551035442985e-06, -3.417404481378257e-06, 4.786352615420698e-07,
       1.378055169781747e-08, -1.0852875942166488e-08, 8.200569732533019e-10, 1.2294079820302473e-10,
       -2.0530252936694423e-11},
      {2.832976798552631, 1.0016752760121854, 0.00944554177255958, -0.0076437821593278304, 0.005684814890251909,
       -0.0035589777424249285, 0.0014863105513270945, -0.00014861069489177967, -0.0002916071145971381,
       0.00020692390579858536, -3.266643840992492e-05, -2.8208424269661275e-05, 1.1984478724095202e-05},
      {4.849906401407374, 1.010300464885195, -0.00013871923192632904, -0.0002150306468388099,
       7.599431598982368e-05, -1.9677879662564427e-05, 4.529748740248961e-06, -1.0054495739727698e-06,
       2.233869967563643e-07, -4.82553532927945e-08, 3.1386855779334764e-08, -2.9384320836010147e-08,
       9.664535381157813e-09}};
  return c[piece][i];
}
// erfinv: the first guess, then one Newton step x -= (erf x - y) / (2/sqrt(pi) e^-x^2), which squares its error
// (to 1e-20); erf x - y taken as +-((1 - |y|) - erfc|x|) from |y| = 1/2 on (1 - |y| exact there), since erf x
// itself, rounded to y's ulp, places x only to that over erf'(x), which falls as e^-x^2 (8 ulp of x at |y| = 0.9945
// with the switch at |x| = 2, 2 ulp at |y| = 0.52 with it at |x| = 1/2). Held to mpmath on the CPU by
// tests/test_element_functors.py.
YATEN_HOST_DEVICE inline double erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) {
    if (y == 1.0) return INFINITY;
    if (y == -1.0) return -INFINITY;
    return NAN;
  }
  const double w = -std::log((1.0 - y) * (1.0 + y));
  const int piece = w < 5.0 ? 0 : (w < 16.0 ? 1 : 2);
  const double t = piece == 0 ? w - 2.5 : std::sqrt(w) - (piece == 1 ? 3.0 : 5.0);
  double p = erfinv_guess(piece, 12);
  for (int i = 11; i >= 0; --i) p = p * t + erfinv_guess(piece, i);
  const double x = p * y, a = std::fabs(x);
  // erf x - y = +-(erf|x| - |y|), x's sign: the magnitude's own sign stays (a copysign here lost it, and the step then
  // doubled the guess's error wherever erf|x| < |y|: 1e6 ulp near 1 - 6e-5)
  const double tail = (1.0 - std::fabs(y)) - std::erfc(a);
  const double residual = std::fabs(y) < 0.5 ? std::erf(x) - y : (x < 0.0 ? -tail : tail);
  return x - residual / (1.1283791670955126 * std::exp(-x * x));
}
// c ? a : b as bit masking: no branch, so CPU loops over it vectorize and never mispredict.
template <typename T>
YATEN_HOST_DEVICE inline T select(bool c, T a, T b) {
  if constexpr (is_complex_v<T>) {  // each part on its own: a complex128 is wider than any integer
    return T(select(c, a.real(), b.real()), select(c, a.imag(), b.imag()));
  } else {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t,
              std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    static_assert(sizeof(U) == sizeof(T));
    U ua, ub;
    memcpy(static_cast<void*>(&ua), static_cast<const void*>(&a), sizeof(T));
    memcpy(static_cast<void*>(&ub), static_cast<const void*>(&b), sizeof(T));
    const U mask = U(0) - U(c);
    const U r = U((ua & mask) | (ub & U(~mask)));
    T out;
    memcpy(static_cast<void*>(&out), static_cast<const void*>(&r), sizeof(T));
    return out;
  }
}
template <typename T>
YATEN_HOST_DEVICE inline bool truthy(T x) { return static_cast<om<T>>(x) != om<T>(0); }
template <typename T>
YATEN_HOST_DEVICE inline bool is_nan(T x) { return x != x; }
}  // namespace math

// ------------------------------------------------------------------------------------------------ copies, fills

template <typename T>
struct IdentityOp {
  YATEN_HOST_DEVICE T operator()(T x) const { return x; }
};
template <typename To, typename From>
struct ConvertOp {
  YATEN_HOST_DEVICE To operator()(From x) const { return convert<To>(x); }
};
template <typename T>
struct FillOp {
  T value;
  YATEN_HOST_DEVICE T operator()() const { return value; }
};
template <typename T>
struct MaskedFillOp {
  T value;
  YATEN_HOST_DEVICE T operator()(T x, bool mask) const { return mask ? value : x; }
};
// arange: element i of the result. Integers count in int64_t, floats in double, as torch does.
template <typename T>
struct ArangeOp {
  using C = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
  C start, step;
  YATEN_HOST_DEVICE T operator()(int64_t i) const { return static_cast<T>(start + static_cast<C>(i) * step); }
};

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
template <typename T>
struct NegOp {
  YATEN_HOST_DEVICE T operator()(T x) const { return static_cast<T>(wrapping_neg(om<T>(x))); }
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

// ------------------------------------------------------------------------------------------------ unary math
// The float ones have dtype rule promote_float: integer and bool inputs arrive as the default float dtype.

// exp, log, sqrt, sin and cos of a real or a complex number (core/complex.h has the complex formulas).
namespace math {
#define YATEN_REAL_OR_COMPLEX(name)                                            \
  template <typename T>                                                       \
  YATEN_HOST_DEVICE inline T name(T x) {                                      \
    if constexpr (is_complex_v<T>) {                                          \
      return complex_##name(x);                                               \
    } else {                                                                  \
      return std::name(x);                                                    \
    }                                                                         \
  }
YATEN_REAL_OR_COMPLEX(exp)
YATEN_REAL_OR_COMPLEX(log)
YATEN_REAL_OR_COMPLEX(sqrt)
YATEN_REAL_OR_COMPLEX(sin)
YATEN_REAL_OR_COMPLEX(cos)
#undef YATEN_REAL_OR_COMPLEX

// Functions whose complex form is std::complex's, host only: the ops that use them declare complex dtypes for the
// CPU alone, so no CUDA kernel instantiates the complex branch.
#define YATEN_REAL_OR_STD_COMPLEX(name)                                        \
  template <typename T>                                                       \
  YATEN_HOST_DEVICE inline T name(T x) {                                      \
    if constexpr (is_complex_v<T>) {                                          \
      using R = decltype(x.re);                                               \
      const std::complex<R> z = std::name(std::complex<R>(x.re, x.im));       \
      return T(z.real(), z.imag());                                           \
    } else {                                                                  \
      return std::name(x);                                                    \
    }                                                                         \
  }
YATEN_REAL_OR_STD_COMPLEX(tan)
YATEN_REAL_OR_STD_COMPLEX(asin)
YATEN_REAL_OR_STD_COMPLEX(acos)
YATEN_REAL_OR_STD_COMPLEX(atan)
YATEN_REAL_OR_STD_COMPLEX(sinh)
YATEN_REAL_OR_STD_COMPLEX(cosh)
YATEN_REAL_OR_STD_COMPLEX(tanh)
YATEN_REAL_OR_STD_COMPLEX(asinh)
YATEN_REAL_OR_STD_COMPLEX(acosh)
YATEN_REAL_OR_STD_COMPLEX(atanh)
YATEN_REAL_OR_STD_COMPLEX(log10)
#undef YATEN_REAL_OR_STD_COMPLEX
// log1p and expm1, accurate near 0 for complex numbers too. log1p(z) = log|1 + z| + i arg(1 + z), where near 0
// |1 + z|^2 - 1 = x (2 + x) + y^2 goes to the real log1p (or, when that underflows to 0, log|1 + z| ~ x);
// expm1(z) = (e^x cos y - 1) + i e^x sin y, whose real part is expm1(x) cos y - 2 sin^2(y / 2) without cancellation.
template <typename T>
YATEN_HOST_DEVICE inline T log1p(T z) {
  if constexpr (is_complex_v<T>) {
    using R = decltype(z.re);
    const R x = z.re, y = z.im;
    const R arg = std::atan2(y, x + R(1));
    if (std::hypot(x, y) < R(0.5)) {
      const R r = x * (R(2) + x) + y * y;
      return T(r == R(0) ? x : R(0.5) * std::log1p(r), arg);
    }
    return T(std::log(std::hypot(x + R(1), y)), arg);
  } else {
    return std::log1p(z);
  }
}
template <typename T>
YATEN_HOST_DEVICE inline T expm1(T z) {
  if constexpr (is_complex_v<T>) {
    using R = decltype(z.re);
    const R half_sin = std::sin(z.im / R(2));
    return T(std::expm1(z.re) * std::cos(z.im) - R(2) * half_sin * half_sin, std::exp(z.re) * std::sin(z.im));
  } else {
    return std::expm1(z);
  }
}
// log2 and exp2 of a complex number through the natural log and exp, as torch's
template <typename T>
YATEN_HOST_DEVICE inline T log2(T x) {
  if constexpr (is_complex_v<T>) {
    return log(x) * decltype(x.re)(1.4426950408889634);
  } else {
    return std::log2(x);
  }
}
template <typename T>
YATEN_HOST_DEVICE inline T exp2(T x) {
  if constexpr (is_complex_v<T>) {
    return exp(x * decltype(x.re)(0.6931471805599453));
  } else {
    return std::exp2(x);
  }
}
}  // namespace math

#define YATEN_FLOAT_UNARY_OP(Name, expr)                                      \
  template <typename T>                                                       \
  struct Name {                                                               \
    YATEN_HOST_DEVICE T operator()(T v) const {                               \
      const om<T> x = static_cast<om<T>>(v);                                  \
      return static_cast<T>(expr);                                            \
    }                                                                         \
  };
YATEN_FLOAT_UNARY_OP(ExpOp, math::exp(x))
YATEN_FLOAT_UNARY_OP(LogOp, math::log(x))
YATEN_FLOAT_UNARY_OP(SqrtOp, math::sqrt(x))
YATEN_FLOAT_UNARY_OP(SinOp, math::sin(x))
YATEN_FLOAT_UNARY_OP(CosOp, math::cos(x))
YATEN_FLOAT_UNARY_OP(TanhOp, math::tanh(x))
YATEN_FLOAT_UNARY_OP(Expm1Op, math::expm1(x))
YATEN_FLOAT_UNARY_OP(Log1pOp, math::log1p(x))
YATEN_FLOAT_UNARY_OP(SigmoidOp, om<T>(1) / (om<T>(1) + math::exp(-x)))
YATEN_FLOAT_UNARY_OP(ReciprocalOp, om<T>(1) / x)
YATEN_FLOAT_UNARY_OP(Exp2Op, math::exp2(x))
YATEN_FLOAT_UNARY_OP(Log2Op, math::log2(x))
YATEN_FLOAT_UNARY_OP(Log10Op, math::log10(x))
YATEN_FLOAT_UNARY_OP(RsqrtOp, om<T>(1) / math::sqrt(x))
YATEN_FLOAT_UNARY_OP(TanOp, math::tan(x))
YATEN_FLOAT_UNARY_OP(AsinOp, math::asin(x))
YATEN_FLOAT_UNARY_OP(AcosOp, math::acos(x))
YATEN_FLOAT_UNARY_OP(AtanOp, math::atan(x))
YATEN_FLOAT_UNARY_OP(SinhOp, math::sinh(x))
YATEN_FLOAT_UNARY_OP(CoshOp, math::cosh(x))
YATEN_FLOAT_UNARY_OP(AsinhOp, math::asinh(x))
YATEN_FLOAT_UNARY_OP(AcoshOp, math::acosh(x))
YATEN_FLOAT_UNARY_OP(AtanhOp, math::atanh(x))
YATEN_FLOAT_UNARY_OP(ErfOp, std::erf(x))
YATEN_FLOAT_UNARY_OP(ErfcOp, std::erfc(x))
// Out of line on CUDA (Note [Heavy functors out of line], iter/cuda_loops.cuh): a guess and a Newton step in double.
template <typename T>
struct ErfinvOp {
  static constexpr bool out_of_line = true;
  YATEN_HOST_DEVICE T operator()(T v) const {
    return static_cast<T>(static_cast<om<T>>(math::erfinv(static_cast<double>(static_cast<om<T>>(v)))));
  }
};
YATEN_FLOAT_UNARY_OP(FracOp, x - std::trunc(x))
YATEN_FLOAT_UNARY_OP(MishOp, x * std::tanh(std::log1p(std::exp(x))))
YATEN_FLOAT_UNARY_OP(SiluOp, x / (om<T>(1) + math::exp(-x)))
YATEN_FLOAT_UNARY_OP(GeluOp, x * om<T>(0.5) * (om<T>(1) + std::erf(x * om<T>(0.70710678118654752440))))
YATEN_FLOAT_UNARY_OP(GeluTanhOp, om<T>(0.5) * x * (om<T>(1) + std::tanh(om<T>(0.7978845608028654) *
                                                                       (x + om<T>(0.044715) * x * x * x))))
// gelu's gradient: grad * (Phi(x) + x phi(x)); of the tanh form, with t = tanh(beta (x + kappa x^3)),
// grad * (0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2)). One pass (gelu_backward) where the composite of
// erf, exp and four products made eight.
template <typename T>
struct GeluBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v);
    const om<T> cdf = om<T>(0.5) * (om<T>(1) + std::erf(x * om<T>(0.70710678118654752440)));
    const om<T> pdf = std::exp(om<T>(-0.5) * x * x) * om<T>(0.39894228040143267794);
    return static_cast<T>(static_cast<om<T>>(grad) * (cdf + x * pdf));
  }
};
// silu's gradient: grad s (1 + x (1 - s)), s = sigmoid(x)
template <typename T>
struct SiluBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v);
    const om<T> s = om<T>(1) / (om<T>(1) + math::exp(-x));
    return static_cast<T>(static_cast<om<T>>(grad) * (s * (om<T>(1) + x * (om<T>(1) - s))));
  }
};
template <typename T>
struct GeluTanhBackwardOp {
  YATEN_HOST_DEVICE T operator()(T grad, T v) const {
    const om<T> x = static_cast<om<T>>(v), beta = om<T>(0.7978845608028654), kappa = om<T>(0.044715);
    const om<T> t = std::tanh(beta * (x + kappa * x * x * x));
    const om<T> slope = om<T>(0.5) * (om<T>(1) + t) +
                        om<T>(0.5) * x * (om<T>(1) - t * t) * beta * (om<T>(1) + om<T>(3) * kappa * x * x);
    return static_cast<T>(static_cast<om<T>>(grad) * slope);
  }
};

YATEN_FLOAT_UNARY_OP(HardsigmoidOp, (x + om<T>(3) < om<T>(0) ? om<T>(0) : (x + om<T>(3) > om<T>(6) ? om<T>(6) : x + om<T>(3))) / om<T>(6))
YATEN_FLOAT_UNARY_OP(HardswishOp, x * (x + om<T>(3) < om<T>(0) ? om<T>(0) : (x + om<T>(3) > om<T>(6) ? om<T>(6) : x + om<T>(3))) / om<T>(6))
#undef YATEN_FLOAT_UNARY_OP

// floor/ceil/trunc/round keep integers as they are (a copy), like torch. round is half to even (nearbyint in the
// default rounding mode), as in torch and NumPy.
template <typename T, int kMode>  // 0 floor, 1 ceil, 2 trunc, 3 round
struct RoundingOp {
  YATEN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) {
      return v;
    } else {
      const om<T> x = static_cast<om<T>>(v);
      if constexpr (kMode == 0) return static_cast<T>(std::floor(x));
      if constexpr (kMode == 1) return static_cast<T>(std::ceil(x));
      if constexpr (kMode == 2) return static_cast<T>(std::trunc(x));
      if constexpr (kMode == 3) return static_cast<T>(std::nearbyint(x));
    }
  }
};
template <typename T>
using FloorOp = RoundingOp<T, 0>;
template <typename T>
using CeilOp = RoundingOp<T, 1>;
template <typename T>
using TruncOp = RoundingOp<T, 2>;
template <typename T>
using RoundOp = RoundingOp<T, 3>;

// round(decimals=d): scale by 10^d, round half to even, scale back (torch's formula, so ties match it).
template <typename T>
struct RoundDecimalsOp {
  om<T> ten_pow;
  bool negative;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(negative ? std::nearbyint(x / ten_pow) * ten_pow : std::nearbyint(x * ten_pow) / ten_pow);
  }
};
template <typename T>
struct AbsOp {
  YATEN_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
      return x;
    } else if constexpr (std::is_integral_v<T>) {
      return x < T(0) ? wrapping_neg(x) : x;  // abs(int min) is int min, as in torch
    } else {
      return static_cast<T>(std::fabs(static_cast<om<T>>(x)));  // |-0| is +0, as in torch
    }
  }
};
// |z| of a complex element is real (dtype_rule to_real): hypot, without overflow of the squares.
template <typename T>
struct AbsOp<Complex<T>> {
  YATEN_HOST_DEVICE T operator()(Complex<T> z) const {
    if constexpr (std::is_same_v<T, float>) {
      return ::hypotf(z.re, z.im);
    } else {
      return ::hypot(z.re, z.im);
    }
  }
};
// conj_physical: the conjugate of a complex element; any other element is itself.
template <typename T>
struct ConjOp {
  YATEN_HOST_DEVICE T operator()(T x) const {
    if constexpr (is_complex_v<T>) {
      return T(x.re, -x.im);
    } else {
      return x;
    }
  }
};
// relu keeps NaN (x < 0 is false for NaN).
template <typename T>
struct ReluOp {
  YATEN_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return static_cast<om<T>>(x) < om<T>(0) ? T(0) : x;
    }
  }
};
// sign: -1, 0 or 1 (+0 for either zero); NaN stays NaN.
template <typename T>
struct SignOp {
  YATEN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(v != 0);
    } else {
      const om<T> x = static_cast<om<T>>(v);
      return static_cast<T>((om<T>(0) < x) - (x < om<T>(0)));  // NaN gives 0, as in torch (NumPy gives NaN)
    }
  }
};
// logit(x) = log(x / (1 - x)), with x first clamped to [lo, hi] when `clamp` (eps given).
template <typename T>
struct LogitOp {
  bool clamp;
  om<T> lo, hi;
  YATEN_HOST_DEVICE T operator()(T v) const {
    om<T> x = static_cast<om<T>>(v);
    if (clamp) x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
    return static_cast<T>(std::log(x / (om<T>(1) - x)));
  }
};

// The parameters of logit and round(decimals=), from the kernel's arguments; shared by both backends.
template <typename scalar_t>
LogitOp<scalar_t> logit_op(std::optional<double> eps) {
  using opmath = om<scalar_t>;
  if (eps) (void)Scalar(*eps).to<scalar_t>();  // torch converts eps to the dtype: its overflow RuntimeError
  const bool clamp = eps && *eps >= 0;  // a negative eps clamps nothing, as in torch
  return {clamp, clamp ? static_cast<opmath>(*eps) : opmath(0), clamp ? 1 - static_cast<opmath>(*eps) : opmath(1)};
}
template <typename scalar_t>
RoundDecimalsOp<scalar_t> round_decimals_op(int64_t decimals) {
  const bool negative = decimals < 0;
  return {static_cast<om<scalar_t>>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals))), negative};
}
// ------------------------------------------------------------------------------------------------ activations

template <typename T>
struct HardtanhOp {
  om<T> lo, hi;  // a NaN lo comes with a NaN hi (hardtanh_op)
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    // NaN stays NaN; a NaN bound gives NaN everywhere, as torch's clamp with a NaN bound
    return static_cast<T>(hi != hi || x > hi ? hi : (x < lo ? lo : x));
  }
};
template <typename scalar_t>
HardtanhOp<scalar_t> hardtanh_op(const Scalar& min_val, const Scalar& max_val) {
  const om<scalar_t> lo = min_val.to<om<scalar_t>>();
  const om<scalar_t> hi = max_val.to<om<scalar_t>>();
  return {lo, lo != lo ? lo : hi};
}
template <typename T>
struct LeakyReluOp {
  om<T> slope;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x > om<T>(0) ? x : x * slope);
  }
};
// elu: x * scale from 0 up (so a zero input gives 0 whatever alpha and input_scale are, as torch), else
// expm1(x * input_scale) * (alpha * scale).
template <typename T>
struct EluOp {
  om<T> negcoef, scale, input_scale;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x < om<T>(0) ? std::expm1(x * input_scale) * negcoef : x * scale);
  }
};
template <typename scalar_t>
EluOp<scalar_t> elu_op(const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  using opmath = om<scalar_t>;
  return {alpha.to<opmath>() * scale.to<opmath>(), scale.to<opmath>(), input_scale.to<opmath>()};
}
// softplus: log(1 + e^(beta x)) / beta, linear above `threshold` (in units of beta x).
template <typename T>
struct SoftplusOp {
  om<T> beta, threshold;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta);
  }
};
// glu's halves: a * sigmoid(b) as a / (1 + e^-b), rounded once.
template <typename T>
struct GluOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    const om<T> x = static_cast<om<T>>(a), y = static_cast<om<T>>(b);
    return static_cast<T>(x / (om<T>(1) + std::exp(-y)));
  }
};
// threshold: `value` where x <= threshold, x elsewhere (a NaN x stays).
template <typename T>
struct ThresholdOp {
  om<T> threshold, value;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x <= threshold ? value : x);
  }
};
// hardshrink: 0 where -lambd <= x <= lambd, x elsewhere (a NaN x stays).
template <typename T>
struct HardshrinkOp {
  om<T> lambd;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x >= -lambd && x <= lambd ? om<T>(0) : x);
  }
};
// softshrink: x - lambd above lambd, x + lambd below -lambd, x * 0 between (so a NaN x gives NaN, as torch).
template <typename T>
struct SoftshrinkOp {
  om<T> lambd;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * om<T>(0)));
  }
};

// ------------------------------------------------------------------------------------------------ comparisons

#define YATEN_COMPARE_OP(Name, op)                                                                   \
  template <typename T>                                                                              \
  struct Name {                                                                                      \
    YATEN_HOST_DEVICE bool operator()(T a, T b) const { return om<T>(a) op om<T>(b); }               \
  };
YATEN_COMPARE_OP(EqOp, ==)
YATEN_COMPARE_OP(NeOp, !=)
YATEN_COMPARE_OP(LtOp, <)
YATEN_COMPARE_OP(LeOp, <=)
YATEN_COMPARE_OP(GtOp, >)
YATEN_COMPARE_OP(GeOp, >=)
#undef YATEN_COMPARE_OP

// isnan/isinf/isfinite: integers and bool are always finite.
template <typename T>
struct IsnanOp {
  YATEN_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_complex_v<T>) {  // either part NaN, as torch
      return x.re != x.re || x.im != x.im;
    } else {
      return math::is_nan(static_cast<om<T>>(x));
    }
  }
};
template <typename T>
struct IsinfOp {
  YATEN_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return false;
    } else if constexpr (is_complex_v<T>) {  // either part infinite, as torch
      return std::isinf(x.re) || std::isinf(x.im);
    } else {
      return std::isinf(static_cast<om<T>>(x));
    }
  }
};
template <typename T>
struct IsfiniteOp {
  YATEN_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return true;
    } else if constexpr (is_complex_v<T>) {
      return std::isfinite(x.re) && std::isfinite(x.im);
    } else {
      return std::isfinite(static_cast<om<T>>(x));
    }
  }
};
// The logical ops read any dtype as "nonzero is true".
template <typename T>
struct LogicalAndOp {
  YATEN_HOST_DEVICE bool operator()(T a, T b) const { return math::truthy(a) && math::truthy(b); }
};
template <typename T>
struct LogicalOrOp {
  YATEN_HOST_DEVICE bool operator()(T a, T b) const { return math::truthy(a) || math::truthy(b); }
};
template <typename T>
struct LogicalXorOp {
  YATEN_HOST_DEVICE bool operator()(T a, T b) const { return math::truthy(a) != math::truthy(b); }
};
template <typename T>
struct LogicalNotOp {
  YATEN_HOST_DEVICE bool operator()(T a) const { return !math::truthy(a); }
};

// |a - b| <= atol + rtol * |b|, or equal (infinities included), or both NaN with equal_nan. Integers compare in
// double.
template <typename T>
struct IscloseOp {
  using C = std::conditional_t<std::is_integral_v<T>, double, om<T>>;
  using R = real_of_t<C>;  // a complex pair compares by |a - b|, a real tolerance
  R rtol, atol;
  bool equal_nan;
  YATEN_HOST_DEVICE bool operator()(T x, T y) const {
    const C a = static_cast<C>(x), b = static_cast<C>(y);
    if (a == b) return true;
    if constexpr (is_complex_v<C>) {
      const bool a_nan = a.re != a.re || a.im != a.im, b_nan = b.re != b.re || b.im != b.im;
      if (a_nan || b_nan) return equal_nan && a_nan && b_nan;
      const R diff = std::hypot(a.re - b.re, a.im - b.im);
      return std::isfinite(diff) && diff <= atol + rtol * std::hypot(b.re, b.im);
    } else {
      if (a != a || b != b) return equal_nan && a != a && b != b;
      const C diff = std::abs(a - b);
      return std::isfinite(diff) && diff <= atol + rtol * std::abs(b);
    }
  }
};
// NaN, +inf and -inf become the given values.
template <typename T>
struct NanToNumOp {
  T nan, posinf, neginf;
  YATEN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) {
      return v;
    } else {
      // selects, not branches, so the CPU loop vectorizes (it ran 7x torch's time with the branches); a finite x,
      // the common case, decided by one comparison
      const om<T> x = static_cast<om<T>>(v);
      const om<T> magnitude = x < om<T>(0) ? -x : x;
      return magnitude < std::numeric_limits<om<T>>::infinity() ? v : (x != x ? nan : (x > om<T>(0) ? posinf : neginf));
    }
  }
};
// clamp with both bounds: min(max(x, lo), hi), NaN anywhere giving NaN, and hi winning when lo > hi (as torch).
template <typename T>
struct ClampOp {
  YATEN_HOST_DEVICE T operator()(T v, T l, T h) const {
    const om<T> x = static_cast<om<T>>(v), lo = static_cast<om<T>>(l), hi = static_cast<om<T>>(h);
    const om<T> m = x < lo ? lo : x;
    const om<T> r = m > hi ? hi : m;  // a NaN x stays NaN here
    if constexpr (!std::is_integral_v<om<T>>) {
      return static_cast<T>(lo != lo || hi != hi ? x + lo + hi : r);  // a select, not a branch: the loop vectorizes
    } else {
      return static_cast<T>(r);
    }
  }
};
// where(condition, a, b), branch-free.
template <typename T>
struct WhereOp {
  YATEN_HOST_DEVICE T operator()(bool c, T a, T b) const { return math::select(c, a, b); }
};

}  // namespace yaten::native
