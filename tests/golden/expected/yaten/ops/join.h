// @generated from ops.yaml by codegen (templates/op_header.h.j2): edit those, not this
// The join family: its C++ API (each function finds its operator once and calls the dispatcher), then the
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

// ops.yaml  join(Tensor[] tensors, int dim=0) -> Tensor
Tensor join(const std::vector<Tensor>& tensors, int64_t dim = int64_t(0));
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor join(DispatchKeySet ks, const std::vector<Tensor>& tensors, int64_t dim);
}

// ------------------------------------------------------------------------------------------------ kernel contract

// ops.yaml  join(Tensor[] tensors, int dim=0) -> Tensor
// CompositeImplicit, for every backend, written with other ops:
//   Tensor join_impl(const std::vector<Tensor>& tensors, int64_t dim);
namespace native {
using join_impl_t = Tensor(const std::vector<Tensor>& tensors, int64_t dim);
}

}  // namespace yaten
