// CompositeImplicit linear algebra: matmul's broadcasting cases, dot, mv, outer, addmm, linear, written with mm
// and bmm.
#pragma once

#include <optional>
#include <vector>

#include "yaten/ops/add.h"
#include "yaten/ops/bmm.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/mm.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/t.h"
#include "yaten/ops/unsqueeze.h"

namespace yaten::native {

namespace linalg_composite {
inline std::vector<int64_t> batch_shape(const Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - 2);
}
inline std::vector<int64_t> concat(std::vector<int64_t> a, std::initializer_list<int64_t> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace linalg_composite

// torch's matmul: 1-D x 1-D is a dot product, a 1-D operand is a row (left) or column (right) vector that is
// removed from the result, and the batch dims of N-D operands broadcast.
inline Tensor matmul_impl(const Tensor& self, const Tensor& other) {
  using namespace linalg_composite;
  const int64_t da = self.dim(), db = other.dim();
  YATEN_CHECK(da > 0 && db > 0, RuntimeError, "matmul: both arguments to matmul need to be at least 1D, but they are ",
              da, "D and ", db, "D");
  if (da == 1 && db == 1) {
    YATEN_CHECK(self.sizes()[0] == other.sizes()[0], RuntimeError, "matmul: inconsistent tensor size, expected tensor "
                "[", self.sizes()[0], "] and src [", other.sizes()[0], "] to have the same number of elements");
    return yaten::reshape(yaten::mm(yaten::unsqueeze(self, 0), yaten::unsqueeze(other, 1)), {});
  }
  if (da == 2 && db == 1) return yaten::reshape(yaten::mm(self, yaten::unsqueeze(other, 1)), {self.sizes()[0]});
  if (da == 1 && db == 2) return yaten::reshape(yaten::mm(yaten::unsqueeze(self, 0), other), {other.sizes()[1]});
  if (da == 2 && db == 2) return yaten::mm(self, other);
  // Batched: make both at least 2-D, broadcast the batch dims, fold them into one for bmm, unfold after.
  const Tensor a = da == 1 ? yaten::unsqueeze(self, 0) : self;
  const Tensor b = db == 1 ? yaten::unsqueeze(other, 1) : other;
  const int64_t n = a.sizes()[a.dim() - 2], k = a.sizes()[a.dim() - 1];
  const int64_t k2 = b.sizes()[b.dim() - 2], m = b.sizes()[b.dim() - 1];
  YATEN_CHECK(k == k2, RuntimeError, "matmul: mat1 and mat2 shapes cannot be multiplied (", n, "x", k, " and ", k2, "x",
              m, ")");
  const std::vector<int64_t> batch = broadcast_shapes("matmul", batch_shape(a), batch_shape(b));
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  const Tensor a3 = yaten::reshape(yaten::expand(a, concat(batch, {n, k})), {count, n, k});
  const Tensor b3 = yaten::reshape(yaten::expand(b, concat(batch, {k, m})), {count, k, m});
  std::vector<int64_t> shape = batch;
  if (da > 1) shape.push_back(n);
  if (db > 1) shape.push_back(m);
  return yaten::reshape(yaten::bmm(a3, b3), shape);
}

inline Tensor dot_impl(const Tensor& self, const Tensor& tensor) {
  YATEN_CHECK(self.dim() == 1 && tensor.dim() == 1, RuntimeError, "dot: 1D tensors expected, but got ", self.dim(),
              "D and ", tensor.dim(), "D tensors");
  return matmul_impl(self, tensor);
}
inline Tensor mv_impl(const Tensor& self, const Tensor& vec) {
  YATEN_CHECK(self.dim() == 2 && vec.dim() == 1, RuntimeError, "mv: expected a 2-D matrix and a 1-D vector, but got ",
              self.dim(), "-D and ", vec.dim(), "-D");
  return matmul_impl(self, vec);
}
inline Tensor outer_impl(const Tensor& self, const Tensor& vec2) {
  YATEN_CHECK(self.dim() == 1 && vec2.dim() == 1, RuntimeError, "outer: 1D tensors expected, but got ", self.dim(),
              "D and ", vec2.dim(), "D tensors");
  return yaten::mul(yaten::unsqueeze(self, 1), yaten::unsqueeze(vec2, 0));
}
// beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape; beta 0 ignores self (NaN included).
inline Tensor addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                         const Scalar& alpha) {
  Tensor product = yaten::mm(mat1, mat2);
  if (!(alpha.to<double>() == 1.0)) product = yaten::mul(product, alpha);
  if (beta.to<double>() == 0.0) {
    YATEN_CHECK(broadcast_shapes("addmm", self.sizes(), product.sizes()) == product.sizes(), RuntimeError,
                "addmm: self cannot be broadcast to the product's shape");
    return product;
  }
  return yaten::add(product, yaten::expand(self, product.sizes()), beta);
}
// input @ weight.T + bias.
inline Tensor linear_impl(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  Tensor out = matmul_impl(input, weight.dim() == 2 ? yaten::t(weight) : weight);
  return bias.defined() ? yaten::add(out, bias, Scalar(int64_t(1))) : out;
}

}  // namespace yaten::native
