// CPU im2col and col2im (F.unfold, F.fold), the two kernels convolution is made of (kernels/composite/conv.h), and
// convolution's forward at stride 1 without columns (Note [Convolution on the CPU]; 3x3 kernels by Winograd's
// F(2x2, 3x3), kernels/cpu/conv_winograd.h).
// Which image element each column entry reads is decided by kernels/conv_math.h, which CUDA shares: im2col fills
// one line of output positions at a time (a plain copy at stride 1, zeros where the kernel hangs over the
// padding); col2im adds the lines back in the order in which CUDA's gather sums, so both devices sum alike.
#pragma once

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/blas.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/composite/conv.h"
#include "kernels/cpu/conv_winograd.h"
#include "kernels/conv_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/flip.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/zeros.h"

namespace yaten::native::cpu {

namespace conv_detail {
// Calls fn(output coordinates of all dims but the last) for every line of output positions, in row-major order.
template <typename Fn>
void for_each_line(const conv::Geometry& g, Fn&& fn) {
  int64_t oc[conv::kMaxSpatialDims] = {0, 0, 0};
  const int64_t o0 = g.dims >= 3 ? g.out[0] : 1, o1 = g.dims >= 2 ? g.out[g.dims - 2] : 1;
  for (int64_t a = 0; a < o0; ++a) {
    for (int64_t b = 0; b < o1; ++b) {
      if (g.dims == 3) {
        oc[0] = a;
        oc[1] = b;
      } else {
        oc[0] = b;
      }
      fn(oc);
    }
  }
}
}  // namespace conv_detail
using conv_detail::for_each_line;

template <typename scalar_t>
Tensor im2col_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  const conv::ColumnsPlan plan = conv::im2col_plan(self, kernel_size, dilation, padding, stride);
  const conv::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.columns_shape(), self.dtype(), self.device());
  const int64_t rows = g.rows(), width = g.out[g.dims - 1];
  if (plan.batch * rows == 0 || g.cols == 0) return out;
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(plan.batch * rows, std::max<int64_t>(1, kGrainSize / g.cols), [&](int64_t begin, int64_t end) {
    for (int64_t nr = begin; nr < end; ++nr) {
      const scalar_t* image = src + (nr / rows) * g.image_numel();
      const conv::RowPlan r = conv::im2col_row(g, nr % rows);
      const int64_t step = g.stride[g.dims - 1];
      scalar_t* o = dst + nr * g.cols;
      for_each_line(g, [&](const int64_t* oc) {
        const int64_t base = conv::im2col_line_base(g, r, oc);
        if (base < 0) {
          std::fill(o, o + width, scalar_t(0));
        } else {
          const scalar_t* from = image + base;  // entry j reads from[j * step + shift]
          std::fill(o, o + r.lo, scalar_t(0));
          if (step == 1) {
            std::copy(from + (r.lo + r.shift), from + (r.hi + r.shift), o + r.lo);
          } else {
            for (int64_t j = r.lo; j < r.hi; ++j) o[j] = from[j * step + r.shift];
          }
          std::fill(o + r.hi, o + width, scalar_t(0));
        }
        o += width;
      });
    }
  });
  return out;
}

// col2im adds each column row back along its lines (the adjoint of im2col's copy), a channel at a time: the rows of
// one channel are its kernel offsets in order, so every image element receives its entries in the order
// conv::col2im_value (CUDA's gather) sums them, in the same accumulator type, and both devices agree bit for bit.
template <typename scalar_t>
Tensor col2im_kernel(const Tensor& self, const std::vector<int64_t>& output_size,
                     const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  using acc_t = opmath_t<scalar_t>;
  const conv::ColumnsPlan plan = conv::col2im_plan(self, output_size, kernel_size, dilation, padding, stride);
  const conv::Geometry& g = plan.g;
  const Tensor cols = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.image_shape(), self.dtype(), self.device());
  const int64_t planes = plan.batch * g.channels, width = g.out[g.dims - 1], step = g.stride[g.dims - 1];
  if (planes == 0 || g.in_numel == 0) return out;
  const scalar_t* src = cols.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.kprod * g.cols)),
               [&](int64_t begin, int64_t end) {
    std::vector<acc_t> sums(static_cast<size_t>(g.in_numel));
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / g.channels, c = plane % g.channels;
      std::fill(sums.begin(), sums.end(), acc_t(0));
      const int64_t first = c * g.in_numel;  // the row plan's offsets count from the image's channel 0
      for (int64_t row = c * g.kprod; row < (c + 1) * g.kprod; ++row) {
        const scalar_t* line = src + (n * g.rows() + row) * g.cols;
        const conv::RowPlan r = conv::im2col_row(g, row);
        for_each_line(g, [&](const int64_t* oc) {
          const int64_t base = conv::im2col_line_base(g, r, oc);
          if (base >= 0) {
            acc_t* at = sums.data() + (base + r.shift - first);  // entry j adds into at[j * step]
            if (step == 1) {  // the common case, as a loop the compiler vectorizes
              for (int64_t j = r.lo; j < r.hi; ++j) at[j] += static_cast<acc_t>(line[j]);
            } else {
              for (int64_t j = r.lo; j < r.hi; ++j) at[j * step] += static_cast<acc_t>(line[j]);
            }
          }
          line += width;
        });
      }
      scalar_t* o = dst + plane * g.in_numel;
      for (int64_t i = 0; i < g.in_numel; ++i) o[i] = static_cast<scalar_t>(sums[size_t(i)]);
    }
  });
  return out;
}

