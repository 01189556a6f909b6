// where's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// where(condition, a, b), branch-free.
template <typename T>
struct WhereOp {
  YATEN_HOST_DEVICE T operator()(bool c, T a, T b) const { return math::select(c, a, b); }
};

}  // namespace yaten::native
