// CompositeImplicit indexing ops: the functional forms of the in-place scatters.
#pragma once

#include "yaten/ops/clone.h"
#include "yaten/ops/scatter.h"
#include "yaten/ops/scatter_add.h"

namespace yaten::native {

inline Tensor scatter_src_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return yaten::scatter_(yaten::clone(self), dim, index, src);
}
inline Tensor scatter_add_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return yaten::scatter_add_(yaten::clone(self), dim, index, src);
}
inline Tensor scatter_value_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return yaten::scatter_(yaten::clone(self), dim, index, value);
}

}  // namespace yaten::native
