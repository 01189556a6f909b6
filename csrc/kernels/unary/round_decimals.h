// round_decimals's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// round(decimals=d): scale by 10^d, round half to even, scale back (torch's formula, so ties match it).
template <typename T>
struct RoundDecimalsOp {
  om<T> ten_pow;
  bool negative;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(negative ? std::nearbyint(x / ten_pow) * ten_pow : std::nearbyint(x * ten_pow) / ten_pow);
  }
};
// round(decimals=)'s parameters, from the kernel's argument; shared by both backends.
template <typename scalar_t>
RoundDecimalsOp<scalar_t> round_decimals_op(int64_t decimals) {
  const bool negative = decimals < 0;
  return {static_cast<om<scalar_t>>(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals))), negative};
}

}  // namespace yaten::native
