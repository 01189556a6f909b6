// The multi-tensor ops on the CPU: the in-place _foreach ops (kernels/foreach_ops.h, run by CpuForeach), the fused
// optimizer steps and the scaler's two ops.
//
// Each splits its list as Note [Multi-tensor fast path] (kernels/foreach_support.h) says: the other indices run the
// per-tensor op, and the fast ones are cut into pieces of kGrainSize elements that one parallel_for shares out over
// yaten's threads, so a list of 148 tensors is one parallel region, not 148 (and small tensors, a bias of 768
// floats, run side by side instead of one after another). The element math is kernels/binary_math.h's and unary_math.h's functors,
// the per-tensor ops' own, and kernels/optim_math.h's steps, the CUDA kernels' own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/foreach_ops.h"
#include "kernels/foreach_support.h"
#include "kernels/optim_math.h"

namespace yaten::native::cpu {

namespace foreach_detail {
using foreach::TensorList;

// Runs update(i, begin, end) over the elements of each tensor i of `indices`, in pieces of at most kGrainSize
// elements, all in one parallel_for.
template <typename Update>
void run_pieces(const TensorList& self, const std::vector<size_t>& indices, const Update& update) {
  struct Piece {
    size_t tensor;
    int64_t begin, end;
  };
  std::vector<Piece> pieces;
  int64_t total = 0;
  for (size_t i : indices) {
    const int64_t n = self[i].numel();
    total += n;
    for (int64_t b = 0; b < n; b += kGrainSize) pieces.push_back({i, b, std::min(n, b + kGrainSize)});
  }
  yaten::detail::ScopedGilRelease release_gil(total >= yaten::detail::kGilReleaseElements);
  parallel_for(static_cast<int64_t>(pieces.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) update(pieces[size_t(k)].tensor, pieces[size_t(k)].begin, pieces[size_t(k)].end);
  });
}

template <typename T, typename F, typename... In>
inline void update_range(T* x, const F& f, int64_t begin, int64_t end, const In*... in) {
  for (int64_t j = begin; j < end; ++j) x[j] = f(x[j], in[j]...);
}
}  // namespace foreach_detail

// The CPU backend of kernels/foreach_ops.h.
struct CpuForeach {
  template <typename scalar_t, typename Maker, typename Accept, typename Slow, typename... Lists>
  static void apply(const char* name, const foreach::TensorList& self, const std::vector<double>& numbers,
                    const Maker& make, const Accept& accept, const Slow& slow, const Lists&... inputs) {
    foreach::check_lists(name, self, {&inputs...});
    std::vector<size_t> fast;
    for (size_t i = 0; i < self.size(); ++i) {
      bool ok = false;
      if constexpr (foreach::kFast<scalar_t>) {
        ok = foreach::fast({&self, &inputs...}, i, scalar_type_of<scalar_t>) && accept(i);
      }
      if (ok) {
        yaten::detail::check_writable(self[i], name);
        fast.push_back(i);
      } else {
        slow(i);
      }
    }
    if constexpr (foreach::kFast<scalar_t>) {
      foreach_detail::run_pieces(self, fast, [&](size_t i, int64_t b, int64_t e) {
        foreach_detail::update_range(self[i].data<scalar_t>(), make(numbers.empty() ? 0.0 : numbers[i]), b, e,
                                     inputs[i].template data<scalar_t>()...);
      });
    }
  }
};

// ------------------------------------------------------------------------------------------------ fused steps

