// The multi-tensor ops on CUDA: the in-place _foreach ops (kernels/foreach/<op>.inc, run by CudaForeach), the fused
// optimizer steps and the scaler's two ops.
//
// Note [Multi-tensor launches]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As torch's multi_tensor_apply: the fast indices (Note [Multi-tensor fast path]) are cut into chunks of kChunk
// elements, and one launch takes up to kMaxBlocks chunks of up to Metadata<Depth>::kTensors tensors, their
// pointers, lengths and per-tensor numbers passed by value in the kernel's parameters (under 4 KB); block b updates
// chunk b with a grid-stride loop. A step over GPT-2's 148 parameters (124M values) is then about 6 launches instead
// of 148 per op. The element math is the CPU's: kernels/binary_math.h's and unary_math.h's functors and kernels/optim_math.h's steps.
// The fused steps read each tensor's step count, grad_scale and found_inf on the device, so a step never waits for
// the host.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "kernels/binary/add.h"
#include "kernels/binary/addcdiv.h"
#include "kernels/binary/addcmul.h"
#include "kernels/binary/div.h"
#include "kernels/binary/extremum.h"
#include "kernels/binary/lerp.h"
#include "kernels/binary/mul.h"
#include "kernels/binary/sub.h"
#include "kernels/foreach/common.h"
#include "kernels/foreach_support.h"
#include "kernels/optim_math.h"
#include "kernels/pointwise_math.h"
#include "kernels/unary/exp.h"
#include "kernels/unary/neg.h"
#include "kernels/unary/sqrt.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/addcdiv.h"
#include "yaten/ops/addcmul.h"
#include "yaten/ops/div.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/lerp.h"
#include "yaten/ops/maximum.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/sqrt.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/zero.h"

namespace yaten::native::cuda {

namespace foreach_detail {
using foreach::TensorList;
constexpr int kMaxBlocks = 320;
constexpr int64_t kChunk = 65536;
constexpr int kThreads = 512;
constexpr size_t kParameterBytes = 4000;  // the kernel's parameters stay within the classic 4 KB

template <int Depth>
struct Metadata {
  // pointers per list, length, number and step pointer per tensor; tensor and chunk per block
  static constexpr int kTensors =
      int((kParameterBytes - kMaxBlocks * (sizeof(unsigned char) + sizeof(int))) / (Depth * 8 + 8 + 8 + 8));
  void* ptrs[Depth][kTensors];
  int64_t numel[kTensors];
  double number[kTensors];
  const float* step[kTensors];  // the fused steps' step counts (float32 on the device)
  unsigned char tensor_of_block[kMaxBlocks];
  int chunk_of_block[kMaxBlocks];
};
static_assert(Metadata<5>::kTensors >= 30 && sizeof(Metadata<5>) <= 4096, "multi-tensor metadata over 4 KB");
static_assert(Metadata<1>::kTensors <= 255, "tensor_of_block is one byte");

// body.prepare(meta, t) once per block, then body.apply(state, meta, t, i) for each element i of the block's chunk.
template <int Depth, typename Body>
__global__ void multi_tensor_kernel(Metadata<Depth> meta, Body body) {
  const int t = meta.tensor_of_block[blockIdx.x];
  const int64_t begin = int64_t(meta.chunk_of_block[blockIdx.x]) * kChunk;
  const int64_t end = begin + kChunk < meta.numel[t] ? begin + kChunk : meta.numel[t];
  if (!body.active()) return;
  const auto state = body.prepare(meta, t);
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) body.apply(state, meta, t, i);
}

// Launches `body` over the indices' tensors of `lists` (all on `device`), as many launches as Note [Multi-tensor
// launches] needs. `numbers` and `steps` (either may be empty) give each index its number and step pointer.
template <int Depth, typename Body>
void launch(const char* name, const std::vector<const TensorList*>& lists, const std::vector<size_t>& indices,
            const std::vector<double>& numbers, const std::vector<const float*>& steps, const Body& body,
            Device device) {
  if (indices.empty()) return;
  using Meta = Metadata<Depth>;
  yaten::cuda::DeviceGuard guard(device.index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device.index));
  Meta meta{};
  int nt = 0, nb = 0;
  auto flush = [&] {
    multi_tensor_kernel<Depth><<<nb, kThreads, 0, stream>>>(meta, body);
    yaten::cuda::check_launch(name);
    nb = 0;
  };
  for (size_t i : indices) {
    const int64_t n = (*lists[0])[i].numel();
    if (n == 0) continue;
    for (int d = 0; d < Depth; ++d) meta.ptrs[d][nt] = (*lists[size_t(d)])[i].data_ptr();
    meta.numel[nt] = n;
    meta.number[nt] = numbers.empty() ? 0.0 : numbers[i];
    meta.step[nt] = steps.empty() ? nullptr : steps[i];
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    for (int64_t c = 0; c < chunks; ++c) {
      meta.tensor_of_block[nb] = static_cast<unsigned char>(nt);
      meta.chunk_of_block[nb] = static_cast<int>(c);
      ++nb;
      const bool last_chunk = c == chunks - 1;
      if (nb == kMaxBlocks || (nt + 1 == Meta::kTensors && last_chunk)) {
        flush();
        if (last_chunk) {
          nt = -1;  // the next tensor starts a fresh table
        } else {  // this tensor goes on in the next launch, as its table's first entry
          for (int d = 0; d < Depth; ++d) meta.ptrs[d][0] = meta.ptrs[d][nt];
          meta.numel[0] = meta.numel[nt];
          meta.number[0] = meta.number[nt];
          meta.step[0] = meta.step[nt];
          nt = 0;
        }
      }
    }
    ++nt;
  }
  if (nb > 0) flush();
}

