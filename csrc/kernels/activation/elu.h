// elu's element function, written once for both backends (Design rule [Shared element math],
// kernels/pointwise_math.h). A header per op (Note [A header per op], kernels/binary_math.h): an edit recompiles the
// units of the kernels that include it.
#pragma once

#include "kernels/pointwise_math.h"

namespace yaten::native {

// elu: x * scale from 0 up (so a zero input gives 0 whatever alpha and input_scale are, as torch), else
// expm1(x * input_scale) * (alpha * scale).
template <typename T>
struct EluOp {
  om<T> negcoef, scale, input_scale;
  YATEN_HOST_DEVICE T operator()(T v) const {
    const om<T> x = static_cast<om<T>>(v);
    return static_cast<T>(x < om<T>(0) ? std::expm1(x * input_scale) * negcoef : x * scale);
  }
};
template <typename scalar_t>
EluOp<scalar_t> elu_op(const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  using opmath = om<scalar_t>;
  return {alpha.to<opmath>() * scale.to<opmath>(), scale.to<opmath>(), input_scale.to<opmath>()};
}

}  // namespace yaten::native
