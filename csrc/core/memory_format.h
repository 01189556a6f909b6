// Memory formats: the stride orders torch names (torch.contiguous_format, preserve_format, channels_last,
// channels_last_3d). ops.yaml passes one as `int? memory_format` (yaten.memory_format objects are Python ints through
// __index__, in this order); None keeps yaten's default for the op, which is the contiguous layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"

namespace yaten {

enum class MemoryFormat : int64_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };

inline MemoryFormat memory_format_of(const char* op, int64_t code) {
  YATEN_CHECK(code >= 0 && code <= 3, ValueError, op, ": unknown memory_format ", code,
              " (expected yaten.contiguous_format, preserve_format, channels_last or channels_last_3d)");
  return static_cast<MemoryFormat>(code);
}

// Whether an op's memory_format argument asks for the default, row-major layout (None or contiguous_format).
inline bool row_major(std::optional<int64_t> code) { return !code || *code == int64_t(MemoryFormat::Contiguous); }

// Row-major strides (a size-0 or size-1 dim counts as 1, as torch computes them).
inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = step;
    step *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

// Channels last: dim 1 (channels) innermost, then the spatial dims from the last, then the batch: NHWC or NDHWC.
inline std::vector<int64_t> channels_last_strides(const char* op, const std::vector<int64_t>& sizes, int64_t rank) {
  YATEN_CHECK(static_cast<int64_t>(sizes.size()) == rank, RuntimeError, op, ": required rank ", rank,
              " tensor to use channels_last", rank == 5 ? "_3d" : "", " format, got rank ", sizes.size());
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  strides[1] = step;
  step *= std::max<int64_t>(sizes[1], 1);
  for (int64_t d = rank - 1; d >= 2; --d) {
    strides[d] = step;
    step *= std::max<int64_t>(sizes[d], 1);
  }
  strides[0] = step;
  return strides;
}

// Whether t's elements tile one block of memory exactly, in some order of its dims (torch's
// is_non_overlapping_and_dense): such a layout can be copied as it is.
inline bool non_overlapping_and_dense(const Tensor& t) {
  const std::vector<int64_t>& sizes = t.sizes();
  const std::vector<int64_t>& strides = t.strides();
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t d : order) {
    if (sizes[d] == 1) continue;
    if (sizes[d] == 0) return true;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// Whether t's strides run in channels-last order (channels innermost, then the spatial dims from the last, the batch
// outermost), over its dims of more than one element: torch's suggestion for a layout that is not dense.
inline bool channels_last_ordered(const Tensor& t) {
  if (t.dim() != 4 && t.dim() != 5) return false;
  std::vector<int64_t> order = {1};
  for (int64_t d = t.dim() - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  int64_t previous = 0;
  for (int64_t d : order) {
    if (t.sizes()[d] < 2) continue;
    if (t.strides()[d] < previous) return false;
    previous = t.strides()[d];
  }
  return !t.is_contiguous();
}

// Whether t is laid out in channels-last order with no gaps: Tensor.is_contiguous(memory_format=channels_last), and
// what contiguous(memory_format=...) returns self for.
inline bool has_channels_last_strides(const Tensor& t, int64_t rank) {
  if (t.dim() != rank) return false;
  const std::vector<int64_t> wanted = channels_last_strides("is_contiguous", t.sizes(), rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (t.sizes()[d] > 1 && t.strides()[d] != wanted[d]) return false;
  }
  return true;
}

// The strides of a new tensor of `sizes` in `format`; `like` (for *_like and clone) is what preserve_format keeps:
// its own strides when it is non-overlapping and dense, channels last when it is laid out so, row-major otherwise.
inline std::vector<int64_t> strides_for(const char* op, std::optional<int64_t> code, const std::vector<int64_t>& sizes,
                                        const Tensor* like) {
  const MemoryFormat format = code ? memory_format_of(op, *code) : MemoryFormat::Contiguous;
  switch (format) {
    case MemoryFormat::Contiguous: return contiguous_strides(sizes);
    case MemoryFormat::ChannelsLast: return channels_last_strides(op, sizes, 4);
    case MemoryFormat::ChannelsLast3d: return channels_last_strides(op, sizes, 5);
    case MemoryFormat::Preserve: break;
  }
  YATEN_CHECK(like != nullptr, RuntimeError, op, ": preserve memory format is unsupported here");
  if (non_overlapping_and_dense(*like)) return like->strides();
  if (channels_last_ordered(*like)) return channels_last_strides(op, sizes, like->dim());
  return contiguous_strides(sizes);
}

}  // namespace yaten
