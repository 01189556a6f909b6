// isclose's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

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
// isclose's parameters, from the kernel's arguments; shared by both backends.
template <typename scalar_t>
IscloseOp<scalar_t> isclose_op(double rtol, double atol, bool equal_nan) {
  using R = typename IscloseOp<scalar_t>::R;
  return {static_cast<R>(rtol), static_cast<R>(atol), equal_nan};
}

}  // namespace yaten::native
