// pow's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/pow.h's, shared with CUDA. A header of its own: an edit recompiles pow's unit alone (Note [A header
// per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/pow.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

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

}  // namespace yaten::native::cpu
