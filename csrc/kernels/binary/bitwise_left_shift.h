// bitwise_left_shift's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// A shift by a negative amount or by the width or more gives 0 (left) or the sign fill (right), as in torch.
template <typename T>
struct LeftShiftOp {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    if (static_cast<U>(b) >= sizeof(T) * 8) return 0;
    return static_cast<T>(static_cast<U>(a) << b);
  }
};

}  // namespace yaten::native
