// visit_dtype(op, dtype, fn): calls fn(T{}) with the C++ type of `dtype`, for hand-written second-level switches
// (the generated wrappers write their own switch over exactly the dtypes ops.yaml declares). visit_dtype knows
// the ten real dtypes (a complex or wide unsigned one is the op's NotImplementedError); visit_dtype_and_complex the
// twelve; visit_any_dtype all fifteen (what converts, copies and prints every dtype).
#pragma once

#include "core/scalar_type.h"

namespace yaten {

#define YATEN_VISIT_CASE(ctype, name, pyname) \
  case ScalarType::name: return fn(ctype{});

template <typename Fn>
decltype(auto) visit_dtype(const char* op, ScalarType dtype, Fn&& fn) {
  switch (dtype) {
    YATEN_FORALL_SCALAR_TYPES(YATEN_VISIT_CASE)
    case ScalarType::ComplexFloat: case ScalarType::ComplexDouble:
    case ScalarType::UInt16: case ScalarType::UInt32: case ScalarType::UInt64:
      detail::dtype_not_implemented(op, dtype);
    default: detail::undefined_dtype(op);
  }
}

template <typename Fn>
decltype(auto) visit_dtype_and_complex(const char* op, ScalarType dtype, Fn&& fn) {
  switch (dtype) {
    YATEN_FORALL_SCALAR_TYPES_AND_COMPLEX(YATEN_VISIT_CASE)
    case ScalarType::UInt16: case ScalarType::UInt32: case ScalarType::UInt64:
      detail::dtype_not_implemented(op, dtype);
    default: detail::undefined_dtype(op);
  }
}

template <typename Fn>
decltype(auto) visit_any_dtype(const char* op, ScalarType dtype, Fn&& fn) {
  switch (dtype) {
    YATEN_FORALL_DTYPES(YATEN_VISIT_CASE)
    default: detail::undefined_dtype(op);
  }
}

#undef YATEN_VISIT_CASE

}  // namespace yaten
