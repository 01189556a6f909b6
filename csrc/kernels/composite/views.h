// CompositeImplicit view ops: each returns a tensor over the same storage with other sizes, strides and offset.
// All of them reduce to make_view; none copies, except reshape when no view exists (exactly when torch copies).
#pragma once

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "core/tensor.h"
#include "core/wrap_dim.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/cat.h"
#include "yaten/ops/stack.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/view.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/select.h"
#include "yaten/ops/slice.h"

namespace yaten::native {

namespace view_detail {
using ::yaten::wrap_dim;

inline Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                        int64_t storage_offset) {
  return Tensor(std::make_shared<TensorImpl>(base.impl()->storage(), base.dtype(), std::move(sizes),
                                             std::move(strides), storage_offset));
}

// Replaces one -1 in `shape` with what makes the element count `numel`; RuntimeError like torch otherwise.
inline std::vector<int64_t> infer_size(const char* op, std::vector<int64_t> shape, int64_t numel) {
  int64_t infer = -1;
  std::vector<int64_t> given;  // the sizes other than the -1
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      YATEN_CHECK(infer < 0, RuntimeError, op, ": only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      YATEN_CHECK(shape[i] >= 0, RuntimeError, op, ": invalid shape dimension ", shape[i]);
      given.push_back(shape[i]);
    }
  }
  const int64_t known = checked_numel(op, given);  // 0 when a size is, however large the others
  const bool ok = infer >= 0 ? (known != 0 && numel % known == 0) || (known == 0 && numel == 0) : known == numel;
  if (!ok) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    YATEN_FAIL(RuntimeError, op, ": shape '", text, "]' is invalid for input of size ", numel);
  }
  if (infer >= 0) {
    YATEN_CHECK(known != 0, RuntimeError, op, ": cannot infer a dimension of a shape that has a 0");
    shape[infer] = numel / known;
  }
  return shape;
}

// Strides that view `sizes`/`strides` as `shape` without copying, or nullopt (torch's computeStride): each run of
// old dims that is contiguous in memory may be split or merged freely.
inline std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes,
                                                        const std::vector<int64_t>& strides,
                                                        const std::vector<int64_t>& shape) {
  const int64_t numel = checked_numel("view", sizes);  // 0 when any size is, however large the others
  std::vector<int64_t> out(shape.size());
  if (numel == 0) return contiguous_strides(shape);
  if (sizes.empty()) return std::vector<int64_t>(shape.size(), 1);  // a 0-d tensor: any shape of ones views it
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}
}  // namespace view_detail

// Checks an as_strided layout; returns its extent (1 + the last element it reaches; 0 when empty).
inline int64_t checked_strided_layout(const char* op, const std::vector<int64_t>& size,
                                      const std::vector<int64_t>& stride, int64_t offset) {
  YATEN_CHECK(size.size() == stride.size(), RuntimeError, op, ": got ", size.size(), " sizes but ", stride.size(),
              " strides");
  YATEN_CHECK(offset >= 0, RuntimeError, op, ": negative storage offset ", offset);
  for (size_t i = 0; i < size.size(); ++i) {
    YATEN_CHECK(size[i] >= 0 && stride[i] >= 0, RuntimeError, op, ": negative size or stride");
  }
  checked_numel(op, size);
  return checked_extent(op, size, stride, offset);
}

inline Tensor as_strided_impl(const Tensor& self, const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
                              std::optional<int64_t> storage_offset) {
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  const int64_t extent = checked_strided_layout("as_strided", size, stride, offset);
  const int64_t capacity = static_cast<int64_t>(self.impl()->storage()->nbytes()) / element_size(self.dtype());
  YATEN_CHECK(extent <= capacity, RuntimeError, "as_strided: setStorage: sizes and strides reach element ",
              extent - 1, " but the storage holds ", capacity, " elements");
  return view_detail::make_view(self, size, stride, offset);
}

