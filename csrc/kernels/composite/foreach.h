// The functional forms of the _foreach ops: a new list made by the per-tensor ops, one call per tensor, so that they
// differentiate and run on every backend (torch's slow path; optimizers use the in-place forms, which have
// kernels). _foreach_norm is linalg.vector_norm per tensor.
#pragma once

#include <optional>
#include <vector>

#include "core/tensor.h"
#include "kernels/foreach_support.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/addcdiv.h"
#include "yaten/ops/addcmul.h"
#include "yaten/ops/div.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/lerp.h"
#include "yaten/ops/linalg_vector_norm.h"
#include "yaten/ops/maximum.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/sqrt.h"
#include "yaten/ops/sub.h"

namespace yaten::native {

namespace foreach_detail {
// out[i] = f(i) for each tensor of self, after the lists' lengths are checked.
template <typename F>
std::vector<Tensor> each(const char* name, const std::vector<Tensor>& self,
                         std::initializer_list<const std::vector<Tensor>*> others, const F& f) {
  foreach::check_lists(name, self, others);
  std::vector<Tensor> out;
  out.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) out.push_back(f(i));
  return out;
}
}  // namespace foreach_detail

inline std::vector<Tensor> _foreach_add_scalar_impl(const std::vector<Tensor>& self, const Scalar& scalar) {
  return foreach_detail::each("_foreach_add.Scalar", self, {}, [&](size_t i) { return yaten::add(self[i], scalar); });
}
inline std::vector<Tensor> _foreach_add_scalarlist_impl(const std::vector<Tensor>& self,
                                                    const std::vector<Scalar>& scalars) {
  foreach::check_scalars("_foreach_add.ScalarList", self, scalars);
  return foreach_detail::each("_foreach_add.ScalarList", self, {},
                              [&](size_t i) { return yaten::add(self[i], scalars[i]); });
}
inline std::vector<Tensor> _foreach_sub_scalar_impl(const std::vector<Tensor>& self, const Scalar& scalar) {
  return foreach_detail::each("_foreach_sub.Scalar", self, {}, [&](size_t i) { return yaten::sub(self[i], scalar); });
}
inline std::vector<Tensor> _foreach_sub_scalarlist_impl(const std::vector<Tensor>& self,
                                                    const std::vector<Scalar>& scalars) {
  foreach::check_scalars("_foreach_sub.ScalarList", self, scalars);
  return foreach_detail::each("_foreach_sub.ScalarList", self, {},
                              [&](size_t i) { return yaten::sub(self[i], scalars[i]); });
}
inline std::vector<Tensor> _foreach_mul_scalar_impl(const std::vector<Tensor>& self, const Scalar& scalar) {
  return foreach_detail::each("_foreach_mul.Scalar", self, {}, [&](size_t i) { return yaten::mul(self[i], scalar); });
}
inline std::vector<Tensor> _foreach_mul_scalarlist_impl(const std::vector<Tensor>& self,
                                                    const std::vector<Scalar>& scalars) {
  foreach::check_scalars("_foreach_mul.ScalarList", self, scalars);
  return foreach_detail::each("_foreach_mul.ScalarList", self, {},
                              [&](size_t i) { return yaten::mul(self[i], scalars[i]); });
}
inline std::vector<Tensor> _foreach_div_scalar_impl(const std::vector<Tensor>& self, const Scalar& scalar) {
  return foreach_detail::each("_foreach_div.Scalar", self, {}, [&](size_t i) { return yaten::div(self[i], scalar); });
}
inline std::vector<Tensor> _foreach_div_scalarlist_impl(const std::vector<Tensor>& self,
                                                    const std::vector<Scalar>& scalars) {
  foreach::check_scalars("_foreach_div.ScalarList", self, scalars);
  return foreach_detail::each("_foreach_div.ScalarList", self, {},
                              [&](size_t i) { return yaten::div(self[i], scalars[i]); });
}

inline std::vector<Tensor> _foreach_add_list_impl(const std::vector<Tensor>& self, const std::vector<Tensor>& other,
                                                  const Scalar& alpha) {
  return foreach_detail::each("_foreach_add.List", self, {&other},
                              [&](size_t i) { return yaten::add(self[i], other[i], alpha); });
}
inline std::vector<Tensor> _foreach_sub_list_impl(const std::vector<Tensor>& self, const std::vector<Tensor>& other,
                                                  const Scalar& alpha) {
  return foreach_detail::each("_foreach_sub.List", self, {&other},
                              [&](size_t i) { return yaten::sub(self[i], other[i], alpha); });
}
inline std::vector<Tensor> _foreach_mul_list_impl(const std::vector<Tensor>& self, const std::vector<Tensor>& other) {
  return foreach_detail::each("_foreach_mul.List", self, {&other},
                              [&](size_t i) { return yaten::mul(self[i], other[i]); });
}
inline std::vector<Tensor> _foreach_div_list_impl(const std::vector<Tensor>& self, const std::vector<Tensor>& other) {
  return foreach_detail::each("_foreach_div.List", self, {&other},
                              [&](size_t i) { return yaten::div(self[i], other[i]); });
}
inline std::vector<Tensor> _foreach_maximum_list_impl(const std::vector<Tensor>& self,
                                                      const std::vector<Tensor>& other) {
  return foreach_detail::each("_foreach_maximum.List", self, {&other},
                              [&](size_t i) { return yaten::maximum(self[i], other[i]); });
}
inline std::vector<Tensor> _foreach_add_tensor_impl(const std::vector<Tensor>& self, const Tensor& other,
                                                    const Scalar& alpha) {
  foreach::check_scalar_tensor("_foreach_add.Tensor", other);
  return foreach_detail::each("_foreach_add.Tensor", self, {},
                              [&](size_t i) { return yaten::add(self[i], other, alpha); });
}
inline std::vector<Tensor> _foreach_mul_tensor_impl(const std::vector<Tensor>& self, const Tensor& other) {
  foreach::check_scalar_tensor("_foreach_mul.Tensor", other);
  return foreach_detail::each("_foreach_mul.Tensor", self, {}, [&](size_t i) { return yaten::mul(self[i], other); });
}
inline std::vector<Tensor> _foreach_div_tensor_impl(const std::vector<Tensor>& self, const Tensor& other) {
  foreach::check_scalar_tensor("_foreach_div.Tensor", other);
  return foreach_detail::each("_foreach_div.Tensor", self, {}, [&](size_t i) { return yaten::div(self[i], other); });
}

