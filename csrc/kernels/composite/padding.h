// Padding by reflection, replication and wrapping around (reflection_pad*, replication_pad*, _pad_circular), for
// every device: each padded dim is one index_select with the source position of every output position, computed on
// the host (n + padding indices, no more). Gradients come from index_select's (an index_add), so gradients of
// gradients follow. Constant padding is `pad` (kernels/composite/layout.h).
#pragma once

#include <string>
#include <vector>

#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/index_select.h"

namespace yaten::native {

namespace padding_detail {
enum class Mode { Reflect, Replicate, Circular };

// The source position of output position j - before along a dim of size n.
inline int64_t source(Mode mode, int64_t j, int64_t n) {
  switch (mode) {
    case Mode::Reflect:
      return j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
    case Mode::Replicate:
      return j < 0 ? 0 : (j >= n ? n - 1 : j);
    case Mode::Circular:
    default:
      return ((j % n) + n) % n;
  }
}

// Pads the last padding.size() / 2 dims of self (padding = (left, right) of the last dim, then of the one before,
// as F.pad); `dims` is the op's number of padded dims, and the input has dims + 1 or dims + 2 dims (torch's rule).
inline Tensor pad(const char* op, const Tensor& self, const std::vector<int64_t>& padding, int dims, Mode mode,
                  bool any_rank = false) {
  YATEN_CHECK(int(padding.size()) == 2 * dims, RuntimeError, op, ": expected padding of ", 2 * dims,
              " values, but got ", padding.size());
  // Reflection and replication need every dim but the batch's non-empty, as torch checks.
  bool shape_ok = any_rank ? self.dim() >= dims : (self.dim() == dims + 1 || self.dim() == dims + 2);
  if (!any_rank && (mode == Mode::Reflect || mode == Mode::Replicate)) {
    for (int64_t i = self.dim() == dims + 2 ? 1 : 0; i < self.dim(); ++i) shape_ok = shape_ok && self.sizes()[i] != 0;
  }
  YATEN_CHECK(shape_ok, RuntimeError, op, ": Expected ", dims + 1, "D or ", dims + 2, "D (batch mode) tensor with "
              "possibly 0 batch size and other non-zero dimensions for input, but got input of size ",
              sizes_text(self.sizes()));
  YATEN_CHECK(mode == Mode::Circular || self.dtype() != ScalarType::Bool, NotImplementedError, op, ": not implemented "
              "for bool (as in torch); pad self.to(yaten.uint8) and convert back");
  Tensor out = self;
  for (int i = 0; i < dims; ++i) {
    const int64_t d = self.dim() - 1 - i, n = self.sizes()[d], before = padding[2 * i], after = padding[2 * i + 1];
    // negative padding crops, as in torch; what is left must not be empty
    YATEN_CHECK((before >= 0 && after >= 0) || n + before + after >= 1, RuntimeError, op, ": input of size ",
                sizes_text(self.sizes()), " is too small for padding ", sizes_text(padding), ": the output's dim ", d,
                " would have size ", n + before + after);
    YATEN_CHECK(n > 0 || (before == 0 && after == 0), RuntimeError, op, ": input of size ", sizes_text(self.sizes()),
                " has an empty dim ", d, " to pad");
    YATEN_CHECK(mode != Mode::Reflect || (before < n && after < n), RuntimeError, op, ": Padding size should be less "
                "than the corresponding input dimension, but got: padding (", before, ", ", after, ") at dimension ",
                d, " of input ", sizes_text(self.sizes()));
    YATEN_CHECK(mode != Mode::Circular || (before <= n && after <= n), RuntimeError, op, ": Padding value causes "
                "wrapping around more than once: padding (", before, ", ", after, ") at dimension ", d, " of input ",
                sizes_text(self.sizes()));
    if (before == 0 && after == 0) continue;
    Tensor index = yaten::empty({checked_add(op, checked_add(op, n, before), after)}, ScalarType::Long,
                                Device(DeviceType::CPU));
    int64_t* at = index.data<int64_t>();
    if (mode == Mode::Circular) {
      // torch crops first (a negative side), then wraps around what is left: [lo, lo + m) of the input
      const int64_t lo = std::max<int64_t>(-before, 0), m = n - lo - std::max<int64_t>(-after, 0);
      const int64_t left = std::max<int64_t>(before, 0), total = n + before + after;
      YATEN_CHECK(m > 0 && left <= m && std::max<int64_t>(after, 0) <= m, RuntimeError, op, ": Padding value causes "
                  "wrapping around more than once: padding (", before, ", ", after, ") at dimension ", d, " of input ",
                  sizes_text(self.sizes()), " leaves ", std::max<int64_t>(m, 0), " elements to wrap around");
      for (int64_t k = 0; k < total; ++k) at[k] = lo + source(mode, k - left, m);
    } else {
      for (int64_t j = -before; j < n + after; ++j) at[j + before] = source(mode, j, n);
    }
    if (!self.device().is_cpu()) index = yaten::_to_copy(index, ScalarType::Long, self.device());
    out = yaten::index_select(out, d, index);
  }
  return out;
}
}  // namespace padding_detail

inline Tensor reflection_pad1d_impl(const Tensor& self, const std::vector<int64_t>& padding) {
  return padding_detail::pad("reflection_pad1d", self, padding, 1, padding_detail::Mode::Reflect);
}
inline Tensor reflection_pad2d_impl(const Tensor& self, const std::vector<int64_t>& padding) {
  return padding_detail::pad("reflection_pad2d", self, padding, 2, padding_detail::Mode::Reflect);
}
inline Tensor reflection_pad3d_impl(const Tensor& self, const std::vector<int64_t>& padding) {
  return padding_detail::pad("reflection_pad3d", self, padding, 3, padding_detail::Mode::Reflect);
}
inline Tensor replication_pad1d_impl(const Tensor& self, const std::vector<int64_t>& padding) {
  return padding_detail::pad("replication_pad1d", self, padding, 1, padding_detail::Mode::Replicate);
}
inline Tensor replication_pad2d_impl(const Tensor& self, const std::vector<int64_t>& padding) {
  return padding_detail::pad("replication_pad2d", self, padding, 2, padding_detail::Mode::Replicate);
}
inline Tensor replication_pad3d_impl(const Tensor& self, const std::vector<int64_t>& padding) {
  return padding_detail::pad("replication_pad3d", self, padding, 3, padding_detail::Mode::Replicate);
}
inline Tensor _pad_circular_impl(const Tensor& self, const std::vector<int64_t>& pad) {
  YATEN_CHECK(pad.size() % 2 == 0, RuntimeError, "_pad_circular: padding length must be divisible by 2, got ",
              pad.size());
  return padding_detail::pad("_pad_circular", self, pad, int(pad.size() / 2), padding_detail::Mode::Circular, true);
}

}  // namespace yaten::native
