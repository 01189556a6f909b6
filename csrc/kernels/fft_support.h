// What the CPU (kernels/cpu/fft_engine) and CUDA (cuFFT) FFT kernels share: the checks of their arguments and the scale that
// `normalization` asks for (torch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the signal's size).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "core/wrap_dim.h"

namespace yaten::native::fft {

// r2c and c2r transform at least one dim.
inline void check_some_dims(const char* op, const std::vector<int64_t>& dims) {
  YATEN_CHECK(!dims.empty(), RuntimeError, op, ": expected at least one dim to transform");
}

// `dim` wrapped, each a real dim of self (no repeats) whose size is at least 1; at least one with `some`.
inline std::vector<int64_t> checked_dims(const char* op, const Tensor& self, const std::vector<int64_t>& dim,
                                         bool some = false) {
  if (some) check_some_dims(op, dim);
  std::vector<int64_t> dims;
  std::vector<bool> seen(static_cast<size_t>(self.dim()), false);
  for (int64_t d : dim) {
    const int64_t w = wrap_real_dim(op, d, self.dim());
    YATEN_CHECK(!seen[static_cast<size_t>(w)], RuntimeError, op, ": FFT dims must be unique, got dim ", w, " twice");
    seen[static_cast<size_t>(w)] = true;
    YATEN_CHECK(self.sizes()[w] >= 1, RuntimeError, op, ": Invalid number of data points (", self.sizes()[w],
                ") specified");
    dims.push_back(w);
  }
  return dims;
}

// The product of self's sizes over `dims` (the number of points of one signal).
inline int64_t signal_numel(IntArrayRef sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[d];
  return n;
}

// The scale for signals of `sizes` over `dims`.
inline double scale(const char* op, int64_t normalization, IntArrayRef sizes, const std::vector<int64_t>& dims) {
  const int64_t n = signal_numel(sizes, dims);
  switch (normalization) {
    case 0: return 1.0;
    case 1: return 1.0 / std::sqrt(static_cast<double>(n));
    case 2: return 1.0 / static_cast<double>(n);
    default: YATEN_FAIL(RuntimeError, op, ": normalization must be 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n), got ",
                        normalization);
  }
}

// r2c/c2r: the one-sided length of a real signal of n points along the last transformed dim.
inline int64_t onesided_length(int64_t n) { return n / 2 + 1; }

// c2r's checks (self holds at least the one-sided terms of a signal last_dim_size long); the real result's sizes.
inline std::vector<int64_t> c2r_sizes(const char* op, const Tensor& self, const std::vector<int64_t>& dims,
                                      int64_t last_dim_size) {
  check_some_dims(op, dims);
  YATEN_CHECK(last_dim_size >= 1, RuntimeError, op, ": Invalid number of data points (", last_dim_size,
              ") specified");
  const int64_t last = dims.back();
  YATEN_CHECK(self.sizes()[last] >= onesided_length(last_dim_size), RuntimeError, op, ": a real signal of ",
              last_dim_size, " points needs ", onesided_length(last_dim_size), " terms along dim ", last, ", got ",
              self.sizes()[last]);
  std::vector<int64_t> sizes = self.sizes();
  sizes[last] = last_dim_size;
  return sizes;
}

}  // namespace yaten::native::fft
