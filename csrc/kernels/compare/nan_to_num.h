// nan_to_num's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include <optional>

#include "kernels/pointwise_math.h"

namespace yaten::native {

// NaN, +inf and -inf become the given values.
template <typename T>
struct NanToNumOp {
  T nan, posinf, neginf;
  YATEN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) {
      return v;
    } else {
      // selects, not branches, so the CPU loop vectorizes (it ran 7x torch's time with the branches); a finite x,
      // the common case, decided by one comparison
      const om<T> x = static_cast<om<T>>(v);
      const om<T> magnitude = x < om<T>(0) ? -x : x;
      return magnitude < std::numeric_limits<om<T>>::infinity() ? v : (x != x ? nan : (x > om<T>(0) ? posinf : neginf));
    }
  }
};
// nan_to_num's parameters, from the kernel's arguments; shared by both backends.
template <typename scalar_t>
NanToNumOp<scalar_t> nan_to_num_op(std::optional<double> nan, std::optional<double> posinf,
                                   std::optional<double> neginf) {
  if constexpr (std::is_integral_v<scalar_t>) {
    return {};
  } else {
    using opmath = om<scalar_t>;
    return {static_cast<scalar_t>(static_cast<opmath>(nan.value_or(0.0))),
            posinf ? static_cast<scalar_t>(static_cast<opmath>(*posinf)) : max_finite<scalar_t>(),
            neginf ? static_cast<scalar_t>(static_cast<opmath>(*neginf)) : lowest_finite<scalar_t>()};
  }
}

}  // namespace yaten::native
