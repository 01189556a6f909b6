// CPU kernels of the special functions and the sign/exponent ops: each runs its element functor from
// kernels/special_math.h, which the CUDA kernels of the same names (kernels/cuda/special_ops.cuh) run too.
#pragma once

#include <cstdint>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "iter/vec_double_trig.h"
#include "iter/vec_gamma.h"
#include "kernels/special_support.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void digamma_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, [](auto x) { return DigammaOp<decltype(x)>{}(x); }, [](vec::wfloat x) {
    return vec::digamma(x, [](double v) { return special::digamma(v); });
  });
}
template <typename scalar_t>
void lgamma_kernel(const TensorIterator& iter) {
  unary_vec_kernel<scalar_t>(iter, [](auto x) { return LgammaOp<decltype(x)>{}(x); },
                             [](vec::wfloat x) { return vec::lgamma(x); });
}
template <typename scalar_t>
void polygamma_kernel(const TensorIterator& iter, int64_t n) {
  check_polygamma_order(n);
  cpu_kernel(iter, PolygammaOp<scalar_t>{n});
}
template <typename scalar_t>
void i0_kernel(const TensorIterator& iter) { cpu_kernel(iter, I0Op<scalar_t>{}); }
template <typename scalar_t>
void i1_kernel(const TensorIterator& iter) { cpu_kernel(iter, I1Op<scalar_t>{}); }
template <typename scalar_t>
void sinc_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, SincOp<scalar_t>{});
  } else {
    unary_vec_kernel<scalar_t>(iter, [](auto x) { return SincOp<decltype(x)>{}(x); },
                               [](vec::wfloat x) { return vec::sinc(x); },
                               [](vec::wdouble x) { return vec::sinc_double(x); });
  }
}
template <typename scalar_t>
void sgn_kernel(const TensorIterator& iter) { cpu_kernel(iter, SgnOp<scalar_t>{}); }
template <typename scalar_t>
void signbit_kernel(const TensorIterator& iter) {
  check_signbit_output(iter);
  cpu_kernel(iter, SignbitOp<scalar_t>{});
}
template <typename scalar_t>
void copysign_kernel(const TensorIterator& iter) { cpu_kernel(iter, CopysignOp<scalar_t>{}); }
template <typename scalar_t>
void nextafter_kernel(const TensorIterator& iter) {
  // float16 and bfloat16 step in their own bits: the functor
  if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
    binary_vec_kernel<scalar_t>(iter, NextafterOp<scalar_t>{},
                                [](vec::wfloat x, vec::wfloat y) { return vec::nextafter(x, y); },
                                [](vec::wdouble x, vec::wdouble y) { return vec::nextafter_double(x, y); });
  } else {
    cpu_kernel(iter, NextafterOp<scalar_t>{});
  }
}
// xlogy: x log y in lanes (vec::log, vec::log_double), then XlogyOp's cases: NaN where y is NaN, else 0 where x is 0
// (by the functor, a libm call per element, it took 1.2x torch's time on AVX2).
template <typename scalar_t>
void xlogy_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(
      iter, [](auto a, auto b) { return XlogyOp<decltype(a)>{}(a, b); },
      [](vec::wfloat x, vec::wfloat y) {
        return vec::select(y != y, y, vec::select(x == 0.0f, vec::wfloat{}, x * vec::log(y)));
      },
      [](vec::wdouble x, vec::wdouble y) {
        const vec::wdouble r = x * vec::log_double(y);
        return y != y ? y : (x == 0.0 ? vec::wdouble{} : r);
      });
}
// logaddexp and logaddexp2: float32, float16 and bfloat16 through their vector forms (iter/vec.h). Their lambdas
// always inlined: GCC left them out of line, a call per vector that reloads exp's and log1p's constants (logaddexp
// 4.07 -> 3.65 ms per 1M float32, 1.04x -> 0.94x torch's time; logaddexp2 0.98x -> 0.97x).
template <typename scalar_t>
void logaddexp_kernel(const TensorIterator& iter) {
  if constexpr (is_complex_v<scalar_t>) {
    cpu_kernel(iter, LogaddexpOp<scalar_t>{});
  } else {
    binary_vec_kernel<scalar_t>(iter, [](auto a, auto b) { return LogaddexpOp<decltype(a)>{}(a, b); },
                                [](vec::wfloat a, vec::wfloat b) __attribute__((always_inline)) {
                                  return vec::logaddexp(a, b);
                                },
                                [](vec::wdouble a, vec::wdouble b) { return vec::logaddexp_double(a, b); });
  }
}
template <typename scalar_t>
void logaddexp2_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto a, auto b) { return Logaddexp2Op<decltype(a)>{}(a, b); },
                              [](vec::wfloat a, vec::wfloat b) __attribute__((always_inline)) {
                                return vec::logaddexp2(a, b);
                              },
                              [](vec::wdouble a, vec::wdouble b) { return vec::logaddexp2_double(a, b); });
}
template <typename scalar_t>
void heaviside_kernel(const TensorIterator& iter) {
  check_heaviside_operands(iter);
  cpu_kernel(iter, HeavisideOp<scalar_t>{});
}

}  // namespace yaten::native::cpu
