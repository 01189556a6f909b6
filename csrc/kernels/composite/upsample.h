// Resampling for every device: upsample_nearest1d/2d/3d (torch's 'nearest' and 'nearest-exact'),
// upsample_linear1d, upsample_bilinear2d (upsample_nearest2d and upsample_bilinear2d on CUDA; the CPU runs their
// passes as one: kernels/cpu/upsample.h),
// upsample_trilinear3d and upsample_bicubic2d, one dim at a time: nearest is
// an index_select by each output position's source; linear blends two index_selects by each position's weight
// (lerp); cubic sums four, weighted by Keys' cubic convolution kernel. Source positions
// and weights are computed on the host, in torch's precision (float for float32 and narrower, double for float64),
// by torch's rules. Gradients come from index_select and lerp, so gradients of gradients follow.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/lerp.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/reshape.h"

namespace yaten::native {

namespace upsample_detail {
// The sizes of the resampled dims, checked as torch checks them.
// Nearest modes take uint8 images too (`uint8_ok`), as torch's do.
inline void check(const char* op, const Tensor& self, const std::vector<int64_t>& output_size, int dims,
                  bool uint8_ok = false) {
  YATEN_CHECK(int(output_size.size()) == dims, RuntimeError, op, ": It is expected output_size equals to ", dims,
              ", but got size ", output_size.size());
  YATEN_CHECK(self.dim() == dims + 2, RuntimeError, op, ": expected a ", dims + 2, "-D input (N, C, ", dims,
              " spatial dims), but got input of size ", sizes_text(self.sizes()));
  for (int i = 0; i < dims; ++i) {
    YATEN_CHECK(self.sizes()[2 + i] > 0 && output_size[i] > 0, RuntimeError, op, ": Input and output sizes should be "
                "greater than 0, but got input ", sizes_text(self.sizes()), " and output ", sizes_text(output_size));
  }
  YATEN_CHECK(is_floating_point(self.dtype()) || (uint8_ok && self.dtype() == ScalarType::Byte), NotImplementedError,
              op, ": not implemented for ", dtype_name(self.dtype()),
              uint8_ok ? " (floating dtypes and uint8 only)" : " (floating dtypes only)");
}

inline Tensor on_device(const Tensor& cpu, const Tensor& like) {
  return like.device().is_cpu() ? cpu : yaten::_to_copy(cpu, cpu.dtype(), like.device());
}

// torch's area_pixel_compute_scale: in/out, or 1/scale when the caller gave the scale factor; (in-1)/(out-1) with
// align_corners.
template <typename T>
T scale_of(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? T(in - 1) / T(out - 1) : T(0);
  return scale && *scale > 0 ? T(1.0 / *scale) : T(in) / T(out);
}

// Nearest along one dim of `in` -> `out` positions: output j reads source index[j] (torch's 'nearest', or with
// `exact` its 'nearest-exact', pixel centers aligned).
inline std::vector<int64_t> nearest_index(int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  std::vector<int64_t> index(static_cast<size_t>(out));
  const float s = scale_of<float>(in, out, false, scale);
  for (int64_t j = 0; j < out; ++j) {
    const int64_t src = exact ? int64_t(std::floor((float(j) + 0.5f) * s)) : int64_t(std::floor(float(j) * s));
    index[size_t(j)] = src < in - 1 ? src : in - 1;
  }
  return index;
}

inline Tensor index_tensor(const std::vector<int64_t>& index, const Tensor& like) {
  Tensor t = yaten::empty({int64_t(index.size())}, ScalarType::Long, Device(DeviceType::CPU));
  std::copy(index.begin(), index.end(), t.data<int64_t>());
  return on_device(t, like);
}

// Per-position weights of dim d as a tensor on x's device in x's dtype, shaped to broadcast along dim d.
template <typename T>
Tensor weight_tensor(const std::vector<T>& w, const Tensor& x, int64_t d) {
  Tensor t = yaten::empty({int64_t(w.size())}, scalar_type_of<T>, Device(DeviceType::CPU));
  std::copy(w.begin(), w.end(), t.data<T>());
  std::vector<int64_t> shape(size_t(x.dim()), 1);
  shape[size_t(d)] = int64_t(w.size());
  Tensor weight = yaten::reshape(on_device(t, x), shape);
  return weight.dtype() == x.dtype() ? weight : yaten::_to_copy(weight, x.dtype(), std::nullopt);
}

// The sum over taps k, in order, of index_select(x, d, index[k]) * weight[k] (cubic and antialiased resampling).
template <typename T>
Tensor sum_of_taps(const Tensor& x, int64_t d, const std::vector<std::vector<int64_t>>& index,
                   const std::vector<std::vector<T>>& weight) {
  Tensor sum;
  for (size_t k = 0; k < index.size(); ++k) {
    const Tensor taken = yaten::index_select(x, d, index_tensor(index[k], x));
    const Tensor term = yaten::mul(taken, weight_tensor(weight[k], x, d));
    sum = k == 0 ? term : yaten::add(sum, term, Scalar(int64_t(1)));
  }
  return sum;
}

// Keys' cubic convolution kernel with parameter a, for |t| <= 1 and for 1 < |t| < 2.
template <typename T>
T keys_near(T t, T a) {
  return ((a + T(2)) * t - (a + T(3))) * t * t + T(1);
}
template <typename T>
T keys_far(T t, T a) {
  return ((a * t - T(5) * a) * t + T(8) * a) * t - T(4) * a;
}

inline Tensor nearest_dim(const Tensor& x, int64_t d, int64_t out, std::optional<double> scale, bool exact) {
  return yaten::index_select(x, d, index_tensor(nearest_index(x.sizes()[d], out, scale, exact), x));
}

// The gradient of `nearest`'s input (of sizes input_sizes): each dim's index_select undone, in reverse.
inline Tensor nearest_backward(const Tensor& grad, const std::vector<int64_t>& input_sizes,
                               const std::vector<std::optional<double>>& scales, bool exact) {
  Tensor g = grad;
  for (int i = int(scales.size()) - 1; i >= 0; --i) {
    const int64_t d = 2 + i;
    std::vector<int64_t> sizes = g.sizes();
    sizes[size_t(d)] = input_sizes[size_t(d)];
    const auto index = nearest_index(input_sizes[size_t(d)], g.sizes()[size_t(d)], scales[size_t(i)], exact);
    g = autograd::index_select_backward(g, sizes, d, index_tensor(index, g));
  }
  return g;
}

// Linear interpolation along one dim of `in` -> `out` positions: output j blends sources i0[j] and i1[j] by w[j]
// (lerp). T: double for float64 inputs, float otherwise (torch's opmath for the source positions and weights).
template <typename T>
struct LinearTaps {
  std::vector<int64_t> i0, i1;
  std::vector<T> w;
};

template <typename T>
LinearTaps<T> linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  LinearTaps<T> taps{std::vector<int64_t>(size_t(out)), std::vector<int64_t>(size_t(out)), std::vector<T>(size_t(out))};
  const T s = scale_of<T>(in, out, align_corners, scale);
  for (int64_t j = 0; j < out; ++j) {
    T src = align_corners ? s * T(j) : s * (T(j) + T(0.5)) - T(0.5);
    if (src < T(0)) src = T(0);
    const int64_t lo = int64_t(src) < in - 1 ? int64_t(src) : in - 1;
    taps.i0[size_t(j)] = lo;
    taps.i1[size_t(j)] = lo < in - 1 ? lo + 1 : lo;
    taps.w[size_t(j)] = src - T(lo);
  }
  return taps;
}

// The taps as tensors on x's device: the two indices, and the weights shaped to broadcast along dim d in x's dtype.
struct LinearTapTensors {
  Tensor i0, i1, weight;
};

template <typename T>
LinearTapTensors linear_tap_tensors(const Tensor& x, int64_t d, const LinearTaps<T>& taps) {
  return {index_tensor(taps.i0, x), index_tensor(taps.i1, x), weight_tensor(taps.w, x, d)};
}

template <typename T>
Tensor linear_dim(const Tensor& x, int64_t d, int64_t out, bool align_corners, std::optional<double> scale) {
  const LinearTapTensors t = linear_tap_tensors(x, d, linear_taps<T>(x.sizes()[d], out, align_corners, scale));
  return yaten::lerp(yaten::index_select(x, d, t.i0), yaten::index_select(x, d, t.i1), t.weight);
}

// The gradient of linear_dim's input: each output's gradient goes back to its two sources, times 1 - w and w.
template <typename T>
Tensor linear_dim_backward(const Tensor& grad, int64_t d, int64_t in, bool align_corners, std::optional<double> scale) {
  const LinearTapTensors t = linear_tap_tensors(grad, d, linear_taps<T>(in, grad.sizes()[d], align_corners, scale));
  std::vector<int64_t> sizes = grad.sizes();
  sizes[size_t(d)] = in;
  return yaten::add(autograd::index_select_backward(yaten::mul(grad, autograd::one_minus(t.weight)), sizes, d, t.i0),
                    autograd::index_select_backward(yaten::mul(grad, t.weight), sizes, d, t.i1), Scalar(int64_t(1)));
}

// Bicubic, one dim: out[j] = sum over k of w_k(t) * x[clamp(floor(src) - 1 + k)], k = 0..3, where src is the source
// position (torch's, not clamped at 0 for cubic), t its fraction and w Keys' kernel with a = -0.75, as torch's
// upsample_bicubic2d (which sums the same 16 products of the two dims at once).
template <typename T>
Tensor cubic_dim(const Tensor& x, int64_t d, int64_t out, bool align_corners, std::optional<double> scale) {
  const int64_t in = x.sizes()[d];
  const T s = scale_of<T>(in, out, align_corners, scale);
  const T a = T(-0.75);
  const size_t n_out = static_cast<size_t>(out);
  std::vector<std::vector<int64_t>> index(4, std::vector<int64_t>(n_out));
  std::vector<std::vector<T>> weight(4, std::vector<T>(n_out));
  for (int64_t j = 0; j < out; ++j) {
    const T src = align_corners ? s * T(j) : s * (T(j) + T(0.5)) - T(0.5);
    const T floor = std::floor(src);
    const T t = src - floor;
    const T w[4] = {keys_far(t + T(1), a), keys_near(t, a), keys_near(T(1) - t, a), keys_far(T(2) - t, a)};
    for (int k = 0; k < 4; ++k) {
      const int64_t at = int64_t(floor) - 1 + k;
      index[size_t(k)][size_t(j)] = at < 0 ? 0 : at > in - 1 ? in - 1 : at;
      weight[size_t(k)][size_t(j)] = w[k];
    }
  }
  return sum_of_taps(x, d, index, weight);
}

// Note [Antialiased resampling]: torch's antialias=True (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa, as
// Pillow resizes). Output j of a dim is centered at c = scale * (j + 0.5) of the input; when shrinking
// (scale >= 1) the filter (the triangle 1 - |t| for bilinear, Keys' cubic with a = -0.5 for bicubic) is stretched by
// the scale, so every input under it contributes: the taps are the inputs i in [floor(c - support + 0.5),
// floor(c + support + 0.5)) within the image, support = scale * (taps / 2) (or taps / 2 when growing), each weighted
// by filter((i - c + 0.5) / scale), the weights normalized to sum to 1. One dim at a time, the last dim first as
// torch's CPU kernel; each output is the sum over its taps in order (index_selects times weights), so the
// gradient follows from the ops.
template <typename T>
Tensor antialiased_dim(const Tensor& x, int64_t d, int64_t out, bool align_corners, std::optional<double> scale,
                       bool cubic) {
  const int64_t in = x.sizes()[d];
  const T s = scale_of<T>(in, out, align_corners, scale);
  const T half = cubic ? T(2) : T(1);  // the filter's half-width in taps
  const T support = s >= T(1) ? half * s : half;
  const T invscale = s >= T(1) ? T(1) / s : T(1);
  const int64_t width = int64_t(std::ceil(support)) * 2 + 1;  // the most taps an output can have
  const auto filter = [&](T t) {
    t = std::abs(t);
    if (!cubic) return t < T(1) ? T(1) - t : T(0);
    return t < T(1) ? keys_near(t, T(-0.5)) : t < T(2) ? keys_far(t, T(-0.5)) : T(0);
  };
  std::vector<int64_t> first(static_cast<size_t>(out)), count(static_cast<size_t>(out));
  std::vector<T> weights(static_cast<size_t>(out * width), T(0));
  for (int64_t j = 0; j < out; ++j) {
    const T center = s * (T(j) + T(0.5));
    const int64_t lo = std::max<int64_t>(int64_t(center - support + T(0.5)), 0);
    const int64_t n = std::clamp<int64_t>(std::min<int64_t>(int64_t(center + support + T(0.5)), in) - lo, 0, width);
    T total = T(0);
    for (int64_t k = 0; k < n; ++k) {
      const T w = filter((T(k + lo) - center + T(0.5)) * invscale);
      weights[size_t(j * width + k)] = w;
      total += w;
    }
    if (total != T(0)) {
      for (int64_t k = 0; k < n; ++k) weights[size_t(j * width + k)] /= total;
    }
    first[size_t(j)] = lo;
    count[size_t(j)] = n;
  }
  // Tap k of every output (past an output's taps: its first input, weight 0), up to the most taps any has.
  const int64_t taps = out > 0 ? *std::max_element(count.begin(), count.end()) : 0;
  const size_t n_taps = static_cast<size_t>(taps), n_out = static_cast<size_t>(out);
  std::vector<std::vector<int64_t>> index(n_taps, std::vector<int64_t>(n_out));
  std::vector<std::vector<T>> weight(n_taps, std::vector<T>(n_out, T(0)));
  for (int64_t k = 0; k < taps; ++k) {
    for (int64_t j = 0; j < out; ++j) {
      const bool tap = k < count[size_t(j)];
      index[size_t(k)][size_t(j)] = tap ? first[size_t(j)] + k : first[size_t(j)];
      if (tap) weight[size_t(k)][size_t(j)] = weights[size_t(j * width + k)];
    }
  }
  return sum_of_taps(x, d, index, weight);
}

inline Tensor antialiased(const char* op, const Tensor& self, const std::vector<int64_t>& output_size,
                          bool align_corners, const std::vector<std::optional<double>>& scales, bool cubic) {
  check(op, self, output_size, 2);
  Tensor out = self;
  for (int i = 1; i >= 0; --i) {
    out = self.dtype() == ScalarType::Double
              ? antialiased_dim<double>(out, 2 + i, output_size[size_t(i)], align_corners, scales[size_t(i)], cubic)
              : antialiased_dim<float>(out, 2 + i, output_size[size_t(i)], align_corners, scales[size_t(i)], cubic);
  }
  return out;
}

inline Tensor nearest(const char* op, const Tensor& self, const std::vector<int64_t>& output_size,
                      const std::vector<std::optional<double>>& scales, bool exact) {
  const int dims = int(scales.size());
  check(op, self, output_size, dims, /*uint8_ok=*/true);
  Tensor out = self;
  for (int i = 0; i < dims; ++i) out = nearest_dim(out, 2 + i, output_size[i], scales[i], exact);
  return out;
}

inline Tensor linear(const char* op, const Tensor& self, const std::vector<int64_t>& output_size, bool align_corners,
                     const std::vector<std::optional<double>>& scales) {
  const int dims = int(scales.size());
  check(op, self, output_size, dims);
  Tensor out = self;
  for (int i = 0; i < dims; ++i) {
    out = self.dtype() == ScalarType::Double ? linear_dim<double>(out, 2 + i, output_size[i], align_corners, scales[i])
                                             : linear_dim<float>(out, 2 + i, output_size[i], align_corners, scales[i]);
  }
  return out;
}

// The gradient of `linear`'s input (of sizes input_sizes): linear_dim_backward over the dims in reverse.
inline Tensor linear_backward(const Tensor& grad, const std::vector<int64_t>& input_sizes, bool align_corners,
                              const std::vector<std::optional<double>>& scales) {
  Tensor g = grad;
  for (int i = int(scales.size()) - 1; i >= 0; --i) {
    const int64_t d = 2 + i, in = input_sizes[size_t(d)];
    g = grad.dtype() == ScalarType::Double ? linear_dim_backward<double>(g, d, in, align_corners, scales[size_t(i)])
                                           : linear_dim_backward<float>(g, d, in, align_corners, scales[size_t(i)]);
  }
  return g;
}
}  // namespace upsample_detail

