// The element math of pooling over 1 to 3 spatial dims (max with indices, average, adaptive average) and of the
// average poolings' backwards, read by the CPU kernels (kernels/cpu/pool/) and the CUDA kernels
// (kernels/cuda/pool.cuh) alike (Design rule [Shared element math]). Every function computes one output element of one
// plane (one channel of one image) from that plane alone, in a fixed order, so both devices give the same bits.
//
// Note [Pooling windows]: output position o covers input positions o * s - p + j * d (j < k) along each dim, clipped
// to the image. max_pool takes the largest value, NaN winning, and the flat index of its position within the plane
// (torch's indices); its backward adds each gradient at its index (a scatter_add, kernels/composite/pool.h).
// avg_pool divides the window's sum by the window's size counted up to the padded edge (count_include_pad), by the
// image elements in it (count_include_pad=False), or by divisor_override. adaptive_avg_pool's window along a dim of
// in -> out is [floor(o * in / out), ceil((o + 1) * in / out)). The backwards gather: each input element sums the
// gradients of the windows that hold it, each divided as its forward divided.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"  // YATEN_HOST_DEVICE
#include "core/tensor.h"
#include "kernels/sizes_text.h"

namespace yaten::native::pool {

// Always three dims: a 1-D or 2-D pooling has leading dims of size 1 (kernel 1, stride 1, no padding), so every
// window is a triple loop without divisions.
struct Geometry {
  int dims = 0;  // the op's spatial dims; the last `dims` of the three below are real
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dil[3] = {1, 1, 1};
  int64_t in_numel = 1, out_numel = 1;  // per plane
};

YATEN_HOST_DEVICE inline void split(int64_t flat, const int64_t* sizes, int64_t* c) {
  c[2] = flat % sizes[2];
  flat /= sizes[2];
  c[1] = flat % sizes[1];
  c[0] = flat / sizes[1];
}

YATEN_HOST_DEVICE inline int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// The kernel taps j (0 <= j < k) whose position start + j * dil lies in [0, in): [lo, hi).
YATEN_HOST_DEVICE inline void tap_range(int64_t start, int64_t k, int64_t dil, int64_t in, int64_t* lo, int64_t* hi) {
  if (dil == 1) {
    *lo = start < 0 ? -start : 0;
    *hi = in - start < k ? in - start : k;
  } else {
    *lo = ceil_div(-start, dil);
    const int64_t h = ceil_div(in - start, dil);
    *hi = h < k ? h : k;
  }
}

// max_pool's window of output position od along dim d: its first position `start` and the taps [lo, hi) inside
// the image.
struct MaxDim {
  int64_t start, lo, hi;
};

YATEN_HOST_DEVICE inline MaxDim max_dim(const Geometry& g, int d, int64_t od) {
  MaxDim w;
  w.start = od * g.stride[d] - g.pad[d];
  tap_range(w.start, g.kernel[d], g.dil[d], g.in[d], &w.lo, &w.hi);
  return w;
}

// max_pool's rule for one tap: a larger value or any NaN replaces the best so far. A select, not a branch: on
// random data a branch would mispredict often, and the CPU's row loop (Note [max_pool's rows]) vectorizes it.
template <typename acc_t>
YATEN_HOST_DEVICE inline bool max_takes(acc_t v, acc_t best) {
  return v > best || v != v;
}

// max_pool's starting value: -inf, or an integer type's lowest value (torch pools integers too).
template <typename acc_t>
YATEN_HOST_DEVICE constexpr acc_t max_start() {
  if constexpr (std::numeric_limits<acc_t>::has_infinity) {
    return -std::numeric_limits<acc_t>::infinity();
  } else {
    return std::numeric_limits<acc_t>::lowest();
  }
}

// The largest value of the window `w` (one MaxDim per dim) in `plane` and the flat index of its position in the
// plane, in torch's order and rule: -inf at the first in-image position to start, then each tap in order, row-major,
// replaces it when max_takes.
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE void max_over(const Geometry& g, const scalar_t* plane, const MaxDim* w, acc_t* value,
                                int64_t* index) {
  acc_t best = max_start<acc_t>();
  int64_t at = ((w[0].start + w[0].lo * g.dil[0]) * g.in[1] + w[1].start + w[1].lo * g.dil[1]) * g.in[2] +
               w[2].start + w[2].lo * g.dil[2];
  for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
    const int64_t i0 = w[0].start + a * g.dil[0];
    for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
      const int64_t row = (i0 * g.in[1] + w[1].start + b * g.dil[1]) * g.in[2] + w[2].start;
      for (int64_t c = w[2].lo; c < w[2].hi; ++c) {
        const int64_t pos = row + c * g.dil[2];
        const acc_t v = static_cast<acc_t>(plane[pos]);
        const bool take = max_takes(v, best);
        best = take ? v : best;
        at = take ? pos : at;
      }
    }
  }
  *value = best;
  *index = at;
}

