// CompositeImplicit shape ops built from views, cat, index_select and copy_: roll, repeat, tile, repeat_interleave,
// pad, where(cond), meshgrid, broadcast_to, broadcast_tensors, diag, trace, and the range factories linspace,
// logspace, eye.
#pragma once

#include "core/copy_bytes.h"
#include "core/wrap_dim.h"
#include "kernels/sizes_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "iter/tensor_iterator.h"
#include "kernels/composite/chunk_copy.h"
#include "kernels/composite/common.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/cat.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/diagonal.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/fill.h"
#include "yaten/ops/full.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/nonzero.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/scatter.h"
#include "yaten/ops/select.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

namespace layout_detail {
using ::yaten::wrap_dim;
inline Tensor long_range(int64_t n, Device device) {
  return yaten::arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Long, device);
}
}  // namespace layout_detail

// roll: along each dim, the last `shift` elements move to the front.
inline Tensor roll_impl(const Tensor& self, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  YATEN_CHECK(self.dim() > 0 || dims.empty(), IndexError, "roll: Dimension specified as ", dims.empty() ? 0 : dims[0],
              " but tensor has no dimensions");
  if (dims.empty()) {
    YATEN_CHECK(shifts.size() == 1, RuntimeError, "roll: shifts must have one element when dims is empty, got ",
                shifts.size());
    return yaten::reshape(roll_impl(yaten::reshape(self, {-1}), shifts, {0}), self.sizes());
  }
  YATEN_CHECK(shifts.size() == dims.size(), RuntimeError, "roll: shifts and dimensions must align. shifts: ",
              shifts.size(), ", dims: ", dims.size());
  // Note [Rearranging a contiguous tensor in one pass]
  if (self.dim() > 0 && composite_detail::one_pass_rearrangement(self)) {
    std::vector<int64_t> shift(size_t(self.dim()), 0);
    int64_t last = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t d = layout_detail::wrap_dim("roll", dims[i], self.dim());
      const int64_t n = self.sizes()[d];
      shift[d] = ((shift[d] + shifts[i] % n) % n + n) % n;
    }
    for (int64_t d = 0; d < self.dim(); ++d) last = shift[d] != 0 ? d : last;
    if (last < 0) return yaten::clone(self);
    const bool rotate_rows = last == self.dim() - 1;
    const std::vector<int64_t>& sizes = self.sizes();
    return composite_detail::copy_chunks(
        self, rotate_rows ? last : last + 1,
        [&](int64_t d, int64_t i) { return (i - shift[d] + sizes[d]) % sizes[d]; },  // out[i] = in[i - shift]
        [&](char* to, const char* from, int64_t run, int64_t item) {
          const int64_t k = rotate_rows ? shift[last] : 0;
          yaten::detail::copy_bytes(to, from + (run - k) * item, static_cast<size_t>(k * item));
          yaten::detail::copy_bytes(to + k * item, from, static_cast<size_t>((run - k) * item));
        });
  }
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = layout_detail::wrap_dim("roll", dims[i], self.dim());
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = yaten::cat({yaten::narrow(out, d, n - s, s), yaten::narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(self) ? yaten::clone(self) : out;
}

// repeat: unsqueeze a repeat dim before each dim, expand it, and lay the result out contiguously.
inline Tensor repeat_impl(const Tensor& self, const std::vector<int64_t>& repeats) {
  YATEN_CHECK(int64_t(repeats.size()) >= self.dim(), RuntimeError, "repeat: number of dimensions of repeat dims can "
              "not be smaller than number of dimensions of tensor");
  const int64_t n = repeats.size();
  std::vector<int64_t> padded(n - self.dim(), 1);
  for (int64_t s : self.sizes()) padded.push_back(s);
  // a negative repeat only of a dim of size 0 (the result's size is 0 either way), as torch allows
  for (int64_t i = 0; i < n; ++i) {
    YATEN_CHECK(repeats[i] >= 0 || padded[i] == 0, RuntimeError, "repeat: repeats can not be negative, got ",
                repeats[i]);
  }
  if (self.numel() == 0) {  // reshaped from a copy of self, so that the result keeps self's gradient
    std::vector<int64_t> shape;
    for (int64_t i = 0; i < n; ++i) shape.push_back(padded[i] * std::max<int64_t>(repeats[i], 0));
    return yaten::reshape(yaten::clone(self), shape);
  }
  std::vector<int64_t> interleaved, expanded, result;
  for (int64_t i = 0; i < n; ++i) {
    interleaved.insert(interleaved.end(), {1, padded[i]});
    expanded.insert(expanded.end(), {repeats[i], padded[i]});
    result.push_back(checked_mul("repeat", repeats[i], padded[i]));
  }
  const Tensor grid = yaten::expand(yaten::reshape(self, interleaved), expanded);
  return yaten::reshape(yaten::contiguous(grid), result);
}
inline Tensor tile_impl(const Tensor& self, const std::vector<int64_t>& dims) {
  std::vector<int64_t> repeats(std::max<int64_t>(self.dim() - int64_t(dims.size()), 0), 1);
  repeats.insert(repeats.end(), dims.begin(), dims.end());
  return repeat_impl(self, repeats);
}

namespace layout_detail {
// Index i repeated repeats[i] times, for a 1-D `repeats`. As torch, an empty `repeats` gives an empty result whatever
// output_size says.
inline Tensor repeat_indices(const Tensor& repeats, std::optional<int64_t> output_size) {
  YATEN_CHECK(!is_floating_point(repeats.dtype()) && repeats.dtype() != ScalarType::Bool, TypeError,
              "repeat_interleave: repeats has to be an integer tensor, got ", dtype_name(repeats.dtype()));
  const Tensor counts = yaten::contiguous(yaten::_to_copy(yaten::reshape(repeats, {-1}), ScalarType::Long,
                                                          Device(DeviceType::CPU)));
  const int64_t* c = counts.data<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    YATEN_CHECK(c[i] >= 0, RuntimeError, "repeat_interleave: repeats can not be negative");
    YATEN_CHECK(!__builtin_add_overflow(total, c[i], &total), RuntimeError, "repeat_interleave: the repeats add up "
                "to more than 2**63 - 1 elements");
  }
  YATEN_CHECK(!output_size || *output_size == total || counts.numel() == 0, RuntimeError, "repeat_interleave: allocated size does not match "
              "required size (output_size=", output_size.value_or(0), ", required ", total, ")");
  Tensor out = yaten::empty({total}, ScalarType::Long, Device(DeviceType::CPU));
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0, at = 0; i < counts.numel(); ++i) {
    for (int64_t k = 0; k < c[i]; ++k) o[at++] = i;
  }
  // int32 repeats give int32 indices, as torch; the other integer dtypes (torch takes only int32 and int64) int64
  const ScalarType dtype = repeats.dtype() == ScalarType::Int ? ScalarType::Int : ScalarType::Long;
  return dtype == ScalarType::Long && repeats.device().is_cpu() ? out : yaten::_to_copy(out, dtype, repeats.device());
}
}  // namespace layout_detail

