// CompositeImplicit reductions: written with the CPU/CUDA reduction and pointwise ops.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/autograd.h"
#include "core/tensor.h"
#include "yaten/ops/linalg_matrix_norm.h"
#include "yaten/ops/_sum_of_squares.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/imag.h"
#include "yaten/ops/real.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/all.h"
#include "yaten/ops/amax.h"
#include "yaten/ops/amin.h"
#include "yaten/ops/div.h"
#include "yaten/ops/dot.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/isclose.h"
#include "yaten/ops/isinf.h"
#include "yaten/ops/isnan.h"
#include "yaten/ops/log.h"
#include "yaten/ops/logical_not.h"
#include "yaten/ops/maximum.h"
#include "yaten/ops/minimum.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/sqrt.h"
#include "kernels/composite/common.h"
#include "yaten/ops/add.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/var_mean.h"
#include "yaten/ops/where.h"

namespace yaten::native {

namespace composite_detail {
inline std::vector<int64_t> dims_or_all(const std::optional<std::vector<int64_t>>& dim) {
  return dim.value_or(std::vector<int64_t>{});
}
// Whether dims name the last dims.size() dims of a tensor of `rank` dims, each once (a 0-dim tensor has one, 0 or
// -1). False for an out-of-range or repeated dim, which the caller's general path reports.
inline bool are_trailing_dims(const std::vector<int64_t>& dims, int64_t rank) {
  rank = std::max<int64_t>(rank, 1);
  std::vector<bool> reduced(size_t(rank), false);
  for (int64_t d : dims) {
    if (d < -rank || d >= rank || reduced[size_t(d < 0 ? d + rank : d)]) return false;
    reduced[size_t(d < 0 ? d + rank : d)] = true;
  }
  return std::all_of(reduced.end() - int64_t(dims.size()), reduced.end(), [](bool r) { return r; });
}
// v ** (1 / p) (sqrt for p = 2) with a zero gradient where v is 0, as torch's std and norm backward give (the chain
// rule through the root would give inf * 0 = NaN there: the std of one element, the norm of zeros).
inline Tensor root_zero_grad(const Tensor& v, double p) {
  // the guard matters only to a gradient: without one it is four more ops on every norm (clip_grad_norm_ takes
  // one per parameter)
  if (!autograd::grad_mode_enabled() || !autograd::requires_grad(v)) {
    return p == 2 ? yaten::sqrt(v) : yaten::pow(v, Scalar(1.0 / p));
  }
  const Tensor zero = yaten::eq(v, Scalar(int64_t(0)));
  const Tensor safe = yaten::where(zero, Scalar(1.0), v);
  return yaten::where(zero, Scalar(0.0), p == 2 ? yaten::sqrt(safe) : yaten::pow(safe, Scalar(1.0 / p)));
}
}  // namespace composite_detail

inline Tensor max_impl(const Tensor& self) {
  YATEN_CHECK(self.numel() > 0, RuntimeError, "max(): Expected reduction dim to be specified for input.numel() == 0. "
              "Specify the reduction dim with the 'dim' argument.");
  return yaten::amax(self, {}, false);
}
inline Tensor min_impl(const Tensor& self) {
  YATEN_CHECK(self.numel() > 0, RuntimeError, "min(): Expected reduction dim to be specified for input.numel() == 0. "
              "Specify the reduction dim with the 'dim' argument.");
  return yaten::amin(self, {}, false);
}
inline Tensor max_other_impl(const Tensor& self, const Tensor& other) { return yaten::maximum(self, other); }
inline Tensor min_other_impl(const Tensor& self, const Tensor& other) { return yaten::minimum(self, other); }

// var/std: the correction defaults to 1 (Bessel's); `unbiased` is the older spelling of correction 1 or 0.
inline Tensor var_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                       const std::optional<Scalar>& correction, bool keepdim) {
  if (is_complex(self.dtype())) {  // the mean squared distance |z - mean|^2: the real part's var plus the imaginary's
    return yaten::add(var_impl(yaten::real(self), dim, correction, keepdim),
                      var_impl(yaten::imag(self), dim, correction, keepdim));
  }
  return std::get<0>(yaten::var_mean(self, dim, correction, keepdim));
}
inline Tensor var_dim_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool unbiased,
                           bool keepdim) {
  return var_impl(self, dim, Scalar(int64_t(unbiased ? 1 : 0)), keepdim);
}
inline Tensor var_unbiased_impl(const Tensor& self, bool unbiased) {
  return var_impl(self, std::nullopt, Scalar(int64_t(unbiased ? 1 : 0)), false);
}
inline Tensor std_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                       const std::optional<Scalar>& correction, bool keepdim) {
  return composite_detail::root_zero_grad(var_impl(self, dim, correction, keepdim), 2);
}
inline Tensor std_dim_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool unbiased,
                           bool keepdim) {
  return composite_detail::root_zero_grad(var_dim_impl(self, dim, unbiased, keepdim), 2);
}
inline Tensor std_unbiased_impl(const Tensor& self, bool unbiased) {
  return composite_detail::root_zero_grad(var_unbiased_impl(self, unbiased), 2);
}
inline std::tuple<Tensor, Tensor> std_mean_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                                                const std::optional<Scalar>& correction, bool keepdim) {
  auto [var, mean] = yaten::var_mean(self, dim, correction, keepdim);
  return {composite_detail::root_zero_grad(var, 2), mean};
}
inline std::tuple<Tensor, Tensor> var_mean_dim_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                                                    bool unbiased, bool keepdim) {
  return yaten::var_mean(self, dim, Scalar(int64_t(unbiased ? 1 : 0)), keepdim);
}
inline std::tuple<Tensor, Tensor> var_mean_unbiased_impl(const Tensor& self, bool unbiased) {
  return var_mean_dim_impl(self, std::nullopt, unbiased, false);
}
inline std::tuple<Tensor, Tensor> std_mean_dim_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                                                    bool unbiased, bool keepdim) {
  return std_mean_impl(self, dim, Scalar(int64_t(unbiased ? 1 : 0)), keepdim);
}
inline std::tuple<Tensor, Tensor> std_mean_unbiased_impl(const Tensor& self, bool unbiased) {
  return std_mean_dim_impl(self, std::nullopt, unbiased, false);
}

