// Helpers that the `derivatives:` formulas of ops.yaml call (declared in autograd/autograd.h).
#include <cmath>
#include <limits>
#include <numeric>

#include "autograd/autograd.h"
#include "core/dtype_switch.h"
#include "core/wrap_dim.h"
#include "yaten/ops/_fft_c2c.h"
#include "yaten/ops/_fft_r2c.h"
#include "yaten/ops/_index_front.h"
#include "yaten/ops/_index_put_front.h"
#include "yaten/ops/_softmax_backward_fused.h"
#include "yaten/ops/silu_backward.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/any.h"
#include "yaten/ops/cat.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/conj.h"
#include "yaten/ops/conj_physical.h"
#include "yaten/ops/constant_pad_nd.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/cos.h"
#include "yaten/ops/cumprod.h"
#include "yaten/ops/cumsum.h"
#include "yaten/ops/diagonal.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/erf.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/fill.h"
#include "yaten/ops/flip.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gather.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/i0.h"
#include "yaten/ops/index_copy.h"
#include "yaten/ops/isnan.h"
#include "yaten/ops/le.h"
#include "yaten/ops/log.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/logical_not.h"
#include "yaten/ops/logical_or.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/mean.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/ones_like.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/real.h"
#include "yaten/ops/reciprocal.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/rsqrt.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/select.h"
#include "yaten/ops/sigmoid.h"
#include "yaten/ops/sgn.h"
#include "yaten/ops/sign.h"
#include "yaten/ops/slice.h"
#include "yaten/ops/softplus.h"
#include "yaten/ops/special_i0e.h"
#include "yaten/ops/special_i1.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/tanh.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"
#include "yaten/ops/zeros_like.h"

