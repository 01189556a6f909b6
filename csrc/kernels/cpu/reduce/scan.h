// Scans along one dim: cumsum, cumprod, logcumsumexp, cummax, cummin. The dim is moved last (a copy unless it already
// is), each row is scanned, and the result is moved back and made contiguous.
#pragma once

#include "kernels/cpu/reduce/common.h"
#include "kernels/scan_grad.h"
#include "kernels/special_math.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// Calls row(src_row, dst_rows..., length) over the rows of `self` along `dim`; outputs have self's shape.
template <typename scalar_t, typename Row>
std::vector<Tensor> scan(const char* op, const Tensor& self, int64_t dim, std::vector<ScalarType> out_dtypes, Row row) {
  const auto layout = reduce_plan::rows_along(op, self, dim);
  const Tensor& src = layout.src;
  const int64_t len = layout.len, rows = layout.rows;
  std::vector<Tensor> outs;
  for (ScalarType t : out_dtypes) outs.push_back(yaten::empty(src.sizes(), t, self.device()));
  const scalar_t* s = src.data<scalar_t>();
  for_each_block(rows, len, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) row(s + r * len, outs, r * len, len);
  });
  for (Tensor& t : outs) t = reduce_plan::from_rows(t, self, layout);
  return outs;
}

template <typename scalar_t, bool kSum>
Tensor cumulative(const char* op, const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  const Tensor self = as_compute_type<scalar_t>(input);
  const ScalarType out_dtype = dtype.value_or(is_integral(input.dtype(), true) ? ScalarType::Long : input.dtype());
  using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t,
                                   std::conditional_t<is_complex_v<scalar_t>, Complex<double>, double>>;
  return scan<scalar_t>(op, self, dim, {out_dtype}, [&](const scalar_t* x, std::vector<Tensor>& outs, int64_t off,
                                                         int64_t n) {
    visit_out_dtype<scalar_t>(op, out_dtype, [&](auto tag) {
      using out_t = decltype(tag);
      out_t* y = outs[0].data<out_t>() + off;
      acc_t acc = kSum ? acc_t(0) : acc_t(1);
      for (int64_t k = 0; k < n; ++k) {
        if constexpr (kSum) {  // integers wrap around, as in torch
          acc = wrapping_add(acc, convert<acc_t>(x[k]));
        } else {
          acc = wrapping_mul(acc, convert<acc_t>(x[k]));
        }
        y[k] = convert<out_t>(acc);
      }
    });
  })[0];
}

// cummax/cummin: torch's rule, a NaN sticks (and a later NaN takes the index), ties take the later index.
template <typename scalar_t, bool kMax>
std::tuple<Tensor, Tensor> cum_extreme(const char* op, const Tensor& self, int64_t dim) {
  using opmath = opmath_t<scalar_t>;
  auto outs = scan<scalar_t>(op, self, dim, {self.dtype(), ScalarType::Long},
                             [](const scalar_t* x, std::vector<Tensor>& outs, int64_t off, int64_t n) {
    scalar_t* v = outs[0].data<scalar_t>() + off;
    int64_t* idx = outs[1].data<int64_t>() + off;
    if (n == 0) return;
    scalar_t best = x[0];
    int64_t at = 0;
    for (int64_t k = 0; k < n; ++k) {
      const opmath cur = static_cast<opmath>(x[k]), b = static_cast<opmath>(best);
      bool take = kMax ? cur >= b : cur <= b;
      if constexpr (!std::is_integral_v<opmath>) take = cur != cur || (b == b && take);
      if (take) {
        best = x[k];
        at = k;
      }
      v[k] = best;
      idx[k] = at;
    }
  });
  return {outs[0], outs[1]};
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor cumsum_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  reduce_plan::check_cumulative_dtype("cumsum", self, dtype);
  return reduce_detail::cumulative<scalar_t, true>("cumsum", self, dim, dtype);
}
template <typename scalar_t>
Tensor cumprod_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  reduce_plan::check_cumulative_dtype("cumprod", self, dtype);
  return reduce_detail::cumulative<scalar_t, false>("cumprod", self, dim, dtype);
}
// The running log-sum-exp, accumulated in double (complex double) with logaddexp's functor (the CUDA scan uses the
// same one).
template <typename scalar_t>
Tensor logcumsumexp_kernel(const Tensor& self, int64_t dim) {
  using acc_t = std::conditional_t<is_complex_v<scalar_t>, Complex<double>, double>;
  return reduce_detail::scan<scalar_t>("logcumsumexp", self, dim, {self.dtype()},
                                       [](const scalar_t* x, std::vector<Tensor>& outs, int64_t off, int64_t n) {
    scalar_t* y = outs[0].data<scalar_t>() + off;
    acc_t acc = acc_t(-std::numeric_limits<double>::infinity());
    for (int64_t k = 0; k < n; ++k) {
      acc = LogaddexpOp<acc_t>{}(acc, convert<acc_t>(x[k]));
      y[k] = convert<scalar_t>(acc);
    }
  })[0];
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> cummax_kernel(const Tensor& self, int64_t dim) {
  return reduce_detail::cum_extreme<scalar_t, true>("cummax", self, dim);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> cummin_kernel(const Tensor& self, int64_t dim) {
  return reduce_detail::cum_extreme<scalar_t, false>("cummin", self, dim);
}

}  // namespace yaten::native::cpu
