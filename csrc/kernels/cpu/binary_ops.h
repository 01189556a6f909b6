// CPU kernels of the arithmetic binary ops. Each runs an element functor of kernels/binary_math.h (shared with
// CUDA) over a TensorIterator that the generated wrapper built (broadcast, promoted, allocated); see the contracts
// at the end of yaten/ops/<op>.h.
#pragma once

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "iter/vec_double_trig.h"
#include "kernels/alpha_check.h"
#include "kernels/binary_math.h"
#include "kernels/pointwise_support.h"

namespace yaten::native::cpu {

// The four arithmetic ops: float16 in float lanes, converted a vector at a time (Note [16-bit rows as float lanes];
// one element at a time, h + h took 5.9x torch's time), the same float arithmetic the functor does; every other
// dtype by the functor, which the compiler vectorizes (bfloat16's conversions too, which are integer steps: through
// the lanes b * b took 1.2x the functor's time).
template <typename scalar_t>
constexpr bool kHalfInLanes = std::is_same_v<scalar_t, Half>;
template <typename scalar_t>
void add_kernel(const TensorIterator& iter, const Scalar& alpha) {
  check_alpha("add", iter, alpha);
  const om<scalar_t> a = alpha.to<om<scalar_t>>();
  if constexpr (kHalfInLanes<scalar_t>) {
    const auto f = [a](auto x, auto y) { return x + a * y; };
    binary_vec_kernel<scalar_t>(iter, f, f);
  } else {
    cpu_kernel(iter, AddOp<scalar_t>{a});
  }
}
template <typename scalar_t>
void sub_kernel(const TensorIterator& iter, const Scalar& alpha) {
  check_sub_operands(iter);
  check_alpha("sub", iter, alpha);
  const om<scalar_t> a = alpha.to<om<scalar_t>>();
  if constexpr (kHalfInLanes<scalar_t>) {
    const auto f = [a](auto x, auto y) { return x - a * y; };
    binary_vec_kernel<scalar_t>(iter, f, f);
  } else {
    cpu_kernel(iter, SubOp<scalar_t>{a});
  }
}
template <typename scalar_t>
void mul_kernel(const TensorIterator& iter) {
  if constexpr (kHalfInLanes<scalar_t>) {
    const auto f = [](auto x, auto y) { return x * y; };
    binary_vec_kernel<scalar_t>(iter, f, f);
  } else {
    cpu_kernel(iter, MulOp<scalar_t>{});
  }
}
template <typename scalar_t>
void div_kernel(const TensorIterator& iter) {
  if constexpr (kHalfInLanes<scalar_t>) {
    const auto f = [](auto x, auto y) { return x / y; };
    binary_vec_kernel<scalar_t>(iter, f, f);
  } else {
    cpu_kernel(iter, DivOp<scalar_t>{});
  }
}
template <typename scalar_t>
void maximum_kernel(const TensorIterator& iter) { cpu_kernel(iter, MaximumOp<scalar_t>{}); }
template <typename scalar_t>
void minimum_kernel(const TensorIterator& iter) { cpu_kernel(iter, MinimumOp<scalar_t>{}); }
template <typename scalar_t>
void fmax_kernel(const TensorIterator& iter) { cpu_kernel(iter, FmaxOp<scalar_t>{}); }
template <typename scalar_t>
void fmin_kernel(const TensorIterator& iter) { cpu_kernel(iter, FminOp<scalar_t>{}); }
// Integer division by zero raises yaten.ZeroDivisionError (a RuntimeError, as torch raises on the CPU).
// float32, float16 and bfloat16 run vec::fmod, vec::remainder and vec::floor_divide, float64 their _double forms (exact
// fmod, then the functors' own steps: the same results as the functors, which the other dtypes run).
template <typename scalar_t>
void remainder_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return RemainderOp<decltype(x)>{}(x, y); },
                              [](vec::wfloat x, vec::wfloat y) { return vec::remainder(x, y); },
                              [](vec::wdouble x, vec::wdouble y) { return vec::remainder_double(x, y); });
}
template <typename scalar_t>
void fmod_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return FmodOp<decltype(x)>{}(x, y); },
                              [](vec::wfloat x, vec::wfloat y) { return vec::fmod(x, y); },
                              [](vec::wdouble x, vec::wdouble y) { return vec::fmod_double(x, y); });
}
template <typename scalar_t>
void floor_divide_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return FloorDivideOp<decltype(x)>{}(x, y); },
                              [](vec::wfloat x, vec::wfloat y) { return vec::floor_divide(x, y); },
                              [](vec::wdouble x, vec::wdouble y) { return vec::floor_divide_double(x, y); });
}
template <typename scalar_t>
void div_trunc_kernel(const TensorIterator& iter) { cpu_kernel(iter, DivTruncOp<scalar_t>{}); }
// Note [pow by a number]: a Python number as the exponent of a floating tensor: 2, 3, -1, -2, 0.5 and -0.5 as the
// products, quotients and roots torch computes for them (x ** 3 as x * x * x: the C library's powf took 64x torch's
// time on inputs of both signs); other exponents, and tensors, by vec::pow in double lanes for float32, float16 and
// bfloat16 (Note [Float32 pow in double lanes]), by the functor for float64.
template <typename scalar_t>
void pow_kernel(const TensorIterator& iter) {
  check_pow_number_exponent(iter);
  if constexpr (std::is_floating_point_v<om<scalar_t>> && !is_complex_v<scalar_t>) {
    using opmath = om<scalar_t>;
    if (const std::optional<Scalar> number = iter.input_number(1)) {
      const double e = number->to<double>();
      const auto run = [&](auto f) {  // f of x's opmath value; the exponent operand is not read
        cpu_kernel(iter, [f](scalar_t x, scalar_t) -> scalar_t { return static_cast<scalar_t>(f(static_cast<opmath>(x))); });
      };
      if (e == 2) return run([](opmath v) { return v * v; });
      if (e == 3) return run([](opmath v) { return v * v * v; });
      if (e == -1) return run([](opmath v) { return opmath(1) / v; });
      if (e == -2) return run([](opmath v) { return opmath(1) / (v * v); });
      if (e == 0.5) return run([](opmath v) { return std::sqrt(v); });
      if (e == -0.5) return run([](opmath v) { return opmath(1) / std::sqrt(v); });
    }
    binary_vec_kernel<scalar_t>(iter, [](auto x, auto y) { return PowOp<decltype(x)>{}(x, y); },
                                [](vec::wfloat x, vec::wfloat y) { return vec::pow(x, y); });
  } else {
    cpu_kernel(iter, PowOp<scalar_t>{});
  }
}
template <typename scalar_t>
void atan2_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto y, auto x) { return Atan2Op<decltype(y)>{}(y, x); },
                              [](vec::wfloat y, vec::wfloat x) { return vec::atan2(y, x); },
                              [](vec::wdouble y, vec::wdouble x) { return vec::atan2_double(y, x); });
}
template <typename scalar_t>
void hypot_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(iter, [](auto a, auto b) { return HypotOp<decltype(a)>{}(a, b); },
                              [](vec::wfloat a, vec::wfloat b) { return vec::hypot(a, b); },
                              [](vec::wdouble a, vec::wdouble b) { return vec::hypot_double(a, b); });
}
template <typename scalar_t>
void lerp_scalar_kernel(const TensorIterator& iter, const Scalar& weight) {
  check_same_dtypes("lerp", iter, {"end"}, /*out_too=*/false);
  cpu_kernel(iter, LerpScalarOp<scalar_t>{weight.to<om<scalar_t>>()});
}
template <typename scalar_t>
void lerp_tensor_kernel(const TensorIterator& iter) {
  // a 0-dim weight of another dtype promotes (lerp of int8 tensors with tensor(0.5) is float32, as in torch), and
  // the out= then takes any dtype the result casts into safely
  check_same_dtypes("lerp", iter, {"end"}, /*out_too=*/iter.input_dim(2) != 0);
  check_lerp_weight(iter);
  cpu_kernel(iter, LerpTensorOp<scalar_t>{});
}
template <typename scalar_t>
void addcmul_kernel(const TensorIterator& iter, const Scalar& value) {
  cpu_kernel(iter, AddcmulOp<scalar_t>{value.to<om<scalar_t>>()});
}
template <typename scalar_t>
void addcdiv_kernel(const TensorIterator& iter, const Scalar& value) {
  check_addcdiv_operands(iter);
  cpu_kernel(iter, AddcdivOp<scalar_t>{value.to<om<scalar_t>>()});
}
template <typename scalar_t>
void bitwise_and_kernel(const TensorIterator& iter) { cpu_kernel(iter, BitwiseAndOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_or_kernel(const TensorIterator& iter) { cpu_kernel(iter, BitwiseOrOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_xor_kernel(const TensorIterator& iter) { cpu_kernel(iter, BitwiseXorOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_not_kernel(const TensorIterator& iter) { cpu_kernel(iter, BitwiseNotOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_left_shift_kernel(const TensorIterator& iter) { cpu_kernel(iter, LeftShiftOp<scalar_t>{}); }
template <typename scalar_t>
void bitwise_right_shift_kernel(const TensorIterator& iter) { cpu_kernel(iter, RightShiftOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