namespace yaten::autograd {

Tensor one_minus(const Tensor& t) { return yaten::add(yaten::neg(t), Scalar(1.0), Scalar(int64_t(1))); }

namespace {
Tensor times(const Tensor& t, double s) { return yaten::mul(t, Scalar(s)); }
Tensor plus(const Tensor& t, double s) { return yaten::add(t, Scalar(s), Scalar(int64_t(1))); }
// A 0-d tensor of value v in t's dtype and device (a bound or fill that broadcasts against t).
Tensor scalar_like(const Tensor& t, const Scalar& v) { return yaten::full({}, v, t.dtype(), t.device()); }
Tensor zero_like_scalar(const Tensor& t) { return scalar_like(t, Scalar(0.0)); }
// Zeros of `sizes` with grad in the part `part` picks (slice, select, diagonal backward). Under create_graph the
// buffer is tracked, so the write goes through CopySlices and stays differentiable.
template <typename Part>
Tensor embed(const Tensor& grad, const std::vector<int64_t>& sizes, Part part) {
  Tensor out = yaten::zeros(sizes, grad.dtype(), grad.device());
  if (grad_mode_enabled() && requires_grad(grad)) track_views(out);
  yaten::copy_(part(out), grad);
  return out;
}
std::vector<int64_t> all_dims(int64_t ndim) {
  std::vector<int64_t> dims(ndim);
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}
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
  const Tensor mean = yaten::mean(self, dims, true, std::nullopt);
  Tensor from_var;
  if ((!dim || self.dim() == 0) && n - c <= 0) {
    // torch's var_backward over all elements with no degrees of freedom: inf, or NaN where self equals the mean
    // (2 / 0 times 0), whatever the sign of n - c
    from_var = yaten::mul(sum_backward(grad_var, self.sizes(), dims, keepdim),
                          yaten::where(yaten::eq(self, mean), Scalar(std::numeric_limits<double>::quiet_NaN()),
                                       scalar_like(self, Scalar(std::numeric_limits<double>::infinity()))));
  } else {
    const Tensor centered = yaten::sub(self, mean, Scalar(int64_t(1)));
    from_var = yaten::mul(yaten::mul(sum_backward(grad_var, self.sizes(), dims, keepdim), centered),
                          Scalar(2.0 / (n - c)));
  }
  return yaten::add(from_var, yaten::div(sum_backward(grad_mean, self.sizes(), dims, keepdim), Scalar(n)),
                    Scalar(int64_t(1)));
}
// torch's: (x^2 - 1)^-1/2 for real x (so x <= -1 has a gradient too), and for complex x the conjugate of
// (x + 1)^-1/2 (x - 1)^-1/2, which keeps acosh's branch (the square root of a product is not the product of roots).
Tensor acosh_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex(self.dtype())) {
    return yaten::mul(grad, yaten::rsqrt(yaten::sub(yaten::mul(self, self), Scalar(1.0), Scalar(int64_t(1)))));
  }
  const Tensor d = yaten::mul(yaten::rsqrt(yaten::add(self, Scalar(1.0), Scalar(int64_t(1)))),
                              yaten::rsqrt(yaten::sub(self, Scalar(1.0), Scalar(int64_t(1)))));
  return yaten::mul(grad, yaten::conj_physical(d));
}
Tensor tanh_backward(const Tensor& grad, const Tensor& result) {
  return yaten::mul(grad, conj_if_complex(one_minus(yaten::mul(result, result))));
}
Tensor sigmoid_backward(const Tensor& grad, const Tensor& result) {
  return yaten::mul(grad, conj_if_complex(yaten::mul(result, one_minus(result))));
}
Tensor atan2_recip(const Tensor& self, const Tensor& other) {
  const Tensor sum = yaten::add(yaten::mul(self, self), yaten::mul(other, other), Scalar(int64_t(1)));
  return yaten::where(yaten::eq(sum, Scalar(int64_t(0))), Scalar(int64_t(0)), yaten::reciprocal(sum));
}
Tensor threshold_backward(const Tensor& grad, const Tensor& result) {
  // torch's threshold_backward: 0 where result <= 0, so relu(NaN) passes its gradient
  return yaten::where(yaten::le(result, Scalar(int64_t(0))), Scalar(int64_t(0)), grad);
}
// A Python number that pow's scalar forms wrapped as a 0-dim tensor, as a plain 0-dim tensor of the gradient's dtype:
// arithmetic between wrapped numbers alone gives the default dtype (float32), which rounded x ** (1 / 3)'s float64
// gradient to single precision (exponent - 1 was a float32).
static Tensor unwrapped(const Tensor& t, ScalarType dtype) {
  return t.impl()->is_wrapped_number() ? yaten::_to_copy(t, dtype, std::nullopt) : t;
}
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent_) {
  const Tensor exponent = unwrapped(exponent_, grad.dtype());
  const Tensor d = yaten::mul(exponent, yaten::pow(self, yaten::sub(exponent, Scalar(int64_t(1)), Scalar(int64_t(1)))));
  // complex: grad times the derivative's conjugate (torch's convention for holomorphic functions)
  return yaten::where(yaten::eq(exponent, Scalar(int64_t(0))), Scalar(0.0), yaten::mul(grad, conj_if_complex(d)));
}
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self_, const Tensor& exponent, const Tensor& result) {
  const Tensor self = unwrapped(self_, grad.dtype());
  const Tensor d = yaten::mul(grad, conj_if_complex(yaten::mul(result, yaten::log(self))));
  const Tensor zero_base = yaten::logical_and(
      yaten::eq(self, Scalar(int64_t(0))),
      yaten::ge(is_complex(exponent.dtype()) ? yaten::real(exponent) : exponent, Scalar(int64_t(0))));
  return yaten::where(zero_base, Scalar(0.0), d);
}
static bool is_half_precision(ScalarType t);
// softmax's and log_softmax's first-order gradient on the CPU in one fused pass per row (the composites below
// record what they do, for a gradient of the gradient, and serve CUDA).
static bool fused_softmax_backward(const Tensor& grad, const Tensor& result) {
  return result.device().is_cpu() && grad.device().is_cpu() && grad.dtype() == result.dtype() &&
         grad.sizes() == result.sizes() && is_floating_point(result.dtype()) &&
         !autograd::compute_requires_grad({&grad, &result});
}
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  if (fused_softmax_backward(grad, result)) return yaten::_softmax_backward_fused(grad, result, dim, false);
  const ScalarType dtype = result.dtype();
  if (is_half_precision(dtype)) {  // as log_softmax_backward
    return yaten::_to_copy(softmax_backward(yaten::_to_copy(grad, ScalarType::Float, std::nullopt),
                                            yaten::_to_copy(result, ScalarType::Float, std::nullopt), dim),
                           dtype, std::nullopt);
  }
  const Tensor gy = yaten::mul(grad, result);
  return yaten::sub(gy, yaten::mul(result, yaten::sum(gy, std::vector<int64_t>{dim}, true, std::nullopt)),
                    Scalar(int64_t(1)));
}
// float16 and bfloat16 gradients are computed in float32 and rounded once, as torch's kernels compute them
static bool is_half_precision(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim) {
  if (fused_softmax_backward(grad, result)) return yaten::_softmax_backward_fused(grad, result, dim, true);
  const ScalarType dtype = result.dtype();
  if (is_half_precision(dtype)) {
    return yaten::_to_copy(log_softmax_backward(yaten::_to_copy(grad, ScalarType::Float, std::nullopt),
                                                yaten::_to_copy(result, ScalarType::Float, std::nullopt), dim),
                           dtype, std::nullopt);
  }
  return yaten::sub(grad, yaten::mul(yaten::exp(result), yaten::sum(grad, std::vector<int64_t>{dim}, true,
                                                                    std::nullopt)),
                    Scalar(int64_t(1)));
}

