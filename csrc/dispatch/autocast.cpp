// Autocast's thread-local state and casts: Note [Autocast] (autocast.h).
#include "dispatch/autocast.h"

#include <unordered_map>
#include <utility>

#include "autograd/autograd.h"
#include "core/error.h"
#include "core/type_promotion.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::autocast {

namespace {
struct State {
  bool enabled[2] = {false, false};
  ScalarType dtype[2] = {ScalarType::BFloat16, ScalarType::Half};
  int nesting = 0;
  bool cache_enabled = true;
  // a parameter's TensorImpl -> (the parameter, kept alive so the key is not reused; its cast copy)
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> cache;
};
thread_local State t_state;

int index(DeviceType device) { return device == DeviceType::CUDA ? 1 : 0; }
}  // namespace

bool is_enabled(DeviceType device) { return t_state.enabled[index(device)]; }

void set_enabled(DeviceType device, bool enabled) {
  t_state.enabled[index(device)] = enabled;
  LocalDispatchKeySet& keys = local_dispatch_keys();
  keys.included = t_state.enabled[0] || t_state.enabled[1] ? keys.included.add(DispatchKey::Autocast)
                                                           : keys.included.remove(DispatchKey::Autocast);
}

ScalarType get_dtype(DeviceType device) { return t_state.dtype[index(device)]; }

void set_dtype(DeviceType device, ScalarType dtype) {
  YATEN_CHECK(dtype == ScalarType::BFloat16 || dtype == ScalarType::Half, ValueError,
              "autocast: the lower-precision dtype must be float16 or bfloat16, got ", dtype_name(dtype));
  t_state.dtype[index(device)] = dtype;
}

int increment_nesting() { return ++t_state.nesting; }
int decrement_nesting() { return --t_state.nesting; }
bool is_cache_enabled() { return t_state.cache_enabled; }
void set_cache_enabled(bool enabled) { t_state.cache_enabled = enabled; }
void clear_cache() { t_state.cache.clear(); }

Cast::Cast(DispatchKeySet ks, Policy cpu, Policy cuda, std::initializer_list<const Tensor*> tensors,
           std::initializer_list<const std::vector<Tensor>*> lists, bool dtype_given) {
  device_ = ks.has(DispatchKey::CUDA) ? DeviceType::CUDA : DeviceType::CPU;
  const Policy policy = device_ == DeviceType::CUDA ? cuda : cpu;
  if (!is_enabled(device_) || policy == Policy::None) return;
  const ScalarType lower = get_dtype(device_);
  switch (policy) {
    case Policy::Lower: to_ = lower; break;
    case Policy::Fp32:
      if (dtype_given) return;  // torch's fp32_set_opt_dtype: a given dtype= is the caller's choice
      to_ = ScalarType::Float;
      break;
    case Policy::Promote: {
      // torch's prioritize: float32 over the lower dtype; float64 arguments are left out
      to_ = lower;
      auto consider = [&](const Tensor& t) {
        if (t.defined() && t.device().type == device_ && t.dtype() == ScalarType::Float) {
          to_ = ScalarType::Float;
        }
      };
      for (const Tensor* t : tensors) consider(*t);
      for (const std::vector<Tensor>* list : lists) {
        for (const Tensor& t : *list) consider(t);
      }
      break;
    }
    case Policy::None: return;
  }
  active_ = true;
}

bool Cast::eligible(const Tensor& t) const {
  return active_ && t.defined() && t.device().type == device_ && is_floating_point(t.dtype()) &&
         t.dtype() != ScalarType::Double && t.dtype() != to_;
}

Tensor Cast::operator()(const Tensor& t) const {
  if (!eligible(t)) return t;
  // a parameter (a float32 leaf that requires grad) is cast once per region, as torch's cached_cast
  // (with grad mode on: a copy made under no_grad carries no history back to the parameter)
  const bool cacheable = t_state.cache_enabled && to_ == get_dtype(device_) && t.dtype() == ScalarType::Float &&
                         autograd::grad_mode_enabled() && autograd::requires_grad(t) && autograd::is_leaf(t);
  if (!cacheable) return yaten::_to_copy(t, to_);
  auto it = t_state.cache.find(t.impl());
  if (it != t_state.cache.end()) return it->second.second;
  Tensor cast = yaten::_to_copy(t, to_);
  t_state.cache.emplace(t.impl(), std::make_pair(t, cast));
  return cast;
}

std::vector<Tensor> Cast::operator()(const std::vector<Tensor>& ts) const {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back((*this)(t));
  return out;
}

}  // namespace yaten::autocast
