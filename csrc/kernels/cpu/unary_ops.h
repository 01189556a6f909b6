// CPU kernels of the unary pointwise ops.
#pragma once

#include "iter/cpu_loops.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void neg_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t { return -opmath(x); });
}

}  // namespace yaten::native::cpu

// The unary math ops: each computes in opmath_t (float for float16/bfloat16) and rounds once on store. Their
// dtype rule is promote_float, so integer and bool inputs arrive already converted to the default float dtype.
#include <cmath>

namespace yaten::native::cpu {

namespace unary_detail {
template <typename scalar_t, typename F>
void float_op(const TensorIterator& iter, F f) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [f](scalar_t x) -> scalar_t { return static_cast<scalar_t>(f(static_cast<opmath>(x))); });
}
}  // namespace unary_detail

template <typename scalar_t>
void exp_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::exp(x); }); }
template <typename scalar_t>
void log_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::log(x); }); }
template <typename scalar_t>
void sqrt_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::sqrt(x); }); }
template <typename scalar_t>
void sin_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::sin(x); }); }
template <typename scalar_t>
void cos_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::cos(x); }); }
template <typename scalar_t>
void tanh_kernel(const TensorIterator& iter) { unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::tanh(x); }); }
template <typename scalar_t>
void expm1_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::expm1(x); });
}
template <typename scalar_t>
void log1p_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return std::log1p(x); });
}
template <typename scalar_t>
void sigmoid_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return decltype(x)(1) / (decltype(x)(1) + std::exp(-x)); });
}

template <typename scalar_t>
void abs_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t {
    if constexpr (std::is_unsigned_v<scalar_t>) {
      return x;
    } else {
      const opmath v = static_cast<opmath>(x);
      return static_cast<scalar_t>(v < opmath(0) ? -v : v);
    }
  });
}

}  // namespace yaten::native::cpu

namespace yaten::native::cpu {

template <typename scalar_t>
void reciprocal_kernel(const TensorIterator& iter) {
  unary_detail::float_op<scalar_t>(iter, [](auto x) { return decltype(x)(1) / x; });
}

// floor/ceil/trunc keep integers as they are (a copy), like torch.
template <typename scalar_t, typename F>
void rounding_op(const TensorIterator& iter, F f) {
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t x) -> scalar_t { return x; });
  } else {
    unary_detail::float_op<scalar_t>(iter, f);
  }
}
template <typename scalar_t>
void floor_kernel(const TensorIterator& iter) { rounding_op<scalar_t>(iter, [](auto x) { return std::floor(x); }); }
template <typename scalar_t>
void ceil_kernel(const TensorIterator& iter) { rounding_op<scalar_t>(iter, [](auto x) { return std::ceil(x); }); }
template <typename scalar_t>
void trunc_kernel(const TensorIterator& iter) { rounding_op<scalar_t>(iter, [](auto x) { return std::trunc(x); }); }

// relu keeps NaN (x < 0 is false for NaN).
template <typename scalar_t>
void relu_kernel(const TensorIterator& iter) {
  using opmath = opmath_t<scalar_t>;
  cpu_kernel(iter, [](scalar_t x) -> scalar_t { return static_cast<opmath>(x) < opmath(0) ? scalar_t(0) : x; });
}

}  // namespace yaten::native::cpu
