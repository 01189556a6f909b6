// _fused_sgd_'s CPU kernel: kernels/optim_math.h's step over every tensor of the lists in one pass.
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "kernels/optim_math.h"

namespace yaten::native::cpu {

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
}  // namespace yaten::native::cpu