// max_pool's output `o` (flat in the plane): CUDA's element; the CPU calls max_over a row at a time.
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE void max_window(const Geometry& g, const scalar_t* plane, int64_t o, acc_t* value, int64_t* index) {
  int64_t oc[3];
  split(o, g.out, oc);
  const MaxDim w[3] = {max_dim(g, 0, oc[0]), max_dim(g, 1, oc[1]), max_dim(g, 2, oc[2])};
  max_over<acc_t>(g, plane, w, value, index);
}

// avg_pool's window of output position `o` along dim d: [start, end) up to the padded edge, [lo, hi) clipped to the
// image; the divisor is the product over dims of (end - start), of (hi - lo), or divisor_override.
struct AvgDim {
  int64_t lo, hi, padded;
};

YATEN_HOST_DEVICE inline AvgDim avg_dim(const Geometry& g, int d, int64_t od) {
  const int64_t start = od * g.stride[d] - g.pad[d];
  const int64_t end = start + g.kernel[d] < g.in[d] + g.pad[d] ? start + g.kernel[d] : g.in[d] + g.pad[d];
  return AvgDim{start > 0 ? start : 0, end < g.in[d] ? end : g.in[d], end - start};
}

YATEN_HOST_DEVICE inline int64_t avg_divisor(const AvgDim* w, bool count_include_pad, int64_t divisor_override) {
  if (divisor_override != 0) return divisor_override;
  int64_t n = 1;
  for (int d = 0; d < 3; ++d) n *= count_include_pad ? w[d].padded : w[d].hi - w[d].lo;
  return n;
}

// The mean of the window `w` (one AvgDim per dim) in `plane`.
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t avg_over(const Geometry& g, const scalar_t* plane, const AvgDim* w, bool count_include_pad,
                                 int64_t divisor_override) {
  acc_t sum = acc_t(0);
  for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
    for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
      const scalar_t* row = plane + (a * g.in[1] + b) * g.in[2];
      for (int64_t c = w[2].lo; c < w[2].hi; ++c) sum += static_cast<acc_t>(row[c]);
    }
  }
  return sum / static_cast<acc_t>(avg_divisor(w, count_include_pad, divisor_override));
}

// avg_pool's output `o` (flat in the plane): CUDA's element; the CPU calls avg_over a row at a time.
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t avg_value(const Geometry& g, const scalar_t* plane, int64_t o, bool count_include_pad,
                                  int64_t divisor_override) {
  int64_t oc[3];
  split(o, g.out, oc);
  const AvgDim w[3] = {avg_dim(g, 0, oc[0]), avg_dim(g, 1, oc[1]), avg_dim(g, 2, oc[2])};
  return avg_over<acc_t>(g, plane, w, count_include_pad, divisor_override);
}

// avg_pool's backward at input position `i`: the sum of grad[o] / divisor(o) over the windows o that hold it
// (o * s - p <= i < o * s - p + k along each dim).
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t avg_backward_value(const Geometry& g, const scalar_t* grad_plane, int64_t i,
                                           bool count_include_pad, int64_t divisor_override) {
  int64_t ic[3], lo[3], hi[3];
  split(i, g.in, ic);
  for (int d = 0; d < 3; ++d) {
    lo[d] = ceil_div(ic[d] + g.pad[d] - g.kernel[d] + 1, g.stride[d]);
    hi[d] = (ic[d] + g.pad[d]) / g.stride[d] + 1;
    if (hi[d] > g.out[d]) hi[d] = g.out[d];
  }
  acc_t sum = acc_t(0);
  AvgDim w[3];
  for (int64_t a = lo[0]; a < hi[0]; ++a) {
    w[0] = avg_dim(g, 0, a);
    for (int64_t b = lo[1]; b < hi[1]; ++b) {
      w[1] = avg_dim(g, 1, b);
      for (int64_t c = lo[2]; c < hi[2]; ++c) {
        w[2] = avg_dim(g, 2, c);
        sum += static_cast<acc_t>(grad_plane[(a * g.out[1] + b) * g.out[2] + c]) /
               static_cast<acc_t>(avg_divisor(w, count_include_pad, divisor_override));
      }
    }
  }
  return sum;
}