namespace foreach_detail {
// Runs step(work, i, begin, end) over every index of a fused op's lists in one pass (foreach::FusedLists: the
// indices off the fast path on copies).
template <typename scalar_t, typename Step>
void fused_apply(const char* name, std::initializer_list<const TensorList*> lists, const Step& step) {
  const foreach::FusedLists f(name, lists, scalar_type_of<scalar_t>);
  run_pieces(f.work[0], f.indices, [&](size_t i, int64_t b, int64_t e) { step(f.work, i, b, e); });
  f.copy_back();
}

// The scaler's inputs of a fused step: whether to skip it (found_inf nonzero), whether to unscale the gradients
// (grad_scale given), and by what.
struct Scaling {
  bool skip = false;
  bool unscale = false;
  double scale = 1;
};
inline Scaling scaling(const Tensor& grad_scale, const Tensor& found_inf) {
  Scaling s;
  if (found_inf.defined()) s.skip = foreach::item(found_inf).to_double() != 0;
  if (grad_scale.defined()) {
    s.unscale = true;
    s.scale = foreach::item(grad_scale).to_double();
  }
  return s;
}

// Adam's step over [begin, end) of one tensor, its choices fixed at compile time: the loop vectorizes.
template <bool kCoupledDecay, bool kAmsgrad, typename O, typename T>
void adam_range(const optim::AdamStep<O>& s, T* __restrict__ p, const T* __restrict__ g, T* __restrict__ m,
                T* __restrict__ v, T* __restrict__ vmax, int64_t begin, int64_t end) {
  for (int64_t j = begin; j < end; ++j) {
    O param = O(p[j]), exp_avg = O(m[j]), exp_avg_sq = O(v[j]);
    O max_sq = kAmsgrad ? O(vmax[j]) : O(0);
    s.template step<kCoupledDecay, kAmsgrad>(param, O(g[j]), exp_avg, exp_avg_sq, max_sq);
    p[j] = T(param);
    m[j] = T(exp_avg);
    v[j] = T(exp_avg_sq);
    if constexpr (kAmsgrad) vmax[j] = T(max_sq);
  }
}

template <typename scalar_t>
void fused_adam(const char* name, const TensorList& self, const TensorList& grads, const TensorList& exp_avgs,
                const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs, const TensorList& state_steps,
                double lr, double beta1, double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                const Tensor& grad_scale, const Tensor& found_inf, bool decoupled) {
  using O = om<scalar_t>;
  foreach::check_adam_lists(name, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad);
  const Scaling scale = scaling(grad_scale, found_inf);
  if (scale.skip) return;
  std::vector<optim::AdamStep<O>> steps;
  for (size_t i = 0; i < self.size(); ++i) {
    steps.push_back(optim::AdamStep<O>::make(lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled,
                                             foreach::item(state_steps[i]).to_double()));
  }
  const O scale_value = O(scale.scale);
  const bool unscale = scale.unscale;
  auto step = [&](const std::vector<TensorList>& w, size_t i, int64_t b, int64_t e) {
    scalar_t* g = w[1][i].data<scalar_t>();
    if (unscale) {  // the gradients are stored unscaled, as torch's
      for (int64_t j = b; j < e; ++j) g[j] = scalar_t(O(g[j]) / scale_value);
    }
    scalar_t* vmax = amsgrad ? w[4][i].data<scalar_t>() : nullptr;
    const auto run = [&](auto coupled, auto ams) {
      adam_range<decltype(coupled)::value, decltype(ams)::value>(steps[i], w[0][i].data<scalar_t>(), g,
                                                                 w[2][i].data<scalar_t>(), w[3][i].data<scalar_t>(),
                                                                 vmax, b, e);
    };
    if (steps[i].coupled_decay()) {
      amsgrad ? run(std::true_type{}, std::true_type{}) : run(std::true_type{}, std::false_type{});
    } else {
      amsgrad ? run(std::false_type{}, std::true_type{}) : run(std::false_type{}, std::false_type{});
    }
  };
  if (amsgrad) {
    fused_apply<scalar_t>(name, {&self, &grads, &exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs}, step);
  } else {
    fused_apply<scalar_t>(name, {&self, &grads, &exp_avgs, &exp_avg_sqs}, step);
  }
}
}  // namespace foreach_detail

using ForeachBackend = CpuForeach;  // what the kernels of the fragment below run on
#include "kernels/foreach_kernels.inc"  // the kernels, the same text on both backends

