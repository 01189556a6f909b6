// _fused_adam_'s and _fused_adamw_'s CPU kernels: kernels/foreach/adam.inc's, run by foreach_detail::fused_adam
// below over every tensor of the lists in one pass (Note [A foreach op per header], kernels/foreach/common.h).
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "kernels/optim_math.h"

namespace yaten::native::cpu {

namespace foreach_detail {
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
      adam_range<decltype(coupled)::value, decltype(ams)::value>(
          steps[i], w[0][i].data<scalar_t>(), g, w[2][i].data<scalar_t>(), w[3][i].data<scalar_t>(), vmax, b, e);
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

#include "kernels/foreach/adam.inc"

}  // namespace yaten::native::cpu
