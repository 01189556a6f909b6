// CompositeImplicit shape ops and *_like factories, written with views, copy_ and indexing.
#pragma once

#include "core/copy_bytes.h"
#include "core/memory_format.h"
#include "core/wrap_dim.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/composite/chunk_copy.h"
#include "core/type_promotion.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/cat.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/empty_strided.h"
#include "yaten/ops/fill.h"
#include "yaten/ops/full.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/le.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

// *_like with a memory_format: an empty tensor of self's shape laid out as it says (Note in core/memory_format.h).
inline Tensor empty_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                              std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return yaten::empty(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
  }
  return yaten::empty_strided(self.sizes(), strides_for("empty_like", memory_format, self.sizes(), &self),
                              dtype.value_or(self.dtype()), device.value_or(self.device()));
}
inline Tensor full_like_impl(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                             std::optional<Device> device, std::optional<int64_t> memory_format) {
  if (row_major(memory_format)) {
    return yaten::full(self.sizes(), fill_value, dtype.value_or(self.dtype()), device.value_or(self.device()));
  }
  return yaten::fill_(empty_like_impl(self, dtype, device, memory_format), fill_value);
}
inline Tensor zeros_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                              std::optional<int64_t> memory_format) {
  return full_like_impl(self, Scalar(int64_t(0)), dtype, device, memory_format);
}
inline Tensor ones_like_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                             std::optional<int64_t> memory_format) {
  return full_like_impl(self, Scalar(int64_t(1)), dtype, device, memory_format);
}

namespace shape_detail {
inline std::string sizes_str(const std::vector<int64_t>& s) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < s.size(); ++i) out << (i ? ", " : "") << s[i];
  out << "]";
  return out.str();
}
using ::yaten::wrap_dim;

// cat of contiguous parts of the output's dtype on the CPU: the output is `outer` rows, each the concatenation of
// one block per part, so the work is a list of memcpys, split between threads by output bytes in one parallel pass
// (copying part by part would wake the threads once per part).
inline bool cat_contiguous(const std::vector<const Tensor*>& parts, const Tensor& out, int64_t d) {
  if (!out.device().is_cpu()) return false;
  for (const Tensor* t : parts) {
    // raw copies record nothing: tensors in the autograd graph take the copy_ path (which autograd checks)
    if (!t->is_contiguous() || t->dtype() != out.dtype() || t->impl()->autograd_meta()) return false;
  }
  const int64_t item = element_size(out.dtype());
  int64_t outer = 1;
  for (int64_t k = 0; k < d; ++k) outer *= out.sizes()[k];
  std::vector<int64_t> block;  // bytes of each part in one output row
  int64_t row = 0;
  for (const Tensor* t : parts) {
    block.push_back(outer == 0 ? 0 : t->numel() / outer * item);
    row += block.back();
  }
  const int64_t total = outer * row;
  if (total == 0) return true;
  char* dst = static_cast<char*>(out.data_ptr());
  yaten::detail::ScopedGilRelease release_gil(total >= yaten::detail::kGilReleaseElements * 4);
  parallel_for(total, int64_t(1) << 18, [&](int64_t b, int64_t e) {
    int64_t pos = b;
    while (pos < e) {
      const int64_t r = pos / row;
      int64_t in_row = pos - r * row;
      size_t p = 0;
      while (in_row >= block[p]) in_row -= block[p++];
      const int64_t n = std::min(block[p] - in_row, e - pos);
      yaten::detail::copy_bytes(dst + pos, static_cast<const char*>(parts[p]->data_ptr()) + r * block[p] + in_row, n);
      pos += n;
    }
  });
  return true;
}
}  // namespace shape_detail

