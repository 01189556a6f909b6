// Host-side checks and the fast-path test of the multi-tensor ops (the _foreach family, the fused optimizer steps),
// shared by their CPU kernels (kernels/cpu/foreach/) and CUDA kernels (kernels/cuda/foreach.cuh).
//
// Note [Multi-tensor fast path]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A multi-tensor op updates tensor i of its first list from tensor i of its other lists. Index i takes the fast path
// (one pass over the whole list: pieces of every tensor shared out over the CPU's threads, or many tensors per CUDA
// launch) when the i-th tensors of every list are contiguous, of the kernel's dtype, of self[i]'s shape and on its
// device, and the op's number fits that dtype. Any other index runs the op's per-tensor form (add_, mul_, ...),
// which broadcasts, promotes and raises exactly as it does alone: torch's "slow path". Both run the same element
// functor (kernels/pointwise_math.h), so the two paths give the same bits.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/error.h"
#include "kernels/sizes_text.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"

namespace yaten::native::foreach {

using TensorList = std::vector<Tensor>;

// torch's check_foreach_api_restrictions: a non-empty list, and every other list as long.
inline void check_lists(const char* op, const TensorList& self, std::initializer_list<const TensorList*> others) {
  YATEN_CHECK(!self.empty(), RuntimeError, op, ": Tensor list must have at least one tensor.");
  for (const TensorList* other : others) {
    YATEN_CHECK(other->size() == self.size(), RuntimeError, op,
                ": Tensor lists must have the same number of tensors, got ", self.size(), " and ", other->size());
  }
}
inline void check_scalars(const char* op, const TensorList& self, const std::vector<Scalar>& scalars) {
  YATEN_CHECK(scalars.size() == self.size(), RuntimeError, op,
              ": Tensor list must have same number of elements as scalar list, got ", self.size(), " and ",
              scalars.size());
}
// The `.Tensor` overloads take one number as a tensor: torch's "scalar tensor expected to be 0 dim".
inline void check_scalar_tensor(const char* op, const Tensor& t) {
  YATEN_CHECK(t.defined() && t.dim() == 0, RuntimeError, op, ": scalar tensor expected to be 0 dim but it has ",
              t.defined() ? t.dim() : 0, " dimensions and ", t.defined() ? t.numel() : 0, " elements.");
}

// The lists of _fused_adam_ and _fused_adamw_: max_exp_avg_sqs as long as the others with amsgrad, else empty.
inline void check_adam_lists(const char* name, const TensorList& self, const TensorList& grads,
                             const TensorList& exp_avgs, const TensorList& exp_avg_sqs,
                             const TensorList& max_exp_avg_sqs, const TensorList& state_steps, bool amsgrad) {
  check_lists(name, self, {&grads, &exp_avgs, &exp_avg_sqs, &state_steps});
  if (amsgrad) {
    check_lists(name, self, {&max_exp_avg_sqs});
  } else {
    YATEN_CHECK(max_exp_avg_sqs.empty(), RuntimeError, name,
                ": max_exp_avg_sqs must be empty when amsgrad is False (torch's \"Expected max_exp_avg_sqs.empty()\")");
  }
}

// Whether index i of `lists` (self first) takes the fast path in `dtype` (Note [Multi-tensor fast path]).
inline bool fast(std::initializer_list<const TensorList*> lists, size_t i, ScalarType dtype) {
  const Tensor& self = (**lists.begin())[i];
  if (!self.defined()) return false;
  for (const TensorList* list : lists) {
    const Tensor& t = (*list)[i];
    if (!t.defined() || t.dtype() != dtype || !t.is_contiguous() || t.device() != self.device() ||
        t.sizes() != self.sizes()) {
      return false;
    }
  }
  return true;
}

// Whether the kernel of `dtype` applies `s` as it is: a floating or complex number for an integral dtype, or a
// complex one for a real dtype, goes to the per-tensor op, which promotes or raises as torch's.
inline bool scalar_fits(const Scalar& s, ScalarType dtype) {
  if (s.is_complex()) return is_complex(dtype);
  if (s.is_floating_point()) return is_floating_point(dtype) || is_complex(dtype);
  return true;
}

// A one-element tensor's value (copied to the CPU first: a device sync for a CUDA tensor, as torch's item()).
inline Scalar item(const Tensor& t) {
  YATEN_CHECK(t.numel() == 1, RuntimeError, "expected a one-element tensor (a scale, a step count or found_inf), but "
              "got one of shape ", sizes_text(t.sizes()));
  if (is_complex(t.dtype())) {
    const Tensor cpu = yaten::_to_copy(t, ScalarType::ComplexDouble, Device(DeviceType::CPU));
    return Scalar(*cpu.data<Complex<double>>());
  }
  if (is_floating_point(t.dtype())) {
    const Tensor cpu = yaten::_to_copy(t, ScalarType::Double, Device(DeviceType::CPU));
    return Scalar(*cpu.data<double>());
  }
  if (t.dtype() == ScalarType::Bool) {
    const Tensor cpu = yaten::_to_copy(t, ScalarType::Bool, Device(DeviceType::CPU));
    return Scalar(*cpu.data<bool>());
  }
  const Tensor cpu = yaten::_to_copy(t, ScalarType::Long, Device(DeviceType::CPU));
  return Scalar(*cpu.data<int64_t>());
}

// The lists a fused step (_fused_adam_, ...) runs on. A fused step has no per-tensor op to fall back on, so an index
// whose tensors are not all contiguous and of the step's dtype runs on contiguous copies of that dtype, written back
// by copy_back(). Every tensor of an index must have the parameter's shape and device.
struct FusedLists {
  std::vector<TensorList> work;  // the lists, with the copies in place
  std::vector<size_t> indices;   // every index with elements, the copied ones last

  FusedLists(const char* name, std::initializer_list<const TensorList*> lists, ScalarType dtype)
      : lists_(lists.begin(), lists.end()) {
    const TensorList& self = *lists_[0];
    for (size_t i = 0; i < self.size(); ++i) {
      for (const TensorList* list : lists_) {
        const Tensor& t = (*list)[i];
        YATEN_CHECK(t.defined() && t.sizes() == self[i].sizes() && t.device() == self[i].device(), RuntimeError,
                    name, ": tensor ", i, " of each list must be defined, with the parameter's shape and device");
        yaten::detail::check_writable(t, name);
      }
      if (fast(lists, i, dtype)) {
        indices.push_back(i);
      } else {
        copied_.push_back(i);
      }
    }
    for (const TensorList* list : lists_) {
      work.push_back(*list);
      for (size_t i : copied_) work.back()[i] = yaten::contiguous(yaten::_to_copy((*list)[i], dtype));
    }
    indices.insert(indices.end(), copied_.begin(), copied_.end());
  }
  void copy_back() const {
    for (size_t k = 0; k < lists_.size(); ++k) {
      for (size_t i : copied_) yaten::copy_((*lists_[k])[i], work[k][i]);
    }
  }

 private:
  std::vector<const TensorList*> lists_;
  std::vector<size_t> copied_;
};

}  // namespace yaten::native::foreach