// Note [Convolution on the CPU]: convolution's forward as ops (kernels/composite/conv.h) writes a whole image's
// columns (C * prod(kernel) x L: 7.2 MB for 64 channels of 56x56 with a 3x3 kernel) and multiplies them by the
// weight in one product. At stride 1 the columns are not needed: with the image zero-padded, output position o
// reads the padded image at o + k * dilation for kernel offset k; flattened over the padded grid, that is one matrix
// (channels x positions, its row stride the padded plane) shifted by a constant per offset. So the output is a sum
// of prod(kernel) products W_k (Cout x Cin) @ X[:, shift(k) + range], each read straight from the padded image, a
// range of positions at a time so that they stay in cache while every offset reads them. Positions in the
// padding's columns are computed too (the grid is the padded one) and dropped on the way out. Every output element
// is a dot product over the same products of image and weight as in the ops' form; only how the BLAS blocks and
// orders the sum differs.
//
// At one thread it runs always (8 x 64 x 56 x 56, 3x3, padding 1 on a Zen 5 core: 10.3 -> 9.7 ms; 8 x 64 x 56 x 56
// depthwise: 2.5 -> 1.9 ms); at more, with an image (and group) per thread at a time, when they share out evenly.
// Its products then run single-threaded inside yaten's threads, which Note [One pool for the BLAS] (core/blas.cpp)
// made possible: while OpenBLAS ran threads of its own, its workers spun after each call on the cores yaten's
// threads needed (the shifted form split over yaten's threads took 5.1 ms alone but 10.3 ms in a training loop).
// float16 and bfloat16, which have no BLAS, and strides other than 1 take the ops' form. 2-d 3x3 kernels with channels
// enough take fewer multiplies still (Note [Winograd's F(2x2, 3x3)], kernels/cpu/conv_winograd.h); small planes with
// many input channels, the ops' form's one deep product (takes_columns).
namespace conv_detail {
template <typename scalar_t>
void gemm(int64_t m, int64_t n, int64_t k, const scalar_t* a, int64_t lda, const scalar_t* b, int64_t ldb,
          scalar_t beta, scalar_t* c, int64_t ldc) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    blas::sgemm(blas::NoTrans, blas::NoTrans, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  } else {
    blas::dgemm(blas::NoTrans, blas::NoTrans, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
  }
}

// Copies an image's `channels` planes into `buf`, a padded grid (`plane` elements per channel, row-major strides
// `vstride`) whose padding is zero already.
template <typename scalar_t>
void copy_into_padded(const conv::Geometry& g, const scalar_t* image, int64_t channels, int64_t plane,
                      const int64_t* vstride, scalar_t* buf) {
  const int last = g.dims - 1;
  const int64_t lines = g.in[last] > 0 ? g.in_numel / g.in[last] : 0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t line = 0; line < lines; ++line) {
      int64_t rest = line, at = c * plane + g.pad[last];
      for (int d = last - 1; d >= 0; --d) {
        at += (rest % g.in[d] + g.pad[d]) * vstride[d];
        rest /= g.in[d];
      }
      const scalar_t* from = image + (c * lines + line) * g.in[last];
      std::copy(from, from + g.in[last], buf + at);
    }
  }
}

struct ForwardShape {
  int64_t n, cin, cout, groups, cin_g, cout_g;
};

