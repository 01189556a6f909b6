// Note [Type promotion]
// ~~~~~~~~~~~~~~~~~~~~~
// yaten follows torch.result_type. The operands of an op fall into three tiers, highest first: tensors with at
// least one dimension, zero-dim tensors, and Python numbers (wrapped numbers). Each tier has a category: bool <
// integral < floating. A lower tier changes the result only when its category is higher than every higher tier's;
// then it contributes its own dtype (a zero-dim tensor) or the default dtype of its category (a Python float gives
// the default float dtype, a Python int gives int64). Within a tier, dtypes promote with promote_types.
//
// Examples: int32 tensor + 2.5 -> float32; int8 tensor + int64 zero-dim tensor -> int8; float16 tensor +
// float64 zero-dim tensor -> float16; bool tensor + 3 -> int64.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace yaten {

// Accumulates operands tier by tier; `result()` is torch.result_type of everything added.
class ResultTypeState {
 public:
  void add(const Tensor& t);
  void add(const Scalar& s);
  ScalarType result() const;

 private:
  ScalarType dim_result_ = ScalarType::Undefined;
  ScalarType zero_dim_result_ = ScalarType::Undefined;
  ScalarType wrapped_result_ = ScalarType::Undefined;
};

ScalarType result_type(const std::vector<Tensor>& tensors);

// The default dtype for floating results (torch.get_default_dtype), float32 unless changed.
ScalarType default_dtype();
void set_default_dtype(ScalarType dtype);
// The dtype a Python complex number takes: complex128 when the default dtype is float64, else complex64.
ScalarType default_complex_dtype();

}  // namespace yaten
