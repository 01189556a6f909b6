// How a reduction is laid out, shared by the CPU and CUDA kernels: the reduced dims moved last (a copy only when the
// layout needs one) so each output element reduces one contiguous block, or, for a contiguous tensor reduced over
// its leading dims, rows added into a row of outputs. Accumulation types follow torch: float for float16, bfloat16
// and float32, double for float64, int64 for integers and bool.
#pragma once

#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "core/wrap_dim.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/cat.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/ones.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/squeeze.h"
#include "yaten/ops/view_as_complex.h"
#include "yaten/ops/view_as_real.h"

namespace yaten::native::reduce_plan {

struct Plan {
  Tensor src;  // reduced dims last, contiguous
  int64_t outer = 1;
  int64_t inner = 1;
  std::vector<int64_t> out_shape;
};

// Integers accumulate in int64 (uint64 in uint64, whose values int64 cannot order; sums wrap alike in both).
template <typename scalar_t>
using acc_type = std::conditional_t<
    std::is_same_v<scalar_t, uint64_t>, uint64_t,
    std::conditional_t<std::is_integral_v<scalar_t>, int64_t,
                       std::conditional_t<std::is_same_v<scalar_t, double>, double, float>>>;

// Reducing the leading dims of a contiguous tensor (sum(dim=0) of a matrix): rows are added into an accumulator
// row, which needs no copy and vectorizes, instead of moving the reduced dims last.
struct LeadingPlan {
  bool applies = false;
  int64_t rows = 1;   // reduced elements per output
  int64_t width = 1;  // outputs
};

// cumsum/cumprod with dtype=bool: torch has no kernel for it (a bool input without dtype= sums in int64).
inline void check_cumulative_dtype(const char* op, const Tensor& self, std::optional<ScalarType> dtype) {
  YATEN_CHECK(dtype != ScalarType::Bool || self.dim() == 0, NotImplementedError, op, ": not implemented for dtype=bool, as in torch");
}

inline LeadingPlan leading_plan(const Tensor& self, const std::vector<int64_t>& dims) {
  LeadingPlan lp;
  const int64_t n = self.dim();
  if (dims.empty() || n < 2 || !self.is_contiguous()) return lp;
  std::vector<bool> reduced(n, false);
  for (int64_t d : dims) {
    const int64_t w = d < 0 ? d + n : d;
    if (w < 0 || w >= n || reduced[w]) return lp;
    reduced[w] = true;
  }
  const int64_t k = static_cast<int64_t>(dims.size());
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d] != (d < k)) return lp;  // not a prefix
  }
  if (k == n) return lp;
  for (int64_t d = 0; d < n; ++d) (d < k ? lp.rows : lp.width) *= self.sizes()[d];
  lp.applies = true;
  return lp;
}

inline Plan plan(const char* op, const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  const int64_t n = self.dim();
  std::vector<bool> reduced(std::max<int64_t>(n, 1), dims.empty());  // a 0-dim tensor has its one dim, 0 (or -1)
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(op, d, n);
    YATEN_CHECK(!reduced[w] || dims.empty(), RuntimeError, op, ": dim ", w, " appears multiple times in the list of dims");
    reduced[w] = true;
  }
  reduced.resize(n);
  Plan p;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < n; ++d) {
    if (!reduced[d]) {
      order.push_back(d);
      p.outer *= self.sizes()[d];
    }
  }
  for (int64_t d = 0; d < n; ++d) {
    if (reduced[d]) {
      order.push_back(d);
      p.inner *= self.sizes()[d];
    }
    if (!reduced[d]) {
      p.out_shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      p.out_shape.push_back(1);
    }
  }
  p.src = yaten::contiguous(n ? yaten::permute(self, order) : self);
  return p;
}


