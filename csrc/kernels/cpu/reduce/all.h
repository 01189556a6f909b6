// all/any over a list of dims (all when empty): bool results (uint8 for uint8 input, as torch). The kernels are
// kernels/reduce/all_any.inc, the same text on CUDA, over reduce_detail::all_any here.
#pragma once

#include "kernels/cpu/reduce/common.h"

namespace yaten::native::cpu {

namespace reduce_detail {
// all/any: bool results (uint8 for uint8 input, as torch).
template <typename scalar_t, bool kAll>
Tensor all_any(const char* op, const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const auto p = plan(op, self, dims, keepdim);
  const ScalarType out_dtype = self.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  Tensor out = yaten::empty(p.out_shape, out_dtype, self.device());
  const scalar_t* src = p.src.data<scalar_t>();
  uint8_t* dst = static_cast<uint8_t*>(out.data_ptr());
  for_each_block(p.outer, p.inner, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const scalar_t* x = src + i * p.inner;
      bool result = kAll;
      for (int64_t k = 0; k < p.inner; ++k) {
        const bool nonzero = static_cast<opmath_t<scalar_t>>(x[k]) != opmath_t<scalar_t>(0);
        if (kAll ? !nonzero : nonzero) {
          result = !kAll;
          break;
        }
      }
      dst[i] = result;
    }
  });
  return out;
}
}  // namespace reduce_detail

#include "kernels/reduce/all_any.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
