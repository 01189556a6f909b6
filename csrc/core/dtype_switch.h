// visit_dtype(op, dtype, fn): calls fn(T{}) with the C++ type of `dtype`, for hand-written second-level switches
// (the generated wrappers write their own switch over exactly the dtypes ops.yaml declares).
#pragma once

#include "core/scalar_type.h"

namespace yaten {

template <typename Fn>
decltype(auto) visit_dtype(const char* op, ScalarType dtype, Fn&& fn) {
  switch (dtype) {
#define YATEN_VISIT_CASE(ctype, name, pyname) \
  case ScalarType::name: return fn(ctype{});
    YATEN_FORALL_SCALAR_TYPES(YATEN_VISIT_CASE)
#undef YATEN_VISIT_CASE
    default: YATEN_FAIL(RuntimeError, op, ": undefined dtype");
  }
}

}  // namespace yaten
