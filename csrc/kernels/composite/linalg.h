// CompositeImplicit linear algebra: matmul's broadcasting cases, dot, vdot, mv, outer, addmm, baddbmm, addmv,
// linalg.vecdot, tensordot, linear, written with mm and bmm.
#pragma once

#include <optional>
#include <vector>

#include "core/wrap_dim.h"
#include "iter/tensor_iterator.h"
#include "kernels/sizes_text.h"

#include "yaten/ops/_addmm_bias.h"
#include "yaten/ops/add.h"
#include "yaten/ops/bmm.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/addmm.h"
#include "yaten/ops/mm.h"
#include "yaten/ops/conj_physical.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/sum.h"
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
  // (..., n, k) @ (k, m): one product of the rows folded together, (count * n, k) @ (k, m), as torch folds it; the
  // gradient of `other` is then one product too, not a sum over a batch (a Linear on a (B, T, C) input)
  if (da >= 3 && db <= 2) {
    const int64_t k = self.sizes().back();
    std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
    int64_t rows = 1;
    for (int64_t s : shape) rows *= s;
    const Tensor folded = yaten::reshape(self, {rows, k});
    const Tensor product = db == 2 ? yaten::mm(folded, other) : yaten::mm(folded, yaten::unsqueeze(other, 1));
    if (db == 2) shape.push_back(other.sizes()[1]);
    return yaten::reshape(product, shape);
  }
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
namespace linalg_composite {
// beta * self + alpha * product, self broadcast to the product's shape; beta 0 ignores self (NaN included).
inline Tensor scaled_add(const char* op, const Tensor& self, Tensor product, const Scalar& beta_in,
                         const Scalar& alpha_in) {
  // torch's kernels take beta and alpha in the product's dtype: for integers they are truncated (0.6 is 0), and the
  // result keeps the integer dtype
  const bool integral = is_integral(product.dtype(), /*include_bool=*/false);
  const Scalar alpha = integral && alpha_in.is_floating_point() ? Scalar(alpha_in.to<int64_t>()) : alpha_in;
  const Scalar beta = integral && beta_in.is_floating_point() ? Scalar(beta_in.to<int64_t>()) : beta_in;
  const auto equals = [](const Scalar& s, double v) { return s.to_complex() == Complex<double>(v, 0.0); };
  if (!equals(alpha, 1.0)) product = yaten::mul(product, alpha);
  YATEN_CHECK(broadcast_shapes(op, self.sizes(), product.sizes()) == product.sizes(), RuntimeError,
              op, ": self cannot be broadcast to the product's shape");
  if (equals(beta, 0.0)) return product;
  return yaten::add(product, yaten::expand(self, product.sizes()), beta);
}
}  // namespace linalg_composite

inline Tensor addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                         const Scalar& alpha) {
  return linalg_composite::scaled_add("addmm", self, yaten::mm(mat1, mat2), beta, alpha);
}
inline Tensor baddbmm_impl(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                           const Scalar& alpha) {
  return linalg_composite::scaled_add("baddbmm", self, yaten::bmm(batch1, batch2), beta, alpha);
}
inline Tensor addmv_impl(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                         const Scalar& alpha) {
  return linalg_composite::scaled_add("addmv", self, mv_impl(mat, vec), beta, alpha);
}
inline Tensor vdot_impl(const Tensor& self, const Tensor& other) {
  YATEN_CHECK(self.dim() == 1 && other.dim() == 1, RuntimeError, "vdot: 1D tensors expected, but got ", self.dim(),
              "D and ", other.dim(), "D tensors");
  return matmul_impl(is_complex(self.dtype()) ? yaten::conj_physical(self) : self, other);  // self conjugated
}
inline Tensor linalg_vecdot_impl(const Tensor& x, const Tensor& y, int64_t dim) {
  const auto inexact = [](ScalarType t) { return is_floating_point(t) || is_complex(t); };
  YATEN_CHECK(inexact(x.dtype()) && inexact(y.dtype()), RuntimeError, "linalg.vecdot: expected floating point or "
              "complex tensors, got ", dtype_name(x.dtype()), " and ", dtype_name(y.dtype()));
  YATEN_CHECK(x.dtype() == y.dtype(), RuntimeError, "linalg.vecdot: Expected x and y to have the same dtype, but "
              "found x of type ", dtype_name(x.dtype()), " and y of type ", dtype_name(y.dtype()), " instead");
  // two vectors: their dot product whatever dim says, as torch (which calls vdot there)
  const int64_t d = x.dim() == 1 && y.dim() == 1 ? 0 : dim;
  YATEN_CHECK(d == dim || x.sizes() == y.sizes(), RuntimeError, "linalg.vecdot: inconsistent tensor size, expected "
              "tensors of ", x.numel(), " and ", y.numel(), " elements to have the same number of elements");
  // x conjugated, as torch (the identity for real dtypes)
  return yaten::sum(yaten::mul(is_complex(x.dtype()) ? yaten::conj_physical(x) : x, y), std::vector<int64_t>{d}, false,
                    std::nullopt);
}

