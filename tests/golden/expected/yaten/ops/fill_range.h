// @generated from ops.yaml by codegen (templates/op_header.h.j2): edit those, not this
// The fill_range family: its C++ API (each function finds its operator once and calls the dispatcher), then the
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

// ops.yaml  fill_range(int[] size, Scalar start=0, *, ScalarType? dtype=None, Device? device=None) -> Tensor
Tensor fill_range(const std::vector<int64_t>& size, const Scalar& start = Scalar(int64_t(0)),
    std::optional<ScalarType> dtype = std::nullopt, std::optional<Device> device = std::nullopt);
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor fill_range(DispatchKeySet ks, const std::vector<int64_t>& size, const Scalar& start,
    std::optional<ScalarType> dtype, std::optional<Device> device);
}

// ------------------------------------------------------------------------------------------------ kernel contract

// ops.yaml  fill_range(int[] size, Scalar start=0, *, ScalarType? dtype=None, Device? device=None) -> Tensor
// CPU, instantiated for int32, int64, float32:
//   template <typename scalar_t>
//   Tensor fill_range_kernel(const std::vector<int64_t>& size, const Scalar& start, std::optional<ScalarType> dtype, std::optional<Device> device);
namespace native::cpu {
template <typename scalar_t>
using fill_range_kernel_t = Tensor(const std::vector<int64_t>& size, const Scalar& start,
    std::optional<ScalarType> dtype, std::optional<Device> device);
}

}  // namespace yaten
