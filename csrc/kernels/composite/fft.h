// yaten.fft: torch.fft's functions, composed of the three transforms _fft_r2c, _fft_c2r and _fft_c2c (whose
// kernels are yaten's FFT (kernels/cpu/fft_engine) on the CPU and cuFFT on CUDA). As in torch: an input is cropped or zero-padded to the
// requested signal size first, integers are taken as the default float dtype, `norm` picks the scale
// ("backward": none forward and 1/n inverse; "forward": the reverse; "ortho": 1/sqrt(n) both ways).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/type_promotion.h"
#include "core/wrap_dim.h"
#include "yaten/ops/_fft_c2c.h"
#include "yaten/ops/_fft_c2r.h"
#include "yaten/ops/_fft_r2c.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/conj.h"
#include "yaten/ops/constant_pad_nd.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/roll.h"
#include "yaten/ops/slice.h"
#include "yaten/ops/sub.h"

namespace yaten::native {

namespace fft_detail {

// torch's fft_norm_mode for `norm` in the given direction: 0 none, 1 by 1/sqrt(n), 2 by 1/n.
inline int64_t norm_mode(const char* op, const std::optional<std::string>& norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? 0 : 2;
  if (*norm == "forward") return forward ? 2 : 0;
  if (*norm == "ortho") return 1;
  YATEN_FAIL(RuntimeError, op, ": Invalid normalization mode: \"", *norm,
             "\" (expected \"backward\", \"forward\" or \"ortho\")");
}

// A complex input as it is; a real one as the complex dtype of its width; integers and bool as the default one.
inline Tensor promote_complex(const Tensor& self) {
  if (is_complex(self.dtype())) return self;
  const ScalarType real = is_floating_point(self.dtype()) ? self.dtype() : default_dtype();
  YATEN_CHECK(real == ScalarType::Float || real == ScalarType::Double, NotImplementedError,
              "fft: ", dtype_name(self.dtype()), " is not supported (the FFTs take float32, float64, complex64 and "
              "complex128; convert with .float())");
  return yaten::_to_copy(self, to_complex_dtype(real), std::nullopt);
}

// A real input for r2c: integers and bool as the default float dtype; complex refused, as torch.
inline Tensor promote_real(const char* op, const Tensor& self) {
  YATEN_CHECK(!is_complex(self.dtype()), RuntimeError, op, " expects a real input tensor, but got ",
              dtype_name(self.dtype()));
  const ScalarType real = is_floating_point(self.dtype()) ? self.dtype() : default_dtype();
  YATEN_CHECK(real == ScalarType::Float || real == ScalarType::Double, NotImplementedError, op, ": ",
              dtype_name(self.dtype()), " is not supported (the FFTs take float32 and float64; convert with .float())");
  return real == self.dtype() ? self : yaten::_to_copy(self, real, std::nullopt);
}

// Each dims[i] cropped or zero-padded (at its end) to sizes[i].
inline Tensor resize(const Tensor& self, const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes) {
  Tensor out = self;
  std::vector<int64_t> pad(2 * static_cast<size_t>(self.dim()), 0);
  bool padded = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t have = out.sizes()[dims[i]];
    if (have > sizes[i]) out = yaten::slice(out, dims[i], int64_t(0), sizes[i], 1);
    if (have < sizes[i]) {  // constant_pad_nd counts pairs from the last dim backwards
      pad[2 * static_cast<size_t>(self.dim() - 1 - dims[i]) + 1] = sizes[i] - have;
      padded = true;
    }
  }
  return padded ? yaten::constant_pad_nd(out, pad, Scalar(int64_t(0))) : out;
}

inline void check_points(const char* op, int64_t n) {
  YATEN_CHECK(n >= 1, RuntimeError, op, ": Invalid number of data points (", n, ") specified");
}

// The dims and signal sizes of an n-dimensional transform, from `s` and `dim` as torch reads them.
struct Plan {
  std::vector<int64_t> dims;
  std::vector<int64_t> sizes;
};
inline Plan plan(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                 const std::optional<std::vector<int64_t>>& dim) {
  Plan p;
  if (dim) {
    std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
    for (int64_t d : *dim) {
      const int64_t w = wrap_real_dim(op, d, self.dim());
      YATEN_CHECK(!seen[static_cast<size_t>(w)], RuntimeError, op, ": FFT dims must be unique");
      seen[static_cast<size_t>(w)] = true;
      p.dims.push_back(w);
    }
  }
  if (s) {
    if (dim) {
      YATEN_CHECK(s->size() == dim->size(), RuntimeError, op, ": When given, dim and shape arguments must have the "
                  "same length");
    } else {
      YATEN_CHECK(static_cast<int64_t>(s->size()) <= self.dim(), RuntimeError, op, ": Got shape with ", s->size(),
                  " values but input tensor only has ", self.dim(), " dimensions.");
      for (int64_t i = self.dim() - static_cast<int64_t>(s->size()); i < self.dim(); ++i) p.dims.push_back(i);
    }
    for (size_t i = 0; i < s->size(); ++i) {
      const int64_t n = (*s)[i] == -1 ? self.sizes()[p.dims[i]] : (*s)[i];
      check_points(op, n);
      p.sizes.push_back(n);
    }
  } else {
    if (!dim) {
      for (int64_t i = 0; i < self.dim(); ++i) p.dims.push_back(i);
    }
    for (int64_t d : p.dims) {
      check_points(op, self.sizes()[d]);
      p.sizes.push_back(self.sizes()[d]);
    }
  }
  return p;
}

inline Tensor c2c_nd(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                     const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm,
                     bool forward) {
  const Tensor input = promote_complex(self);
  const Plan p = plan(op, input, s, dim);
  const int64_t mode = norm_mode(op, norm, forward);
  if (p.dims.empty()) return input.is_same(self) ? yaten::clone(input) : input;
  return yaten::_fft_c2c(resize(input, p.dims, p.sizes), p.dims, mode, forward);
}

inline Tensor r2c_nd(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                     const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm) {
  const Tensor input = promote_real(op, self);
  const Plan p = plan(op, input, s, dim);
  YATEN_CHECK(!p.dims.empty(), RuntimeError, op, " must transform at least one axis");
  return yaten::_fft_r2c(resize(input, p.dims, p.sizes), p.dims, norm_mode(op, norm, true), true);
}

inline Tensor c2r_nd(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                     const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm) {
  const Tensor input = promote_complex(self);
  Plan p = plan(op, input, s, dim);
  YATEN_CHECK(!p.dims.empty(), RuntimeError, op, " must transform at least one axis");
  const int64_t last_dim_size = s ? p.sizes.back() : 2 * (input.sizes()[p.dims.back()] - 1);
  check_points(op, last_dim_size);
  p.sizes.back() = last_dim_size / 2 + 1;
  return yaten::_fft_c2r(resize(input, p.dims, p.sizes), p.dims, norm_mode(op, norm, false), last_dim_size);
}

// One dim: n points (self's size there unless given).
inline Tensor c2c_1d(const char* op, const Tensor& self, std::optional<int64_t> n, int64_t dim,
                     const std::optional<std::string>& norm, bool forward) {
  const int64_t d = wrap_real_dim(op, dim, self.dim());
  const int64_t points = n.value_or(self.sizes()[d]);
  check_points(op, points);
  return c2c_nd(op, self, std::vector<int64_t>{points}, std::vector<int64_t>{d}, norm, forward);
}

}  // namespace fft_detail

