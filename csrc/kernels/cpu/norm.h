// Batch normalization on the CPU: native_batch_norm and _batch_norm_backward_fused run the device-generic passes of
// kernels/composite/norm.h (Note [Batch norm in a few passes]) with the per-channel math of kernels/norm_math.h in
// a plain loop over the channels.
#pragma once

#include <array>
#include <tuple>

#include "kernels/composite/norm.h"
#include "kernels/norm_math.h"

namespace yaten::native::cpu {

namespace norm_detail {
struct Channels {
  template <typename Step>
  static void run(const Step& step, int64_t channels, Device) {
    for (int64_t c = 0; c < channels; ++c) step(c);
  }
};
}  // namespace norm_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_kernel(const Tensor& input, const Tensor& weight,
                                                            const Tensor& bias, const Tensor& running_mean,
                                                            const Tensor& running_var, bool training,
                                                            double momentum, double eps) {
  return native::norm_detail::native_batch_norm<norm_detail::Channels>(input, weight, bias, running_mean,
                                                                       running_var, training, momentum, eps);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _batch_norm_backward_fused_kernel(const Tensor& grad_out, const Tensor& input,
                                                                     const Tensor& weight, const Tensor& mean,
                                                                     const Tensor& invstd, bool train,
                                                                     std::array<bool, 3> output_mask) {
  return native::norm_detail::batch_norm_backward_fused<norm_detail::Channels>(grad_out, input, weight, mean,
                                                                               invstd, train, output_mask);
}

}  // namespace yaten::native::cpu
