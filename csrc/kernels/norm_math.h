// The per-channel math of batch normalization, read by the CPU kernels (kernels/cpu/norm.h: a loop over the channels)
// and the CUDA kernels (kernels/cuda/norm.cuh: a thread per channel) alike (Design rule [Shared element math]). The
// passes over the whole input are yaten ops (var_mean, sum, sub, mul, addcmul; kernels/composite/norm.h); what lies
// between them is a handful of values per channel, computed here in one step instead of a dozen tiny ops (Note [Batch
// norm in a few passes]).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/half.h"  // YATEN_HOST_DEVICE, Half, BFloat16
#include "core/scalar_type.h"

namespace yaten::native::norm {

// A running statistic, read and written in place in its own dtype and stride, as torch's native_batch_norm updates
// them (no copy, and so no version bump of a tensor an autograd node may have saved).
struct RunningStat {
  void* data = nullptr;  // null: not given
  int64_t stride = 1;
  ScalarType dtype = ScalarType::Float;  // float16, bfloat16, float32 or float64

  template <typename acc_t>
  YATEN_HOST_DEVICE acc_t get(int64_t c) const {
    switch (dtype) {
      case ScalarType::Half: return acc_t(float(static_cast<const Half*>(data)[c * stride]));
      case ScalarType::BFloat16: return acc_t(float(static_cast<const BFloat16*>(data)[c * stride]));
      case ScalarType::Double: return acc_t(static_cast<const double*>(data)[c * stride]);
      default: return acc_t(static_cast<const float*>(data)[c * stride]);
    }
  }
  template <typename acc_t>
  YATEN_HOST_DEVICE void set(int64_t c, acc_t v) const {
    switch (dtype) {
      case ScalarType::Half: static_cast<Half*>(data)[c * stride] = Half(float(v)); break;
      case ScalarType::BFloat16: static_cast<BFloat16*>(data)[c * stride] = BFloat16(float(v)); break;
      case ScalarType::Double: static_cast<double*>(data)[c * stride] = double(v); break;
      default: static_cast<float*>(data)[c * stride] = float(v); break;
    }
  }
};

// native_batch_norm's forward, per channel c: the statistics (the batch's while training, else the running ones)
// give invstd = 1 / sqrt(var + eps), and the output is x * scale + shift with scale = invstd * weight and
// shift = bias - mean * scale; while training the running statistics move by momentum (the variance unbiased).
// The same operations, in the same order, as the ops they replace (rsqrt(var + eps), mul, mul, sub), so the values
// are those ops' values. Null weight/bias are 1/0; null running statistics are not updated.
template <typename acc_t>
struct BatchNormForward {
  const acc_t* mean;    // the batch's mean (training) or the running mean
  const acc_t* var;     // the batch's biased variance (training) or the running variance
  const acc_t* weight;  // may be null
  const acc_t* bias;    // may be null
  RunningStat running_mean;  // updated in place while training, where given
  RunningStat running_var;   // likewise
  acc_t* invstd;        // out: 1 / sqrt(var + eps)
  acc_t* scale;         // out
  acc_t* shift;         // out
  acc_t eps, momentum, unbias;  // unbias = n / (n - 1), n the values per channel
  bool training;

  YATEN_HOST_DEVICE void operator()(int64_t c) const {
    const acc_t m = mean[c], v = var[c];
    const acc_t r = acc_t(1) / std::sqrt(v + eps);
    const acc_t s = weight ? r * weight[c] : r;
    const acc_t moved = m * s;
    invstd[c] = r;
    scale[c] = s;
    shift[c] = bias ? bias[c] - moved : -moved;
    if (training && running_mean.data) {
      running_mean.set<acc_t>(c, running_mean.get<acc_t>(c) * (acc_t(1) - momentum) + m * momentum);
    }
    if (training && running_var.data) {
      running_var.set<acc_t>(c, running_var.get<acc_t>(c) * (acc_t(1) - momentum) + v * (momentum * unbias));
    }
  }
};

// native_batch_norm_backward, per channel c, from the sums over the channel's n values of dy and of
// dy * (x - mean) (null where not needed): with k = invstd * weight, the input's gradient
//     k * (dy - sum_dy / n - (x - mean) * invstd^2 * sum_dy_xmu / n)      (training; k * dy in evaluation)
// is dy * a + (x - mean) * b + c0, one pass of two addcmuls; the weight's gradient is sum_dy_xmu * invstd and the
// bias's sum_dy.
template <typename acc_t>
struct BatchNormBackward {
  const acc_t* sum_dy;      // may be null
  const acc_t* sum_dy_xmu;  // may be null
  const acc_t* invstd;
  const acc_t* weight;  // may be null
  acc_t* a;             // out: dy's factor
  acc_t* b;             // out: (x - mean)'s factor (training only)
  acc_t* c0;            // out: the constant (training only)
  acc_t* grad_weight;   // out, may be null
  acc_t* grad_bias;     // out, may be null
  acc_t n;
  bool training;

  YATEN_HOST_DEVICE void operator()(int64_t c) const {
    const acc_t r = invstd[c];
    const acc_t k = weight ? r * weight[c] : r;
    a[c] = k;
    if (training && sum_dy && sum_dy_xmu) {
      b[c] = -k * r * r * sum_dy_xmu[c] / n;
      c0[c] = -k * sum_dy[c] / n;
    }
    if (grad_weight) grad_weight[c] = sum_dy_xmu[c] * r;
    if (grad_bias) grad_bias[c] = sum_dy[c];
  }
};

}  // namespace yaten::native::norm
