// CPU kernels of the three FFTs (_fft_r2c, _fft_c2r, _fft_c2c) on yaten's FFT (kernels/cpu/fft_engine.h). It
// reads any strides, so the input is never copied; results are new contiguous tensors. The argument checks and the
// normalization are shared with CUDA (kernels/fft_support.h).
#pragma once

#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/fft_engine.h"
#include "kernels/fft_support.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor fft_r2c_kernel(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization, bool onesided) {
  const char* op = "_fft_r2c";
  const std::vector<int64_t> dims = fft::checked_dims(op, self, dim, /*some=*/true);
  const double fct = fft::scale(op, normalization, self.sizes(), dims);
  if (!onesided) {  // the full spectrum: the complex transform of the signal made complex
    const Tensor as_complex = yaten::_to_copy(self, to_complex_dtype(self.dtype()), std::nullopt);
    Tensor out = yaten::empty(self.sizes(), as_complex.dtype(), self.device());
    fft_engine::c2c(self.dtype(), self.sizes(), as_complex.strides(), out.strides(), dims, /*forward=*/true,
                           as_complex.data_ptr(), out.data_ptr(), fct);
    return out;
  }
  std::vector<int64_t> out_sizes = self.sizes();
  out_sizes[dims.back()] = fft::onesided_length(out_sizes[dims.back()]);
  Tensor out = yaten::empty(out_sizes, to_complex_dtype(self.dtype()), self.device());
  fft_engine::r2c(self.dtype(), self.sizes(), self.strides(), out.strides(), dims, self.data_ptr(),
                         out.data_ptr(), fct);
  return out;
}

template <typename scalar_t>
Tensor fft_c2r_kernel(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization,
                      int64_t last_dim_size) {
  const char* op = "_fft_c2r";
  const std::vector<int64_t> dims = fft::checked_dims(op, self, dim);
  const std::vector<int64_t> out_sizes = fft::c2r_sizes(op, self, dims, last_dim_size);
  Tensor out = yaten::empty(out_sizes, to_real_dtype(self.dtype()), self.device());
  const double fct = fft::scale(op, normalization, out_sizes, dims);
  fft_engine::c2r(out.dtype(), out_sizes, self.strides(), out.strides(), dims, self.data_ptr(),
                         out.data_ptr(), fct);
  return out;
}

template <typename scalar_t>
Tensor fft_c2c_kernel(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization, bool forward) {
  const char* op = "_fft_c2c";
  const std::vector<int64_t> dims = fft::checked_dims(op, self, dim);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  if (dims.empty()) return yaten::copy_(out, self);
  const double fct = fft::scale(op, normalization, self.sizes(), dims);
  fft_engine::c2c(to_real_dtype(self.dtype()), self.sizes(), self.strides(), out.strides(), dims, forward,
                         self.data_ptr(), out.data_ptr(), fct);
  return out;
}

}  // namespace yaten::native::cpu
