// glu_halves's CPU kernel: GluOp (kernels/activation/glu_halves.h) over the TensorIterator the generated wrapper
// built. A header of its own: an edit recompiles glu_halves's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/glu_halves.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

// glu's halves in one pass (yaten.nn.functional.glu splits its input): a * sigmoid(b) in lanes.
template <typename scalar_t>
void glu_halves_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(
      iter, [](auto a, auto b) { return GluOp<decltype(a)>{}(a, b); },
      [](vec::wfloat a, vec::wfloat b) { return a * vec::sigmoid(b); },
      [](vec::wdouble a, vec::wdouble b) { return a * vec::sigmoid_double(b); });
}

}  // namespace yaten::native::cpu
