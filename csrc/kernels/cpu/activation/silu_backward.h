// silu_backward's CPU kernel: SiluBackwardOp (kernels/activation/silu_backward.h) over the TensorIterator the
// generated wrapper built. A header of its own: an edit recompiles silu_backward's unit alone (Note [A header per
// op], kernels/binary_math.h).
#pragma once

#include "kernels/activation/silu_backward.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void silu_backward_kernel(const TensorIterator& iter) {
  binary_vec_kernel<scalar_t>(
      iter, [](auto g, auto x) { return SiluBackwardOp<decltype(g)>{}(g, x); },
      [](vec::wfloat g, vec::wfloat x) {
        const vec::wfloat s = 1.0f / (1.0f + vec::exp(-x));
        return g * (s * (1.0f + x * (1.0f - s)));
      });
}

}  // namespace yaten::native::cpu