inline Tensor view_impl(const Tensor& self, const std::vector<int64_t>& size) {
  std::vector<int64_t> shape = view_detail::infer_size("view", size, self.numel());
  auto strides = view_detail::view_strides(self.sizes(), self.strides(), shape);
  YATEN_CHECK(strides.has_value(), RuntimeError, "view: view size is not compatible with input tensor's size and "
              "stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return view_detail::make_view(self, shape, *strides, self.storage_offset());
}

// view(dtype): the same bytes as another dtype. With another element size the last dim (stride 1) is rescaled, as
// torch's view.dtype does; the result has no autograd history (torch's is not differentiable either).
inline Tensor view_dtype_impl(const Tensor& self, ScalarType dtype) {
  const int64_t from = element_size(self.dtype()), to = element_size(dtype);
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  int64_t offset = self.storage_offset();
  if (from != to) {
    const char* a = dtype_name(self.dtype());
    const char* b = dtype_name(dtype);
    YATEN_CHECK(self.dim() > 0, RuntimeError, "view: self.dim() cannot be 0 to view ", a, " as ", b,
                " (different element sizes)");
    YATEN_CHECK(strides.back() == 1, RuntimeError, "view: self.stride(-1) must be 1 to view ", a, " as ", b,
                " (different element sizes), but got ", strides.back());
    const size_t last = sizes.size() - 1;
    if (to > from) {
      const int64_t ratio = to / from;
      YATEN_CHECK(sizes[last] % ratio == 0, RuntimeError, "view: self.size(-1) must be divisible by ", ratio,
                  " to view ", a, " as ", b, " (different element sizes), but got ", sizes[last]);
      YATEN_CHECK(offset % ratio == 0, RuntimeError, "view: self.storage_offset() must be divisible by ", ratio,
                  " to view ", a, " as ", b, " (different element sizes), but got ", offset);
      for (size_t i = 0; i < last; ++i) {
        YATEN_CHECK(strides[i] % ratio == 0, RuntimeError, "view: self.stride(", i, ") must be divisible by ", ratio,
                    " to view ", a, " as ", b, " (different element sizes), but got ", strides[i]);
        strides[i] /= ratio;
      }
      sizes[last] /= ratio;
      offset /= ratio;
    } else {
      const int64_t ratio = from / to;
      for (size_t i = 0; i < last; ++i) strides[i] *= ratio;
      sizes[last] *= ratio;
      offset *= ratio;
    }
  }
  return Tensor(std::make_shared<TensorImpl>(self.impl()->storage(), dtype, std::move(sizes), std::move(strides),
                                             offset));
}

inline Tensor reshape_impl(const Tensor& self, const std::vector<int64_t>& shape) {
  std::vector<int64_t> sizes = view_detail::infer_size("reshape", shape, self.numel());
  if (auto strides = view_detail::view_strides(self.sizes(), self.strides(), sizes)) {
    return view_detail::make_view(self, sizes, *strides, self.storage_offset());
  }
  Tensor copy = yaten::_to_copy(self, std::nullopt, std::nullopt);  // contiguous
  return view_detail::make_view(copy, sizes, contiguous_strides(sizes), 0);
}

inline Tensor permute_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  const int64_t n = self.dim();
  YATEN_CHECK(static_cast<int64_t>(dims.size()) == n, RuntimeError, "permute: number of dims don't match in permute ",
              "(got ", dims.size(), " dims for a tensor of ", n, ")");
  std::vector<int64_t> sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = view_detail::wrap_dim("permute", dims[i], n);
    YATEN_CHECK(!seen[d], RuntimeError, "permute: repeated dim ", dims[i]);
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor transpose_impl(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t n = self.dim();
  if (n == 0) {  // dims 0 and -1 name the only "dim" of a 0-dim tensor, as in torch
    (void)view_detail::wrap_dim("transpose", dim0, 1);
    (void)view_detail::wrap_dim("transpose", dim1, 1);
    return view_detail::make_view(self, {}, {}, self.storage_offset());
  }
  const int64_t a = view_detail::wrap_dim("transpose", dim0, n), b = view_detail::wrap_dim("transpose", dim1, n);
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor t_impl(const Tensor& self) {
  YATEN_CHECK(self.dim() <= 2, RuntimeError, "t: t() expects a tensor with <= 2 dimensions, but self is ", self.dim(),
              "D");
  return self.dim() < 2 ? view_detail::make_view(self, self.sizes(), self.strides(), self.storage_offset())
                        : transpose_impl(self, 0, 1);
}

inline Tensor slice_impl(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                         int64_t step) {
  YATEN_CHECK(self.dim() > 0, IndexError, "slice: cannot slice a 0-d tensor");
  const int64_t d = view_detail::wrap_dim("slice", dim, self.dim());
  YATEN_CHECK(step > 0, ValueError, "slice: step must be greater than zero");
  const int64_t size = self.sizes()[d];
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t s = clamp(start.value_or(0)), e = std::max(clamp(end.value_or(size)), s);
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  sizes[d] = (e - s) / step + ((e - s) % step != 0);  // ceil, without overflow for huge steps
  // stride * step as torch has it; it can only overflow for a huge step, which leaves at most one element (whose
  // stride does not matter)
  int64_t stepped;
  if (!__builtin_mul_overflow(strides[d], step, &stepped)) strides[d] = stepped;
  return view_detail::make_view(self, sizes, strides, self.storage_offset() + s * self.strides()[d]);
}

inline Tensor narrow_impl(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  YATEN_CHECK(self.dim() > 0, RuntimeError, "narrow: narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = view_detail::wrap_dim("narrow", dim, self.dim());
  const int64_t size = self.sizes()[d];
  if (start < 0) start += size;
  YATEN_CHECK(start >= 0 && start <= size && length >= 0 && start + length <= size, IndexError, "narrow: start (",
              start, ") + length (", length, ") exceeds dimension size (", size, ").");
  return yaten::slice(self, d, start, start + length, 1);
}

inline Tensor select_impl(const Tensor& self, int64_t dim, int64_t index) {
  YATEN_CHECK(self.dim() > 0, IndexError, "select: select() cannot be applied to a 0-dim tensor.");
  const int64_t d = view_detail::wrap_dim("select", dim, self.dim());
  const int64_t size = self.sizes()[d];
  YATEN_CHECK(index >= -size && index < size, IndexError, "select: index ", index, " is out of bounds for dimension ",
              d, " with size ", size);
  if (index < 0) index += size;
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return view_detail::make_view(self, sizes, strides, self.storage_offset() + index * self.strides()[d]);
}

inline Tensor squeeze_impl(const Tensor& self) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[d] != 1) {
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
    }
  }
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor squeeze_dim_impl(const Tensor& self, int64_t dim) {
  const int64_t d = view_detail::wrap_dim("squeeze", dim, self.dim());
  if (self.dim() == 0 || self.sizes()[d] != 1) {
    return view_detail::make_view(self, self.sizes(), self.strides(), self.storage_offset());
  }
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor squeeze_dims_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  std::vector<bool> listed(std::max<int64_t>(self.dim(), 1), false);
  for (int64_t dim : dims) {
    const int64_t d = view_detail::wrap_dim("squeeze", dim, self.dim());
    YATEN_CHECK(!listed[d], RuntimeError, "squeeze: dim ", d, " appears multiple times in the list of dims");
    listed[d] = true;
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!(listed[d] && self.sizes()[d] == 1)) {
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
    }
  }
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor unsqueeze_impl(const Tensor& self, int64_t dim) {
  const int64_t d = view_detail::wrap_dim("unsqueeze", dim, self.dim() + 1);
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  const int64_t stride = d < self.dim() ? self.sizes()[d] * self.strides()[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor expand_impl(const Tensor& self, const std::vector<int64_t>& size) {
  const int64_t n = static_cast<int64_t>(size.size()), old = self.dim();
  YATEN_CHECK(n >= old, RuntimeError, "expand: the number of sizes provided (", n, ") must be greater or equal to ",
              "the number of dimensions in the tensor (", old, ")");
  std::vector<int64_t> sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t j = i - (n - old);
    const int64_t cur = j >= 0 ? self.sizes()[j] : 1;
    int64_t want = size[i];
    if (want == -1) {
      YATEN_CHECK(j >= 0, RuntimeError, "expand: -1 is not allowed in a leading, non-existing dimension");
      want = cur;
    }
    YATEN_CHECK(cur == want || cur == 1, RuntimeError, "expand: the expanded size of the tensor (", want,
                ") must match the existing size (", cur, ") at non-singleton dimension ", i);
    sizes[i] = want;
    strides[i] = (j >= 0 && cur == want) ? self.strides()[j] : 0;
  }
  return view_detail::make_view(self, sizes, strides, self.storage_offset());
}

inline Tensor expand_as_impl(const Tensor& self, const Tensor& other) { return yaten::expand(self, other.sizes()); }

inline Tensor flatten_impl(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) {  // the dims must still name its one "dim" (0 or -1), as in torch
    (void)view_detail::wrap_dim("flatten", start_dim, 1);
    (void)view_detail::wrap_dim("flatten", end_dim, 1);
    return yaten::reshape(self, {1});
  }
  const int64_t s = view_detail::wrap_dim("flatten", start_dim, self.dim());
  const int64_t e = view_detail::wrap_dim("flatten", end_dim, self.dim());
  YATEN_CHECK(s <= e, RuntimeError, "flatten: start_dim cannot come after end_dim");
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + s);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= self.sizes()[d];
  shape.push_back(merged);
  shape.insert(shape.end(), self.sizes().begin() + e + 1, self.sizes().end());
  return yaten::reshape(self, shape);
}

