// tanh's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

YATEN_FLOAT_UNARY_OP(TanhOp, math::tanh(x))

}  // namespace yaten::native