// norm: the p-norm over `dim` (all when None); inf and -inf give the largest and smallest magnitude, 0 counts
// the nonzeros.
inline Tensor norm_impl(const Tensor& self, const std::optional<Scalar>& p,
                        const std::optional<std::vector<int64_t>>& dim, bool keepdim) {
  YATEN_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()), RuntimeError,
              "norm(): input dtype should be either floating point or complex. Got ", dtype_name(self.dtype()),
              " instead.");
  // a complex tensor's norm is its magnitudes' (real), as torch's
  if (is_complex(self.dtype())) return norm_impl(yaten::abs(self), p, dim, keepdim);
  // float16 and bfloat16 in float32, rounded once at the end, as torch's kernel accumulates them (the powers and
  // the root of a tiny order, 1 / 1e-300, would not fit the narrow dtype)
  if (self.dtype() == ScalarType::Half || self.dtype() == ScalarType::BFloat16) {
    return yaten::_to_copy(norm_impl(yaten::_to_copy(self, ScalarType::Float, std::nullopt), p, dim, keepdim),
                           self.dtype(), std::nullopt);
  }
  const double order = p ? p->to<double>() : 2.0;
  const std::vector<int64_t> dims = composite_detail::dims_or_all(dim);
  if (std::isinf(order)) {
    const Tensor a = yaten::abs(self);
    return order > 0 ? yaten::amax(a, dims, keepdim) : yaten::amin(a, dims, keepdim);
  }
  if (order == 0) {
    return yaten::_to_copy(yaten::sum(yaten::ne(self, Scalar(int64_t(0))), dims, keepdim, std::nullopt),
                           self.dtype(), std::nullopt);
  }
  YATEN_CHECK(self.numel() > 0 || !(order < 0), RuntimeError, "linalg.vector_norm cannot compute the ", order,
              " norm on an empty tensor because the operation does not have an identity");
  // the norm of no elements is 0 (a NaN order too, as torch answers)
  if (order == 2 && self.numel() > 0) {
    // every element of a contiguous CPU float32/float64 tensor: the sum of squares as the BLAS's dot product, one
    // pass where mul then sum took two (the norm of 1M float32 took 1.27x torch's time)
    if (dims.empty() && self.device().is_cpu() && self.is_contiguous() && self.numel() < (int64_t(1) << 31) &&
        (self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double)) {
      const Tensor flat = yaten::reshape(self, {-1});
      Tensor total = yaten::dot(flat, flat);
      if (keepdim) total = yaten::reshape(total, std::vector<int64_t>(self.dim(), 1));
      return composite_detail::root_zero_grad(total, 2);
    }
    // over trailing dims of such a tensor, the sum of squares in one pass (kernels/cpu/reduce/sum_of_squares.h)
    if (!dims.empty() && self.device().is_cpu() && self.is_contiguous() &&
        (self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double)) {
      if (composite_detail::are_trailing_dims(dims, self.dim())) {
        return composite_detail::root_zero_grad(yaten::_sum_of_squares(self, dims, keepdim), 2);
      }
    }
    return composite_detail::root_zero_grad(yaten::sum(yaten::mul(self, self), dims, keepdim, std::nullopt), 2);
  }
  const Tensor a = yaten::abs(self);  // not needed for the 2-norm: x * x is |x|^2 already
  if (order == 1 || (self.numel() == 0 && !(order < 0))) return yaten::sum(a, dims, keepdim, std::nullopt);
  const Tensor total = yaten::sum(yaten::pow(a, Scalar(order)), dims, keepdim, std::nullopt);
  return order > 0 ? composite_detail::root_zero_grad(total, order) : yaten::pow(total, Scalar(1.0 / order));
}
inline Tensor norm_str_impl(const Tensor& self, const std::string& p, const std::optional<std::vector<int64_t>>& dim,
                            bool keepdim) {
  if (p == "nuc") {  // the sum of singular values, of a 2-D self or over two dims
    YATEN_CHECK(dim ? dim->size() == 2 : self.dim() == 2, RuntimeError, "norm(): the nuclear norm needs a 2-D input "
                "or two dims, but got ", dim ? dim->size() : self.dim(), dim ? " dims" : "-D");
    return yaten::linalg_matrix_norm(self, std::string("nuc"), dim.value_or(std::vector<int64_t>{0, 1}), keepdim,
                                     std::nullopt);
  }
  YATEN_CHECK(p == "fro", RuntimeError, "norm(): p must be a number, 'fro' or 'nuc', but got '", p, "'");
  YATEN_CHECK(!dim || dim->size() <= 2, RuntimeError, "norm(): the Frobenius norm is over at most 2 dims, but got ",
              dim->size());
  return norm_impl(self, Scalar(2.0), dim, keepdim);
}
inline Tensor linalg_vector_norm_impl(const Tensor& self, const Scalar& ord,
                                      const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                                      std::optional<ScalarType> dtype) {
  YATEN_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()), RuntimeError, "linalg.vector_norm: "
              "Expected a floating point or complex tensor as input. Got ", dtype_name(self.dtype()));
  YATEN_CHECK(!dtype || promote_types(self.dtype(), *dtype) == *dtype, RuntimeError, "linalg.vector_norm: the dtype "
              "of the input (", dtype_name(self.dtype()), ") should be convertible without narrowing to the "
              "specified dtype (", dtype_name(*dtype), ")");
  return norm_impl(dtype ? yaten::_to_copy(self, *dtype, std::nullopt) : self, ord, dim, keepdim);
}

