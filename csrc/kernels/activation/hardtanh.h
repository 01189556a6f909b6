// hardtanh's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct HardtanhOp {
  om<T> lo, hi;  // a NaN lo comes with a NaN hi (hardtanh_op)
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    // NaN stays NaN; a NaN bound gives NaN everywhere, as torch's clamp with a NaN bound
    return static_cast<T>(hi != hi || x > hi ? hi : (x < lo ? lo : x));
  }
};
template <typename scalar_t>
HardtanhOp<scalar_t> hardtanh_op(const Scalar& min_val, const Scalar& max_val) {
  const om<scalar_t> lo = min_val.to<om<scalar_t>>();
  const om<scalar_t> hi = max_val.to<om<scalar_t>>();
  return {lo, lo != lo ? lo : hi};
}

}  // namespace yaten::native