// Stride 1, as shifted products over the padded image (Note [Convolution on the CPU]), an image (and group) at a
// time.
template <typename scalar_t>
void forward_shifted(const Tensor& x, const Tensor& weight, const conv::Geometry& g, const ForwardShape& f,
                     scalar_t* dst) {
  const int dims = g.dims, last = dims - 1;
  int64_t padded[conv::kMaxSpatialDims], vstride[conv::kMaxSpatialDims], ostride[conv::kMaxSpatialDims];
  int64_t plane = 1, cols = 1;
  bool padding = false;
  for (int d = last; d >= 0; --d) {
    padded[d] = g.in[d] + 2 * g.pad[d];
    vstride[d] = plane;
    ostride[d] = cols;
    plane *= padded[d];
    cols *= g.out[d];
    padding = padding || g.pad[d] != 0;
  }
  // Positions on the padded grid, from the first output's to the last output's (the rest lie past the image).
  int64_t span = 1;
  for (int d = 0; d < dims; ++d) span += (g.out[d] - 1) * vstride[d];
  std::vector<int64_t> shift(static_cast<size_t>(g.kprod));
  for (int64_t k = 0; k < g.kprod; ++k) {
    int64_t rest = k, at = 0;
    for (int d = last; d >= 0; --d) {
      at += (rest % g.kernel[d]) * g.dil[d] * vstride[d];
      rest /= g.kernel[d];
    }
    shift[size_t(k)] = at;
  }
  // Products straight into the output when the padded grid is the output's (no padding, and a kernel of extent 1
  // along every dim but the first): no positions to drop.
  bool direct = !padding;
  for (int d = 1; d < dims; ++d) direct = direct && g.kernel[d] == 1;
  // A piece's positions are read once per kernel offset and should stay in cache (256 KiB of them); with one
  // offset, one product.
  const int64_t budget = (int64_t(256) << 10) / (f.cin_g * int64_t(sizeof(scalar_t)));
  // Pieces of equal size (a multiple of 16 positions): a short last piece made nine products of a few columns each
  // (64 x 64 channels of 64 x 64: 1.15 -> 1.10x torch's time).
  const int64_t most = g.kprod == 1 ? span : std::clamp<int64_t>(budget, 16, span), pieces = (span + most - 1) / most;
  const int64_t per = std::min(span, ((span + pieces - 1) / pieces + 15) / 16 * 16);
  // W_k for each group and offset: (groups, kprod, Cout/G, Cin/G).
  const Tensor wk = yaten::contiguous(yaten::permute(
      yaten::reshape(weight, {f.groups, f.cout_g, f.cin_g, g.kprod}), {0, 3, 1, 2}));
  const scalar_t* w = wk.data<scalar_t>();
  const scalar_t* src = x.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  // Images (and groups) shared out over the threads, each product then single-threaded (Note [One pool for the BLAS]
  // in core/blas.cpp).
  parallel_for(f.n * f.groups, 1, [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> buf(padding ? static_cast<size_t>(f.cin_g * plane) : 0, scalar_t(0));
    std::vector<scalar_t> sums(direct ? 0 : static_cast<size_t>(f.cout_g * per));
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t image = unit / f.groups, group = unit % f.groups;
      const scalar_t* channels = src + (image * f.cin + group * f.cin_g) * g.in_numel;
      if (padding) {
        copy_into_padded(g, channels, f.cin_g, plane, vstride, buf.data());
        channels = buf.data();
      }
      scalar_t* out = dst + (image * f.cout + group * f.cout_g) * cols;
      for (int64_t v0 = 0; v0 < span; v0 += per) {
        const int64_t v1 = std::min(span, v0 + per), count = v1 - v0;
        for (int64_t k = 0; k < g.kprod; ++k) {
          gemm<scalar_t>(f.cout_g, count, f.cin_g, w + (group * g.kprod + k) * f.cout_g * f.cin_g, f.cin_g,
                         channels + v0 + shift[size_t(k)], plane, k == 0 ? scalar_t(0) : scalar_t(1),
                         direct ? out + v0 : sums.data(), direct ? cols : count);
        }
        if (direct) continue;
        // Keep the positions inside the output grid: runs along the last dim.
        for (int64_t v = v0; v < v1;) {
          int64_t rest = v, at = 0, c_last = 0;
          bool inside = true;
          for (int d = last; d >= 0; --d) {
            const int64_t c = rest % padded[d];
            rest /= padded[d];
            if (d == last) c_last = c;
            else inside = inside && c < g.out[d];
            at += c * ostride[d];
          }
          const int64_t row_end = std::min(v1, v - c_last + padded[last]);
          const int64_t run = inside ? std::max<int64_t>(0, std::min(row_end, v - c_last + g.out[last]) - v) : 0;
          for (int64_t o = 0; o < f.cout_g && run > 0; ++o) {
            const scalar_t* from = sums.data() + o * count + (v - v0);
            std::copy(from, from + run, out + o * cols + at);
          }
          v = row_end;
        }
      }
    }
  });
}
// Whether Note [Winograd's F(2x2, 3x3)] computes the forward: a 2-d 3x3 kernel at dilation 1 (stride 1 already), with
// 16 channels and more on each side. One thread of a Zen 2 core, 8 images, time over torch's, shifted products ->
// Winograd: 16 x 16 channels of 64 x 64 0.95 -> 0.78, of 32 x 32 0.93 -> 0.69; 32 x 32 of 64 x 64 1.27 -> 0.88, of
// 16 x 16 1.23 -> 0.83; of 14 x 14, 64 x 64 channels 1.23 -> 0.94, 128 1.20 -> 1.00, 256 1.19 -> 0.72; with small
// planes' images side by side in its products (kWinogradTiles), of 7 x 7, 128 1.41 -> 0.95, 512 1.47 -> 0.96; 64 of
// 6 x 6 1.32 -> 0.93; 128 of 4 x 4 1.80 -> 0.93, and 32 images of 256 1.82 -> 0.72. 16 x 16 of 8 x 8 0.74 -> 0.79.
inline bool takes_winograd(const conv::Geometry& g, const ForwardShape& f) {
  if (g.dims != 2 || g.kernel[0] != 3 || g.kernel[1] != 3 || g.dil[0] != 1 || g.dil[1] != 1) return false;
  return std::min(f.cin_g, f.cout_g) >= 16;
}
// Whether a small plane's forward takes the ops' form (columns, then one product of Cin * kprod inner terms per chunk
// of images) before the two above: 64 output positions or fewer and 256 input channels and more, and then, for a
// kernel Winograd's form takes, fewer output positions in all (images times plane) than a quarter of the input
// channels: its kernel transform, made each call, is then most of its work (16 Cout Cin floats, 16 MiB at 512
// channels). Time over torch's, ops' form against Winograd's, at 1 thread, then 2: 8 x 256 of 4 x 4 1.48 / 0.73, 1.34
// / 0.86; 4 x 256 of 4 x 4 1.34 / 0.94; 2 x 256 of 7 x 7 1.20 / 0.98; 8 x 512 of 4 x 4 1.19 / 0.92; and the other
// way: 1 x 256 of 7 x 7 0.80 / 0.98; 4 x 512 of 4 x 4 1.03 / 1.27, 0.90 / 1.26; 2 x 512 of 7 x 7 0.99 / 1.30. For
// other kernels, fewer than 64 tiles of 2 x 2 outputs in all (8 x 256 of 4 x 4: 1.47 against the shifted form's 1.85).
inline bool takes_columns(const conv::Geometry& g, const ForwardShape& f) {
  if (g.cols > 64 || f.cin_g * g.kprod < 256 * 9) return false;
  if (takes_winograd(g, f)) return f.n * g.cols * 4 < f.cin_g;
  const int64_t tiles = (g.out[0] + 1) / 2 * (g.dims >= 2 ? (g.out[1] + 1) / 2 : 1);
  return f.n * tiles < 64;
}
}  // namespace conv_detail