// cat: the tensors joined along `dim`, in their promoted dtype; 1-D empty tensors are skipped, as in torch.
inline Tensor cat_impl(const std::vector<Tensor>& tensors, int64_t dim) {
  YATEN_CHECK(!tensors.empty(), ValueError, "cat(): expected a non-empty list of Tensors");
  std::vector<const Tensor*> parts;
  ResultTypeState state;
  for (const Tensor& t : tensors) {
    state.add(t);
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(&t);
  }
  const ScalarType dtype = state.result();
  if (parts.empty()) return yaten::empty({0}, dtype, tensors[0].device());
  const Tensor& first = *parts[0];
  YATEN_CHECK(first.dim() > 0, RuntimeError, "cat(): zero-dimensional tensor (at position 0) cannot be concatenated");
  const int64_t d = shape_detail::wrap_dim("cat", dim, first.dim());
  std::vector<int64_t> shape = first.sizes();
  shape[d] = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& t = *parts[i];
    YATEN_CHECK(t.dim() == first.dim(), RuntimeError, "cat(): Tensors must have same number of dimensions: got ",
                first.dim(), " and ", t.dim());
    YATEN_CHECK(t.device() == first.device(), RuntimeError, "cat(): all tensors must be on the same device");
    for (int64_t k = 0; k < t.dim(); ++k) {
      YATEN_CHECK(k == d || t.sizes()[k] == first.sizes()[k], RuntimeError, "cat(): Sizes of tensors must match "
                  "except in dimension ", d, ". Expected size ", first.sizes()[k], " but got size ", t.sizes()[k],
                  " for tensor number ", i, " in the list.");
    }
    shape[d] += t.sizes()[d];
  }
  Tensor out = yaten::empty(shape, dtype, first.device());
  if (shape_detail::cat_contiguous(parts, out, d)) return out;
  int64_t offset = 0;
  for (const Tensor* t : parts) {
    const int64_t n = t->sizes()[d];
    if (n > 0) yaten::copy_(yaten::narrow(out, d, offset, n), *t);
    offset += n;
  }
  return out;
}

inline Tensor stack_impl(const std::vector<Tensor>& tensors, int64_t dim) {
  YATEN_CHECK(!tensors.empty(), RuntimeError, "stack(): expected a non-empty list of Tensors");
  const int64_t d = shape_detail::wrap_dim("stack", dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    YATEN_CHECK(tensors[i].sizes() == tensors[0].sizes(), RuntimeError, "stack expects each tensor to be equal size, "
                "but got ", shape_detail::sizes_str(tensors[0].sizes()), " at entry 0 and ",
                shape_detail::sizes_str(tensors[i].sizes()), " at entry ", i);
    parts.push_back(yaten::unsqueeze(tensors[i], d));
  }
  return yaten::cat(parts, d);
}

// hstack joins along dim 1 (dim 0 for 1-D tensors); vstack stacks rows, treating 1-D tensors as rows.
inline Tensor hstack_impl(const std::vector<Tensor>& tensors) {
  YATEN_CHECK(!tensors.empty(), RuntimeError, "hstack(): expected a non-empty list of Tensors");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.dim() == 0 ? yaten::reshape(t, {1}) : t);
  return yaten::cat(parts, parts[0].dim() == 1 ? 0 : 1);
}
inline Tensor vstack_impl(const std::vector<Tensor>& tensors) {
  YATEN_CHECK(!tensors.empty(), RuntimeError, "vstack(): expected a non-empty list of Tensors");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.dim() < 2 ? yaten::reshape(t, {1, -1}) : t);
  return yaten::cat(parts, 0);
}

namespace shape_detail {
// n elements of `item` bytes from `from` into `to` in reverse order (the compiler vectorizes each with permutes).
template <typename T>
inline void reverse_elements(char* to, const char* from, int64_t n) {
  T* __restrict__ out = reinterpret_cast<T*>(to);
  const T* __restrict__ in = reinterpret_cast<const T*>(from);
  for (int64_t k = 0; k < n; ++k) out[k] = in[n - 1 - k];
}
// flip of a contiguous CPU tensor in one pass (Note [Rearranging a contiguous tensor in one pass]).
inline Tensor flip_contiguous(const Tensor& self, const std::vector<bool>& flipped) {
  const int64_t dims = self.dim();
  int64_t last = -1;
  for (int64_t d = 0; d < dims; ++d) last = flipped[d] ? d : last;
  const bool reverse_rows = last == dims - 1;
  const std::vector<int64_t>& sizes = self.sizes();
  return composite_detail::copy_chunks(
      self, reverse_rows ? dims - 1 : last + 1,
      [&](int64_t d, int64_t i) { return flipped[d] ? sizes[d] - 1 - i : i; },
      [&](char* to, const char* from, int64_t run, int64_t item) {
        if (!reverse_rows) {
          yaten::detail::copy_bytes(to, from, static_cast<size_t>(run * item));
        } else if (item == 1) {
          reverse_elements<uint8_t>(to, from, run);
        } else if (item == 2) {
          reverse_elements<uint16_t>(to, from, run);
        } else if (item == 4) {
          reverse_elements<uint32_t>(to, from, run);
        } else if (item == 8) {
          reverse_elements<uint64_t>(to, from, run);
        } else {  // complex128: 16 bytes
          for (int64_t k = 0; k < run; ++k) std::memcpy(to + k * item, from + (run - 1 - k) * item, size_t(item));
        }
      });
}
}  // namespace shape_detail

