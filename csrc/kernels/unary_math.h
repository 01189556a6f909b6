// The element math of the unary pointwise ops (exp, log, trigonometry, rounding, ...), written once for both backends:
// the functors of kernels/pointwise_math.h's Design rule [Shared element math]. A family's functors have a header of
// their own so that an edit to one recompiles that family's units alone (Note [Functor headers per family],
// pointwise_math.h).
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// ------------------------------------------------------------------------------------------------ unary math
// The float ones have dtype rule promote_float: integer and bool inputs arrive as the default float dtype.

template <typename T>
struct NegOp {
  YATEN_HOST_DEVICE T operator()(T x) const { return static_cast<T>(wrapping_neg(om<T>(x))); }
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

}  // namespace yaten::native
