// hardtanh's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

template <typename T>
struct HardtanhOp {
  om<T> lo, hi, nan_or_zero;  // NaN where a bound is NaN, else -0 (0 for integers): hardtanh_op
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    const om<T> above = x < lo ? lo : x;  // a NaN x stays NaN through both selects (vmaxps, vminps)
    // A NaN bound gives NaN everywhere, as torch's clamp with a NaN bound does, by the added NaN (-0 otherwise, which
    // keeps every value, -0 too): no test of the bounds per element, whose selects and masks made the AVX2 loop
    // compute-bound (1.2x torch's time, 0.16 ms per 1M floats where a copy takes 0.12)
    return static_cast<T>((above > hi ? hi : above) + nan_or_zero);
  }
};
template <typename scalar_t>
HardtanhOp<scalar_t> hardtanh_op(const Scalar& min_val, const Scalar& max_val) {
  using O = om<scalar_t>;
  const O lo = min_val.to<O>();
  const O hi = max_val.to<O>();
  if constexpr (std::is_floating_point_v<O>) {
    return {lo, hi, lo != lo || hi != hi ? std::numeric_limits<O>::quiet_NaN() : O(-0.0)};
  } else {
    return {lo, hi, O(0)};
  }
}

}  // namespace yaten::native