// out[..., index[i], ...] += grad[i] along dim: scatter_add into zeros (differentiable, so create_graph works).
Tensor gather_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, const Tensor& index) {
  const int64_t d = wrap_dim("gather_backward", dim, std::max<int64_t>(int64_t(sizes.size()), 1));
  return yaten::scatter_add(yaten::zeros(sizes, grad.dtype(), grad.device()), d, index, grad);
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
  return embed(grad, sizes, [&](const Tensor& out) { return yaten::slice(out, dim, start, end, step); });
}
Tensor select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, int64_t index) {
  return embed(grad, sizes, [&](const Tensor& out) { return yaten::select(out, dim, index); });
}
Tensor diagonal_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  return embed(grad, sizes, [&](const Tensor& out) { return yaten::diagonal(out, offset, dim1, dim2); });
}
Tensor permute_backward(const Tensor& grad, const std::vector<int64_t>& dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[wrap_dim("permute_backward", dims[i], dims.size())] = int64_t(i);
  return yaten::permute(grad, inverse);
}
Tensor zeros_like_grad(const Tensor& grad) { return yaten::zeros(grad.sizes(), grad.dtype(), grad.device()); }

Tensor conj_if_complex(const Tensor& t) { return is_complex(t.dtype()) ? yaten::conj_physical(t) : t; }

Tensor abs_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex(self.dtype())) return yaten::mul(grad, yaten::sign(self));
  const Tensor magnitude = yaten::abs(self);
  const Tensor safe = yaten::where(yaten::eq(magnitude, Scalar(int64_t(0))), Scalar(int64_t(1)), magnitude);
  return yaten::mul(grad, yaten::div(self, safe));  // self / |self|, and 0 / 1 where self is 0
}

// r2c keeps n // 2 + 1 terms of the last dim when onesided: the dropped ones had no effect, so their gradient is
// 0; the adjoint of the whole transform is the inverse unnormalized transform (the same `normalization`), whose
// real part is the real input's gradient.
Tensor fft_r2c_backward(const Tensor& grad, const std::vector<int64_t>& dim, int64_t normalization, bool onesided,
                        const std::vector<int64_t>& self_sizes) {
  Tensor full = grad;
  if (onesided) {
    const int64_t last = dim.back() < 0 ? dim.back() + static_cast<int64_t>(self_sizes.size()) : dim.back();
    const int64_t missing = self_sizes[last] - grad.sizes()[last];
    if (missing > 0) {
      std::vector<int64_t> pad(2 * self_sizes.size(), 0);
      pad[2 * (self_sizes.size() - 1 - static_cast<size_t>(last)) + 1] = missing;
      full = yaten::constant_pad_nd(grad, pad, Scalar(int64_t(0)));
    }
  }
  return yaten::real(yaten::_fft_c2c(full, dim, normalization, /*forward=*/false));
}

// c2r reads a one-sided spectrum: every term but the first (and the last when n is even) stands for itself and its
// conjugate mirror, so its gradient counts twice.
Tensor fft_c2r_backward(const Tensor& grad, const std::vector<int64_t>& dim, int64_t normalization) {
  const Tensor g = yaten::_fft_r2c(grad, dim, normalization, /*onesided=*/true);
  const int64_t last = dim.back() < 0 ? dim.back() + grad.dim() : dim.back();
  const int64_t m = g.sizes()[last];
  const int64_t doubled = grad.sizes()[last] - m;
  if (doubled <= 0) return g;
  Tensor weight = yaten::full({m}, Scalar(2.0), to_real_dtype(g.dtype()), g.device());
  yaten::fill_(yaten::narrow(weight, 0, 0, 1), Scalar(1.0));
  if (1 + doubled < m) yaten::fill_(yaten::narrow(weight, 0, 1 + doubled, m - 1 - doubled), Scalar(1.0));
  std::vector<int64_t> shape(static_cast<size_t>(g.dim()), 1);
  shape[static_cast<size_t>(last)] = m;
  return yaten::mul(g, yaten::reshape(weight, shape));
}

std::vector<int64_t> negated(const std::vector<int64_t>& v) {
  std::vector<int64_t> out;
  for (int64_t x : v) out.push_back(-x);
  return out;
}

Tensor grad_where(const Tensor& grad, const Tensor& keep) { return yaten::where(keep, grad, zero_like_scalar(grad)); }

Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, const std::vector<int64_t>& dims,
                     bool keepdim) {
  const std::vector<int64_t> reduced = dims.empty() ? all_dims(self.dim()) : dims;
  const Tensor g = sum_backward(grad, self.sizes(), dims, keepdim);
  const Tensor r = sum_backward(result, self.sizes(), dims, keepdim);
  const Tensor mask = yaten::_to_copy(yaten::eq(self, r), grad.dtype(), std::nullopt);
  const Tensor count = yaten::sum(mask, reduced, true, std::nullopt);
  return yaten::mul(yaten::div(g, count), mask);
}