// repeat_interleave(repeats): index i repeated repeats[i] times.
inline Tensor repeat_interleave_impl(const Tensor& repeats, std::optional<int64_t> output_size) {
  YATEN_CHECK(repeats.dim() == 1, RuntimeError, "repeat_interleave only accept 1D vector as repeat");
  return layout_detail::repeat_indices(repeats, output_size);
}
inline Tensor repeat_interleave_tensor_impl(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                            std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : yaten::reshape(self, {-1});
  const int64_t d = dim ? layout_detail::wrap_dim("repeat_interleave", *dim, self.dim()) : 0;
  const int64_t n = input.dim() == 0 ? 1 : input.sizes()[d];
  YATEN_CHECK(repeats.dim() <= 1, RuntimeError, "repeat_interleave: repeats must be 0-dim or 1-dim tensor");
  // one repeat (0-dim, or 1-D of size 1) stands for every index along d, as in torch
  const Tensor counts = repeats.numel() == 1 ? yaten::expand(yaten::reshape(repeats, {1}), {n}) : repeats;
  YATEN_CHECK(counts.numel() == n, RuntimeError, "repeat_interleave: repeats must have the same size as input along "
              "dim, but got repeats.size(0) = ", counts.numel(), " and input.size(", d, ") = ", n);
  return yaten::index_select(input, d, layout_detail::repeat_indices(counts, output_size));
}
inline Tensor repeat_interleave_int_impl(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                         std::optional<int64_t> output_size) {
  YATEN_CHECK(repeats >= 0, RuntimeError, "repeat_interleave: repeats can not be negative");
  if (output_size) {  // torch checks an int repeat's output_size even when the input is empty
    const int64_t n = !dim ? self.numel()
                           : (self.dim() == 0 ? 1 : self.sizes()[layout_detail::wrap_dim("repeat_interleave", *dim,
                                                                                        self.dim())]);
    int64_t total = 0;
    YATEN_CHECK(!__builtin_mul_overflow(n, repeats, &total), RuntimeError, "repeat_interleave: ", n, " elements "
                "repeated ", repeats, " times are more than 2**63 - 1");
    YATEN_CHECK(*output_size == total, RuntimeError, "repeat_interleave: Invalid output_size, expected ", total,
                " but got ", *output_size);
  }
  return repeat_interleave_tensor_impl(self, yaten::full({1}, Scalar(repeats), ScalarType::Long, self.device()), dim,
                                       output_size);
}

