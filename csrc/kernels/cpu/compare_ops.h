// CPU kernels of the comparisons. Their dtype rule is `compare`: the iterator promotes the inputs and allocates a
// bool output, so each kernel is one element function from two scalar_t to bool.
#pragma once

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
