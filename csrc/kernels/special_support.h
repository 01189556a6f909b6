// What the special-function kernels of both backends check on the host before their loop. The element math is in
// special_math.h.
#pragma once

#include <cstdint>

#include "iter/tensor_iterator.h"
#include "kernels/special_math.h"

namespace yaten::native {

inline void check_polygamma_order(int64_t n) {
  YATEN_CHECK(n >= 0, RuntimeError, "polygamma(n, x) does not support negative n; got n = ", n);
}

// heaviside does not promote: torch refuses operands of two dtypes (checked on the operands as given).
inline void check_heaviside_operands(const TensorIterator& iter) {
  YATEN_CHECK(iter.input_dtype(0) == iter.input_dtype(1), RuntimeError,
              "heaviside is not yet implemented for tensors with different dtypes (self is ",
              dtype_name(iter.input_dtype(0)), ", values is ", dtype_name(iter.input_dtype(1)), ")");
}

// signbit's out= must be bool, as torch requires (other comparisons cast into any out=).
inline void check_signbit_output(const TensorIterator& iter) {
  YATEN_CHECK(iter.output_dtype() == ScalarType::Bool, RuntimeError,
              "signbit does not support non-boolean outputs (out= is ", dtype_name(iter.output_dtype()), ")");
}

}  // namespace yaten::native