inline Tensor unflatten_impl(const Tensor& self, int64_t dim, const std::vector<int64_t>& sizes) {
  const int64_t d = wrap_real_dim("unflatten", dim, self.dim());
  YATEN_CHECK(!sizes.empty(), RuntimeError, "unflatten: sizes must be non-empty");
  std::vector<int64_t> inner = view_detail::infer_size("unflatten", sizes, self.sizes()[d]);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + d);
  shape.insert(shape.end(), inner.begin(), inner.end());
  shape.insert(shape.end(), self.sizes().begin() + d + 1, self.sizes().end());
  return yaten::view(self, shape);
}

inline Tensor diagonal_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim();
  YATEN_CHECK(n >= 2, RuntimeError, "diagonal: expected a tensor with at least 2 dimensions, got ", n);
  const int64_t a = view_detail::wrap_dim("diagonal", dim1, n), b = view_detail::wrap_dim("diagonal", dim2, n);
  YATEN_CHECK(a != b, RuntimeError, "diagonal: dimensions cannot be identical ", dim1, ", ", dim2);
  // An offset as far as a whole dim (or any int64) gives an empty diagonal; only a shorter one moves the start.
  int64_t length, start = self.storage_offset();
  if (offset >= 0) {
    length = std::max<int64_t>(std::min(self.sizes()[a], self.sizes()[b] - offset), 0);
    if (length > 0) start += offset * self.strides()[b];
  } else {
    length = std::max<int64_t>(std::min(self.sizes()[a] + offset, self.sizes()[b]), 0);
    if (length > 0) start -= offset * self.strides()[a];
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < n; ++d) {
    if (d == a || d == b) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(length > 0 ? checked_add("diagonal", self.strides()[a], self.strides()[b]) : 1);
  return view_detail::make_view(self, sizes, strides, start);
}

