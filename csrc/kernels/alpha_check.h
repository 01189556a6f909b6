// torch's rule for the `alpha` of add and sub (CPU and CUDA alike): a bool alpha only for a bool result, and no
// floating-point alpha for an integral or bool one (it would be truncated silently), and one that fits the dtype.
#pragma once

#include "core/error.h"
#include "core/scalar.h"
#include "iter/tensor_iterator.h"

namespace yaten::native {
inline void check_alpha(const char* op, const TensorIterator& iter, const Scalar& alpha) {
  const ScalarType result = iter.compute_dtype();
  YATEN_CHECK(!alpha.is_bool() || result == ScalarType::Bool, RuntimeError, op,
              ": Boolean alpha only supported for Boolean results.");
  YATEN_CHECK(is_floating_point(result) || is_complex(result) || !alpha.is_floating_point(), RuntimeError, op,
              ": For integral input tensors, argument alpha must not be a floating point number.");
  YATEN_CHECK(is_complex(result) || !alpha.is_complex(), RuntimeError, op,
              ": For non-complex input tensors, argument alpha must not be a complex number.");
  check_scalar_fits(alpha, result);  // torch converts alpha to the inputs' dtype: float16's 1e5 overflows
}
}  // namespace yaten::native