// adaptive_avg_pool: output position o's window along a dim of size in -> out.
YATEN_HOST_DEVICE inline int64_t adaptive_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
YATEN_HOST_DEVICE inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t adaptive_avg_value_at(const Geometry& g, const scalar_t* plane, const int64_t* oc) {
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = adaptive_start(oc[d], g.in[d], g.out[d]);
    hi[d] = adaptive_end(oc[d], g.in[d], g.out[d]);
  }
  acc_t sum = acc_t(0);
  for (int64_t a = lo[0]; a < hi[0]; ++a) {
    for (int64_t b = lo[1]; b < hi[1]; ++b) {
      const scalar_t* row = plane + (a * g.in[1] + b) * g.in[2];
      for (int64_t c = lo[2]; c < hi[2]; ++c) sum += static_cast<acc_t>(row[c]);
    }
  }
  return sum / static_cast<acc_t>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
}

template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t adaptive_avg_value(const Geometry& g, const scalar_t* plane, int64_t o) {
  int64_t oc[3];
  split(o, g.out, oc);
  return adaptive_avg_value_at<acc_t>(g, plane, oc);
}

// adaptive_avg_pool's backward at input position i: the windows o holding it are those with
// floor(i * out / in) <= o <= ceil((i + 1) * out / in) - 1 (each checked again against its own bounds).
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t adaptive_avg_backward_value(const Geometry& g, const scalar_t* grad_plane, int64_t i) {
  int64_t ic[3], lo[3], hi[3];
  split(i, g.in, ic);
  for (int d = 0; d < 3; ++d) {
    lo[d] = (ic[d] * g.out[d]) / g.in[d];
    hi[d] = ((ic[d] + 1) * g.out[d] + g.in[d] - 1) / g.in[d];
    if (hi[d] > g.out[d]) hi[d] = g.out[d];
  }
  acc_t sum = acc_t(0);
  for (int64_t a = lo[0]; a < hi[0]; ++a) {
    const int64_t s0 = adaptive_start(a, g.in[0], g.out[0]), e0 = adaptive_end(a, g.in[0], g.out[0]);
    if (ic[0] < s0 || ic[0] >= e0) continue;
    for (int64_t b = lo[1]; b < hi[1]; ++b) {
      const int64_t s1 = adaptive_start(b, g.in[1], g.out[1]), e1 = adaptive_end(b, g.in[1], g.out[1]);
      if (ic[1] < s1 || ic[1] >= e1) continue;
      for (int64_t c = lo[2]; c < hi[2]; ++c) {
        const int64_t s2 = adaptive_start(c, g.in[2], g.out[2]), e2 = adaptive_end(c, g.in[2], g.out[2]);
        if (ic[2] < s2 || ic[2] >= e2) continue;
        sum += static_cast<acc_t>(grad_plane[(a * g.out[1] + b) * g.out[2] + c]) /
               static_cast<acc_t>((e0 - s0) * (e1 - s1) * (e2 - s2));
      }
    }
  }
  return sum;
}

// ------------------------------------------------------------------------------------------------ host: arguments

// A pooling op's input: (N, C, *image) or (C, *image), as planes of the image's size.
struct Plan {
  Geometry g;
  int64_t planes = 0;
  std::vector<int64_t> out_shape;  // the input's leading dims, then g.out
};

inline Plan plan_input(const char* op, const Tensor& self, int dims) {
  YATEN_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, RuntimeError, op, ": Expected ", dims + 1,
              "D or ", dims + 2, "D (batch mode) tensor for input, but got input of size ", sizes_text(self.sizes()));
  for (int64_t i = 1; i < self.dim(); ++i) {
    YATEN_CHECK(self.sizes()[i] > 0, RuntimeError, op, ": Expected input's non-batch dimensions to have positive "
                "length, but input has a shape of ", sizes_text(self.sizes()), " and non-zero size is expected for ",
                "dimension ", i);
  }
  Plan plan;
  plan.g.dims = dims;
  plan.planes = 1;
  const int64_t lead = self.dim() - dims;
  for (int64_t i = 0; i < lead; ++i) {
    plan.planes *= self.sizes()[i];
    plan.out_shape.push_back(self.sizes()[i]);
  }
  for (int d = 0; d < dims; ++d) {
    plan.g.in[3 - dims + d] = self.sizes()[lead + d];
    plan.g.in_numel *= self.sizes()[lead + d];
  }
  return plan;
}

inline std::vector<int64_t> per_dim(const char* op, const char* name, const std::vector<int64_t>& v, int dims,
                                    const std::vector<int64_t>& fallback) {
  if (v.empty()) return fallback;
  YATEN_CHECK(v.size() == 1 || int(v.size()) == dims, RuntimeError, op, ": ", name, " must either be a single int, "
              "or a tuple of ", dims, " ints");
  return v.size() == 1 ? std::vector<int64_t>(dims, v[0]) : v;
}

