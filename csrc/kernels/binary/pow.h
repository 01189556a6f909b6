// pow's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

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

}  // namespace yaten::native
