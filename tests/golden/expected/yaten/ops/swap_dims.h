// @generated from ops.yaml by codegen (templates/op_header.h.j2): edit those, not this
// The swap_dims family: its C++ API (each function finds its operator once and calls the dispatcher), then the
// kernel contract: to write a kernel, copy its declaration from the end of this file into a header under
// csrc/kernels/<backend>/ and implement it. The generated wrapper checks the definition against the *_t type, so a
// mismatch is a compile error at the wrapper, never a link error.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/tensor.h"
#include "dispatch/dispatcher.h"
#include "iter/tensor_iterator.h"

namespace yaten {

// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
Tensor swap_dims(const Tensor& self, int64_t dim0, int64_t dim1);
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor swap_dims(DispatchKeySet ks, const Tensor& self, int64_t dim0, int64_t dim1);
}

// ------------------------------------------------------------------------------------------------ kernel contract

// ops.yaml  swap_dims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
// CompositeImplicit, for every backend, written with other ops:
//   Tensor swap_dims_impl(const Tensor& self, int64_t dim0, int64_t dim1);
namespace native {
using swap_dims_impl_t = Tensor(const Tensor& self, int64_t dim0, int64_t dim1);
}

}  // namespace yaten