Tensor scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& src, const std::string& reduce, const Tensor& result, bool for_self) {
  YATEN_CHECK(reduce == "amax" || reduce == "amin", NotImplementedError, "scatter_reduce: the derivative of reduce='",
              reduce, "' is not implemented (sum, mean, amax and amin have one)");
  // torch's rule: the gradient of each result is shared evenly by the values (self's and src's) equal to it
  const Tensor value = yaten::gather(result, dim, index);
  const Tensor self_wins = yaten::_to_copy(yaten::eq(self, result), grad.dtype(), std::nullopt);
  const Tensor src_wins = yaten::_to_copy(yaten::eq(src, value), grad.dtype(), std::nullopt);
  const Tensor count = yaten::scatter_add(self_wins, dim, index, src_wins);
  const Tensor share = yaten::div(grad, yaten::where(yaten::eq(count, Scalar(0.0)), scalar_like(count, Scalar(1.0)),
                                                     count));
  return for_self ? yaten::mul(share, self_wins) : yaten::mul(yaten::gather(share, dim, index), src_wins);
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // torch's max()/min(): the gradient shared by every element equal to the result, NaNs equal to a NaN result
  const Tensor mask = yaten::logical_or(yaten::eq(self, result),
                                        yaten::logical_and(yaten::isnan(self), yaten::isnan(result)));
  const Tensor weights = yaten::_to_copy(mask, grad.dtype(), std::nullopt);
  return yaten::mul(yaten::div(grad, yaten::sum(weights, all_dims(self.dim()), false, std::nullopt)), weights);
}

Tensor extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self,
                        bool nan_ignoring) {
  if (nan_ignoring) {  // fmax/fmin: self's when it wins or ties, or other is NaN; other's otherwise
    const Tensor self_wins = yaten::logical_or(is_max ? yaten::ge(self, other) : yaten::le(self, other),
                                               yaten::isnan(other));
    return grad_where(grad, for_self ? self_wins : yaten::logical_not(self_wins));
  }
  const Tensor& a = for_self ? self : other;
  const Tensor& b = for_self ? other : self;
  const Tensor loses = is_max ? yaten::lt(a, b) : yaten::gt(a, b);
  const Tensor shared = yaten::where(yaten::eq(a, b), times(grad, 0.5), grad);
  return grad_where(shared, yaten::logical_not(loses));
}

namespace {
// The product of the other elements along d, for each element (exact with zeros): exclusive prefix products times
// exclusive suffix products, each a cumprod.
Tensor product_of_others(const Tensor& x, int64_t d) {
  const int64_t n = x.sizes()[d];
  if (n == 0) return x;
  const Tensor one = yaten::ones_like(yaten::narrow(x, d, 0, 1), std::nullopt, std::nullopt);
  const Tensor left = yaten::cumprod(yaten::cat({one, yaten::narrow(x, d, 0, n - 1)}, d), d, std::nullopt);
  const Tensor tail = yaten::flip(yaten::cat({yaten::narrow(x, d, 1, n - 1), one}, d), {d});
  const Tensor right = yaten::flip(yaten::cumprod(tail, d, std::nullopt), {d});
  return yaten::mul(left, right);
}
}  // namespace

// As torch computes it, so that infinities and NaNs give its results: grad * result / x when no element is 0; with
// zeros, the product of the others (exclusive products from both sides), except that a whole-tensor product with
// more than one zero has a zero gradient when no graph of the gradient is built.
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim) {
  const Tensor x = self.dtype() == grad.dtype() ? self : yaten::_to_copy(self, grad.dtype(), std::nullopt);
  if (x.dim() == 0) return grad;
  const Tensor r = result.dtype() == grad.dtype() ? result : yaten::_to_copy(result, grad.dtype(), std::nullopt);
  const std::vector<int64_t> dims = dim ? std::vector<int64_t>{wrap_dim("prod_backward", *dim, x.dim())}
                                        : std::vector<int64_t>{};
  const Tensor zeros = yaten::sum(yaten::eq(x, zero_like_scalar(x)));
  const int64_t zero_count = yaten::_to_copy(zeros, ScalarType::Long, Device(DeviceType::CPU)).data<int64_t>()[0];
  const Tensor g = sum_backward(grad, x.sizes(), dims, keepdim);
  // complex: times the conjugate of d result / d x, as torch
  if (zero_count == 0) return yaten::mul(g, conj_if_complex(yaten::div(sum_backward(r, x.sizes(), dims, keepdim), x)));
  if (!dim) {
    if (zero_count > 1 && !grad_mode_enabled()) return yaten::zeros_like(x, std::nullopt, std::nullopt);
    return yaten::mul(g, conj_if_complex(yaten::reshape(product_of_others(yaten::reshape(x, {-1}), 0), x.sizes())));
  }
  return yaten::mul(g, conj_if_complex(product_of_others(x, dims[0])));
}

