// CPU kernels of the arithmetic binary ops. Each is one element function over a TensorIterator that the generated
// wrapper built (broadcast, promoted, allocated); see the contracts at the end of yaten/ops/<op>.h.
#pragma once

#include "iter/cpu_loops.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void add_kernel(const TensorIterator& iter, const Scalar& alpha) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    // bool + bool is logical or, as in torch; alpha scales as a bool.
    const bool a = alpha.to<bool>();
    cpu_kernel(iter, [a](bool x, bool y) -> bool { return x || (a && y); });
  } else {
    const opmath a = alpha.to<opmath>();
    if (a == opmath(1)) {
      cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) + opmath(y); });
    } else {
      cpu_kernel(iter, [a](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) + a * opmath(y); });
    }
  }
}

// torch's rule, checked on the operands as given (before promotion), so `mask - 1` is an error too.
inline void check_sub_operands(const TensorIterator& iter) {
  const bool first = iter.input_dtype(0) == ScalarType::Bool, second = iter.input_dtype(1) == ScalarType::Bool;
  YATEN_CHECK(!(first && second), RuntimeError, "sub: subtraction, the `-` operator, with two bool tensors is not "
              "supported. Use the `^` or `logical_xor()` operator instead.");
  YATEN_CHECK(!(first || second), RuntimeError, "sub: subtraction, the `-` operator, with a bool tensor is not "
              "supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

template <typename scalar_t>
void sub_kernel(const TensorIterator& iter, const Scalar& alpha) {
  using opmath = opmath_t<scalar_t>;
  check_sub_operands(iter);
  const opmath a = alpha.to<opmath>();
  cpu_kernel(iter, [a](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) - a * opmath(y); });
}

template <typename scalar_t>
void mul_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  if constexpr (std::is_same_v<scalar_t, bool>) {
    cpu_kernel(iter, [](bool x, bool y) -> bool { return x && y; });
  } else {
    cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) * opmath(y); });
  }
}

template <typename scalar_t>
void div_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x, scalar_t y) -> scalar_t { return opmath(x) / opmath(y); });
}

}  // namespace yaten::native::cpu

namespace yaten::native::cpu {

// maximum/minimum: NaN propagates, as in torch.
template <typename scalar_t, bool kMax>
void extremum_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t {
    const opmath x = static_cast<opmath>(a), y = static_cast<opmath>(b);
    if constexpr (!std::is_integral_v<opmath>) {
      if (x != x) return a;
      if (y != y) return b;
    }
    return (kMax ? x > y : x < y) ? a : b;
  });
}

template <typename scalar_t>
void maximum_kernel(const TensorIterator& iter) { extremum_kernel<scalar_t, true>(iter); }

template <typename scalar_t>
void minimum_kernel(const TensorIterator& iter) { extremum_kernel<scalar_t, false>(iter); }

}  // namespace yaten::native::cpu
