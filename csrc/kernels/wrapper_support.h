// Helpers that generated backend wrappers call: dtype rules that are not TensorIterator's, and the error for a
// dtype that ops.yaml does not declare.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "core/type_promotion.h"

namespace yaten {

namespace detail {
// NotImplementedError: `op` has no `backend` kernel for `dtype` (ops.yaml declares the dtypes `declared`). Out of
// line (core/dtypes.cpp): its message, built inline, was compiled again in each of the ~70 units that call it.
[[noreturn]] void dtype_not_supported(const char* op, const char* backend, ScalarType dtype, const char* declared);
// The `self` rule of a multi-tensor op (self is a Tensor[]): its first tensor's dtype; an empty list is torch's
// RuntimeError.
inline ScalarType list_dtype(const char* op, const std::vector<Tensor>& self) {
  YATEN_CHECK(!self.empty(), RuntimeError, op, ": Tensor list must have at least one tensor.");
  return self[0].dtype();
}
}  // namespace detail

// The `factory` dtype rule: the dtype argument if given; otherwise inferred from the Scalars like torch.full and
// torch.arange do (any complex -> the default complex dtype; any float -> the default dtype; all bool -> bool;
// integers -> int64); else the default dtype.
inline ScalarType factory_dtype(std::optional<ScalarType> dtype, std::initializer_list<Scalar> values) {
  if (dtype.has_value()) return *dtype;
  if (values.size() == 0) return default_dtype();
  bool all_bool = true, any_float = false;
  for (const Scalar& v : values) {
    if (v.is_complex()) return default_complex_dtype();
    any_float = any_float || v.is_floating_point();
    all_bool = all_bool && v.is_bool();
  }
  return any_float ? default_dtype() : all_bool ? ScalarType::Bool : ScalarType::Long;
}

// The `promote` dtype rule for kernels that take tensors directly: torch.result_type of the tensors.
inline ScalarType promoted_dtype(std::initializer_list<Tensor> tensors) {
  ResultTypeState state;
  for (const Tensor& t : tensors) state.add(t);
  return state.result();
}

}  // namespace yaten