// self[i] = make(number)(self[i], inputs[i]...): a _foreach op's body.
template <typename T, int Depth, typename Maker>
struct ForeachBody {
  Maker make;
  __device__ bool active() const { return true; }
  __device__ auto prepare(const Metadata<Depth>& m, int t) const { return make(m.number[t]); }
  template <typename Op>
  __device__ void apply(const Op& op, const Metadata<Depth>& m, int t, int64_t i) const {
    T* x = static_cast<T*>(m.ptrs[0][t]);
    if constexpr (Depth == 1) {
      x[i] = op(x[i]);
    } else if constexpr (Depth == 2) {
      x[i] = op(x[i], static_cast<const T*>(m.ptrs[1][t])[i]);
    } else {
      x[i] = op(x[i], static_cast<const T*>(m.ptrs[1][t])[i], static_cast<const T*>(m.ptrs[2][t])[i]);
    }
  }
};

// The indices of `lists` that take the fast path on self[first]'s device; the others go to `slow`.
template <typename scalar_t, typename Accept, typename Slow>
std::vector<size_t> split(const char* name, const std::vector<const TensorList*>& lists, const Accept& accept,
                          const Slow& slow, Device& device) {
  const TensorList& self = *lists[0];
  std::vector<size_t> fast;
  bool have_device = false;
  for (size_t i = 0; i < self.size(); ++i) {
    bool ok = true;
    for (const TensorList* list : lists) {
      const Tensor& t = (*list)[i];
      ok = ok && t.defined() && t.dtype() == scalar_type_of<scalar_t> && t.is_contiguous() && t.device().is_cuda() &&
           t.device() == self[i].device() && t.sizes() == self[i].sizes();
    }
    ok = ok && (!have_device || self[i].device() == device) && accept(i);
    if (ok) {
      yaten::detail::check_writable(self[i], name);
      device = self[i].device();
      have_device = true;
      fast.push_back(i);
    } else {
      slow(i);
    }
  }
  return fast;
}
}  // namespace foreach_detail

