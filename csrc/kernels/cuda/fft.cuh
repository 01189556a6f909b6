// CUDA kernels of the three FFTs on cuFFT (cuda/cufft.cpp, opened at run time like cuBLAS). cuFFT transforms the
// trailing 1 to 3 dims of contiguous batches, so the transformed dims are moved last (in their order) and copied
// contiguous; more than three dims are done in passes (the DFT is separable: r2c over the last three, then c2c over
// the rest; c2r the other way round). cuFFT does not scale: the normalization is one multiply at the end. The
// argument checks are the CPU's (kernels/fft_support.h).
#pragma once

#include <numeric>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "kernels/fft_support.h"
#include "yaten/ops/_fft_c2c.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/permute.h"

namespace yaten::native::cuda {

namespace fft_detail {
constexpr size_t kMaxRank = 3;  // cuFFT's plans transform at most three dims

// The order that puts `dims` last (in their order), the other dims first (in theirs).
inline std::vector<int64_t> dims_last(int64_t ndim, const std::vector<int64_t>& dims) {
  std::vector<int64_t> order;
  std::vector<bool> moved(static_cast<size_t>(ndim), false);
  for (int64_t d : dims) moved[static_cast<size_t>(d)] = true;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!moved[static_cast<size_t>(d)]) order.push_back(d);
  }
  order.insert(order.end(), dims.begin(), dims.end());
  return order;
}

inline std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> out(order.size());
  for (size_t i = 0; i < order.size(); ++i) out[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return out;
}

// A fresh contiguous copy of t laid out in `order` (cuFFT's c2r overwrites its input, so it always gets a copy).
inline Tensor fresh_contiguous(const Tensor& t, const std::vector<int64_t>& order) {
  const Tensor moved = yaten::permute(t, order);
  Tensor out = yaten::empty(moved.sizes(), moved.dtype(), moved.device());
  return yaten::copy_(out, moved);
}

// Runs one cuFFT plan over the last `rank` dims of contiguous `in` into a new tensor of `out_sizes`/`out_dtype`,
// then puts the dims back in the caller's order.
inline Tensor run(const char* op, yaten::cuda::FftType type, const Tensor& in, std::vector<int64_t> out_sizes,
                  ScalarType out_dtype, const std::vector<int64_t>& signal, bool forward,
                  const std::vector<int64_t>& order) {
  Tensor out = yaten::empty(out_sizes, out_dtype, in.device());
  const int64_t signal_in = std::accumulate(in.sizes().end() - static_cast<int64_t>(signal.size()), in.sizes().end(),
                                            int64_t(1), std::multiplies<int64_t>());
  const int64_t batch = signal_in == 0 ? 0 : in.numel() / signal_in;
  if (out.numel() > 0 && batch > 0) {
    yaten::cuda::fft(op, type, to_real_dtype(in.dtype()), signal, batch, in.data_ptr(), out.data_ptr(), forward,
                     in.device().index);
  }
  return yaten::contiguous(yaten::permute(out, inverse(order)));
}

inline Tensor scaled(const Tensor& t, double fct) { return fct == 1.0 ? t : yaten::mul_(t, Scalar(fct)); }

inline std::vector<int64_t> sizes_at(const Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(t.sizes()[d]);
  return out;
}

// Unnormalized c2c over dims (any number), in passes of at most three.
inline Tensor c2c(const Tensor& self, std::vector<int64_t> dims, bool forward) {
  Tensor x = self;
  while (!dims.empty()) {
    const size_t take = std::min(kMaxRank, dims.size());
    const std::vector<int64_t> pass(dims.end() - static_cast<int64_t>(take), dims.end());
    dims.resize(dims.size() - take);
    const std::vector<int64_t> order = dims_last(x.dim(), pass);
    const Tensor in = fresh_contiguous(x, order);
    x = run("_fft_c2c", yaten::cuda::FftType::C2C, in, in.sizes(), in.dtype(), sizes_at(x, pass), forward, order);
  }
  return x;
}
}  // namespace fft_detail

template <typename scalar_t>
Tensor fft_r2c_kernel(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization, bool onesided) {
  const char* op = "_fft_r2c";
  const std::vector<int64_t> dims = fft::checked_dims(op, self, dim, /*some=*/true);
  const double fct = fft::scale(op, normalization, self.sizes(), dims);
  if (!onesided) {  // the full spectrum: the complex transform of the signal made complex
    const Tensor as_complex = yaten::_to_copy(self, to_complex_dtype(self.dtype()), std::nullopt);
    return fft_detail::scaled(fft_detail::c2c(as_complex, dims, true), fct);
  }
  // r2c over the last (at most three) dims, then c2c over the others
  const size_t take = std::min(fft_detail::kMaxRank, dims.size());
  const std::vector<int64_t> pass(dims.end() - static_cast<int64_t>(take), dims.end());
  const std::vector<int64_t> rest(dims.begin(), dims.end() - static_cast<int64_t>(take));
  const std::vector<int64_t> order = fft_detail::dims_last(self.dim(), pass);
  const Tensor in = fft_detail::fresh_contiguous(self, order);
  std::vector<int64_t> out_sizes = in.sizes();
  out_sizes.back() = fft::onesided_length(out_sizes.back());
  Tensor out = fft_detail::run(op, yaten::cuda::FftType::R2C, in, out_sizes, to_complex_dtype(self.dtype()),
                               fft_detail::sizes_at(self, pass), true, order);
  if (!rest.empty()) out = fft_detail::c2c(out, rest, true);
  return fft_detail::scaled(out, fct);
}

template <typename scalar_t>
Tensor fft_c2r_kernel(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization,
                      int64_t last_dim_size) {
  const char* op = "_fft_c2r";
  const std::vector<int64_t> dims = fft::checked_dims(op, self, dim);
  const std::vector<int64_t> real_sizes = fft::c2r_sizes(op, self, dims, last_dim_size);
  const int64_t last = dims.back();
  const int64_t half = fft::onesided_length(last_dim_size);
  const double fct = fft::scale(op, normalization, real_sizes, dims);
  // c2c (inverse) over all but the last three dims first, then c2r over those
  const size_t take = std::min(fft_detail::kMaxRank, dims.size());
  const std::vector<int64_t> pass(dims.end() - static_cast<int64_t>(take), dims.end());
  const std::vector<int64_t> rest(dims.begin(), dims.end() - static_cast<int64_t>(take));
  Tensor x = yaten::narrow(self, last, 0, half);
  if (!rest.empty()) x = fft_detail::c2c(x, rest, false);
  const std::vector<int64_t> order = fft_detail::dims_last(self.dim(), pass);
  const Tensor in = fft_detail::fresh_contiguous(x, order);
  std::vector<int64_t> out_sizes = in.sizes();
  out_sizes.back() = last_dim_size;
  std::vector<int64_t> signal;
  for (int64_t d : pass) signal.push_back(real_sizes[d]);
  return fft_detail::scaled(fft_detail::run(op, yaten::cuda::FftType::C2R, in, out_sizes, to_real_dtype(self.dtype()),
                                            signal, false, order),
                            fct);
}

template <typename scalar_t>
Tensor fft_c2c_kernel(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization, bool forward) {
  const char* op = "_fft_c2c";
  const std::vector<int64_t> dims = fft::checked_dims(op, self, dim);
  if (dims.empty()) return yaten::copy_(yaten::empty(self.sizes(), self.dtype(), self.device()), self);
  const double fct = fft::scale(op, normalization, self.sizes(), dims);
  return fft_detail::scaled(fft_detail::c2c(self, dims, forward), fct);
}

}  // namespace yaten::native::cuda