// logsumexp: the largest element is subtracted first (an infinite one as 0), so large inputs do not overflow; of a
// complex input, the largest real part (torch's rule), and the result is complex.
inline Tensor logsumexp_impl(const Tensor& input, const std::vector<int64_t>& dim, bool keepdim) {
  const bool keeps_dtype = is_floating_point(input.dtype()) || is_complex(input.dtype());
  const Tensor self = keeps_dtype ? input : yaten::_to_copy(input, default_dtype(), std::nullopt);
  if (self.numel() == 0) return yaten::log(yaten::sum(yaten::exp(self), dim, keepdim, std::nullopt));
  Tensor m = yaten::amax(is_complex(self.dtype()) ? yaten::real(self) : self, dim, true);
  m = yaten::where(yaten::isinf(m), yaten::detail::wrapped_scalar_tensor(Scalar(0.0)), m);
  const Tensor out = yaten::add(yaten::log(yaten::sum(yaten::exp(yaten::sub(self, m)), dim, true, std::nullopt)), m);
  return keepdim ? out : yaten::sum(out, dim, false, std::nullopt);  // drops the size-1 dims
}

inline Tensor count_nonzero_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim) {
  // a mask counts as it is (its ne(0) was a second pass and a second mask)
  const Tensor nonzero = self.dtype() == ScalarType::Bool ? self : yaten::ne(self, Scalar(int64_t(0)));
  return yaten::sum(nonzero, composite_detail::dims_or_all(dim), false, ScalarType::Long);
}

inline Tensor nansum_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const std::vector<int64_t> dims = composite_detail::dims_or_all(dim);
  if (!is_floating_point(self.dtype())) return yaten::sum(self, dims, keepdim, dtype);
  const Tensor zeroed = yaten::where(yaten::isnan(self), yaten::detail::wrapped_scalar_tensor(Scalar(0.0)), self);
  return yaten::sum(zeroed, dims, keepdim, dtype);
}
inline Tensor nanmean_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                           std::optional<ScalarType> dtype) {
  YATEN_CHECK(is_floating_point(self.dtype()), RuntimeError, "nanmean(): expected input to have floating point dtype but "
              "got ", dtype_name(self.dtype()));
  YATEN_CHECK(!dtype || is_floating_point(*dtype), RuntimeError, "nanmean(): could not infer output dtype. Optional "
              "dtype must be either a floating point or complex dtype. Got: ", dtype_name(*dtype));
  const Tensor count = yaten::sum(yaten::logical_not(yaten::isnan(self)), composite_detail::dims_or_all(dim),
                                  keepdim, std::nullopt);
  return yaten::div(nansum_impl(self, dim, keepdim, dtype), count);
}

inline bool allclose_impl(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return composite_detail::item_bool(yaten::all(yaten::isclose(self, other, rtol, atol, equal_nan)));
}
inline bool equal_impl(const Tensor& self, const Tensor& other) {
  if (self.sizes() != other.sizes()) return false;
  return composite_detail::item_bool(yaten::all(yaten::eq(self, other)));
}

}  // namespace yaten::native