// pad (constant): a tensor of the padded shape filled with `value`, the overlapping region copied in.
inline Tensor pad_impl(const Tensor& input, const std::vector<int64_t>& pad, const std::string& mode,
                       std::optional<double> value) {
  YATEN_CHECK(mode == "constant", NotImplementedError, "pad: the pad op pads with a constant, not mode '", mode,
              "': yaten.nn.functional.pad takes 'reflect', 'replicate' and 'circular' (the ops reflection_pad1d/2d/3d, "
              "replication_pad1d/2d/3d and _pad_circular)");
  YATEN_CHECK(pad.size() % 2 == 0, RuntimeError, "pad: padding length must be divisible by 2, got ", pad.size());
  YATEN_CHECK(int64_t(pad.size()) / 2 <= input.dim(), RuntimeError, "pad: padding length too large: ", pad.size(),
              " values for a ", input.dim(), "-dim tensor");
  std::vector<int64_t> shape = input.sizes();
  Tensor src = input;
  Tensor out;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = input.dim() - 1 - int64_t(i);
    // torch crops the left side first, then the right: neither may leave a negative length
    const int64_t cropped = shape[d] + std::min<int64_t>(pad[2 * i], 0);
    YATEN_CHECK(cropped >= 0 && cropped + std::min<int64_t>(pad[2 * i + 1], 0) >= 0, RuntimeError,
                "pad: narrow(): length must be non-negative (the negative padding of dim ", d, " crops more than its ",
                shape[d], " elements)");
    shape[d] += pad[2 * i] + pad[2 * i + 1];
    YATEN_CHECK(shape[d] >= 0, RuntimeError, "pad: the padded size of dim ", d, " would be ", shape[d],
                ", which is negative");
  }
  // Only cropped (no pad > 0): every element is copied from input and the value is never converted, as in torch
  const bool fills = std::any_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; });
  out = fills ? yaten::full(shape, Scalar(value.value_or(0.0)), input.dtype(), input.device())
              : yaten::empty(shape, input.dtype(), input.device());
  Tensor dst = out;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = input.dim() - 1 - int64_t(i);
    const int64_t before = pad[2 * i], after = pad[2 * i + 1];
    const int64_t src_begin = std::max<int64_t>(-before, 0), src_end = src.sizes()[d] - std::max<int64_t>(-after, 0);
    const int64_t len = std::max<int64_t>(src_end - src_begin, 0);
    src = yaten::narrow(src, d, std::min(src_begin, src.sizes()[d]), len);
    dst = yaten::narrow(dst, d, std::max<int64_t>(before, 0), len);
  }
  if (src.numel() > 0) yaten::copy_(dst, src);
  return out;
}

