// Complex<T>: the element type of complex64 (T = float) and complex128 (T = double).
//
// Two T's, real part first, the layout of C's `float _Complex`, std::complex, NumPy's complex64 and DLPack's
// kDLComplex, so memory is shared with all of them as it is. Host and device code share it (std::complex has no
// device functions), which is why yaten has its own type, as torch has c10::complex (capitalized as Half is:
// yaten::complex is the op that makes complex tensors). Division scales by the larger part of the divisor (Smith's
// algorithm), as NumPy and torch do.
#pragma once

#include <cmath>
#include <complex>
#include <type_traits>

#include "core/half.h"  // YATEN_HOST_DEVICE

namespace yaten {

template <typename T>
struct alignas(2 * sizeof(T)) Complex {
  T re;  // no initializers: trivial, as float is (Complex<T>{} is zero)
  T im;

  Complex() = default;
  YATEN_HOST_DEVICE constexpr Complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  YATEN_HOST_DEVICE explicit constexpr Complex(const Complex<U>& o)
      : re(static_cast<T>(o.re)), im(static_cast<T>(o.im)) {}
  Complex(const std::complex<T>& z) : re(z.real()), im(z.imag()) {}
  operator std::complex<T>() const { return {re, im}; }

  YATEN_HOST_DEVICE constexpr T real() const { return re; }
  YATEN_HOST_DEVICE constexpr T imag() const { return im; }

  YATEN_HOST_DEVICE Complex& operator+=(const Complex& o) { re += o.re; im += o.im; return *this; }
  YATEN_HOST_DEVICE Complex& operator-=(const Complex& o) { re -= o.re; im -= o.im; return *this; }
  YATEN_HOST_DEVICE Complex& operator*=(const Complex& o) { return *this = *this * o; }
  YATEN_HOST_DEVICE Complex& operator/=(const Complex& o) { return *this = *this / o; }

  YATEN_HOST_DEVICE friend constexpr Complex operator+(const Complex& a, const Complex& b) {
    return {a.re + b.re, a.im + b.im};
  }
  YATEN_HOST_DEVICE friend constexpr Complex operator-(const Complex& a, const Complex& b) {
    return {a.re - b.re, a.im - b.im};
  }
  YATEN_HOST_DEVICE friend constexpr Complex operator-(const Complex& a) { return {-a.re, -a.im}; }
  YATEN_HOST_DEVICE friend constexpr Complex operator*(const Complex& a, const Complex& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  YATEN_HOST_DEVICE friend Complex operator/(const Complex& a, const Complex& b) {
    // Smith's algorithm: divide by the larger of |b.re|, |b.im| first, so that squares cannot overflow.
    const T abs_re = b.re < T(0) ? -b.re : b.re, abs_im = b.im < T(0) ? -b.im : b.im;
    if (abs_re >= abs_im) {
      if (abs_re == T(0) && abs_im == T(0)) return {a.re / abs_re, a.im / abs_im};  // inf/nan as C gives
      const T r = b.im / b.re, d = b.re + b.im * r;
      return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    const T r = b.re / b.im, d = b.im + b.re * r;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
  }
  YATEN_HOST_DEVICE friend constexpr bool operator==(const Complex& a, const Complex& b) {
    return a.re == b.re && a.im == b.im;
  }
  YATEN_HOST_DEVICE friend constexpr bool operator!=(const Complex& a, const Complex& b) { return !(a == b); }
};

template <typename T> struct is_complex_t : std::false_type {};
template <typename T> struct is_complex_t<Complex<T>> : std::true_type {};
template <typename T>
constexpr bool is_complex_v = is_complex_t<T>::value;

// Elementary functions of a complex number, for host and device (the textbook formulas; principal branches).
// exp keeps C99's (Annex G) values where the formula would make NaNs of infinities: a zero imaginary part stays
// (exp(inf + 0i) = inf + 0i, exp(NaN + 0i) = NaN + 0i), exp(-inf + iy) is 0 for any y, exp(+inf + iy) is inf + NaN i
// for an infinite or NaN y; torch (std::exp) and the array API standard agree.
template <typename T>
YATEN_HOST_DEVICE inline Complex<T> complex_exp(Complex<T> z) {
  if (z.im == T(0)) return {std::exp(z.re), z.im};
  if (std::isinf(z.re) && !std::isfinite(z.im)) {
    return z.re < T(0) ? Complex<T>{T(0), T(0)} : Complex<T>{z.re, z.im - z.im};
  }
  const T m = std::exp(z.re);
  return {m * std::cos(z.im), m * std::sin(z.im)};
}
template <typename T>
YATEN_HOST_DEVICE inline Complex<T> complex_log(Complex<T> z) {
  return {std::log(std::hypot(z.re, z.im)), std::atan2(z.im, z.re)};
}
// sqrt without cancellation: the larger part from (|re| + |z|) / 2, the other from im / (2 t); the branch cut on the
// negative real axis follows the sign of im (of a signed zero too), as C99's csqrt.
// Infinities follow C99's csqrt (torch's std::sqrt and the array API standard agree): an infinite imaginary part
// gives +inf with it, -inf + iy gives 0 + i inf (NaN + i inf for a NaN y), +inf + iy gives +inf + 0i.
template <typename T>
YATEN_HOST_DEVICE inline Complex<T> complex_sqrt(Complex<T> z) {
  if (std::isinf(z.im)) return {std::fabs(z.im), z.im};
  if (std::isinf(z.re)) {
    if (z.re > T(0)) return {z.re, std::isnan(z.im) ? z.im : std::copysign(T(0), z.im)};
    return {std::isnan(z.im) ? z.im : T(0), std::copysign(-z.re, std::isnan(z.im) ? T(1) : z.im)};
  }
  if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};
  const T t = std::sqrt((std::fabs(z.re) + std::hypot(z.re, z.im)) / T(2));
  if (z.re >= T(0)) return {t, z.im / (T(2) * t)};
  return {std::fabs(z.im) / (T(2) * t), std::copysign(t, z.im)};
}
template <typename T>
YATEN_HOST_DEVICE inline Complex<T> complex_sin(Complex<T> z) {
  return {std::sin(z.re) * std::cosh(z.im), std::cos(z.re) * std::sinh(z.im)};
}
template <typename T>
YATEN_HOST_DEVICE inline Complex<T> complex_cos(Complex<T> z) {
  return {std::cos(z.re) * std::cosh(z.im), -std::sin(z.re) * std::sinh(z.im)};
}

// The real type under a complex type (float for Complex<float>), T itself otherwise.
template <typename T> struct RealOf { using type = T; };
template <typename T> struct RealOf<Complex<T>> { using type = T; };
template <typename T>
using real_of_t = typename RealOf<T>::type;

}  // namespace yaten
