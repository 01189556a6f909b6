// @generated from ops.yaml by codegen (templates/op_header.h.j2): edit those, not this
// The scale family: its C++ API (each function finds its operator once and calls the dispatcher), then the
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

// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
Tensor scale(const Tensor& self, const Tensor& other, const Scalar& alpha = Scalar(int64_t(1)));
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor scale(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha);
}

// ops.yaml (a form of scale.Tensor)  scale_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
Tensor scale_(const Tensor& self, const Tensor& other, const Scalar& alpha = Scalar(int64_t(1)));
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor scale_(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha);
}

// ops.yaml (a form of scale.Tensor)  scale.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
Tensor scale_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor scale_out(DispatchKeySet ks, const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);
}

// ops.yaml  scale.Scalar(Tensor self, Scalar other) -> Tensor
Tensor scale(const Tensor& self, const Scalar& other);
namespace redispatch {
// The same op with an explicit key set, for kernels that call the op again below their own key.
Tensor scale(DispatchKeySet ks, const Tensor& self, const Scalar& other);
}

// ------------------------------------------------------------------------------------------------ kernel contract

// ops.yaml  scale.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// CPU, instantiated for float16, float32, float64, bfloat16 (the wrapper builds the TensorIterator; dtype rule promote):
//   template <typename scalar_t>
//   void scale_kernel(const TensorIterator& iter, const Scalar& alpha);
namespace native::cpu {
template <typename scalar_t>
using scale_kernel_t = void(const TensorIterator& iter, const Scalar& alpha);
}
// CUDA, instantiated for float32 (the wrapper builds the TensorIterator; dtype rule promote):
//   template <typename scalar_t>
//   void scale_kernel(const TensorIterator& iter, const Scalar& alpha);
namespace native::cuda {
template <typename scalar_t>
using scale_kernel_t = void(const TensorIterator& iter, const Scalar& alpha);
}

// ops.yaml  scale.Scalar(Tensor self, Scalar other) -> Tensor
// CompositeImplicit, for every backend, written with other ops:
//   Tensor scale_scalar_impl(const Tensor& self, const Scalar& other);
namespace native {
using scale_scalar_impl_t = Tensor(const Tensor& self, const Scalar& other);
}

}  // namespace yaten