// max_pool / avg_pool: kernel, stride (the kernel when empty), padding, dilation per dim, torch's output size rule
// (ceil_mode keeps a last window only if it starts inside the image or its left padding) and torch's checks.
inline Plan window_plan(const char* op, const Tensor& self, int dims, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, bool ceil_mode) {
  YATEN_CHECK(!kernel_size.empty(), RuntimeError, op, ": kernel_size must either be a single int, or a tuple of ",
              dims, " ints");
  const auto k = per_dim(op, "kernel_size", kernel_size, dims, {});
  const auto s = per_dim(op, "stride", stride, dims, k);
  const auto p = per_dim(op, "padding", padding, dims, std::vector<int64_t>(dims, 0));
  const auto d = per_dim(op, "dilation", dilation, dims, std::vector<int64_t>(dims, 1));
  Plan plan = plan_input(op, self, dims);
  Geometry& g = plan.g;
  for (int i = 0; i < dims; ++i) {
    YATEN_CHECK(k[i] > 0, RuntimeError, op, ": kernel_size should be greater than zero, but got ",
                sizes_text(k));
    YATEN_CHECK(s[i] > 0, RuntimeError, op, ": stride should be greater than zero, but got ", sizes_text(s));
    YATEN_CHECK(d[i] > 0, RuntimeError, op, ": dilation should be greater than zero, but got ", sizes_text(d));
    YATEN_CHECK(p[i] >= 0 && p[i] <= k[i] / 2, RuntimeError, op, ": pad should be at most half of effective kernel "
                "size, but got pad=", p[i], ", kernel_size=", k[i], " and dilation=", d[i]);
    YATEN_CHECK(k[i] < (int64_t(1) << 31) && s[i] < (int64_t(1) << 31) && d[i] < (int64_t(1) << 31),
                RuntimeError, op, ": kernel_size, stride or dilation too large");
    const int64_t in = g.in[3 - dims + i];
    const int64_t span = d[i] * (k[i] - 1) + 1, room = in + 2 * p[i] - span;
    int64_t out = room < 0 ? 0 : (ceil_mode ? (room + s[i] - 1) / s[i] : room / s[i]) + 1;
    if (ceil_mode && out > 0 && (out - 1) * s[i] >= in + p[i]) --out;
    YATEN_CHECK(out > 0, RuntimeError, op, ": Given input size ", sizes_text(self.sizes()), ", the calculated "
                "output size along spatial dim ", i, " is ", out, ": output size is too small");
    const int j = 3 - dims + i;
    g.kernel[j] = k[i];
    g.stride[j] = s[i];
    g.pad[j] = p[i];
    g.dil[j] = d[i];
    g.out[j] = out;
    g.out_numel *= out;
    plan.out_shape.push_back(out);
  }
  return plan;
}

inline Plan adaptive_plan(const char* op, const Tensor& self, int dims, const std::vector<int64_t>& output_size) {
  YATEN_CHECK(int(output_size.size()) == dims, RuntimeError, op, ": output_size must be ", dims, " ints, got ",
              sizes_text(output_size));
  Plan plan = plan_input(op, self, dims);
  for (int d = 0; d < dims; ++d) {
    YATEN_CHECK(output_size[d] >= 0, RuntimeError, op, ": elements of output_size must be greater than or equal to 0"
                " but received ", sizes_text(output_size));
    plan.g.out[3 - dims + d] = output_size[d];
    plan.g.out_numel *= output_size[d];
    plan.out_shape.push_back(output_size[d]);
  }
  return plan;
}

inline int64_t divisor_of(const char* op, std::optional<int64_t> divisor_override) {
  YATEN_CHECK(!divisor_override || *divisor_override != 0, RuntimeError, op, ": divisor must be not zero");
  return divisor_override ? *divisor_override : 0;
}

// A backward's grad_output must have the forward's output shape for `self`.
// A backward's grad_output: the forward's output size, and the input's dtype and device (the kernel reads both as
// the input's type; called by name, the op has no autograd in front of it to promise either).
inline void check_grad_shape(const char* op, const Tensor& grad_output, const Plan& plan, const Tensor& self) {
  YATEN_CHECK(grad_output.sizes() == plan.out_shape, RuntimeError, op, ": expected grad_output of size ",
              sizes_text(plan.out_shape), ", but got ", sizes_text(grad_output.sizes()));
  YATEN_CHECK(grad_output.dtype() == self.dtype() && grad_output.device() == self.device(), RuntimeError, op,
              ": expected grad_output of the input's dtype and device (", dtype_name(self.dtype()), " on ",
              self.device().str(), "), but got ", dtype_name(grad_output.dtype()), " on ",
              grad_output.device().str());
}

}  // namespace yaten::native::pool