Tensor reverse_cumsum(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  const int64_t d = wrap_dim("cumsum_backward", dim, grad.dim());
  return yaten::flip(yaten::cumsum(yaten::flip(grad, {d}), d, std::nullopt), {d});
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  if (self.numel() <= 1) return grad;
  const int64_t d = wrap_dim("cumprod_backward", dim, self.dim());
  if (self.sizes()[d] == 1) return grad;  // torch's shortcut (so x = inf passes grad, not inf / inf)
  const Tensor any_zero = yaten::_to_copy(yaten::any(yaten::eq(self, zero_like_scalar(self))), ScalarType::Bool,
                                          Device(DeviceType::CPU));
  const bool has_zero = *any_zero.data<bool>();
  if (!has_zero) {  // d out_j / d x_i = out_j / x_i for j >= i (conjugated for complex, as torch)
    return yaten::div(reverse_cumsum(yaten::mul(grad, conj_if_complex(result)), d), conj_if_complex(self));
  }
  YATEN_CHECK(!grad_mode_enabled(), NotImplementedError, "cumprod: the second derivative at an input with zeros is "
              "not implemented");
  YATEN_CHECK(!is_complex(self.dtype()), NotImplementedError, "cumprod: the gradient of a complex input with zeros "
              "is not implemented");
  // With zeros, one pass per row in double, as torch's O(n) algorithm (below).
  const Tensor x = yaten::contiguous(yaten::_to_copy(yaten::movedim(self, d, -1), ScalarType::Double,
                                                     Device(DeviceType::CPU)));
  const Tensor g = yaten::contiguous(yaten::_to_copy(yaten::movedim(grad, d, -1), ScalarType::Double,
                                                     Device(DeviceType::CPU)));
  Tensor out = yaten::zeros(x.sizes(), ScalarType::Double, Device(DeviceType::CPU));
  const int64_t n = x.sizes().back(), rows = x.numel() / n;
  const double* xp = x.data<double>();
  const double* gp = g.data<double>();
  double* op = out.data<double>();
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = xp + r * n;
    const double* gr = gp + r * n;
    double* orow = op + r * n;
    // As torch: before the row's first zero z, sum_{k>=i} g_k out_k / x_i; at z, out_{z-1} * S_z; after it, 0.
    int64_t z = 0;
    while (z < n && xr[z] != 0) ++z;
    double left = 1;  // out_{i-1}
    double tail = 0;  // sum_{k>=i} g_k out_k, for i < z
    for (int64_t k = 0; k < z; ++k) left *= xr[k];
    if (z < n) {
      double s = 0;  // S_z = sum_{k>=z} g_k prod_{z<j<=k} x_j
      for (int64_t k = n - 1; k >= z; --k) s = gr[k] + (k + 1 < n ? xr[k + 1] * s : 0.0);
      orow[z] = left * s;
    }
    // out_k for k < z, and the suffix sums of g_k out_k (out_k = 0 from z on)
    std::vector<double> outs(z);
    double running = 1;
    for (int64_t k = 0; k < z; ++k) outs[k] = running *= xr[k];
    for (int64_t i = z - 1; i >= 0; --i) {
      tail += gr[i] * outs[i];
      orow[i] = tail / xr[i];
    }
  }
  return yaten::_to_copy(yaten::movedim(out, -1, d), grad.dtype(), grad.device());
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max, int which) {
  if (which == 1) return grad_where(grad, yaten::lt(self, min));
  if (which == 2) return grad_where(grad, yaten::gt(self, max));
  return grad_where(grad, yaten::logical_and(yaten::ge(self, min), yaten::le(self, max)));
}

// The derivative of gelu_backward(grad_output, x) in x: grad_output * gelu''(x), times the incoming grad. gelu'' is
// phi(x) (2 - x^2) for "none"; for "tanh", with u = beta (x + kappa x^3), t = tanh(u), u' = beta (1 + 3 kappa x^2)
// and u'' = 6 beta kappa x: (1 - t^2) (u' - x t u'^2 + x u'' / 2).
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& x,
                            const std::string& approximate) {
  Tensor second;
  if (approximate == "tanh") {
    const double beta = 0.7978845608028654, kappa = 0.044715;
    const Tensor x_sq = yaten::mul(x, x);
    const Tensor t = yaten::tanh(times(yaten::add(x, times(yaten::mul(x_sq, x), kappa), Scalar(int64_t(1))), beta));
    const Tensor du = times(plus(times(x_sq, 3 * kappa), 1.0), beta);
    const Tensor inner = yaten::add(yaten::sub(du, yaten::mul(yaten::mul(x, t), yaten::mul(du, du)), Scalar(int64_t(1))),
                                    times(x_sq, 3 * beta * kappa), Scalar(int64_t(1)));
    second = yaten::mul(one_minus(yaten::mul(t, t)), inner);
  } else {
    const Tensor pdf = times(yaten::exp(times(yaten::mul(x, x), -0.5)), 0.3989422804014327);
    second = yaten::mul(pdf, yaten::sub(scalar_like(x, Scalar(2.0)), yaten::mul(x, x), Scalar(int64_t(1))));
  }
  return yaten::mul(yaten::mul(grad, grad_output), second);
}

