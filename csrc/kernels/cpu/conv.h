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

}  // namespace yaten::native::cpu
