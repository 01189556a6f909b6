// Definitions for core/tensor.h and core/storage.h: tensors, their storage, views and metadata checks.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

namespace yaten {

// ---------------------------------------------------------------------------------------------------- tensors

// Note [Checked size arithmetic]: every element count, byte count and storage extent is computed here, with
// overflow checks, so a size whose product does not fit in int64 is a RuntimeError at the source instead of a
// wrapped count (a tensor whose numel disagrees with its storage) further on.
namespace {
int64_t mul_or_fail(const char* op, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  YATEN_CHECK(!__builtin_mul_overflow(a, b, &r), RuntimeError, op, ": ", what, " overflows int64 (", a, " * ", b,
              ")");
  return r;
}
int64_t add_or_fail(const char* op, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  YATEN_CHECK(!__builtin_add_overflow(a, b, &r), RuntimeError, op, ": ", what, " overflows int64 (", a, " + ", b,
              ")");
  return r;
}
}  // namespace

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    // an empty tensor's sizes need not have a product that fits (zeros(0, 2**62, 2**62)); torch refuses these too
    if (i > 0) stride = mul_or_fail("contiguous strides", stride, std::max<int64_t>(sizes[i], 1), "a stride");
  }
  return strides;
}

int64_t checked_numel(const char* op, IntArrayRef sizes) {
  int64_t n = 1;
  bool empty = false;
  for (int64_t s : sizes) {
    YATEN_CHECK(s >= 0, RuntimeError, op, ": negative dimension ", s, " in size");
    empty = empty || s == 0;
  }
  if (empty) return 0;  // however large the other sizes
  for (int64_t s : sizes) n = mul_or_fail(op, n, s, "the number of elements");
  return n;
}

size_t checked_nbytes(const char* op, int64_t numel, ScalarType dtype) {
  return static_cast<size_t>(mul_or_fail(op, numel, element_size(dtype), "the size in bytes"));
}

int64_t checked_extent(const char* op, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t extent = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    extent = add_or_fail(op, extent, mul_or_fail(op, sizes[i] - 1, strides[i], "the storage extent"),
                         "the storage extent");
  }
  return add_or_fail(op, extent, 1, "the storage extent");
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      dtype_(dtype) {
  refresh_metadata();
}

void TensorImpl::resize_(IntArrayRef sizes) {
  const int64_t n = checked_numel("resize_", sizes);
  const size_t needed = checked_nbytes("resize_", add_or_fail("resize_", storage_offset_, n, "the size"), dtype_);
  if (needed > storage_->nbytes()) {
    storage_ = make_storage(checked_nbytes("resize_", n, dtype_), storage_->device());
    storage_offset_ = 0;
  }
  sizes_ = sizes;
  strides_ = contiguous_strides(sizes);
  refresh_metadata();
}

void TensorImpl::set_data(const TensorImpl& other) {
  storage_ = other.storage_;
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  dtype_ = other.dtype_;
  refresh_metadata();
}

void TensorImpl::refresh_metadata() {
  numel_ = checked_numel("view", sizes_);
  // Contiguous: row-major strides, ignoring dims of size 1 (their stride never matters).
  is_contiguous_ = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[i];
  }
}

int64_t Tensor::size(int64_t d) const {
  int64_t n = dim();
  YATEN_CHECK(n > 0, IndexError, "size: dimension specified as ", d, " but tensor has no dimensions");
  YATEN_CHECK(d >= -n && d < n, IndexError, "size: dimension ", d, " out of range for a tensor of ", n,
              " dimensions");
  if (d < 0) d += n;
  return sizes()[d];
}

namespace detail {
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  const int64_t n = checked_numel("empty", sizes);
  Storage storage = make_storage(checked_nbytes("empty", n, dtype), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  checked_numel("empty_strided", sizes);
  const int64_t extent = checked_extent("empty_strided", sizes, strides, 0);  // one past the furthest element
  Storage storage = make_storage(static_cast<size_t>(extent * element_size(dtype)), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor wrapped_scalar_tensor(const Scalar& value) {
  ScalarType dtype = value.natural_dtype();
  Tensor t = empty_tensor({}, dtype, Device(DeviceType::CPU));
  switch (dtype) {
    case ScalarType::Bool: *t.data<bool>() = value.to<bool>(); break;
    case ScalarType::Long: *t.data<int64_t>() = value.to<int64_t>(); break;
    case ScalarType::UInt64: *t.data<uint64_t>() = value.to<uint64_t>(); break;  // a Python int past int64's range
    case ScalarType::ComplexDouble: *t.data<Complex<double>>() = value.to<Complex<double>>(); break;
    default: *t.data<double>() = value.to<double>(); break;
  }
  t.impl()->set_wrapped_number(true);
  return t;
}
}  // namespace detail

}  // namespace yaten
