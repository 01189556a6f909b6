// @generated from ops.yaml by codegen (templates/op_header.h.j2): edit those, not this
// The affine family: its C++ API (each function finds its operator once and calls the dispatcher), then the
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

// ops.yaml  affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)
std::tuple<Tensor, Tensor> affine(const Tensor& input, const Tensor& weight, const Tensor& bias);
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
std::tuple<Tensor, Tensor> affine(DispatchKeySet ks, const Tensor& input, const Tensor& weight, const Tensor& bias);
}

// ------------------------------------------------------------------------------------------------ kernel contract

// ops.yaml  affine(Tensor input, Tensor weight, Tensor? bias) -> (Tensor, Tensor)
// CPU, instantiated for float16, float32, float64, bfloat16:
//   template <typename scalar_t>
//   std::tuple<Tensor, Tensor> affine_kernel(const Tensor& input, const Tensor& weight, const Tensor& bias);
namespace native::cpu {
template <typename scalar_t>
using affine_kernel_t = std::tuple<Tensor, Tensor>(const Tensor& input, const Tensor& weight, const Tensor& bias);
}

}  // namespace yaten
