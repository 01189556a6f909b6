// The element math of im2col and col2im (F.unfold and F.fold), over 1, 2 or 3 spatial dims, read by the CPU kernels
// (kernels/cpu/conv.h) and the CUDA kernels (kernels/cuda/conv.cuh) alike (Design rule [Shared element math]), so what
// one backend's tests establish holds for the other. Convolution is built on these two and matmul
// (kernels/composite/conv.h).
//
// Note [The column matrix]: for one image of C channels and spatial size in[0..D), a kernel of size k[0..D) placed
// at each of the out[0..D) output positions (stride s, padding p, dilation d) reads the columns
//     cols[r][l],  r = c * kprod + (kernel offset, row-major),  l = (output position, row-major),
//     cols[r][l] = image[c][o * s - p + kk * d]  per dim, or 0 where that falls outside the image (padding).
// col2im is its adjoint: image[c][i] is the sum of every cols[r][l] that im2col would have read from [c][i], in the
// order of the kernel offsets. CUDA computes it as a gather (each image element sums its own entries, no atomics);
// the CPU adds a channel's rows back in that same order, so both devices give the same sums.
// Both devices locate column entries through im2col_row (once per row) and im2col_line_base (per line).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"  // YATEN_HOST_DEVICE
#include "core/tensor.h"
#include "kernels/sizes_text.h"

