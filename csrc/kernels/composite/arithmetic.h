// CompositeImplicit kernels of the Scalar overloads: a Python number becomes a wrapped zero-dim tensor, so type
// promotion treats it as torch does (See Note [Type promotion]), and the Tensor overload does the work.
#pragma once

#include "yaten/ops/add.h"
#include "yaten/ops/div.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/sub.h"

namespace yaten::native {

inline Tensor add_scalar_impl(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return yaten::add(self, yaten::detail::wrapped_scalar_tensor(other), alpha);
}
inline Tensor add__scalar_impl(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return yaten::add_(self, yaten::detail::wrapped_scalar_tensor(other), alpha);
}
inline Tensor sub_scalar_impl(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return yaten::sub(self, yaten::detail::wrapped_scalar_tensor(other), alpha);
}
inline Tensor sub__scalar_impl(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return yaten::sub_(self, yaten::detail::wrapped_scalar_tensor(other), alpha);
}
inline Tensor mul_scalar_impl(const Tensor& self, const Scalar& other) {
  return yaten::mul(self, yaten::detail::wrapped_scalar_tensor(other));
}
inline Tensor mul__scalar_impl(const Tensor& self, const Scalar& other) {
  return yaten::mul_(self, yaten::detail::wrapped_scalar_tensor(other));
}
inline Tensor div_scalar_impl(const Tensor& self, const Scalar& other) {
  return yaten::div(self, yaten::detail::wrapped_scalar_tensor(other));
}
inline Tensor div__scalar_impl(const Tensor& self, const Scalar& other) {
  return yaten::div_(self, yaten::detail::wrapped_scalar_tensor(other));
}

}  // namespace yaten::native