inline std::vector<Tensor> where_condition_impl(const Tensor& condition) {
  const Tensor idx = yaten::nonzero(condition);  // [n, ndim]
  std::vector<Tensor> out;
  for (int64_t d = 0; d < condition.dim(); ++d) out.push_back(yaten::select(idx, 1, d));
  // a 0-dim condition is one element at index 0, as torch answers: [0] when it is nonzero, else []
  if (condition.dim() == 0) out.push_back(yaten::zeros({idx.sizes()[0]}, ScalarType::Long, condition.device()));
  return out;
}

inline std::vector<Tensor> meshgrid_impl(const std::vector<Tensor>& tensors, const std::string& indexing) {
  YATEN_CHECK(!tensors.empty(), RuntimeError, "meshgrid: expects a non-empty TensorList");
  YATEN_CHECK(indexing == "ij" || indexing == "xy", RuntimeError, "meshgrid: indexing must be one of \"xy\" or \"ij\", "
              "but received: ", indexing);
  const size_t n = tensors.size();
  const bool swap = indexing == "xy" && n >= 2;  // xy: the first two grids' dims are exchanged
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) {
    YATEN_CHECK(t.dim() <= 1, RuntimeError, "meshgrid: expects all tensors to be 0- or 1-dimensional, got ", t.dim());
    YATEN_CHECK(t.dtype() == tensors[0].dtype() && t.device() == tensors[0].device(), RuntimeError,
                "meshgrid: expects all tensors to have the same dtype and device");
    shape.push_back(t.numel());
  }
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    size_t at = i;
    if (swap && i < 2) at = 1 - i;
    std::vector<int64_t> view(n, 1);
    view[at] = -1;
    out.push_back(yaten::expand(yaten::reshape(tensors[i], view), shape));
  }
  return out;
}