template <typename scalar_t>
Tensor _convolution_forward_kernel(const Tensor& self, const Tensor& weight, const std::vector<int64_t>& stride,
                                   const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                   int64_t groups) {
  const auto p = native::conv_detail::check_forward(self, weight, stride, padding, dilation, groups);
  if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
    bool unit_stride = true;
    for (int64_t s : p.stride) unit_stride = unit_stride && s == 1;
    const int64_t n = self.sizes()[0], cin = self.sizes()[1], cout = weight.sizes()[0];
    // The images (and groups) are the shifted form's unit of work for threads: it runs when they share out evenly
    // (or nearly), the ops' form with its products split over the threads otherwise (8 x 64 x 56 x 56 at 2 threads:
    // 4.97 against 5.16 ms; 1 x 64 x 56 x 56: 0.69 against 0.61 ms).
    if (unit_stride && shares_out_evenly(n * groups)) {
      const conv_detail::ForwardShape f{n, cin, cout, groups, cin / groups, cout / groups};
      const conv::Geometry g = conv::sliding_geometry("_convolution_forward", f.cin_g,
                                                      native::conv_detail::spatial(self.sizes()), p.kernel,
                                                      p.dilation, p.padding, p.stride);
      std::vector<int64_t> shape = {n, cout};
      shape.insert(shape.end(), g.out, g.out + g.dims);
      if (n * cout * g.cols == 0) return yaten::empty(shape, self.dtype(), self.device());
      if (f.cin_g * g.kprod == 0) return yaten::zeros(shape, self.dtype(), self.device());
      if (conv_detail::takes_columns(g, f)) return native::conv_detail::forward(self, weight, p);
      Tensor out = yaten::empty(shape, self.dtype(), self.device());
      if (conv_detail::takes_winograd(g, f)) {
        const Tensor x = yaten::contiguous(self), w = yaten::contiguous(weight);
        yaten::detail::ScopedGilRelease release_gil(true);
        conv_detail::forward_winograd<scalar_t>(x.data<scalar_t>(), w.data<scalar_t>(), g, n, groups, f.cin_g,
                                                f.cout_g, out.data<scalar_t>(), conv_detail::gemm<scalar_t>);
        return out;
      }
      conv_detail::forward_shifted<scalar_t>(yaten::contiguous(self), weight, g, f, out.data<scalar_t>());
      return out;
    }
  }
  return native::conv_detail::forward(self, weight, p);
}

