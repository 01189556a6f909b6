// The element math of the comparisons, tests and selections (eq, isnan, logical_and, isclose, clamp, where), written
// once for both backends: the functors of kernels/pointwise_math.h's Design rule [Shared element math]. A family's
// functors have a header of their own so that an edit to one recompiles that family's units alone (Note [Functor
// headers per family], pointwise_math.h).
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

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

// The parameters of isclose and nan_to_num, from the kernel's arguments; shared by both backends.
template <typename scalar_t>
IscloseOp<scalar_t> isclose_op(double rtol, double atol, bool equal_nan) {
  using R = typename IscloseOp<scalar_t>::R;
  return {static_cast<R>(rtol), static_cast<R>(atol), equal_nan};
}
template <typename scalar_t>
NanToNumOp<scalar_t> nan_to_num_op(std::optional<double> nan, std::optional<double> posinf,
                                   std::optional<double> neginf) {
  if constexpr (std::is_integral_v<scalar_t>) {
    return {};
  } else {
    using opmath = om<scalar_t>;
    return {static_cast<scalar_t>(static_cast<opmath>(nan.value_or(0.0))),
            posinf ? static_cast<scalar_t>(static_cast<opmath>(*posinf)) : max_finite<scalar_t>(),
            neginf ? static_cast<scalar_t>(static_cast<opmath>(*neginf)) : lowest_finite<scalar_t>()};
  }
}

}  // namespace yaten::native