inline Tensor broadcast_to_impl(const Tensor& self, const std::vector<int64_t>& size) {
  return yaten::expand(self, size);
}
inline std::vector<Tensor> broadcast_tensors_impl(const std::vector<Tensor>& tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes("broadcast_tensors", shape, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(yaten::expand(t, shape));
  return out;
}

inline Tensor diag_impl(const Tensor& self, int64_t diagonal) {
  YATEN_CHECK(self.dim() == 1 || self.dim() == 2, RuntimeError, "diag(): Supports 1D or 2D tensors. Got ", self.dim(),
              "D");
  if (self.dim() == 2) return yaten::clone(yaten::diagonal(self, diagonal, 0, 1));
  // out of place (a scatter into zeros), so a self that requires grad gets its gradient: the copy_ into a diagonal
  // view of a fresh tensor this was refused it
  YATEN_CHECK(diagonal != std::numeric_limits<int64_t>::min(), RuntimeError, "diag(): diagonal ", diagonal,
              " is out of range");
  const int64_t m = self.sizes()[0], n = checked_add("diag", m, std::abs(diagonal));
  checked_mul("diag", n, n);  // the result's numel
  const int64_t start = diagonal >= 0 ? diagonal : checked_mul("diag", -diagonal, n);
  const Tensor index = yaten::add(yaten::mul(yaten::arange(Scalar(m), ScalarType::Long, self.device()), Scalar(n + 1)),
                                  Scalar(start), Scalar(int64_t(1)));
  return yaten::reshape(yaten::scatter(yaten::zeros({n * n}, self.dtype(), self.device()), 0, index, self), {n, n});
}
inline Tensor trace_impl(const Tensor& self) {
  YATEN_CHECK(self.dim() == 2, RuntimeError, "trace: expected a matrix, but got tensor with dim ", self.dim());
  YATEN_CHECK(self.dtype() != ScalarType::Bool, NotImplementedError, "trace: not implemented for bool, as in torch");
  return yaten::sum(yaten::diagonal(self, 0, 0, 1));
}

namespace layout_detail {
// An end of linspace/logspace as torch takes it: converted to the result's dtype first, so an integer dtype
// truncates it (logspace(1.9, 3.5, 3, dtype=int64) is 10, 100, 1000).
inline double as_dtype(const Scalar& value, ScalarType dtype) {
  const double v = value.to_double();
  if (dtype == ScalarType::Bool) return v != 0 ? 1.0 : 0.0;
  // a float dtype rounds it (logspace(4.3, ..., dtype=bfloat16) starts at 10 ** 4.3125, as torch's)
  if (dtype == ScalarType::Float) return static_cast<double>(static_cast<float>(v));
  if (dtype == ScalarType::Half) return static_cast<double>(static_cast<float>(Half(static_cast<float>(v))));
  if (dtype == ScalarType::BFloat16) return static_cast<double>(static_cast<float>(BFloat16(static_cast<float>(v))));
  return is_integral(dtype, false) ? std::trunc(v) : v;
}
}  // namespace layout_detail

// linspace: start + i * step for the first half and end - (steps - 1 - i) * step for the second, as torch does, so
// both ends are exact; computed in float64 and converted.
inline Tensor linspace_impl(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                            std::optional<Device> device) {
  YATEN_CHECK(steps >= 0, RuntimeError, "linspace: number of steps must be non-negative, got ", steps);
  const ScalarType out_dtype = dtype.value_or(default_dtype());
  if (steps > 0) {  // torch converts both ends to the dtype first: its overflow RuntimeError
    check_scalar_fits(start, out_dtype);
    check_scalar_fits(end, out_dtype);
  }
  Tensor values = yaten::empty({steps}, ScalarType::Double, Device(DeviceType::CPU));
  const double a = layout_detail::as_dtype(start, out_dtype), b = layout_detail::as_dtype(end, out_dtype);
  const double step = steps > 1 ? (b - a) / double(steps - 1) : 0.0;
  double* v = values.data<double>();
  for (int64_t i = 0; i < steps; ++i) v[i] = i < steps / 2 ? a + step * double(i) : b - step * double(steps - 1 - i);
  if (steps == 1) v[0] = a;
  return yaten::_to_copy(values, out_dtype, device.value_or(Device(DeviceType::CPU)));
}
inline Tensor logspace_impl(const Scalar& start, const Scalar& end, int64_t steps, double base,
                            std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType out_dtype = dtype.value_or(default_dtype());
  if (steps > 0) {  // as linspace
    check_scalar_fits(start, out_dtype);
    check_scalar_fits(end, out_dtype);
  }
  if (steps == 1) {  // torch: base ** start of the number as given (not rounded to the dtype first)
    return yaten::full({1}, Scalar(std::pow(base, start.to_double())), out_dtype,
                       device.value_or(Device(DeviceType::CPU)));
  }
  const Tensor exponents = linspace_impl(Scalar(layout_detail::as_dtype(start, out_dtype)),
                                         Scalar(layout_detail::as_dtype(end, out_dtype)), steps, ScalarType::Double,
                                         Device(DeviceType::CPU));
  return yaten::_to_copy(yaten::pow(Scalar(base), exponents), out_dtype, device.value_or(Device(DeviceType::CPU)));
}
inline Tensor eye_m_impl(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Device> device) {
  YATEN_CHECK(n >= 0 && m >= 0, RuntimeError, "eye: n and m must be non-negative, got ", n, " and ", m);
  Tensor out = yaten::zeros({n, m}, dtype.value_or(default_dtype()), device.value_or(Device(DeviceType::CPU)));
  yaten::fill_(yaten::diagonal(out, 0, 0, 1), Scalar(int64_t(1)));
  return out;
}
inline Tensor eye_impl(int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return eye_m_impl(n, n, dtype, device);
}

}  // namespace yaten::native
