// The element math of the pointwise ops, written once for both backends (Design rule [Shared element math]).
//
// Each op is a functor whose call operator is YATEN_HOST_DEVICE: g++ reads it for cpu_kernel, nvcc for gpu_kernel,
// so what the CPU tests check is what the GPU runs. Functors compute in opmath_t (float for float16/bfloat16) and
// round once on return; parameters (alpha, bounds, slopes) are members set by the kernel from its Scalars. The CPU
// may pair a functor with a vectorized form (iter/vec.h); the functor stays the definition of the math.
//
// Note [Functor headers per family]: this header holds what every family builds on (wrapping integer arithmetic,
// the math:: functions of real and complex numbers, select, copies and fills, abs and sign); the functors of the
// op families live apart from it and from each other: loss_math.h, norm_math.h, special_math.h, optim_math.h, one
// header per family, and the pointwise families (binary, unary, activation, compare) one header per op, which
// <family>_math.h includes for the family's CUDA kernels (Note [A header per op], binary_math.h). A kernel
// includes only its own, so an edit to gelu's functor recompiles gelu's unit (5.0 s to importable here) and not the
// 87 units that included every functor when they all lived here. A new op's functor goes in a header of its own
// (README, "Add an op").
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

// ------------------------------------------------------------------------------------------------ abs, sign
// Building blocks of other families' functors too (sgn, the foreach ops).

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
      // NaN gives 0, as in torch (NumPy gives NaN). Selects of constants, not the difference of two comparisons,
      // whose int64 result AVX2 has no instruction to convert to double (float64 sign took 1.07x torch's time)
      return static_cast<T>(x > om<T>(0) ? om<T>(1) : (x < om<T>(0) ? om<T>(-1) : om<T>(0)));
    }
  }
};

// The default bounds of nan_to_num: the dtype's largest and lowest finite values.
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
T lowest_finite() {
  if constexpr (std::is_same_v<T, double>) {
    return std::numeric_limits<double>::lowest();
  } else {
    return T(-static_cast<float>(max_finite<T>()));
  }
}

// ------------------------------------------------------------------------------------------------ math functions

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

// The functor template Op as one generic callable: Op<X> applied to an x of type X (unary_vec_kernel's scalar form,
// which passes opmath_t).
template <template <typename> class Op>
struct FunctorOf {
  template <typename X>
  YATEN_HOST_DEVICE X operator()(X x) const { return Op<X>{}(x); }
};

// A functor of one floating element computing `expr` of x in opmath_t (the unary and activation families').
#define YATEN_FLOAT_UNARY_OP(Name, expr)                                      \
  template <typename T>                                                       \
  struct Name {                                                               \
    YATEN_HOST_DEVICE T operator()(T v) const {                               \
      const om<T> x = static_cast<om<T>>(v);                                  \
      return static_cast<T>(expr);                                            \
    }                                                                         \
  };
// A comparison of two elements in opmath_t (the compare family's eq, ne, lt, le, gt, ge).
#define YATEN_COMPARE_OP(Name, op)                                                                   \
  template <typename T>                                                                              \
  struct Name {                                                                                      \
    YATEN_HOST_DEVICE bool operator()(T a, T b) const { return om<T>(a) op om<T>(b); }               \
  };

}  // namespace yaten::native