namespace yaten::native::conv {

constexpr int kMaxSpatialDims = 3;

struct Geometry {
  int dims = 0;          // spatial dims, 1 to 3
  int64_t channels = 0;  // image channels C
  int64_t in[kMaxSpatialDims] = {1, 1, 1};  // image size
  int64_t out[kMaxSpatialDims] = {1, 1, 1};  // output positions (the column grid)
  int64_t kernel[kMaxSpatialDims] = {1, 1, 1};
  int64_t stride[kMaxSpatialDims] = {1, 1, 1};
  int64_t pad[kMaxSpatialDims] = {0, 0, 0};
  int64_t dil[kMaxSpatialDims] = {1, 1, 1};
  int64_t kprod = 1;     // kernel offsets
  int64_t in_numel = 1;  // elements of one channel of the image
  int64_t cols = 1;      // output positions L
  YATEN_HOST_DEVICE int64_t rows() const { return channels * kprod; }
  YATEN_HOST_DEVICE int64_t image_numel() const { return channels * in_numel; }
};

YATEN_HOST_DEVICE inline int64_t ceil_div_nonneg(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Note [No runtime index into a Geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// CUDA kernels take the Geometry by value, in the kernel's parameter space, and it stays there only while every
// index into its arrays is known at compile time: one loop over `d < g.dims` makes the compiler copy the whole
// struct (~190 bytes) into each thread's local memory. So the loops below run over all kMaxSpatialDims dims,
// unrolled, and skip the dims the geometry lacks, and dim_at reads a runtime dim by comparison, not by index.
#ifdef __CUDACC__
#define YATEN_UNROLL _Pragma("unroll")
#else
#define YATEN_UNROLL
#endif

template <typename T>
YATEN_HOST_DEVICE inline T dim_at(const T (&a)[kMaxSpatialDims], int d) {
  static_assert(kMaxSpatialDims == 3);
  return d == 0 ? a[0] : d == 1 ? a[1] : a[2];
}

// What one column row reads, worked out once for the whole row: its channel's first element, its kernel offset per
// dim, and along the last dim the entries j in [lo, hi) that fall inside the image (at j * stride + shift).
struct RowPlan {
  int64_t channel_offset;
  int64_t kc[kMaxSpatialDims];
  int64_t lo, hi, shift;
};

YATEN_HOST_DEVICE inline RowPlan im2col_row(const Geometry& g, int64_t row) {
  const int last = g.dims - 1;
  RowPlan r{(row / g.kprod) * g.in_numel, {0, 0, 0}, 0, 0, 0};
  int64_t k = row % g.kprod;
  YATEN_UNROLL
  for (int d = kMaxSpatialDims - 1; d >= 0; --d) {  // the last dim first
    if (d > last) continue;
    r.kc[d] = k % g.kernel[d];
    k /= g.kernel[d];
  }
  const int64_t s = dim_at(g.stride, last);
  r.shift = dim_at(r.kc, last) * dim_at(g.dil, last) - dim_at(g.pad, last);
  r.lo = r.shift >= 0 ? 0 : ceil_div_nonneg(-r.shift, s);
  const int64_t room = dim_at(g.in, last) - r.shift;  // j * s < room
  r.hi = room <= 0 ? 0 : ceil_div_nonneg(room, s);
  if (r.hi > dim_at(g.out, last)) r.hi = dim_at(g.out, last);
  if (r.hi < r.lo) r.hi = r.lo;
  return r;
}

// The offset of the image line that the row reads at output coordinates `oc` (all dims but the last), to which
// j * stride + shift is added, or -1 when that line lies in the padding.
YATEN_HOST_DEVICE inline int64_t im2col_line_base(const Geometry& g, const RowPlan& r, const int64_t* oc) {
  int64_t pos = 0;
  YATEN_UNROLL
  for (int d = 0; d < kMaxSpatialDims - 1; ++d) {
    if (d >= g.dims - 1) break;
    const int64_t i = oc[d] * g.stride[d] - g.pad[d] + r.kc[d] * g.dil[d];
    if (i < 0 || i >= g.in[d]) return -1;
    pos = pos * g.in[d] + i;
  }
  return r.channel_offset + pos * dim_at(g.in, g.dims - 1);
}

// col2im's value at image offset `index` (c * in_numel + spatial position): the sum, in acc_t and in the order of
// the kernel offsets, of the column entries that read it; `cols` is one image's (rows x cols) matrix.
template <typename acc_t, typename scalar_t>
YATEN_HOST_DEVICE acc_t col2im_value(const Geometry& g, const scalar_t* cols, int64_t index) {
  const int64_t c = index / g.in_numel;
  int64_t rest = index % g.in_numel;
  int64_t ic[kMaxSpatialDims] = {0, 0, 0};
  YATEN_UNROLL
  for (int d = kMaxSpatialDims - 1; d >= 0; --d) {
    if (d >= g.dims) continue;
    ic[d] = rest % g.in[d];
    rest /= g.in[d];
  }
  acc_t sum = acc_t(0);
  for (int64_t k = 0; k < g.kprod; ++k) {
    int64_t kk = k, col = 0, scale = 1;
    bool hit = true;
    YATEN_UNROLL
    for (int d = kMaxSpatialDims - 1; d >= 0; --d) {
      if (d >= g.dims || !hit) continue;
      const int64_t kd = kk % g.kernel[d];
      kk /= g.kernel[d];
      const int64_t at = ic[d] + g.pad[d] - kd * g.dil[d];  // = o * stride when this offset reads ic
      if (at < 0 || at % g.stride[d] != 0 || at / g.stride[d] >= g.out[d]) {
        hit = false;
      } else {
        col += (at / g.stride[d]) * scale;
        scale *= g.out[d];
      }
    }
    if (hit) sum += static_cast<acc_t>(cols[(c * g.kprod + k) * g.cols + col]);
  }
  return sum;
}

}  // namespace yaten::native::conv

// ------------------------------------------------------------------------------------------------ host: arguments
namespace yaten::native::conv {

// A per-dim parameter given once for every dim (torch's `int` for `int[2]`) or once per dim.
inline std::vector<int64_t> per_dim(const char* op, const char* name, const std::vector<int64_t>& v, int dims) {
  YATEN_CHECK(v.size() == 1 || int(v.size()) == dims, RuntimeError, op, ": expected ", name, " to have 1 or ", dims,
              " values (one per spatial dim), but got ", v.size());
  return v.size() == 1 ? std::vector<int64_t>(dims, v[0]) : v;
}

// The geometry of a kernel of `kernel_size` sliding over an image of `image` sizes, with torch's checks and
// messages. The output grid is floor((in + 2p - d(k-1) - 1) / s) + 1 per dim.
inline Geometry sliding_geometry(const char* op, int64_t channels, const std::vector<int64_t>& image,
                                 const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                                 const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  const int dims = int(kernel_size.size());
  YATEN_CHECK(dims >= 1 && dims <= kMaxSpatialDims, RuntimeError, op, ": expected kernel_size of 1 to 3 values, "
              "got ", dims);
  const auto k = per_dim(op, "kernel_size", kernel_size, dims), d = per_dim(op, "dilation", dilation, dims);
  const auto p = per_dim(op, "padding", padding, dims), s = per_dim(op, "stride", stride, dims);
  YATEN_CHECK(int(image.size()) == dims, RuntimeError, op, ": expected ", dims, " spatial sizes, got ", image.size());
  Geometry g;
  g.dims = dims;
  g.channels = channels;
  for (int i = 0; i < dims; ++i) {
    YATEN_CHECK(k[i] > 0, RuntimeError, op, ": kernel size should be greater than zero, but got kernel_size[", i,
                "] = ", k[i]);
    YATEN_CHECK(d[i] > 0, RuntimeError, op, ": dilation should be greater than zero, but got dilation[", i, "] = ",
                d[i]);
    YATEN_CHECK(s[i] > 0, RuntimeError, op, ": stride should be greater than zero, but got stride[", i, "] = ", s[i]);
    YATEN_CHECK(p[i] >= 0, RuntimeError, op, ": padding should be non-negative, but got padding[", i, "] = ", p[i]);
    YATEN_CHECK(k[i] < (int64_t(1) << 31) && d[i] < (int64_t(1) << 31) && s[i] < (int64_t(1) << 31) &&
                p[i] < (int64_t(1) << 40) && image[i] < (int64_t(1) << 40), RuntimeError, op,
                ": kernel_size, dilation, stride or padding too large");
    const int64_t span = d[i] * (k[i] - 1) + 1, padded = image[i] + 2 * p[i];
    YATEN_CHECK(padded >= span, RuntimeError, op, ": the padded input size along spatial dim ", i, " (", padded,
                ") is smaller than the dilated kernel (", span, "): the output would be empty");
    g.in[i] = image[i];
    g.kernel[i] = k[i];
    g.dil[i] = d[i];
    g.pad[i] = p[i];
    g.stride[i] = s[i];
    g.out[i] = (padded - span) / s[i] + 1;
    g.kprod = checked_mul(op, g.kprod, k[i]);
    g.in_numel = checked_mul(op, g.in_numel, image[i]);
    g.cols = checked_mul(op, g.cols, g.out[i]);
  }
  checked_mul(op, checked_mul(op, std::max<int64_t>(channels, 1), g.kprod), g.cols);  // the column matrix
  return g;
}

// im2col and col2im on a batch: N images (1 and no batch dim for an unbatched input) of one geometry.
struct ColumnsPlan {
  Geometry g;
  int64_t batch = 1;
  bool batched = false;
  std::vector<int64_t> image_shape() const {  // col2im's result, im2col's input
    std::vector<int64_t> shape;
    if (batched) shape.push_back(batch);
    shape.push_back(g.channels);
    for (int d = 0; d < g.dims; ++d) shape.push_back(g.in[d]);
    return shape;
  }
  std::vector<int64_t> columns_shape() const {  // im2col's result, col2im's input
    return batched ? std::vector<int64_t>{batch, g.rows(), g.cols} : std::vector<int64_t>{g.rows(), g.cols};
  }
};

// im2col (F.unfold): self is (N, C, *image) or (C, *image), with as many image dims as kernel_size has values.
inline ColumnsPlan im2col_plan(const Tensor& self, const std::vector<int64_t>& kernel_size,
                               const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& stride) {
  const int64_t dims = int64_t(kernel_size.size());
  YATEN_CHECK(dims >= 1 && dims <= kMaxSpatialDims, RuntimeError, "im2col: expected kernel_size of 1 to 3 values, "
              "got ", dims);
  YATEN_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, RuntimeError, "im2col: expected a ", dims + 1,
              "-D (unbatched) or ", dims + 2, "-D (batched) input for a ", dims, "-D kernel, but got input of size ",
              sizes_text(self.sizes()));
  ColumnsPlan plan;
  plan.batched = self.dim() == dims + 2;
  plan.batch = plan.batched ? self.sizes()[0] : 1;
  const int64_t first = plan.batched ? 1 : 0;
  const std::vector<int64_t> image(self.sizes().begin() + first + 1, self.sizes().end());
  plan.g = sliding_geometry("im2col", self.sizes()[first], image, kernel_size, dilation, padding, stride);
  return plan;
}

// col2im (F.fold): self is (N, C * kprod, L) or (C * kprod, L), L the number of kernel positions in output_size.
inline ColumnsPlan col2im_plan(const Tensor& self, const std::vector<int64_t>& output_size,
                               const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                               const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  YATEN_CHECK(self.dim() == 2 || self.dim() == 3, RuntimeError, "col2im: expected a 2-D (unbatched) or 3-D (batched) "
              "input, but got input of size ", sizes_text(self.sizes()));
  const int dims = int(output_size.size());
  YATEN_CHECK(dims == int(kernel_size.size()) || kernel_size.size() == 1, RuntimeError, "col2im: output_size has ",
              dims, " values but kernel_size has ", kernel_size.size());
  ColumnsPlan plan;
  plan.batched = self.dim() == 3;
  plan.batch = plan.batched ? self.sizes()[0] : 1;
  const int64_t rows = self.sizes()[plan.batched ? 1 : 0], cols = self.sizes()[plan.batched ? 2 : 1];
  plan.g = sliding_geometry("col2im", 0, output_size, per_dim("col2im", "kernel_size", kernel_size, dims), dilation,
                            padding, stride);
  YATEN_CHECK(rows % plan.g.kprod == 0, RuntimeError, "col2im: expected size of input's dimension ",
              plan.batched ? 1 : 0, " to be divisible by the product of kernel_size (", plan.g.kprod, "), but got ",
              rows);
  plan.g.channels = rows / plan.g.kprod;
  YATEN_CHECK(cols == plan.g.cols, RuntimeError, "col2im: given output_size=", sizes_text(output_size),
              " and kernel_size=", sizes_text(kernel_size), ", expected size of input's dimension ",
              plan.batched ? 2 : 1, " to match the calculated number of sliding blocks ", plan.g.cols, ", but got ",
              cols);
  return plan;
}

}  // namespace yaten::native::conv
