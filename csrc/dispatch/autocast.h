// Autocast: the dispatch key that runs chosen ops in lower precision inside `yaten.autocast(...)` regions.
//
// Note [Autocast]
// ~~~~~~~~~~~~~~~
// An ops.yaml entry declares its casting policy per backend (`autocast: lower`, or `{CPU: fp32, CUDA: lower}`):
//   lower    the floating arguments run in the region's dtype (bfloat16 on the CPU; float16 or bfloat16 on CUDA)
//   fp32     they run in float32 (an op with a `dtype=` argument given one is left alone, torch's
//            fp32_set_opt_dtype)
//   promote  they run in the widest floating dtype among them (float32 over the lower one)
// and the generator writes and registers the op's Autocast kernel (codegen/views.py AutocastPlan): it casts the
// eligible arguments (defined, floating, not float64, on the region's device type) with autocast::Cast, then calls
// the op again with Autocast excluded. As in torch, Autocast ranks above Autograd (Note [Dispatch key order]): the
// casts are themselves recorded, so the op's backward runs in the dtype its forward ran in and the gradients of
// float32 parameters come back float32. The key is in the thread's included set while autocast is enabled for a
// device type, and costs nothing otherwise. A float32 leaf that requires grad (a parameter) is cast once per
// region: the cache holds its copy until the outermost region exits.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/device.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "dispatch/dispatcher.h"

namespace yaten::autocast {

enum class Policy : uint8_t { None, Lower, Fp32, Promote };

bool is_enabled(DeviceType device);
void set_enabled(DeviceType device, bool enabled);  // adds or removes the Autocast key of this thread
ScalarType get_dtype(DeviceType device);  // the region's lower dtype: bfloat16 on the CPU, float16 on CUDA at first
void set_dtype(DeviceType device, ScalarType dtype);
int increment_nesting();
int decrement_nesting();  // the depth left; at 0 the caller clears the cache (yaten.autocast's __exit__)
bool is_cache_enabled();
void set_cache_enabled(bool enabled);
void clear_cache();

// The casts of one call of an op's Autocast kernel: the device type is the call's backend (CUDA when a tensor is on
// a GPU), the policy that backend's, the target dtype the policy's (for promote, from `tensors` and `lists`).
class Cast {
 public:
  Cast(DispatchKeySet ks, Policy cpu, Policy cuda, std::initializer_list<const Tensor*> tensors,
       std::initializer_list<const std::vector<Tensor>*> lists, bool dtype_given);
  Tensor operator()(const Tensor& t) const;
  std::vector<Tensor> operator()(const std::vector<Tensor>& ts) const;
  bool active() const { return active_; }
  ScalarType dtype() const { return to_; }

 private:
  bool eligible(const Tensor& t) const;
  bool active_ = false;
  DeviceType device_ = DeviceType::CPU;
  ScalarType to_ = ScalarType::Float;
};

}  // namespace yaten::autocast
