// logical_and's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// The logical ops read any dtype as "nonzero is true".
template <typename T>
struct LogicalAndOp {
  YATEN_HOST_DEVICE bool operator()(T a, T b) const { return math::truthy(a) && math::truthy(b); }
};

}  // namespace yaten::native