// The CUDA backend of the _foreach ops' fragments (kernels/foreach/<op>.inc).
struct CudaForeach {
  template <typename scalar_t, typename Maker, typename Accept, typename Slow, typename... Lists>
  static void apply(const char* name, const foreach::TensorList& self, const std::vector<double>& numbers,
                    const Maker& make, const Accept& accept, const Slow& slow, const Lists&... inputs) {
    foreach::check_lists(name, self, {&inputs...});
    if constexpr (foreach::kFast<scalar_t>) {
      constexpr int kDepth = 1 + int(sizeof...(Lists));
      const std::vector<const foreach::TensorList*> lists{&self, &inputs...};
      Device device;
      const std::vector<size_t> fast = foreach_detail::split<scalar_t>(name, lists, accept, slow, device);
      foreach_detail::launch<kDepth>(name, lists, fast, numbers, {},
                                     foreach_detail::ForeachBody<scalar_t, kDepth, Maker>{make}, device);
    } else {
      for (size_t i = 0; i < self.size(); ++i) slow(i);
    }
  }
};

// ------------------------------------------------------------------------------------------------ fused steps

namespace foreach_detail {
// A 1-element float32 tensor's data on `device`, for a fused step to read there (null when undefined).
inline const float* device_float(const char* name, const char* what, const Tensor& t, Device device) {
  if (!t.defined()) return nullptr;
  YATEN_CHECK(t.numel() == 1 && t.dtype() == ScalarType::Float && t.device() == device, RuntimeError, name, ": ",
              what, " must be a 1-element float32 tensor on the parameters' device (", device.str(), ")");
  return t.data<float>();
}
inline Device list_device(const char* name, const TensorList& self) {
  const Device device = self[0].device();
  for (const Tensor& t : self) {
    YATEN_CHECK(t.defined() && t.device() == device && device.is_cuda(), RuntimeError, name,
                ": every tensor must be on one CUDA device (", device.str(), "); group them by device first");
  }
  return device;
}

// Where the fused steps' found_inf skips the whole step, on the device.
struct Scaler {
  const float* grad_scale;
  const float* found_inf;
  __device__ bool active() const { return found_inf == nullptr || *found_inf == 0.0f; }
};

template <typename T, int Depth>
struct AdamBody : Scaler {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;
  using O = om<T>;
  __device__ optim::AdamStep<O> prepare(const Metadata<Depth>& m, int t) const {
    const double step = m.step[t] != nullptr ? double(*m.step[t]) : m.number[t];
    return optim::AdamStep<O>::make(lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled, step);
  }
  __device__ void apply(const optim::AdamStep<O>& s, const Metadata<Depth>& m, int t, int64_t i) const {
    T* p = static_cast<T*>(m.ptrs[0][t]);
    T* g = static_cast<T*>(m.ptrs[1][t]);
    T* avg = static_cast<T*>(m.ptrs[2][t]);
    T* avg_sq = static_cast<T*>(m.ptrs[3][t]);
    O param = O(p[i]), grad = O(g[i]), exp_avg = O(avg[i]), exp_avg_sq = O(avg_sq[i]), max_sq = O(0);
    if constexpr (Depth == 5) max_sq = O(static_cast<T*>(m.ptrs[4][t])[i]);
    if (grad_scale != nullptr) {
      grad = grad / O(*grad_scale);
      g[i] = T(grad);
    }
    s(param, grad, exp_avg, exp_avg_sq, max_sq);
    p[i] = T(param);
    avg[i] = T(exp_avg);
    avg_sq[i] = T(exp_avg_sq);
    if constexpr (Depth == 5) static_cast<T*>(m.ptrs[4][t])[i] = T(max_sq);
  }
};

template <typename T, int Depth>
struct SgdBody : Scaler {
  optim::SgdStep<om<T>> step;
  using O = om<T>;
  __device__ bool prepare(const Metadata<Depth>&, int) const { return true; }
  __device__ void apply(bool, const Metadata<Depth>& m, int t, int64_t i) const {
    T* p = static_cast<T*>(m.ptrs[0][t]);
    T* g = static_cast<T*>(m.ptrs[1][t]);
    O param = O(p[i]), grad = O(g[i]), buf = O(0);
    if constexpr (Depth == 3) buf = O(static_cast<T*>(m.ptrs[2][t])[i]);
    if (grad_scale != nullptr) {
      grad = grad / O(*grad_scale);
      g[i] = T(grad);
    }
    step(param, grad, buf);
    p[i] = T(param);
    if constexpr (Depth == 3) static_cast<T*>(m.ptrs[2][t])[i] = T(buf);
  }
};

// Runs a fused step's body over its lists (foreach::FusedLists), with the per-tensor steps given.
template <int Depth, typename Body>
void fused_launch(const char* name, std::initializer_list<const TensorList*> lists, ScalarType dtype,
                  const std::vector<double>& numbers, const std::vector<const float*>& steps, const Body& body,
                  Device device) {
  const foreach::FusedLists f(name, lists, dtype);
  std::vector<const TensorList*> work;
  for (const TensorList& list : f.work) work.push_back(&list);
  launch<Depth>(name, work, f.indices, numbers, steps, body, device);
  f.copy_back();
}

template <typename scalar_t>
void fused_adam(const char* name, const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs, const TensorList& state_steps,
                double lr, double beta1, double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                const Tensor& grad_scale, const Tensor& found_inf, bool decoupled) {
  foreach::check_adam_lists(name, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad);
  const Device device = list_device(name, self);
  const Scaler scaler{device_float(name, "grad_scale", grad_scale, device),
                      device_float(name, "found_inf", found_inf, device)};
  // each step count on the device when it is a float32 scalar there (torch's fused layout), else its value
  std::vector<double> numbers(self.size(), 0.0);
  std::vector<const float*> steps(self.size(), nullptr);
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& s = state_steps[i];
    if (s.defined() && s.numel() == 1 && s.dtype() == ScalarType::Float && s.device() == device) {
      steps[i] = s.data<float>();
    } else {
      numbers[i] = foreach::item(s).to_double();
    }
  }
  const auto options = [&](auto body) {
    body.grad_scale = scaler.grad_scale;
    body.found_inf = scaler.found_inf;
    body.lr = lr, body.beta1 = beta1, body.beta2 = beta2, body.weight_decay = weight_decay, body.eps = eps;
    body.amsgrad = amsgrad, body.maximize = maximize, body.decoupled = decoupled;
    return body;
  };
  if (amsgrad) {
    fused_launch<5>(name, {&self, &grads, &exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs}, scalar_type_of<scalar_t>,
                    numbers, steps, options(AdamBody<scalar_t, 5>{}), device);
  } else {
    fused_launch<4>(name, {&self, &grads, &exp_avgs, &exp_avg_sqs}, scalar_type_of<scalar_t>, numbers, steps,
                    options(AdamBody<scalar_t, 4>{}), device);
  }
}