Tensor elu_backward(const Tensor& grad, const Tensor& x, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale) {
  const double a = alpha.to_double(), s = scale.to_double(), is = input_scale.to_double();
  const Tensor negative = yaten::mul(times(grad, a * s * is), yaten::exp(times(x, is)));
  // torch's test: x <= 0 takes the exponential's slope, so a NaN input gets `scale`
  return yaten::where(yaten::le(x, zero_like_scalar(x)), negative, times(grad, s));
}

Tensor softplus_backward(const Tensor& grad, const Tensor& x, const Scalar& beta, const Scalar& threshold) {
  const Tensor bx = times(x, beta.to_double());
  return yaten::where(yaten::gt(bx, scalar_like(bx, threshold)), grad,
                      yaten::mul(grad, yaten::sigmoid(bx)));
}

Tensor silu_backward(const Tensor& grad, const Tensor& x) {
  // one pass (the op, with its own derivatives) for real dtypes; six for complex, whose derivative is conjugated
  if (!is_complex(x.dtype()) && !is_complex(grad.dtype())) return yaten::silu_backward(grad, x);
  const Tensor s = yaten::sigmoid(x);
  return yaten::mul(grad, conj_if_complex(yaten::mul(s, plus(yaten::mul(x, one_minus(s)), 1.0))));
}
// silu_backward's derivative in x: grad grad_output s (1 - s) (2 + x (1 - 2 s)).
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& x) {
  const Tensor s = yaten::sigmoid(x);
  const Tensor second = yaten::mul(yaten::mul(s, one_minus(s)),
                                   plus(yaten::mul(x, one_minus(times(s, 2.0))), 2.0));
  return yaten::mul(yaten::mul(grad, grad_output), second);
}

Tensor mish_backward(const Tensor& grad, const Tensor& x) {
  const Tensor t = yaten::tanh(yaten::softplus(x, Scalar(int64_t(1)), Scalar(int64_t(20))));
  const Tensor s = yaten::sigmoid(x);
  return yaten::mul(grad, yaten::add(t, yaten::mul(yaten::mul(x, s), one_minus(yaten::mul(t, t))),
                                     Scalar(int64_t(1))));
}

Tensor logit_backward(const Tensor& grad, const Tensor& x, std::optional<double> eps) {
  if (eps && !(*eps >= 0)) eps.reset();  // a negative eps clamps nothing (torch): NaN outside [0, 1]
  const Tensor d = yaten::div(grad, yaten::mul(x, one_minus(x)));
  const double lo = eps ? *eps : 0.0, hi = eps ? 1.0 - *eps : 1.0;
  const Tensor outside = yaten::logical_or(yaten::lt(x, scalar_like(x, Scalar(lo))),
                                           yaten::gt(x, scalar_like(x, Scalar(hi))));
  const Tensor fill = scalar_like(grad, Scalar(eps ? 0.0 : std::nan("")));
  return yaten::where(outside, fill, d);
}

Tensor hardswish_backward(const Tensor& grad, const Tensor& x) {
  const Tensor three = scalar_like(x, Scalar(3.0));
  const Tensor middle = yaten::mul(grad, plus(times(x, 1.0 / 3.0), 0.5));
  // torch's boundaries: 0 up to -3 inclusive, x/3 + 1/2 below 3, 1 from 3 on
  return yaten::where(yaten::le(x, yaten::neg(three)), zero_like_scalar(grad),
                      yaten::where(yaten::lt(x, three), middle, grad));
}

Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& x) {
  const Tensor three = scalar_like(x, Scalar(3.0));
  return grad_where(times(grad, 1.0 / 6.0), yaten::logical_and(yaten::gt(x, yaten::neg(three)), yaten::lt(x, three)));
}

Tensor hardtanh_backward(const Tensor& grad, const Tensor& x, const Scalar& min_val, const Scalar& max_val) {
  const Tensor lo = scalar_like(x, min_val);
  const Tensor hi = scalar_like(x, max_val);
  // torch's: zero where x <= min or x >= max, so a NaN x passes its gradient through
  return grad_where(grad, yaten::logical_not(yaten::logical_or(yaten::le(x, lo), yaten::ge(x, hi))));
}

