// isclose's CPU kernel: its own element function over the TensorIterator the generated wrapper built. A header of
// its own: an edit recompiles isclose's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/compare/isclose.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void isclose_kernel(const TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  check_isclose(iter, rtol, atol);
  cpu_kernel(iter, isclose_op<scalar_t>(rtol, atol, equal_nan));
}

}  // namespace yaten::native::cpu