// GradScaler's unscale: x * inv_scale for each element, found_inf set to 1 where one is not finite.
template <typename T>
struct UnscaleBody {
  const float* inv_scale;
  float* found_inf;
  __device__ bool active() const { return true; }
  __device__ om<T> prepare(const Metadata<1>&, int) const { return om<T>(*inv_scale); }
  __device__ void apply(om<T> factor, const Metadata<1>& m, int t, int64_t i) const {
    T* g = static_cast<T*>(m.ptrs[0][t]);
    const om<T> x = om<T>(g[i]);
    if (!isfinite(x)) *found_inf = 1.0f;  // every writer writes the same value
    g[i] = T(x * factor);
  }
};

__global__ inline void amp_update_scale_one(float* scale, int* growth_tracker, const float* found_inf,
                                            double growth_factor, double backoff_factor, int64_t interval) {
  *scale = optim::amp_update_scale(*scale, growth_tracker, *found_inf, growth_factor, backoff_factor, interval);
}
}  // namespace foreach_detail

// The kernels, the same text on both backends (Note [A foreach op per header], kernels/foreach/common.h).
using ForeachBackend = CudaForeach;
#include "kernels/foreach/abs.inc"
#include "kernels/foreach/adam.inc"
#include "kernels/foreach/add.inc"
#include "kernels/foreach/addcdiv.inc"
#include "kernels/foreach/addcmul.inc"
#include "kernels/foreach/div.inc"
#include "kernels/foreach/exp.inc"
#include "kernels/foreach/lerp.inc"
#include "kernels/foreach/maximum.inc"
#include "kernels/foreach/mul.inc"
#include "kernels/foreach/neg.inc"
#include "kernels/foreach/sqrt.inc"
#include "kernels/foreach/sub.inc"
#include "kernels/foreach/zero.inc"

