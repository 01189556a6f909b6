// Helpers that the `derivatives:` formulas of ops.yaml call (declared in autograd/autograd.h).
#include <numeric>

#include "autograd/autograd.h"
#include "core/dtype_switch.h"
#include "core/wrap_dim.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/diagonal.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/log.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/mean.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/select.h"
#include "yaten/ops/slice.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::autograd {

namespace {
Tensor one_minus(const Tensor& t) { return yaten::add(yaten::neg(t), Scalar(1.0), Scalar(int64_t(1))); }
}  // namespace

Tensor mean_backward(const Tensor& grad, const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims,
                     bool keepdim) {
  return yaten::div(sum_backward(grad, sizes, dims, keepdim), Scalar(numel_of(sizes, dims)));
}
Tensor var_mean_backward(const Tensor& grad_var, const Tensor& grad_mean, const Tensor& self,
                         const std::optional<std::vector<int64_t>>& dim, const std::optional<Scalar>& correction,
                         bool keepdim) {
  std::vector<int64_t> dims = dim.value_or(std::vector<int64_t>{});
  if (dims.empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  const double n = double(numel_of(self.sizes(), dims));
  const double c = correction ? correction->to_double() : 1.0;
  const Tensor centered = yaten::sub(self, yaten::mean(self, dims, true, std::nullopt), Scalar(int64_t(1)));
  const Tensor from_var = yaten::mul(yaten::mul(sum_backward(grad_var, self.sizes(), dims, keepdim), centered),
                                     Scalar(2.0 / (n - c)));
  return yaten::add(from_var, yaten::div(sum_backward(grad_mean, self.sizes(), dims, keepdim), Scalar(n)),
                    Scalar(int64_t(1)));
}
Tensor tanh_backward(const Tensor& grad, const Tensor& result) {
  return yaten::mul(grad, one_minus(yaten::mul(result, result)));
}
Tensor sigmoid_backward(const Tensor& grad, const Tensor& result) {
  return yaten::mul(grad, yaten::mul(result, one_minus(result)));
}
Tensor threshold_backward(const Tensor& grad, const Tensor& result) {
  return yaten::where(yaten::gt(result, Scalar(int64_t(0))), grad, Scalar(int64_t(0)));
}
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  const Tensor d = yaten::mul(exponent, yaten::pow(self, yaten::sub(exponent, Scalar(int64_t(1)), Scalar(int64_t(1)))));
  return yaten::where(yaten::eq(exponent, Scalar(int64_t(0))), Scalar(0.0), yaten::mul(grad, d));
}
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  const Tensor d = yaten::mul(grad, yaten::mul(result, yaten::log(self)));
  const Tensor zero_base = yaten::logical_and(yaten::eq(self, Scalar(int64_t(0))),
                                              yaten::ge(exponent, Scalar(int64_t(0))));
  return yaten::where(zero_base, Scalar(0.0), d);
}
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  const Tensor gy = yaten::mul(grad, result);
  return yaten::sub(gy, yaten::mul(result, yaten::sum(gy, std::vector<int64_t>{dim}, true, std::nullopt)),
                    Scalar(int64_t(1)));
}
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  return yaten::sub(grad, yaten::mul(yaten::exp(result), yaten::sum(grad, std::vector<int64_t>{dim}, true,
                                                                    std::nullopt)),
                    Scalar(int64_t(1)));
}

// A scatter-add on the CPU: out[..., index[i], ...] += grad[i] along dim (index and grad of one shape).
Tensor gather_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, const Tensor& index) {
  const int64_t ndim = sizes.size();
  const int64_t d = wrap_dim("gather_backward", dim, ndim);
  Tensor out = yaten::zeros(sizes, grad.dtype(), Device(DeviceType::CPU));
  const Tensor g = yaten::contiguous(yaten::_to_copy(grad, std::nullopt, Device(DeviceType::CPU)));
  const Tensor idx = yaten::contiguous(yaten::_to_copy(index, ScalarType::Long, Device(DeviceType::CPU)));
  const std::vector<int64_t> out_strides = contiguous_strides(sizes);
  const std::vector<int64_t>& shape = idx.sizes();
  const int64_t* ix = idx.data<int64_t>();
  visit_dtype("gather_backward", grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* gp = g.data<T>();
      T* op = out.data<T>();
      std::vector<int64_t> pos(shape.size(), 0);
      for (int64_t i = 0; i < idx.numel(); ++i) {
        int64_t offset = 0;
        for (size_t k = 0; k < shape.size(); ++k) offset += (int64_t(k) == d ? ix[i] : pos[k]) * out_strides[k];
        op[offset] += gp[i];
        for (int64_t k = int64_t(shape.size()) - 1; k >= 0; --k) {
          if (++pos[k] < shape[k]) break;
          pos[k] = 0;
        }
      }
    } else {
      YATEN_FAIL(NotImplementedError, "gather_backward: gradients of ", dtype_name(grad.dtype()),
                 " are not supported yet (float32 and float64 are)");
    }
  });
  return grad.device().is_cpu() ? out : yaten::_to_copy(out, std::nullopt, grad.device());
}
Tensor index_select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, const Tensor& index) {
  const int64_t d = wrap_dim("index_select_backward", dim, sizes.size());
  std::vector<int64_t> view(grad.dim(), 1);
  if (grad.dim() > 0) view[d] = index.numel();
  const Tensor expanded = yaten::expand(yaten::reshape(index, view), grad.sizes());
  return gather_backward(grad, sizes, d, expanded);
}
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                const std::vector<int64_t>& sizes, bool keepdim) {
  if (sizes.empty()) return grad;
  const int64_t d = wrap_dim("max_backward", dim, sizes.size());
  const Tensor g = keepdim ? grad : yaten::unsqueeze(grad, d);
  const Tensor i = keepdim ? indices : yaten::unsqueeze(indices, d);
  return gather_backward(g, sizes, d, i);
}

Tensor slice_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor out = yaten::zeros(sizes, grad.dtype(), grad.device());
  yaten::copy_(yaten::slice(out, dim, start, end, step), grad);
  return out;
}
Tensor select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, int64_t index) {
  Tensor out = yaten::zeros(sizes, grad.dtype(), grad.device());
  yaten::copy_(yaten::select(out, dim, index), grad);
  return out;
}
Tensor diagonal_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  Tensor out = yaten::zeros(sizes, grad.dtype(), grad.device());
  yaten::copy_(yaten::diagonal(out, offset, dim1, dim2), grad);
  return out;
}
Tensor permute_backward(const Tensor& grad, const std::vector<int64_t>& dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[wrap_dim("permute_backward", dims[i], dims.size())] = int64_t(i);
  return yaten::permute(grad, inverse);
}
Tensor zeros_like_grad(const Tensor& grad) { return yaten::zeros(grad.sizes(), grad.dtype(), grad.device()); }

}  // namespace yaten::autograd