inline Tensor movedim_impl(const Tensor& self, int64_t source, int64_t destination) {
  const int64_t n = self.dim();
  const int64_t s = view_detail::wrap_dim("movedim", source, n), d = view_detail::wrap_dim("movedim", destination, n);
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i) {
    if (i != s) order.push_back(i);
  }
  order.insert(order.begin() + d, s);
  return n == 0 ? self : yaten::permute(self, order);
}

inline Tensor movedim_list_impl(const Tensor& self, const std::vector<int64_t>& source,
                                const std::vector<int64_t>& destination) {
  const int64_t n = self.dim();
  YATEN_CHECK(source.size() == destination.size(), RuntimeError, "movedim: Invalid source or destination dims: source (",
              source.size(), " dims) should contain the same number of dims as destination (", destination.size(),
              " dims)");
  // a 0-dim tensor takes dims 0 and -1 as if it had one dim: it has nothing to move, and no order to fill
  const int64_t slots = std::max<int64_t>(n, 1);
  std::vector<int64_t> order(slots, -1);
  std::vector<bool> used(slots, false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = view_detail::wrap_dim("movedim", source[i], n), d = view_detail::wrap_dim("movedim", destination[i], n);
    YATEN_CHECK(order[d] < 0 && !used[s], RuntimeError, "movedim: repeated dim in source or destination");
    order[d] = s;
    used[s] = true;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] >= 0) continue;
    while (used[next]) ++next;
    order[d] = next++;
  }
  return n == 0 ? self : yaten::permute(self, order);
}

// Note [One node for split's pieces]
// split, split_with_sizes, chunk and unbind compose slice (select), whose backward makes a zero tensor of self's
// shape for each piece and lets the engine add them: for `q, k, v = qkv.split(C, 2)`, three zero-filled (B, T, 3C)
// tensors, three copies and two additions, where torch's SplitBackward0 is one cat (2 ms of a 36 ms GPT step on the
// CPU). So when a gradient is to be recorded, the pieces are made without history and share one node, whose
// backward concatenates (stacks, for unbind) the pieces' gradients, the engine's zeros standing in for those that got
// none. Each piece is still recorded as a view of self (make_view): an in-place change of a piece works as for any
// view, its history then made again from self by replaying its own slice.
namespace view_detail {
struct PiecesBackward : autograd::Node {
  PiecesBackward(const char* name, int64_t dim, bool stacked) : label(name), dim(dim), stacked(stacked) {}
  std::string name() const override { return label; }
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    return {stacked ? yaten::stack(grads, dim) : yaten::cat(grads, dim)};
  }
  std::string label;
  int64_t dim;
  bool stacked;
};

