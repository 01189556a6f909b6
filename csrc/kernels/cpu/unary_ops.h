// CPU kernels of the unary pointwise ops: each runs its element functor from kernels/unary_math.h (shared with
// CUDA). The float ones with a vector form in iter/vec.h (exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan,
// asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, sigmoid, erf) run it for float32, float16 and bfloat16;
// exp, exp2, expm1, log, log2, log10, log1p, sigmoid and the roundings have float64 forms too (iter/vec_double.h),
// and so have sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh and atanh (iter/vec_double_trig.h), erf
// and erfinv (iter/vec_double_erf.h); the functor serves the rest and complex.
#pragma once

#include <cmath>
#include <optional>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "iter/vec_double_erf.h"
#include "iter/vec_double_trig.h"
#include "kernels/unary_math.h"

namespace yaten::native::cpu {

// float, float16 and bfloat16 through the 8-lane form vec_f, other real dtypes through the functor Op, complex
// through Op element by element.
template <typename scalar_t, template <typename> class Op, typename VecF>
void vectorized_unary(const TensorIterator& iter, VecF vec_f) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, Op<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<Op>{}, vec_f);
  }
}
// ... and float64 through the kDoubleLanes form vec_f64 (iter/vec_double.h).
template <typename scalar_t, template <typename> class Op, typename VecF, typename VecF64>
void vectorized_unary(const TensorIterator& iter, VecF vec_f, VecF64 vec_f64) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, Op<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<Op>{}, vec_f, vec_f64);
  }
}