// flip: each dim in `dims` read backwards (a copy, as in torch). A contiguous CPU tensor that autograd does not
// follow in one pass (shape_detail::flip_contiguous); otherwise index_select along each dim, which autograd follows.
inline Tensor flip_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  Tensor out = self;
  std::vector<bool> seen(std::max<int64_t>(self.dim(), 1), false);
  for (int64_t dim : dims) {
    const int64_t d = shape_detail::wrap_dim("flip", dim, self.dim());
    YATEN_CHECK(!seen[d], RuntimeError, "flip: dim ", d, " appears multiple times in the list of dims");
    seen[d] = true;
  }
  const bool any_flipped = self.dim() > 0 && std::find(seen.begin(), seen.end(), true) != seen.end();
  if (any_flipped && composite_detail::one_pass_rearrangement(self)) {
    return shape_detail::flip_contiguous(self, seen);
  }
  for (int64_t dim : dims) {
    const int64_t d = shape_detail::wrap_dim("flip", dim, self.dim());
    if (self.dim() == 0) continue;
    const int64_t n = self.sizes()[d];
    const Tensor reversed = yaten::arange(Scalar(n - 1), Scalar(int64_t(-1)), Scalar(int64_t(-1)), ScalarType::Long,
                                          self.device());
    out = yaten::index_select(out, d, reversed);
  }
  return out.is_same(self) ? yaten::clone(self) : out;  // nothing flipped: still a copy
}

// tril/triu: the elements on and below (above) the `diagonal`-th diagonal of the last two dims; the rest zero.
template <bool kLower>
Tensor triangle(const char* op, const Tensor& self, int64_t diagonal) {
  YATEN_CHECK(self.dim() >= 2, RuntimeError, op, ": input tensor must have at least 2 dimensions");
  const int64_t rows = self.sizes()[self.dim() - 2], cols = self.sizes()[self.dim() - 1];
  const auto range = [&](int64_t n) {
    return yaten::arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Long, self.device());
  };
  if (composite_detail::one_pass_rearrangement(self)) {
    // each row's kept columns copied and the rest zeroed (all-zero bytes are zero in every dtype), in one pass: the
    // mask below cost an int64 and a bool matrix and a where (tril of 1024 x 1024 float32: 1.7x torch's time)
    Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
    const int64_t item = element_size(self.dtype()), all_rows = self.numel() / cols;
    const char* src = static_cast<const char*>(self.data_ptr());
    char* dst = static_cast<char*>(out.data_ptr());
    parallel_for(all_rows, std::max<int64_t>(1, kGrainSize / cols), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % rows;  // column j is kept where j - i <= diagonal (lower) or >= diagonal (upper)
        const int64_t edge = std::clamp<int64_t>(kLower ? i + diagonal + 1 : i + diagonal, 0, cols);
        const int64_t keep_from = kLower ? 0 : edge, keep_to = kLower ? edge : cols;
        char* row = dst + r * cols * item;
        std::memset(row, 0, static_cast<size_t>(cols * item));
        yaten::detail::copy_bytes(row + keep_from * item, src + (r * cols + keep_from) * item,
                                  static_cast<size_t>((keep_to - keep_from) * item));
      }
    });
    return out;
  }
  const Tensor offset = yaten::sub(range(cols), yaten::unsqueeze(range(rows), 1), Scalar(int64_t(1)));  // j - i
  const Tensor keep = kLower ? yaten::le(offset, Scalar(diagonal)) : yaten::ge(offset, Scalar(diagonal));
  return yaten::where(keep, self, yaten::zeros({}, self.dtype(), self.device()));
}
inline Tensor tril_impl(const Tensor& self, int64_t diagonal) { return triangle<true>("tril", self, diagonal); }
inline Tensor triu_impl(const Tensor& self, int64_t diagonal) { return triangle<false>("triu", self, diagonal); }

}  // namespace yaten::native