Tensor leaky_relu_backward(const Tensor& grad, const Tensor& x, const Scalar& negative_slope) {
  return yaten::where(yaten::gt(x, zero_like_scalar(x)), grad, times(grad, negative_slope.to_double()));
}

// glu's halves, a * s with s = sigmoid(b): grad * s for a, grad * a * s * (1 - s) for b.
Tensor glu_halves_backward(const Tensor& grad, const Tensor& a, const Tensor& b, int64_t which) {
  const Tensor s = yaten::sigmoid(b);
  if (which == 0) return yaten::mul(grad, s);
  return yaten::mul(yaten::mul(grad, a), yaten::mul(s, yaten::sigmoid(yaten::neg(b))));  // 1 - s = sigmoid(-b)
}

// threshold: zero where x <= threshold (so a NaN x passes its gradient, as torch's threshold_backward).
Tensor threshold_backward(const Tensor& grad, const Tensor& x, const Scalar& threshold) {
  return grad_where(grad, yaten::logical_not(yaten::le(x, scalar_like(x, threshold))));
}

// hardshrink and softshrink: zero where -lambd <= x <= lambd, the gradient elsewhere (NaN included), as torch.
Tensor shrink_backward(const Tensor& grad, const Tensor& x, const Scalar& lambd) {
  const double l = lambd.to_double();
  const Tensor inside = yaten::logical_and(yaten::ge(x, scalar_like(x, Scalar(-l))), yaten::le(x, scalar_like(x, Scalar(l))));
  return grad_where(grad, yaten::logical_not(inside));
}

namespace {
std::vector<int64_t> rest_dims(int64_t ndim, const std::vector<int64_t>& dims) {
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < ndim; ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) rest.push_back(d);
  }
  return rest;
}
}  // namespace

Tensor index_front_backward(const Tensor& grad, const std::vector<int64_t>& sizes, const std::vector<Tensor>& indices,
                            const std::vector<int64_t>& dims) {
  // The indexed dims flattened into one (a linear index into them), then the adjoint of index_select on it.
  const int64_t ndim = sizes.size();
  std::vector<int64_t> wrapped;
  for (int64_t d : dims) wrapped.push_back(wrap_dim("index_backward", d, ndim));
  Tensor linear;
  int64_t flat = 1;
  for (int64_t k = int64_t(wrapped.size()) - 1; k >= 0; --k) {
    const int64_t size = sizes[wrapped[k]];
    const Tensor idx = yaten::_to_copy(indices[k], ScalarType::Long, std::nullopt);
    const Tensor positive = yaten::where(yaten::lt(idx, yaten::zeros({}, ScalarType::Long, idx.device())),
                                         yaten::add(idx, Scalar(size), Scalar(int64_t(1))), idx);
    const Tensor term = yaten::mul(positive, Scalar(flat));
    linear = linear.defined() ? yaten::add(linear, term, Scalar(int64_t(1))) : term;
    flat *= size;
  }
  const std::vector<int64_t> rest = rest_dims(ndim, wrapped);
  std::vector<int64_t> flat_shape{flat}, grad_shape{-1}, front_shape, order = wrapped;
  for (int64_t d : wrapped) front_shape.push_back(sizes[d]);
  for (int64_t d : rest) {
    flat_shape.push_back(sizes[d]);
    grad_shape.push_back(sizes[d]);
    front_shape.push_back(sizes[d]);
    order.push_back(d);
  }
  const Tensor buffer = index_select_backward(yaten::reshape(grad, grad_shape), flat_shape, 0,
                                              yaten::reshape(linear, {-1}));
  std::vector<int64_t> inverse(ndim);
  for (int64_t i = 0; i < ndim; ++i) inverse[order[i]] = i;
  return yaten::permute(yaten::reshape(buffer, front_shape), inverse);
}

Tensor index_put_front_backward(const Tensor& grad, const std::vector<Tensor>& indices,
                                const std::vector<int64_t>& dims) {
  std::vector<int64_t> wrapped;
  for (int64_t d : dims) wrapped.push_back(wrap_dim("index_put_backward", d, grad.dim()));
  std::vector<int64_t> shape = indices.empty() ? std::vector<int64_t>{} : indices[0].sizes();
  for (int64_t d : rest_dims(grad.dim(), wrapped)) shape.push_back(grad.sizes()[d]);
  Tensor out = yaten::clone(grad);
  yaten::_index_put_front_(out, indices, dims, yaten::zeros(shape, grad.dtype(), grad.device()));
  return out;
}