inline Tensor fft_fft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                           const std::optional<std::string>& norm) {
  return fft_detail::c2c_1d("fft_fft", self, n, dim, norm, true);
}
inline Tensor fft_ifft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                            const std::optional<std::string>& norm) {
  return fft_detail::c2c_1d("fft_ifft", self, n, dim, norm, false);
}

inline Tensor fft_rfft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                            const std::optional<std::string>& norm) {
  const char* op = "fft_rfft";
  const int64_t d = wrap_real_dim(op, dim, self.dim());
  const int64_t points = n.value_or(self.sizes()[d]);
  fft_detail::check_points(op, points);
  return fft_detail::r2c_nd(op, self, std::vector<int64_t>{points}, std::vector<int64_t>{d}, norm);
}

inline Tensor fft_irfft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                             const std::optional<std::string>& norm) {
  const char* op = "fft_irfft";
  const int64_t d = wrap_real_dim(op, dim, self.dim());
  const int64_t points = n.value_or(2 * (self.sizes()[d] - 1));
  fft_detail::check_points(op, points);
  return fft_detail::c2r_nd(op, self, std::vector<int64_t>{points}, std::vector<int64_t>{d}, norm);
}

// hfft: the forward transform of a Hermitian signal given by its first half: c2r of the conjugate, with the forward
// direction's scale.
inline Tensor fft_hfft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                            const std::optional<std::string>& norm) {
  const char* op = "fft_hfft";
  const Tensor input = fft_detail::promote_complex(self);
  const int64_t d = wrap_real_dim(op, dim, input.dim());
  const int64_t points = n.value_or(2 * (input.sizes()[d] - 1));
  fft_detail::check_points(op, points);
  const Tensor resized = fft_detail::resize(input, {d}, {points / 2 + 1});
  return yaten::_fft_c2r(yaten::conj(resized), {d}, fft_detail::norm_mode(op, norm, true), points);
}

