// CPU kernels of the unary pointwise ops.
#pragma once

#include "iter/cpu_loops.h"
#include "iter/vec.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void neg_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t { return -opmath(x); });
}

}  // namespace yaten::native::cpu

// The unary math ops: each computes in opmath_t (float for float16/bfloat16) and rounds once on store. Their
// dtype rule is promote_float, so integer and bool inputs arrive already converted to the default float dtype.
#include <cmath>

namespace yaten::native::cpu {

namespace unary_detail {
template <typename scalar_t, typename F>
void float_op(const TensorIterator& iter, F f) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [f](scalar_t x) -> scalar_t { return static_cast<scalar_t>(f(static_cast<opmath>(x))); });
}
}  // namespace unary_detail

template <typename scalar_t>
void exp_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, [](auto x) { return std::exp(x); }, [](vec::vfloat x) { return vec::exp(x); });
}
template <typename scalar_t>
void log_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::log(x); }); }
template <typename scalar_t>
void sqrt_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::sqrt(x); }); }
template <typename scalar_t>
void sin_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::sin(x); }); }
template <typename scalar_t>
void cos_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::cos(x); }); }
template <typename scalar_t>
void tanh_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, [](auto x) { return std::tanh(x); }, [](vec::vfloat x) { return vec::tanh(x); });
}
template <typename scalar_t>
void expm1_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::expm1(x); });
}
template <typename scalar_t>
void log1p_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::log1p(x); });
}
template <typename scalar_t>
void sigmoid_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, [](auto x) { return 1 / (1 + std::exp(-x)); },
                             [](vec::vfloat x) { return vec::sigmoid(x); });
}

template <typename scalar_t>
void abs_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t {
    if constexpr (std::is_unsigned_v<scalar_t>) {
      return x;
    } else {
      const opmath v = static_cast<opmath>(x);
      return static_cast<scalar_t>(v < opmath(0) ? -v : v);
    }
  });
}

}  // namespace yaten::native::cpu

namespace yaten::native::cpu {

template <typename scalar_t>
void reciprocal_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return decltype(x)(1) / x; });
}

// floor/ceil/trunc keep integers as they are (a copy), like torch.
template <typename scalar_t, typename F>
void rounding_op(const TensorIterator& iter, F f) {
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) -> scalar_t { return x; });
  } else {
    unary_detail::float_op<scalar_t>(iter, f);
  }
}
template <typename scalar_t>
void floor_kernel(const TensorIterator& iter) { rounding_op<scalar_t>(iter, [](auto x) { return std::floor(x); }); }
template <typename scalar_t>
void ceil_kernel(const TensorIterator& iter) { rounding_op<scalar_t>(iter, [](auto x) { return std::ceil(x); }); }
template <typename scalar_t>
void trunc_kernel(const TensorIterator& iter) { rounding_op<scalar_t>(iter, [](auto x) { return std::trunc(x); }); }

// relu keeps NaN (x < 0 is false for NaN).
template <typename scalar_t>
void relu_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t { return static_cast<opmath>(x) < opmath(0) ? scalar_t(0) : x; });
}

}  // namespace yaten::native::cpu

// More unary math, all computed in opmath_t and rounded once.
namespace yaten::native::cpu {

namespace unary_detail {
// erfinv: a rational first guess (Giles, "Approximating the erfinv function", single-precision branch widened to
// double), then two Newton steps on erf, which make it exact to double rounding.
inline double erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) {
    if (y == 1.0) return INFINITY;
    if (y == -1.0) return -INFINITY;
    return NAN;
  }
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941}) p = c + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682}) p = c + p * w;
    x = p * y;
  }
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int k = 0; k < 2; ++k) x -= (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}
}  // namespace unary_detail

template <typename scalar_t>
void exp2_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::exp2(x); });
}
template <typename scalar_t>
void log2_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::log2(x); });
}
template <typename scalar_t>
void log10_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::log10(x); });
}
template <typename scalar_t>
void rsqrt_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}
template <typename scalar_t>
void tan_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::tan(x); });
}
template <typename scalar_t>
void asin_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::asin(x); });
}
template <typename scalar_t>
void acos_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::acos(x); });
}
template <typename scalar_t>
void atan_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::atan(x); });
}
template <typename scalar_t>
void sinh_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::sinh(x); });
}
template <typename scalar_t>
void cosh_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::cosh(x); });
}
template <typename scalar_t>
void asinh_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::asinh(x); });
}
template <typename scalar_t>
void acosh_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::acosh(x); });
}
template <typename scalar_t>
void atanh_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::atanh(x); });
}
template <typename scalar_t>
void erf_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::erf(x); });
}
template <typename scalar_t>
void erfc_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::erfc(x); });
}
template <typename scalar_t>
void erfinv_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return static_cast<decltype(x)>(unary_detail::erfinv(static_cast<double>(x))); });
}
template <typename scalar_t>
void frac_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return x - std::trunc(x); });
}

// logit(x) = log(x / (1 - x)), with x first clamped to [eps, 1 - eps] when eps is given.
template <typename scalar_t>
void logit_kernel(const TensorIterator& iter, std::optional<double> eps) {
  using opmath = opmath_t<scalar_t>;
  const bool clamp = eps.has_value();
  const opmath lo = clamp ? static_cast<opmath>(*eps) : 0, hi = clamp ? 1 - static_cast<opmath>(*eps) : 1;
  cpu_kernel(iter, [=](scalar_t v) -> scalar_t {
    opmath x = static_cast<opmath>(v);
    if (clamp) x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
    return static_cast<scalar_t>(std::log(x / (1 - x)));
  });
}

// round: half to even (std::nearbyint in the default rounding mode), as torch and NumPy do.
template <typename scalar_t>
void round_kernel(const TensorIterator& iter) {
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) -> scalar_t { return x; });
  } else {
    unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::nearbyint(x); });
  }
}

// round(decimals=d): scale by 10^d, round half to even, scale back (torch's formula, so ties match it).
template <typename scalar_t>
void round_decimals_kernel(const TensorIterator& iter, int64_t decimals) {
  using opmath = opmath_t<scalar_t>;
  const bool negative = decimals < 0;
  const opmath ten_pow = static_cast<opmath>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)));
  cpu_kernel(iter, [=](scalar_t v) -> scalar_t {
    const opmath x = static_cast<opmath>(v);
    return static_cast<scalar_t>(negative ? std::nearbyint(x / ten_pow) * ten_pow
                                          : std::nearbyint(x * ten_pow) / ten_pow);
  });
}

// sign: -1, 0 or 1 (+0 for either zero); NaN stays NaN.
template <typename scalar_t>
void sign_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool x) -> bool { return x; });
  } else {
    cpu_kernel(iter, [](scalar_t v) -> scalar_t {
      const opmath x = static_cast<opmath>(v);
      if constexpr (std::is_floating_point_v<opmath>) {
        if (x != x) return v;
      }
      return static_cast<scalar_t>((opmath(0) < x) - (x < opmath(0)));
    });
  }
}

}  // namespace yaten::native::cpu