// tensordot: self's contracted dims moved last and other's first, both folded to matrices, one mm.
inline Tensor tensordot_impl(const Tensor& self_in, const Tensor& other_in, const std::vector<int64_t>& dims_self,
                             const std::vector<int64_t>& dims_other) {
  YATEN_CHECK(dims_self.size() == dims_other.size(), RuntimeError, "tensordot: both dimension lists should have same "
              "length, got ", dims_self.size(), " and ", dims_other.size());
  const auto wrap = [](int64_t d, int64_t n) { return wrap_real_dim("tensordot", d, n); };  // indexes sizes()
  // a contracted dim of size 1 against one of size s broadcasts, as torch: the other side is summed over it first
  Tensor self = self_in, other = other_in;
  for (size_t i = 0; i < dims_self.size() && i < dims_other.size(); ++i) {
    const int64_t da = wrap(dims_self[i], self.dim()), db = wrap(dims_other[i], other.dim());
    if (self.sizes()[da] == other.sizes()[db]) continue;
    if (self.sizes()[da] == 1) other = yaten::sum(other, std::vector<int64_t>{db}, true, other.dtype());
    else if (other.sizes()[db] == 1) self = yaten::sum(self, std::vector<int64_t>{da}, true, self.dtype());
  }
  std::vector<bool> contracted_a(self.dim(), false), contracted_b(other.dim(), false);
  std::vector<int64_t> perm_a, perm_b, out_shape;
  int64_t k = 1;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t da = wrap(dims_self[i], self.dim()), db = wrap(dims_other[i], other.dim());
    YATEN_CHECK(self.sizes()[da] == other.sizes()[db], RuntimeError, "tensordot: contracted dimensions need to match, "
                "but first has size ", self.sizes()[da], " in dim ", da, " and second has size ", other.sizes()[db],
                " in dim ", db);
    YATEN_CHECK(!contracted_a[da] && !contracted_b[db], RuntimeError, "tensordot: a dimension appears twice");
    contracted_a[da] = contracted_b[db] = true;
    k *= self.sizes()[da];
  }
  int64_t m = 1, n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (contracted_a[d]) continue;
    perm_a.push_back(d);
    out_shape.push_back(self.sizes()[d]);
    m *= self.sizes()[d];
  }
  for (size_t i = 0; i < dims_self.size(); ++i) {
    perm_a.push_back(wrap(dims_self[i], self.dim()));
    perm_b.push_back(wrap(dims_other[i], other.dim()));
  }
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (contracted_b[d]) continue;
    perm_b.push_back(d);
    out_shape.push_back(other.sizes()[d]);
    n *= other.sizes()[d];
  }
  const Tensor a = yaten::reshape(yaten::permute(self, perm_a), {m, k});
  const Tensor b = yaten::reshape(yaten::permute(other, perm_b), {k, n});
  return yaten::reshape(yaten::mm(a, b), out_shape);
}
// input @ weight.T + bias.
inline Tensor linear_impl(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  YATEN_CHECK(weight.dim() <= 2, RuntimeError, "linear: t() expects a tensor with <= 2 dimensions, but weight is ",
              weight.dim(), "D");
  if (input.dim() >= 2 && weight.dim() == 2 && bias.defined() && bias.dim() == 1 &&
      bias.sizes()[0] == weight.sizes()[0]) {
    // one addmm over the folded rows, the bias added by the product (torch's addmm path)
    std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - 1);
    shape.push_back(weight.sizes()[0]);
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < input.sizes().size(); ++d) rows *= input.sizes()[d];
    const Tensor folded = yaten::reshape(input, {rows, input.sizes().back()});
    const ScalarType t = input.dtype();
    if ((t == ScalarType::Float || t == ScalarType::Double) && weight.dtype() == t && bias.dtype() == t) {
      return yaten::reshape(yaten::_addmm_bias(bias, folded, yaten::t(weight)), shape);  // one pass for the bias
    }
    return yaten::reshape(yaten::addmm(bias, folded, yaten::t(weight)), shape);
  }
  Tensor out = matmul_impl(input, weight.dim() == 2 ? yaten::t(weight) : weight);
  if (!bias.defined()) return out;
  // torch adds the bias in place (or through addmm): it may not grow the product's shape
  const std::vector<int64_t> shape = broadcast_shapes("linear", out.sizes(), bias.sizes());
  YATEN_CHECK(shape == out.sizes(), RuntimeError, "linear: output with shape ", sizes_text(out.sizes()),
              " doesn't match the broadcast shape ", sizes_text(shape));
  return yaten::add(out, bias, Scalar(int64_t(1)));
}

}  // namespace yaten::native
