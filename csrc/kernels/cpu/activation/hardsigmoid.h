// hardsigmoid's CPU kernel: HardsigmoidOp (kernels/activation/hardsigmoid.h) over the TensorIterator the generated
// wrapper built. A header of its own: an edit recompiles hardsigmoid's unit alone (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "kernels/activation/hardsigmoid.h"
#include "kernels/cpu/activation/common.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void hardsigmoid_kernel(const TensorIterator& iter) { cpu_kernel(iter, HardsigmoidOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