inline std::vector<Tensor> _foreach_addcmul_scalar_impl(const std::vector<Tensor>& self,
                                                        const std::vector<Tensor>& tensor1,
                                                        const std::vector<Tensor>& tensor2, const Scalar& value) {
  return foreach_detail::each("_foreach_addcmul.Scalar", self, {&tensor1, &tensor2},
                              [&](size_t i) { return yaten::addcmul(self[i], tensor1[i], tensor2[i], value); });
}
inline std::vector<Tensor> _foreach_addcmul_scalarlist_impl(const std::vector<Tensor>& self,
                                                            const std::vector<Tensor>& tensor1,
                                                            const std::vector<Tensor>& tensor2,
                                                            const std::vector<Scalar>& scalars) {
  foreach::check_scalars("_foreach_addcmul.ScalarList", self, scalars);
  return foreach_detail::each("_foreach_addcmul.ScalarList", self, {&tensor1, &tensor2},
                              [&](size_t i) { return yaten::addcmul(self[i], tensor1[i], tensor2[i], scalars[i]); });
}
inline std::vector<Tensor> _foreach_addcdiv_scalar_impl(const std::vector<Tensor>& self,
                                                        const std::vector<Tensor>& tensor1,
                                                        const std::vector<Tensor>& tensor2, const Scalar& value) {
  return foreach_detail::each("_foreach_addcdiv.Scalar", self, {&tensor1, &tensor2},
                              [&](size_t i) { return yaten::addcdiv(self[i], tensor1[i], tensor2[i], value); });
}
inline std::vector<Tensor> _foreach_addcdiv_scalarlist_impl(const std::vector<Tensor>& self,
                                                            const std::vector<Tensor>& tensor1,
                                                            const std::vector<Tensor>& tensor2,
                                                            const std::vector<Scalar>& scalars) {
  foreach::check_scalars("_foreach_addcdiv.ScalarList", self, scalars);
  return foreach_detail::each("_foreach_addcdiv.ScalarList", self, {&tensor1, &tensor2},
                              [&](size_t i) { return yaten::addcdiv(self[i], tensor1[i], tensor2[i], scalars[i]); });
}
inline std::vector<Tensor> _foreach_lerp_list_impl(const std::vector<Tensor>& self,
                                                   const std::vector<Tensor>& tensors1,
                                                   const std::vector<Tensor>& weights) {
  return foreach_detail::each("_foreach_lerp.List", self, {&tensors1, &weights},
                              [&](size_t i) { return yaten::lerp(self[i], tensors1[i], weights[i]); });
}
inline std::vector<Tensor> _foreach_lerp_scalar_impl(const std::vector<Tensor>& self,
                                                     const std::vector<Tensor>& tensors1, const Scalar& weight) {
  return foreach_detail::each("_foreach_lerp.Scalar", self, {&tensors1},
                              [&](size_t i) { return yaten::lerp(self[i], tensors1[i], weight); });
}

inline std::vector<Tensor> _foreach_sqrt_impl(const std::vector<Tensor>& self) {
  return foreach_detail::each("_foreach_sqrt", self, {}, [&](size_t i) { return yaten::sqrt(self[i]); });
}
inline std::vector<Tensor> _foreach_neg_impl(const std::vector<Tensor>& self) {
  return foreach_detail::each("_foreach_neg", self, {}, [&](size_t i) { return yaten::neg(self[i]); });
}
inline std::vector<Tensor> _foreach_abs_impl(const std::vector<Tensor>& self) {
  return foreach_detail::each("_foreach_abs", self, {}, [&](size_t i) { return yaten::abs(self[i]); });
}
inline std::vector<Tensor> _foreach_exp_impl(const std::vector<Tensor>& self) {
  return foreach_detail::each("_foreach_exp", self, {}, [&](size_t i) { return yaten::exp(self[i]); });
}

inline std::vector<Tensor> _foreach_norm_impl(const std::vector<Tensor>& self, const Scalar& ord,
                                              std::optional<ScalarType> dtype) {
  return foreach_detail::each("_foreach_norm.Scalar", self, {}, [&](size_t i) {
    return yaten::linalg_vector_norm(self[i], ord, std::nullopt, false, dtype);
  });
}

}  // namespace yaten::native
