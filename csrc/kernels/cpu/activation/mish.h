// mish's CPU kernel: its own element function over the TensorIterator the generated wrapper built. A header of its
// own: an edit recompiles mish's unit alone (Note [A header per op], kernels/binary_math.h).
#pragma once

#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

// mish: x tanh(log1p(e^x)); e^x = inf gives tanh(inf) = 1, so x.
template <typename scalar_t>
void mish_kernel(const TensorIterator& iter) {
  elementwise_kernel<scalar_t>(iter, [](auto x) { return x * math::tanh(math::log1p(math::exp(x))); });
}

}  // namespace yaten::native::cpu
