// hardswish's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

YATEN_FLOAT_UNARY_OP(HardswishOp, x * (x + om<T>(3) < om<T>(0) ? om<T>(0) : (x + om<T>(3) > om<T>(6) ? om<T>(6) : x + om<T>(3))) / om<T>(6))

}  // namespace yaten::native