template <typename scalar_t>
Tensor _convolution_transpose_forward_kernel(const Tensor& self, const Tensor& weight,
                                             const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                             const std::vector<int64_t>& dilation,
                                             const std::vector<int64_t>& output_padding, int64_t groups) {
  const auto p = native::conv_detail::check_transpose_forward(self, weight, stride, padding, dilation, output_padding,
                                                              groups);
  if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
    // Note [A transposed convolution at stride 1 is a forward one]: at stride 1 (output_padding 0), the transposed
    // convolution of x by w is the forward convolution of x by w flipped along its kernel dims with its two channel
    // dims swapped (within each group), padded by dilation * (kernel - 1) - padding where that is not negative. The
    // input's gradient of a stride-1 convolution is such a convolution: it then takes the forward's shifted products
    // and Winograd's form (Note [Convolution on the CPU]) instead of col2im of a product's columns (4 x 64 channels
    // of 64 x 64, 3x3, padding 1, one thread, forward and both gradients: 1.45x -> 0.70x torch's time; 8 x 128 of
    // 28 x 28 1.04x -> 0.85x).
    bool as_forward = true;
    std::vector<int64_t> forward_padding, unit(size_t(p.dims), 1);
    for (int d = 0; d < p.dims; ++d) {
      const int64_t reach = p.dilation[d] * (p.kernel[d] - 1);
      as_forward = as_forward && p.stride[d] == 1 && p.output_padding[d] == 0 && p.padding[d] <= reach;
      forward_padding.push_back(reach - p.padding[d]);
    }
    if (as_forward) {
      const int64_t cin_g = weight.sizes()[0] / groups, cout_g = weight.sizes()[1];
      std::vector<int64_t> kernel_dims, grouped = {groups, cin_g, cout_g}, order = {0, 2, 1},
                                        shape = {groups * cout_g, cin_g};
      for (int d = 0; d < p.dims; ++d) {
        kernel_dims.push_back(2 + d);
        grouped.push_back(p.kernel[d]);
        order.push_back(3 + d);
        shape.push_back(p.kernel[d]);
      }
      const Tensor w = yaten::reshape(
          yaten::contiguous(yaten::permute(yaten::reshape(yaten::flip(weight, kernel_dims), grouped), order)), shape);
      return _convolution_forward_kernel<scalar_t>(self, w, unit, forward_padding, p.dilation, groups);
    }
  }
  return native::conv_detail::transposed_forward(self, weight, p);
}

template <typename scalar_t>
Tensor _convolution_weight_backward_kernel(const Tensor& grad_output, const Tensor& input,
                                           const std::vector<int64_t>& weight_size, const std::vector<int64_t>& stride,
                                           const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                           bool transposed, const std::vector<int64_t>& output_padding,
                                           int64_t groups) {
  const auto plan = native::conv_detail::check_weight_backward(grad_output, input, weight_size, stride, padding,
                                                               dilation, transposed, output_padding, groups);
  return native::conv_detail::weight_backward(grad_output, input, weight_size, plan);
}

}  // namespace yaten::native::cpu
