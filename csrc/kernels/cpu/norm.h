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

#include "kernels/norm_kernels.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
