// CPU kernels of the comparisons. Their dtype rule is `compare`: the iterator promotes the inputs and allocates a
// bool output, so each kernel is one element function from two scalar_t to bool.
#pragma once

#include <cmath>

#include "iter/cpu_loops.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void eq_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) == opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void ne_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) != opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void lt_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) < opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void le_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) <= opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void gt_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) > opmath_t<scalar_t>(b); });
}
template <typename scalar_t>
void ge_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return opmath_t<scalar_t>(a) >= opmath_t<scalar_t>(b); });
}

}  // namespace yaten::native::cpu

namespace yaten::native::cpu {

// isnan/isinf/isfinite: integers and bool are always finite.
template <typename scalar_t>
void isnan_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t x) -> bool {
    const auto v = static_cast<opmath_t<scalar_t>>(x);
    return v != v;
  });
}
template <typename scalar_t>
void isinf_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t x) -> bool {
    if constexpr (std::is_integral_v<scalar_t>) {
      return false;
    } else {
      return std::isinf(static_cast<opmath_t<scalar_t>>(x));
    }
  });
}
template <typename scalar_t>
void isfinite_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t x) -> bool {
    if constexpr (std::is_integral_v<scalar_t>) {
      return true;
    } else {
      return std::isfinite(static_cast<opmath_t<scalar_t>>(x));
    }
  });
}

// The logical ops read any dtype as "nonzero is true".
template <typename scalar_t>
bool truthy(scalar_t x) { return static_cast<opmath_t<scalar_t>>(x) != opmath_t<scalar_t>(0); }
template <typename scalar_t>
void logical_and_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return truthy(a) && truthy(b); });
}
template <typename scalar_t>
void logical_or_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return truthy(a) || truthy(b); });
}
template <typename scalar_t>
void logical_xor_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return truthy(a) != truthy(b); });
}
template <typename scalar_t>
void logical_not_kernel(const TensorIterator& iter) {
  cpu_kernel(iter, [](scalar_t a) -> bool { return !truthy(a); });
}

}  // namespace yaten::native::cpu
