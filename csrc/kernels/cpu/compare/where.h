// where's CPU kernel: WhereOp (kernels/compare/where.h) over the iterator where_iterator builds (the condition, self
// and other broadcast). A header of its own: an edit recompiles where's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/compare/where.h"
#include "kernels/cpu/compare/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor where_kernel(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TensorIterator iter = where_iterator<scalar_t>(condition, self, other);
  // Branch-free: with a condition that is true at random (a relu mask), `c ? a : b` mispredicts half the time.
  cpu_kernel(iter, WhereOp<scalar_t>{});
  return iter.finish();
}

}  // namespace yaten::native::cpu
