// The element math of the fused optimizer steps (_fused_adam_, _fused_adamw_, _fused_sgd_), written once for the
// CPU kernels (kernels/cpu/foreach/) and the CUDA ones (kernels/cuda/foreach.cuh), as Design rule [Shared element
// math] asks. Each step reads a parameter's elements, computes in opmath_t (float for float16 and bfloat16) and
// writes them back rounded once.
//
// The operations follow torch's multi-tensor algorithms (torch/optim/adam.py _multi_tensor_adam, sgd.py
// _multi_tensor_sgd) one for one, with the numbers rounded to the compute type where those pass them to a _foreach
// op: for float32 and float64 parameters the fused step and yaten's foreach path give the same values.
#pragma once

#include <cmath>

#include "core/scalar_type.h"
#include "kernels/pointwise_math.h"

namespace yaten::native::optim {

// Adam's options and the terms of one tensor's step, in the compute type O. The options are folded into factors
// that are exact when an option is off (a sign of 1, a decay factor of 1), so that step<...>() has no branch per
// element but the two compile-time ones, and the CPU's loop over it vectorizes.
template <typename O>
struct AdamStep {
  O grad_sign;  // -1 with maximize: -grad, exactly
  O decay_factor;  // AdamW: 1 - lr * weight_decay (_foreach_mul_(params, ..)); else 1
  O weight_decay;  // Adam's L2 decay (_foreach_add(grads, params, alpha=weight_decay)); 0 for AdamW
  bool lerp_from_avg;  // torch's lerp: start + w * (end - start) for w < 0.5, else end - (end - start) * (1 - w)
  O lerp_weight;  // w, or -(1 - w): the second form is end + (end - start) * -(1 - w), the same bits
  O beta2, one_minus_beta2, eps;
  O neg_step_size;  // -lr / (1 - beta1^step)
  O bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  bool amsgrad;

  // The terms at step `step` (the tensor's step count, already incremented), from the options in double as torch's
  // Python computes them.
  YATEN_HOST_DEVICE static AdamStep make(double lr, double beta1, double beta2, double weight_decay, double eps,
                                         bool amsgrad, bool maximize, bool decoupled, double step) {
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const double w = 1 - beta1;
    return AdamStep{O(maximize ? -1 : 1),
                    O(decoupled && weight_decay != 0 ? 1 - lr * weight_decay : 1),
                    O(decoupled ? 0 : weight_decay),
                    O(w) < O(0.5),
                    O(w) < O(0.5) ? O(w) : -(O(1) - O(w)),
                    O(beta2),
                    O(1 - beta2),
                    O(eps),
                    O(-(lr / bias_correction1)),
                    O(std::sqrt(bias_correction2)),
                    amsgrad};
  }
  YATEN_HOST_DEVICE bool coupled_decay() const { return weight_decay != O(0); }

  // One element: `grad` already unscaled. `max_exp_avg_sq` is read and written only with amsgrad.
  template <bool kCoupledDecay, bool kAmsgrad>
  YATEN_HOST_DEVICE void step(O& param, O grad, O& exp_avg, O& exp_avg_sq, O& max_exp_avg_sq) const {
    grad = grad * grad_sign;
    param = param * decay_factor;
    if constexpr (kCoupledDecay) grad = grad + weight_decay * param;
    const O start = exp_avg;
    exp_avg = (lerp_from_avg ? start : grad) + lerp_weight * (grad - start);  // _foreach_lerp_(exp_avgs, grads, ..)
    exp_avg_sq = exp_avg_sq * beta2;  // _foreach_mul_(exp_avg_sqs, beta2)
    exp_avg_sq = exp_avg_sq + one_minus_beta2 * grad * grad;  // _foreach_addcmul_(.., grads, grads, 1 - beta2)
    O denom;
    if constexpr (kAmsgrad) {
      // _foreach_maximum_(max_exp_avg_sqs, exp_avg_sqs), NaN propagating
      max_exp_avg_sq = (exp_avg_sq != exp_avg_sq || exp_avg_sq > max_exp_avg_sq) ? exp_avg_sq : max_exp_avg_sq;
      denom = math::sqrt(max_exp_avg_sq);
    } else {
      denom = math::sqrt(exp_avg_sq);  // _foreach_sqrt
    }
    denom = denom / bias_correction2_sqrt;  // _foreach_div_(.., bias_correction2_sqrt)
    denom = denom + eps;  // _foreach_add_(.., eps)
    param = param + neg_step_size * (exp_avg / denom);  // _foreach_addcdiv_(params, exp_avgs, denom, step_size)
  }
  // The same with the two choices made at run time (the CUDA kernel: the branch is uniform over a launch).
  YATEN_HOST_DEVICE void operator()(O& param, O grad, O& exp_avg, O& exp_avg_sq, O& max_exp_avg_sq) const {
    if (coupled_decay()) {
      amsgrad ? step<true, true>(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
              : step<true, false>(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq);
    } else {
      amsgrad ? step<false, true>(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
              : step<false, false>(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq);
    }
  }
};

// SGD's options, in the compute type O.
template <typename O>
struct SgdStep {
  O weight_decay, momentum, one_minus_dampening, neg_lr;
  bool nesterov, maximize, first_step, has_momentum;

  YATEN_HOST_DEVICE static SgdStep make(double weight_decay, double momentum, double lr, double dampening,
                                        bool nesterov, bool maximize, bool first_step) {
    return SgdStep{O(weight_decay), O(momentum), O(1 - dampening), O(-lr), nesterov, maximize, first_step,
                   momentum != 0};
  }

  // One element: `grad` already unscaled; `buf` is read and written only with momentum.
  YATEN_HOST_DEVICE void operator()(O& param, O grad, O& buf) const {
    if (maximize) grad = -grad;
    if (weight_decay != O(0)) grad = grad + weight_decay * param;  // _foreach_add(grads, params, alpha=wd)
    if (has_momentum) {
      if (first_step) {
        buf = grad;  // torch.clone(grads[i])
      } else {
        buf = buf * momentum;  // _foreach_mul_(bufs, momentum)
        buf = buf + one_minus_dampening * grad;  // _foreach_add_(bufs, grads, alpha=1 - dampening)
      }
      grad = nesterov ? grad + momentum * buf : buf;  // _foreach_add_(grads, bufs, alpha=momentum)
    }
    param = param + neg_lr * grad;  // _foreach_add_(params, grads, alpha=-lr)
  }
};

// GradScaler's dynamic scale (torch's _amp_update_scale_): the new scale, the products taken in double and rounded
// to float as torch's.
YATEN_HOST_DEVICE inline float amp_update_scale(float scale, int* growth_tracker, float found_inf,
                                                double growth_factor, double backoff_factor, int64_t interval) {
  if (found_inf != 0.0f) {
    *growth_tracker = 0;
    return static_cast<float>(scale * backoff_factor);
  }
  const int successful = *growth_tracker + 1;
  if (successful == interval) {
    const float grown = static_cast<float>(scale * growth_factor);
    *growth_tracker = 0;
    return std::isfinite(grown) ? grown : scale;
  }
  *growth_tracker = successful;
  return scale;
}

}  // namespace yaten::native::optim
