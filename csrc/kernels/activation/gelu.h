// gelu's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

YATEN_FLOAT_UNARY_OP(GeluOp, x * om<T>(0.5) * (om<T>(1) + std::erf(x * om<T>(0.70710678118654752440))))
YATEN_FLOAT_UNARY_OP(GeluTanhOp, om<T>(0.5) * x * (om<T>(1) + std::tanh(om<T>(0.7978845608028654) *
                                                                       (x + om<T>(0.044715) * x * x * x))))

}  // namespace yaten::native