template <typename scalar_t>
void fused_sgd_kernel(const std::vector<Tensor>& self, const std::vector<Tensor>& grads,
                      const std::vector<Tensor>& momentum_buffer_list, double weight_decay, double momentum, double lr,
                      double dampening, bool nesterov, bool maximize, bool is_first_step, const Tensor& grad_scale,
                      const Tensor& found_inf) {
  const char* name = "_fused_sgd_";
  foreach::check_lists(name, self, {&grads});
  const bool has_momentum = momentum != 0;
  if (has_momentum) foreach::check_lists(name, self, {&momentum_buffer_list});
  const Device device = foreach_detail::list_device(name, self);
  const foreach_detail::Scaler scaler{foreach_detail::device_float(name, "grad_scale", grad_scale, device),
                                      foreach_detail::device_float(name, "found_inf", found_inf, device)};
  const auto step =
      optim::SgdStep<om<scalar_t>>::make(weight_decay, momentum, lr, dampening, nesterov, maximize, is_first_step);
  if (has_momentum) {
    foreach_detail::fused_launch<3>(name, {&self, &grads, &momentum_buffer_list}, scalar_type_of<scalar_t>, {}, {},
                                    foreach_detail::SgdBody<scalar_t, 3>{scaler, step}, device);
  } else {
    foreach_detail::fused_launch<2>(name, {&self, &grads}, scalar_type_of<scalar_t>, {}, {},
                                    foreach_detail::SgdBody<scalar_t, 2>{scaler, step}, device);
  }
}

// ------------------------------------------------------------------------------------------------ GradScaler

template <typename scalar_t>
void amp_non_finite_check_and_unscale_kernel(const std::vector<Tensor>& self, const Tensor& found_inf,
                                             const Tensor& inv_scale) {
  const char* name = "_amp_foreach_non_finite_check_and_unscale_";
  foreach::check_lists(name, self, {});
  const Device device = foreach_detail::list_device(name, self);
  const float* inv = foreach_detail::device_float(name, "inv_scale", inv_scale, device);
  YATEN_CHECK(inv != nullptr, RuntimeError, name, ": inv_scale must be a 1-element float32 tensor");
  float* found = const_cast<float*>(foreach_detail::device_float(name, "found_inf", found_inf, device));
  YATEN_CHECK(found != nullptr, RuntimeError, name, ": found_inf must be a 1-element float32 tensor");
  foreach_detail::fused_launch<1>(name, {&self}, scalar_type_of<scalar_t>, {}, {},
                                  foreach_detail::UnscaleBody<scalar_t>{inv, found}, device);
}

template <typename scalar_t>
Tensor amp_update_scale_kernel(const Tensor& self, const Tensor& growth_tracker, const Tensor& found_inf,
                               double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  const char* name = "_amp_update_scale_";
  YATEN_CHECK(self.numel() == 1 && self.device().is_cuda(), RuntimeError, name,
              ": current_scale must be a 1-element float32 CUDA tensor");
  YATEN_CHECK(growth_tracker.numel() == 1 && growth_tracker.dtype() == ScalarType::Int &&
                  growth_tracker.device() == self.device(),
              RuntimeError, name, ": growth_tracker must be a 1-element int32 tensor on the scale's device");
  const float* found = foreach_detail::device_float(name, "found_inf", found_inf, self.device());
  YATEN_CHECK(found != nullptr, RuntimeError, name, ": found_inf must be a 1-element float32 tensor");
  yaten::cuda::DeviceGuard guard(self.device().index);
  foreach_detail::amp_update_scale_one<<<1, 1, 0,
                                         static_cast<cudaStream_t>(yaten::cuda::current_stream(self.device().index))>>>(
      self.data<float>(), growth_tracker.data<int>(), found, scale_growth_factor, scale_backoff_factor,
      growth_interval);
  yaten::cuda::check_launch(name);
  return self;
}

}  // namespace yaten::native::cuda
