// prod over a dim or all of them: int64 for integral and bool inputs, as torch.
#pragma once

#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// prod over `dims` (all when empty): int64 for integral and bool inputs, as torch.
template <typename scalar_t>
Tensor product(const Tensor& input, const std::vector<int64_t>& dims, bool keepdim, std::optional<ScalarType> dtype) {
  const Tensor self = as_compute_type<scalar_t>(input);
  // complex products in complex<double>, as the real ones in double or float
  using acc_t = std::conditional_t<is_complex_v<scalar_t>, Complex<double>, acc_type<scalar_t>>;
  const ScalarType out_dtype = dtype.value_or(is_integral(input.dtype(), true) ? ScalarType::Long : input.dtype());
  const auto p = plan("prod", self, dims, keepdim);
  return reduce_blocks<scalar_t>(p, out_dtype, self.device(), [](const scalar_t* b, int64_t n) {
    acc_t product = acc_t(1);
    int64_t i = 0;
    if constexpr (!is_complex_v<scalar_t>) {
      // sixteen running products, a vector of them: one product chain, a multiply's latency per element, took 15x
      // torch's time (prod(1) of 1024 x 1024 float32); the order differs from one chain as torch's vector loop does
      constexpr int64_t kParts = 16;
      acc_t part[kParts];
      for (int64_t k = 0; k < kParts; ++k) part[k] = acc_t(1);
      for (; i + kParts <= n; i += kParts) {
        for (int64_t k = 0; k < kParts; ++k) part[k] = wrapping_mul(part[k], convert<acc_t>(b[i + k]));
      }
      for (int64_t k = 0; k < kParts; ++k) product = wrapping_mul(product, part[k]);
    }
    for (; i < n; ++i) product = wrapping_mul(product, convert<acc_t>(b[i]));  // int64 wraps around
    return product;
  });
}
}  // namespace reduce_detail

template <typename scalar_t>
Tensor prod_dim_kernel(const Tensor& input, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduce_detail::product<scalar_t>(input, {dim}, keepdim, dtype);
}

template <typename scalar_t>
Tensor prod_kernel(const Tensor& input, std::optional<ScalarType> dtype) {
  return reduce_detail::product<scalar_t>(input, {}, false, dtype);
}

}  // namespace yaten::native::cpu
