// @generated from ops.yaml by codegen (templates/op_header.h.j2): edit those, not this
// The nonzero_rows family: its C++ API (each function finds its operator once and calls the dispatcher), then the
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

// ops.yaml  nonzero_rows(Tensor self) -> Tensor
Tensor nonzero_rows(const Tensor& self);
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor nonzero_rows(DispatchKeySet ks, const Tensor& self);
}

// ------------------------------------------------------------------------------------------------ kernel contract

// ops.yaml  nonzero_rows(Tensor self) -> Tensor
// CPU, instantiated for uint8, int8, int16, int32, int64, float16, float32, float64, bool, bfloat16:
//   template <typename scalar_t>
//   Tensor nonzero_rows_kernel(const Tensor& self);
namespace native::cpu {
template <typename scalar_t>
using nonzero_rows_kernel_t = Tensor(const Tensor& self);
}

}  // namespace yaten