// The pieces [starts[i], ends[i]) of self along d (with `stacked`, the single indices starts[i], selected), as views
// sharing one backward node when self's gradient is recorded.
inline std::vector<Tensor> pieces(const char* node_name, const Tensor& self, int64_t d, const std::vector<int64_t>& starts,
                                  const std::vector<int64_t>& ends, bool stacked) {
  const auto piece = [d, stacked](const Tensor& base, int64_t start, int64_t end) {
    return stacked ? yaten::select(base, d, start) : yaten::slice(base, d, start, end, 1);
  };
  std::vector<Tensor> out;
  const bool record = autograd::compute_requires_grad({&self});
  {
    autograd::GradModeGuard no_grad(!record && autograd::grad_mode_enabled());
    for (size_t i = 0; i < starts.size(); ++i) out.push_back(piece(self, starts[i], ends[i]));
  }
  if (!record) return out;
  auto node = std::make_shared<PiecesBackward>(node_name, d, stacked);
  node->next_edges = {autograd::gradient_edge(self)};
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t start = starts[i], end = ends[i];
    autograd::make_view(out[i], self, [piece, start, end](const Tensor& base) { return piece(base, start, end); });
    autograd::set_history(out[i], node, static_cast<uint32_t>(i));
  }
  return out;
}
}  // namespace view_detail

inline std::vector<Tensor> unbind_impl(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_real_dim("unbind", dim, self.dim());
  std::vector<int64_t> index(static_cast<size_t>(self.sizes()[d]));
  std::iota(index.begin(), index.end(), int64_t(0));
  return view_detail::pieces("UnbindBackward0", self, d, index, index, /*stacked=*/true);
}

inline std::vector<Tensor> split_impl(const Tensor& self, int64_t split_size, int64_t dim) {
  YATEN_CHECK(self.dim() > 0, RuntimeError, "split: split expects at least a 1-dimensional tensor");
  YATEN_CHECK(split_size >= 0, RuntimeError, "split: split_size expected to be non-negative, but got ", split_size);
  const int64_t d = view_detail::wrap_dim("split", dim, self.dim());
  const int64_t size = self.sizes()[d];
  if (split_size == 0) {
    YATEN_CHECK(size == 0, RuntimeError, "split: split_size can only be 0 if dimension size is 0, but got ", size);
    return {yaten::slice(self, d, 0, 0, 1)};
  }
  std::vector<int64_t> starts, ends;
  for (int64_t start = 0; start < size || (size == 0 && starts.empty()); start += split_size) {
    starts.push_back(start);
    ends.push_back(std::min(start + split_size, size));
  }
  return view_detail::pieces("SplitBackward0", self, d, starts, ends, /*stacked=*/false);
}

inline std::vector<Tensor> split_sizes_impl(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
  const int64_t d = wrap_real_dim("split_with_sizes", dim, self.dim());
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    YATEN_CHECK(s >= 0, RuntimeError, "split_with_sizes expects split_sizes have only non-negative entries, but got "
                "split_sizes=", sizes_text(split_sizes));
    total = checked_add("split_with_sizes", total, s);
  }
  YATEN_CHECK(total == self.sizes()[d], RuntimeError, "split_with_sizes: expects split_sizes to sum exactly to ",
              self.sizes()[d], " (input tensor's size at dimension ", d, "), but got split_sizes summing to ", total);
  std::vector<int64_t> starts, ends;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    starts.push_back(start);
    ends.push_back(start + s);
    start += s;
  }
  return view_detail::pieces("SplitWithSizesBackward0", self, d, starts, ends, /*stacked=*/false);
}

inline std::vector<Tensor> chunk_impl(const Tensor& self, int64_t chunks, int64_t dim) {
  YATEN_CHECK(chunks > 0, RuntimeError, "chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_real_dim("chunk", dim, self.dim());
  const int64_t size = self.sizes()[d];
  if (size == 0) {  // torch: `chunks` empty pieces
    YATEN_CHECK(chunks <= (int64_t(1) << 24), RuntimeError, "chunk: ", chunks, " empty chunks are too many");
    std::vector<Tensor> pieces;
    for (int64_t i = 0; i < chunks; ++i) pieces.push_back(narrow_impl(self, d, 0, 0));
    return pieces;
  }
  return split_impl(self, size / chunks + (size % chunks != 0), d);  // ceil, without overflow for huge chunks
}

}  // namespace yaten::native