template <typename scalar_t>
void neg_kernel(const TensorIterator& iter) {
  if constexpr (vec::kSixteenBit<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) { return scalar_t::from_bits(x.bits ^ 0x8000u); });  // see abs_kernel
  } else {
    cpu_kernel(iter, NegOp<scalar_t>{});
  }
}
template <typename scalar_t>
void conj_physical_kernel(const TensorIterator& iter) { cpu_kernel(iter, ConjOp<scalar_t>{}); }
template <typename scalar_t>
void exp_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, ExpOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<ExpOp>{}, [](vec::wfloat x) { return vec::exp(x); },
                               [](vec::wdouble x) { return vec::exp_double(x); });
  }
}
template <typename scalar_t>
void tanh_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, TanhOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<TanhOp>{}, [](vec::wfloat x) { return vec::tanh(x); },
                               [](vec::wdouble x) { return vec::tanh_double(x); });
  }
}
template <typename scalar_t>
void sigmoid_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, SigmoidOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, FunctorOf<SigmoidOp>{},
                               [](vec::wfloat x) { return vec::sigmoid(x); },
                               [](vec::wdouble x) { return vec::sigmoid_double(x); });
  }
}
template <typename scalar_t>
void log_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, LogOp>(iter, [](vec::wfloat x) { return vec::log(x); },
                                    [](vec::wdouble x) { return vec::log_double(x); });
}
template <typename scalar_t>
void sqrt_kernel(const TensorIterator& iter) {  // 16-bit rows in float lanes too (scalar conversions: 1.35x torch)
  vectorized_unary<scalar_t, SqrtOp>(iter, [](vec::wfloat x) { return vec::sqrt(x); });
}
template <typename scalar_t>
void sin_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, SinOp>(iter, [](vec::wfloat x) { return vec::sin(x); },
                                    [](vec::wdouble x) { return vec::sin_double(x); });
}
template <typename scalar_t>
void cos_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, CosOp>(iter, [](vec::wfloat x) { return vec::cos(x); },
                                    [](vec::wdouble x) { return vec::cos_double(x); });
}
template <typename scalar_t>
void expm1_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Expm1Op>(iter, [](vec::wfloat x) { return vec::expm1(x); },
                                      [](vec::wdouble x) { return vec::expm1_double(x); });
}
template <typename scalar_t>
void log1p_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Log1pOp>(iter, [](vec::wfloat x) { return vec::log1p(x); },
                                      [](vec::wdouble x) { return vec::log1p_double(x); });
}
template <typename scalar_t>
void abs_kernel(const TensorIterator& iter) {
  // float16 and bfloat16: the sign bit cleared (neg: flipped), exactly what the functor's round trip through float
  // gives, NaN included, without the conversions (3x torch's time one element at a time)
  if constexpr (vec::kSixteenBit<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) { return scalar_t::from_bits(x.bits & 0x7fffu); });
  } else {
    cpu_kernel(iter, AbsOp<scalar_t>{});
  }
}
template <typename scalar_t>
void reciprocal_kernel(const TensorIterator& iter) {  // 1 / x in 16 float lanes (as cpu_kernel: 1.26x torch)
  vectorized_unary<scalar_t, ReciprocalOp>(iter, [](vec::wfloat x) { return 1.0f / x; },
                                           [](vec::wdouble x) { return 1.0 / x; });
}
template <typename scalar_t>
void floor_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, FloorOp>(iter, [](vec::wfloat x) { return vec::rounded<0>(x); },
                                      [](vec::wdouble x) { return vec::rounded_double<0>(x); });
}
template <typename scalar_t>
void ceil_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, CeilOp>(iter, [](vec::wfloat x) { return vec::rounded<1>(x); },
                                     [](vec::wdouble x) { return vec::rounded_double<1>(x); });
}
template <typename scalar_t>
void trunc_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, TruncOp>(iter, [](vec::wfloat x) { return vec::rounded<2>(x); },
                                      [](vec::wdouble x) { return vec::rounded_double<2>(x); });
}
template <typename scalar_t>
void round_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, RoundOp>(iter, [](vec::wfloat x) { return vec::rounded<3>(x); },
                                      [](vec::wdouble x) { return vec::rounded_double<3>(x); });
}
template <typename scalar_t>
void relu_kernel(const TensorIterator& iter) { cpu_kernel(iter, ReluOp<scalar_t>{}); }
template <typename scalar_t>
void exp2_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Exp2Op>(iter, [](vec::wfloat x) { return vec::exp2(x); },
                                     [](vec::wdouble x) { return vec::exp2_double(x); });
}
template <typename scalar_t>
void log2_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Log2Op>(iter, [](vec::wfloat x) { return vec::log2(x); },
                                     [](vec::wdouble x) { return vec::log2_double(x); });
}
template <typename scalar_t>
void log10_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, Log10Op>(iter, [](vec::wfloat x) { return vec::log10(x); },
                                      [](vec::wdouble x) { return vec::log10_double(x); });
}
template <typename scalar_t>
void rsqrt_kernel(const TensorIterator& iter) { cpu_kernel(iter, RsqrtOp<scalar_t>{}); }
template <typename scalar_t>
void tan_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, TanOp>(iter, [](vec::wfloat x) { return vec::tan(x); },
                                    [](vec::wdouble x) { return vec::tan_double(x); });
}
template <typename scalar_t>
void asin_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AsinOp>(iter, [](vec::wfloat x) { return vec::asin(x); },
                                     [](vec::wdouble x) { return vec::asin_double(x); });
}
template <typename scalar_t>
void acos_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AcosOp>(iter, [](vec::wfloat x) { return vec::acos(x); },
                                     [](vec::wdouble x) { return vec::acos_double(x); });
}
template <typename scalar_t>
void atan_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AtanOp>(iter, [](vec::wfloat x) { return vec::atan(x); },
                                     [](vec::wdouble x) { return vec::atan_double(x); });
}
template <typename scalar_t>
void sinh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, SinhOp>(iter, [](vec::wfloat x) { return vec::sinh(x); },
                                     [](vec::wdouble x) { return vec::sinh_double(x); });
}
template <typename scalar_t>
void cosh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, CoshOp>(iter, [](vec::wfloat x) { return vec::cosh(x); },
                                     [](vec::wdouble x) { return vec::cosh_double(x); });
}
template <typename scalar_t>
void asinh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AsinhOp>(iter, [](vec::wfloat x) { return vec::asinh(x); },
                                      [](vec::wdouble x) { return vec::asinh_double(x); });
}
template <typename scalar_t>
void acosh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AcoshOp>(iter, [](vec::wfloat x) { return vec::acosh(x); },
                                      [](vec::wdouble x) { return vec::acosh_double(x); });
}
template <typename scalar_t>
void atanh_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, AtanhOp>(iter, [](vec::wfloat x) { return vec::atanh(x); },
                                      [](vec::wdouble x) { return vec::atanh_double(x); });
}
template <typename scalar_t>
void erf_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, ErfOp>(iter, [](vec::wfloat x) { return vec::erf(x); },
                                    [](vec::wdouble x) { return vec::erf_double(x); });
}
template <typename scalar_t>
void erfc_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, ErfcOp>(iter, [](vec::wfloat x) { return vec::erfc(x); });
}
template <typename scalar_t>
void erfinv_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, ErfinvOp>(iter, [](vec::wfloat x) { return vec::erfinv(x); },
                                       [](vec::wdouble x) { return vec::erfinv_double(x); });
}
template <typename scalar_t>
void frac_kernel(const TensorIterator& iter) {
  vectorized_unary<scalar_t, FracOp>(iter, [](vec::wfloat x) { return vec::frac(x); },
                                     [](vec::wdouble x) { return x - vec::rounded_double<2>(x); });
}
template <typename scalar_t>
void sign_kernel(const TensorIterator& iter) { cpu_kernel(iter, SignOp<scalar_t>{}); }

template <typename scalar_t>
void logit_kernel(const TensorIterator& iter, std::optional<double> eps) {
  // log(x / (1 - x)) as the functor computes it, the logarithm vec.h's (vec_double.h's) in lanes
  const LogitOp<scalar_t> op = logit_op<scalar_t>(eps);
  const float lo = static_cast<float>(op.lo), hi = static_cast<float>(op.hi);
  const double lo64 = static_cast<double>(op.lo), hi64 = static_cast<double>(op.hi);
  const bool clamp = op.clamp;
  unary_vec_kernel<scalar_t>(
      iter, [op](auto x) { return LogitOp<decltype(x)>{op.clamp, op.lo, op.hi}(x); },
      [=](vec::wfloat x) {
        if (clamp) x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
        return vec::log(x / (1.0f - x));
      },
      [=](vec::wdouble x) {
        if (clamp) x = x < lo64 ? lo64 : (x > hi64 ? hi64 : x);
        return vec::log_double(x / (1.0 - x));
      });
}
template <typename scalar_t>
void round_decimals_kernel(const TensorIterator& iter, int64_t decimals) {
  cpu_kernel(iter, round_decimals_op<scalar_t>(decimals));
}

}  // namespace yaten::native::cpu