template <typename scalar_t>
void fused_sgd_kernel(const std::vector<Tensor>& self, const std::vector<Tensor>& grads,
                      const std::vector<Tensor>& momentum_buffer_list, double weight_decay, double momentum, double lr,
                      double dampening, bool nesterov, bool maximize, bool is_first_step, const Tensor& grad_scale,
                      const Tensor& found_inf) {
  using O = om<scalar_t>;
  const char* name = "_fused_sgd_";
  foreach::check_lists(name, self, {&grads});
  const bool has_momentum = momentum != 0;
  if (has_momentum) foreach::check_lists(name, self, {&momentum_buffer_list});
  const foreach_detail::Scaling scale = foreach_detail::scaling(grad_scale, found_inf);
  if (scale.skip) return;
  const auto s = optim::SgdStep<O>::make(weight_decay, momentum, lr, dampening, nesterov, maximize, is_first_step);
  const O grad_scale_value = O(scale.scale);
  const bool unscale = scale.unscale;
  auto step = [&](const std::vector<foreach::TensorList>& w, size_t i, int64_t b, int64_t e) {
    scalar_t* p = w[0][i].data<scalar_t>();
    scalar_t* g = w[1][i].data<scalar_t>();
    scalar_t* buf = has_momentum ? w[2][i].data<scalar_t>() : nullptr;
    for (int64_t j = b; j < e; ++j) {
      O param = O(p[j]), grad = O(g[j]), momentum_buffer = has_momentum ? O(buf[j]) : O(0);
      if (unscale) {
        grad = grad / grad_scale_value;
        g[j] = scalar_t(grad);
      }
      s(param, grad, momentum_buffer);
      p[j] = scalar_t(param);
      if (has_momentum) buf[j] = scalar_t(momentum_buffer);
    }
  };
  if (has_momentum) {
    foreach_detail::fused_apply<scalar_t>(name, {&self, &grads, &momentum_buffer_list}, step);
  } else {
    foreach_detail::fused_apply<scalar_t>(name, {&self, &grads}, step);
  }
}

// ------------------------------------------------------------------------------------------------ GradScaler

template <typename scalar_t>
void amp_non_finite_check_and_unscale_kernel(const std::vector<Tensor>& self, const Tensor& found_inf,
                                             const Tensor& inv_scale) {
  const char* name = "_amp_foreach_non_finite_check_and_unscale_";
  YATEN_CHECK(inv_scale.numel() == 1 && inv_scale.dtype() == ScalarType::Float, RuntimeError, name,
              ": inv_scale must be a 1-element float tensor.");
  YATEN_CHECK(found_inf.numel() == 1 && found_inf.dtype() == ScalarType::Float && found_inf.is_contiguous(),
              RuntimeError, name, ": found_inf must be a 1-element float tensor.");
  YATEN_CHECK(found_inf.device().is_cpu() && inv_scale.device().is_cpu(), RuntimeError, name,
              ": found_inf and inv_scale must be on the CPU with CPU gradients");
  using O = om<scalar_t>;
  const O factor = O(foreach::item(inv_scale).to_double());
  std::vector<char> flags(self.size(), 0);  // per tensor, written by whichever pieces find a non-finite element
  auto step = [&](const std::vector<foreach::TensorList>& w, size_t i, int64_t b, int64_t e) {
    scalar_t* g = w[0][i].data<scalar_t>();
    bool bad = false;
    for (int64_t j = b; j < e; ++j) {
      const O x = O(g[j]);
      bad |= !std::isfinite(x);
      g[j] = scalar_t(x * factor);
    }
    if (bad) __atomic_store_n(&flags[i], char(1), __ATOMIC_RELAXED);
  };
  foreach::check_lists(name, self, {});
  foreach_detail::fused_apply<scalar_t>(name, {&self}, step);
  if (std::any_of(flags.begin(), flags.end(), [](char f) { return f != 0; })) *found_inf.data<float>() = 1.0f;
}

template <typename scalar_t>
Tensor amp_update_scale_kernel(const Tensor& self, const Tensor& growth_tracker, const Tensor& found_inf,
                               double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  const char* name = "_amp_update_scale_";
  YATEN_CHECK(growth_tracker.numel() == 1 && growth_tracker.dtype() == ScalarType::Int, RuntimeError, name,
              ": growth_tracker must be a 1-element int32 tensor.");
  YATEN_CHECK(self.numel() == 1 && found_inf.numel() == 1 && found_inf.dtype() == ScalarType::Float, RuntimeError,
              name, ": current_scale and found_inf must be 1-element float tensors.");
  YATEN_CHECK(growth_tracker.device().is_cpu() && found_inf.device().is_cpu(), RuntimeError, name,
              ": growth_tracker and found_inf must be on the scale's device (the CPU)");
  float* scale = self.data<float>();
  *scale = optim::amp_update_scale(*scale, growth_tracker.data<int>(), *found_inf.data<float>(), scale_growth_factor,
                                   scale_backoff_factor, growth_interval);
  return self;
}

}  // namespace yaten::native::cpu
