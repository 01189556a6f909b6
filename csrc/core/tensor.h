// TensorImpl: sizes, strides and an offset into a Storage, with a dtype and a device. Tensor: a handle to one.
//
// Strides are in elements, as in torch. A Tensor is a cheap shared handle; copying it never copies data. An
// undefined Tensor (no impl) stands for an absent `Tensor?` argument.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/device.h"
#include "core/scalar.h"
#include "core/scalar_type.h"
#include "core/storage.h"

namespace yaten {

namespace autograd {
struct AutogradMeta;  // autograd/autograd.h: present only on tensors that require grad or have a grad_fn
}

using IntArrayRef = const std::vector<int64_t>&;

class TensorImpl {
 public:
  TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
             int64_t storage_offset);

  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  const Storage& storage() const { return storage_; }
  int64_t storage_offset() const { return storage_offset_; }
  bool is_contiguous() const { return is_contiguous_; }
  void* data_ptr() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * element_size(dtype_);
  }

  // A Python number turned into a zero-dim tensor takes part in type promotion at the lowest priority.
  // See Note [Type promotion] in core/type_promotion.h.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  // An array of yaten.array_api (Note [Two conventions, one tensor type] in csrc/python/tensor_type.cpp): its
  // operators promote zero-dim operands as the array API standard does, not as torch does.
  bool is_array_api() const { return is_array_api_; }
  void set_array_api(bool v) { is_array_api_ = v; }

  autograd::AutogradMeta* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::shared_ptr<autograd::AutogradMeta> meta) { autograd_meta_ = std::move(meta); }

  // Makes this tensor contiguous with `sizes`, keeping its storage when it is large enough (for out= arguments).
  void resize_(IntArrayRef sizes);

  // torch's set_data (`t.data = other`): this tensor takes `other`'s storage, dtype, sizes and strides, keeping its
  // own autograd metadata (requires_grad, grad, hooks), so every holder of this tensor sees the new data. What
  // Module.to(dtype/device) and Parameter use to convert in place.
  void set_data(const TensorImpl& other);

 private:
  void refresh_metadata();  // numel and contiguity, from sizes and strides

  Storage storage_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storage_offset_;
  int64_t numel_;
  ScalarType dtype_;
  bool is_contiguous_;
  bool is_wrapped_number_ = false;
  bool is_array_api_ = false;
  std::shared_ptr<autograd::AutogradMeta> autograd_meta_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }

  const std::vector<int64_t>& sizes() const { return impl_->sizes(); }
  const std::vector<int64_t>& strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const;
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  void* data_ptr() const { return impl_->data_ptr(); }
  template <typename T>
  T* data() const { return static_cast<T*>(impl_->data_ptr()); }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  std::weak_ptr<TensorImpl> weak_impl() const { return impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// Contiguous (row-major) strides for `sizes`.
std::vector<int64_t> contiguous_strides(IntArrayRef sizes);
// Product of sizes; raises RuntimeError naming `op` for a negative size.
int64_t checked_numel(const char* op, IntArrayRef sizes);
// numel * the element size, or RuntimeError naming `op` when it overflows (Note [Checked size arithmetic]).
size_t checked_nbytes(const char* op, int64_t numel, ScalarType dtype);
// One past the furthest element that `sizes` and `strides` reach from `offset` (0 when a size is 0), in elements,
// or RuntimeError naming `op` when that overflows.
int64_t checked_extent(const char* op, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

namespace detail {
// A new tensor over fresh memory, uninitialized. The one place that allocates a tensor's storage.
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device);
// A new tensor with the given strides (which must be non-overlapping and dense), uninitialized.
Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);
// A zero-dim tensor holding a Python number, flagged as a wrapped number for type promotion.
Tensor wrapped_scalar_tensor(const Scalar& value);
}  // namespace detail

}  // namespace yaten