Tensor index_fill_zero(const Tensor& grad, int64_t dim, const Tensor& index) {
  if (grad.dim() == 0) return zeros_like_grad(grad);
  const int64_t d = wrap_dim("index_copy_backward", dim, grad.dim());
  std::vector<int64_t> shape = grad.sizes();
  shape[d] = index.numel();
  Tensor out = yaten::clone(grad);
  yaten::index_copy_(out, d, yaten::reshape(index, {-1}), yaten::zeros(shape, grad.dtype(), grad.device()));
  return out;
}

variable_list cat_backward(const Tensor& grad, const std::vector<OutputInfo>& inputs, int64_t dim) {
  variable_list out;
  int64_t d = 0;
  for (const OutputInfo& info : inputs) {
    if (!(info.sizes.size() == 1 && info.sizes[0] == 0)) {
      d = wrap_dim("cat_backward", dim, info.sizes.size());
      break;
    }
  }
  int64_t offset = 0;
  for (const OutputInfo& info : inputs) {
    if (info.sizes.size() == 1 && info.sizes[0] == 0) {  // skipped by cat
      out.push_back(yaten::zeros(info.sizes, grad.dtype(), grad.device()));
      continue;
    }
    const int64_t n = info.sizes[d];
    out.push_back(yaten::narrow(grad, d, offset, n));
    offset += n;
  }
  return out;
}


// ------------------------------------------------------------------------------------------------ special functions
namespace {
// Below this magnitude the closed forms of i1', sinc' divide by (nearly) zero; their limits are used instead. The
// denominator is replaced too (by 1), so that the unused branch of `where` makes no NaN in higher derivatives.
double tiny_magnitude(ScalarType t) {
  if (t == ScalarType::Double || t == ScalarType::ComplexDouble) return 2.220446049250313e-16;
  if (t == ScalarType::Float || t == ScalarType::ComplexFloat) return 1.1920928955078125e-07;
  return 9.765625e-04;  // float16 (bfloat16's 2^-7 is coarser, and its i1 and sinc are fine at float16's)
}
}  // namespace

Tensor i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // i1'(x) = i0(x) - i1(x) / x, whose limit at 0 is 1/2
  const Tensor tiny = yaten::le(yaten::abs(self), Scalar(tiny_magnitude(self.dtype())));
  const Tensor safe = yaten::where(tiny, Scalar(1.0), self);
  const Tensor slope = yaten::sub(yaten::i0(safe), yaten::div(result, safe));
  return yaten::mul(grad, yaten::where(tiny, Scalar(0.5), slope));
}

Tensor i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), whose limit at 0 is 1/2
  const Tensor tiny = yaten::le(yaten::abs(self), Scalar(tiny_magnitude(self.dtype())));
  const Tensor safe = yaten::where(tiny, Scalar(1.0), self);
  const Tensor slope =
      yaten::sub(yaten::special_i0e(safe), yaten::mul(result, yaten::add(yaten::sgn(safe), yaten::reciprocal(safe))));
  return yaten::mul(grad, yaten::where(tiny, Scalar(0.5), slope));
}

Tensor not_implemented_grad(const char* what) {
  YATEN_FAIL(NotImplementedError, what, " is not implemented");
}

Tensor sinc_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // sinc'(x) = (cos(pi x) - sinc(x)) / x, whose limit at 0 is 0
  const Tensor tiny = yaten::le(yaten::abs(self), Scalar(tiny_magnitude(self.dtype())));
  const Tensor safe = yaten::where(tiny, Scalar(1.0), self);
  const Tensor slope = yaten::div(yaten::sub(yaten::cos(yaten::mul(safe, Scalar(3.14159265358979323846))), result),
                                  safe);
  return yaten::mul(grad, conj_if_complex(yaten::where(tiny, Scalar(0.0), slope)));
}

Tensor sgn_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  if (!is_complex(self.dtype())) return zeros_like_grad(grad);  // piecewise constant
  // s = z / |z|: the part of grad along s does not change s, the rest turns it, at rate 1 / |z|; 0 at z = 0
  const Tensor magnitude = yaten::abs(self);
  const Tensor zero = yaten::eq(magnitude, Scalar(0.0));
  const Tensor safe = yaten::where(zero, Scalar(1.0), magnitude);
  const Tensor along = yaten::mul(result, yaten::real(yaten::mul(yaten::conj(result), grad)));
  return yaten::where(zero, Scalar(0.0), yaten::div(yaten::sub(grad, along), safe));
}

Tensor copysign_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  // d copysign(x, y) / dx = result / x (+-1), 0 at x = 0
  const Tensor zero = yaten::eq(self, Scalar(0.0));
  const Tensor safe = yaten::where(zero, Scalar(1.0), self);
  return yaten::mul(grad, yaten::where(zero, Scalar(0.0), yaten::div(result, safe)));
}

}  // namespace yaten::autograd