// ihfft: the conjugate of the one-sided transform, with the inverse direction's scale.
inline Tensor fft_ihfft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim,
                             const std::optional<std::string>& norm) {
  const char* op = "fft_ihfft";
  const Tensor input = fft_detail::promote_real(op, self);
  const int64_t d = wrap_real_dim(op, dim, input.dim());
  const int64_t points = n.value_or(input.sizes()[d]);
  fft_detail::check_points(op, points);
  const Tensor resized = fft_detail::resize(input, {d}, {points});
  return yaten::conj(yaten::_fft_r2c(resized, {d}, fft_detail::norm_mode(op, norm, false), true));
}

inline Tensor fft_fft2_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                            const std::vector<int64_t>& dim, const std::optional<std::string>& norm) {
  return fft_detail::c2c_nd("fft_fft2", self, s, dim, norm, true);
}
inline Tensor fft_ifft2_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                             const std::vector<int64_t>& dim, const std::optional<std::string>& norm) {
  return fft_detail::c2c_nd("fft_ifft2", self, s, dim, norm, false);
}
inline Tensor fft_rfft2_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                             const std::vector<int64_t>& dim, const std::optional<std::string>& norm) {
  return fft_detail::r2c_nd("fft_rfft2", self, s, dim, norm);
}
inline Tensor fft_irfft2_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                              const std::vector<int64_t>& dim, const std::optional<std::string>& norm) {
  return fft_detail::c2r_nd("fft_irfft2", self, s, dim, norm);
}
inline Tensor fft_fftn_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                            const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm) {
  return fft_detail::c2c_nd("fft_fftn", self, s, dim, norm, true);
}
inline Tensor fft_ifftn_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                             const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm) {
  return fft_detail::c2c_nd("fft_ifftn", self, s, dim, norm, false);
}
inline Tensor fft_rfftn_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                             const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm) {
  return fft_detail::r2c_nd("fft_rfftn", self, s, dim, norm);
}
inline Tensor fft_irfftn_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& s,
                              const std::optional<std::vector<int64_t>>& dim, const std::optional<std::string>& norm) {
  return fft_detail::c2r_nd("fft_irfftn", self, s, dim, norm);
}

// [0, 1, ..., ceil(n / 2) - 1, -floor(n / 2), ..., -1] / (d * n), in the default float dtype unless given.
namespace fft_detail {
inline ScalarType freq_dtype(const char* op, std::optional<ScalarType> dtype) {
  const ScalarType type = dtype.value_or(default_dtype());
  YATEN_CHECK(is_floating_point(type) || is_complex(type), RuntimeError, op,
              " requires a floating point or complex dtype, got ", dtype_name(type));
  return type;
}
}  // namespace fft_detail

inline Tensor fft_fftfreq_impl(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  // as torch computes it: arange in the result's dtype, the upper half less n, times 1 / (n * d)
  Tensor k = yaten::arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), fft_detail::freq_dtype("fftfreq", dtype),
                           device);
  if (n > 1) yaten::sub_(yaten::slice(k, 0, (n + 1) / 2, std::nullopt, 1), Scalar(n), Scalar(int64_t(1)));
  return yaten::mul(k, Scalar(1.0 / (static_cast<double>(n) * d)));
}

// [0, 1, ..., n // 2] / (d * n) (n // 2 truncates, as torch's C++ does for a negative n).
inline Tensor fft_rfftfreq_impl(int64_t n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const Tensor k = yaten::arange(Scalar(int64_t(0)), Scalar(n / 2 + 1), Scalar(int64_t(1)),
                                 fft_detail::freq_dtype("rfftfreq", dtype), device);
  return yaten::mul(k, Scalar(1.0 / (static_cast<double>(n) * d)));
}

namespace fft_detail {
// fftshift rolls each dim by floor(n / 2), ifftshift by ceil(n / 2) (every dim when dim is None).
inline Tensor shift(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool inverse) {
  std::vector<int64_t> dims, shifts;
  if (dim) {
    for (int64_t d : *dim) dims.push_back(wrap_real_dim(op, d, self.dim()));
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  // torch rolls by nothing here, which its roll refuses; so does yaten (a 0-dim tensor, or dim=[])
  YATEN_CHECK(!dims.empty(), RuntimeError, op, ": `shifts` required (no dim to shift)");
  for (int64_t d : dims) shifts.push_back(inverse ? (self.sizes()[d] + 1) / 2 : self.sizes()[d] / 2);
  return yaten::roll(self, shifts, dims);
}
}  // namespace fft_detail

inline Tensor fft_fftshift_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim) {
  return fft_detail::shift("fft_fftshift", self, dim, false);
}
inline Tensor fft_ifftshift_impl(const Tensor& self, const std::optional<std::vector<int64_t>>& dim) {
  return fft_detail::shift("fft_ifftshift", self, dim, true);
}

}  // namespace yaten::native