inline Tensor upsample_nearest1d_impl(const Tensor& self, const std::vector<int64_t>& output_size,
                                      std::optional<double> scales) {
  return upsample_detail::nearest("upsample_nearest1d", self, output_size, {scales}, false);
}
inline Tensor upsample_nearest3d_impl(const Tensor& self, const std::vector<int64_t>& output_size,
                                      std::optional<double> scales_d, std::optional<double> scales_h,
                                      std::optional<double> scales_w) {
  return upsample_detail::nearest("upsample_nearest3d", self, output_size, {scales_d, scales_h, scales_w}, false);
}
inline Tensor upsample_linear1d_impl(const Tensor& self, const std::vector<int64_t>& output_size, bool align_corners,
                                     std::optional<double> scales) {
  return upsample_detail::linear("upsample_linear1d", self, output_size, align_corners, {scales});
}
inline Tensor upsample_bicubic2d_impl(const Tensor& self, const std::vector<int64_t>& output_size, bool align_corners,
                                      std::optional<double> scales_h, std::optional<double> scales_w) {
  upsample_detail::check("upsample_bicubic2d", self, output_size, 2);
  const std::optional<double> scales[2] = {scales_h, scales_w};
  Tensor out = self;
  for (int i = 0; i < 2; ++i) {
    out = self.dtype() == ScalarType::Double
              ? upsample_detail::cubic_dim<double>(out, 2 + i, output_size[i], align_corners, scales[i])
              : upsample_detail::cubic_dim<float>(out, 2 + i, output_size[i], align_corners, scales[i]);
  }
  return out;
}
inline Tensor _upsample_bilinear2d_aa_impl(const Tensor& self, const std::vector<int64_t>& output_size,
                                          bool align_corners, std::optional<double> scales_h,
                                          std::optional<double> scales_w) {
  return upsample_detail::antialiased("_upsample_bilinear2d_aa", self, output_size, align_corners,
                                      {scales_h, scales_w}, false);
}
inline Tensor _upsample_bicubic2d_aa_impl(const Tensor& self, const std::vector<int64_t>& output_size,
                                         bool align_corners, std::optional<double> scales_h,
                                         std::optional<double> scales_w) {
  return upsample_detail::antialiased("_upsample_bicubic2d_aa", self, output_size, align_corners,
                                      {scales_h, scales_w}, true);
}
inline Tensor upsample_trilinear3d_impl(const Tensor& self, const std::vector<int64_t>& output_size,
                                        bool align_corners, std::optional<double> scales_d,
                                        std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample_detail::linear("upsample_trilinear3d", self, output_size, align_corners,
                                 {scales_d, scales_h, scales_w});
}

}  // namespace yaten::native