// The shape of a reduction over the first `k` dims of `self` (see LeadingPlan).
inline std::vector<int64_t> leading_out_shape(const Tensor& self, int64_t k, bool keepdim) {
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d >= k) {
      shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

// The dtype rule self_or_dtype switched on dtype= when given: the input is converted to it first, as in torch.
template <typename scalar_t>
Tensor as_compute_type(const Tensor& self) {
  return self.dtype() == scalar_type_of<scalar_t> ? self : yaten::_to_copy(self, scalar_type_of<scalar_t>, std::nullopt);
}

// sum and mean of a complex tensor: the same reduction of its real view (..., 2) over the same dims (every dim of
// self when `dims` is empty), seen as complex again. `real_reduce(real_self, real_dims)` runs the real kernel.
template <typename Fn>
Tensor complex_reduction(const char* op, const Tensor& self, const std::vector<int64_t>& dims, Fn&& real_reduce) {
  std::vector<int64_t> real_dims;
  if (self.dim() == 0) {  // one number (dim 0 or -1 of a 0-d tensor names it too): itself
    for (int64_t d : dims) wrap_dim(op, d, 0);
    return yaten::_to_copy(self, std::nullopt, std::nullopt);
  }
  if (dims.empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) real_dims.push_back(d);
  } else {
    for (int64_t d : dims) real_dims.push_back(wrap_dim(op, d, self.dim()));
  }
  return yaten::view_as_complex(real_reduce(yaten::view_as_real(self), real_dims));
}

// One contiguous row of `len` elements per position of every dim but `dim`, which is moved last (a copy when it was
// not last): what scans and softmax loop over. A 0-d tensor is one row of one.
struct RowLayout {
  Tensor src;
  int64_t dim = 0;
  int64_t len = 1;
  int64_t rows = 0;
};
inline RowLayout rows_along(const char* op, const Tensor& self, int64_t dim) {
  RowLayout layout;
  layout.dim = wrap_dim(op, dim, self.dim());
  layout.src = yaten::contiguous(self.dim() == 0 ? yaten::reshape(self, {1}) : yaten::movedim(self, layout.dim, -1));
  layout.len = layout.src.dim() == 0 ? 1 : layout.src.sizes().back();
  layout.rows = layout.len == 0 ? 0 : layout.src.numel() / layout.len;
  return layout;
}
// A result laid out as `layout.src` back in the layout of `self`.
inline Tensor from_rows(const Tensor& out, const Tensor& self, const RowLayout& layout) {
  if (self.dim() == 0) return yaten::reshape(out, {});
  return layout.dim == self.dim() - 1 ? out : yaten::contiguous(yaten::movedim(out, -1, layout.dim));
}

// prod of a complex tensor on a backend without a complex reducer (CUDA): the rows along `dim` (all of self as one
// row when `dim` is empty) halved pairwise, each step one element-wise multiply of the halves by mul's kernel (an odd
// row's last element rides along to the next step), ceil(log2(len)) steps in all. The product of an empty row is 1.
inline Tensor complex_product(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const RowLayout layout = rows_along(op, dim ? self : yaten::reshape(self, {-1}), dim.value_or(0));
  Tensor x = layout.src;
  if (layout.len == 0) {
    std::vector<int64_t> shape = x.sizes();
    shape.back() = 1;
    x = yaten::ones(shape, x.dtype(), x.device());
  }
  for (int64_t len = x.sizes().back(); len > 1; len = x.sizes().back()) {
    const int64_t half = len / 2;
    Tensor y = yaten::mul(yaten::narrow(x, -1, 0, half), yaten::narrow(x, -1, half, half));
    x = len % 2 ? yaten::cat({y, yaten::narrow(x, -1, 2 * half, 1)}, -1) : y;
  }
  if (!dim || self.dim() == 0) return yaten::reshape(x, {});
  const Tensor kept = from_rows(x, self, layout);
  return keepdim ? kept : yaten::squeeze(kept, layout.dim);
}

}  // namespace yaten::native::reduce_plan
