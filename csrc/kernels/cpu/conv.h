// CPU im2col and col2im (F.unfold, F.fold), the two kernels convolution is made of (kernels/composite/conv.h).
// Which image element each column entry reads is decided by kernels/conv_math.h, which CUDA shares: im2col fills
// one line of output positions at a time (a plain copy at stride 1, zeros where the kernel hangs over the
// padding); col2im adds the lines back in the order in which CUDA's gather sums, so both devices sum alike.
#pragma once

#include <algorithm>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/conv_math.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"

namespace yaten::native::cpu {

template <typename scalar_t>
Tensor im2col_kernel(const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  const conv::ColumnsPlan plan = conv::im2col_plan(self, kernel_size, dilation, padding, stride);
  const conv::Geometry& g = plan.g;
  const Tensor x = yaten::contiguous(self);
  Tensor out = yaten::empty(plan.columns_shape(), self.dtype(), self.device());
  const int64_t rows = g.rows(), width = g.out[g.dims - 1], lines = g.cols / std::max<int64_t>(width, 1);
  if (plan.batch * rows == 0 || g.cols == 0) return out;
  const scalar_t* src = x.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(plan.batch * rows, std::max<int64_t>(1, kGrainSize / g.cols), [&](int64_t begin, int64_t end) {
    for (int64_t nr = begin; nr < end; ++nr) {
      const scalar_t* image = src + (nr / rows) * g.image_numel();
      const int64_t row = nr % rows;
      scalar_t* o = dst + nr * g.cols;
      for (int64_t line = 0; line < lines; ++line, o += width) {
        const conv::Line ln = conv::im2col_line(g, row, line);
        std::fill(o, o + ln.lo, scalar_t(0));
        if (ln.hi > ln.lo && ln.step == 1) {
          std::copy(image + (ln.base + ln.lo), image + (ln.base + ln.hi), o + ln.lo);
        } else {
          for (int64_t j = ln.lo; j < ln.hi; ++j) o[j] = image[ln.base + j * ln.step];
        }
        std::fill(o + ln.hi, o + width, scalar_t(0));
      }
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
  const int64_t planes = plan.batch * g.channels, width = g.out[g.dims - 1], lines = g.cols / width;
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
      const int64_t first = c * g.in_numel;  // im2col_line's offsets count from the image's channel 0
      for (int64_t row = c * g.kprod; row < (c + 1) * g.kprod; ++row) {
        const scalar_t* r = src + (n * g.rows() + row) * g.cols;
        for (int64_t line = 0; line < lines; ++line, r += width) {
          const conv::Line ln = conv::im2col_line(g, row, line);
          acc_t* at = sums.data() + (ln.base - first);
          if (ln.step == 1) {  // the common case, as a loop the compiler vectorizes
            for (int64_t j = ln.lo; j < ln.hi; ++j) at[j] += static_cast<acc_t>(r[j]);
          } else {
            for (int64_t j = ln.lo; j < ln.hi; ++j) at[j * ln.step] += static_cast<acc_t>(r[j]);
          }
        }
      }
      scalar_t* o = dst + plane * g.in_numel;
      for (int64_t i = 0; i < g.in_numel; ++i) o[i] = static_cast<scalar_t>(sums[size_t(i)]);
    }
  });
  return out;
}

}  // namespace yaten::native::cpu
