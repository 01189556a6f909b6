// add's CPU kernels, over the TensorIterator the generated wrapper built; the element function is
// kernels/binary/add.h's, shared with CUDA. A header of its own: an edit recompiles add's unit alone (Note [A header
// per op], kernels/binary_math.h).
#pragma once

#include "kernels/binary/add.h"
#include "kernels/cpu/binary/common.h"

namespace yaten::native::cpu {

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

}  // namespace yaten::native::cpu
