// convert<dst_t>(src): one element from one dtype to another, as torch converts (bool is "nonzero"; float16 and
// bfloat16 go through float). Host and device code share it: the CPU copy kernel and gpu_kernel's casting loads.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/scalar_type.h"

namespace yaten {

template <typename dst_t, typename src_t>
YATEN_HOST_DEVICE inline dst_t convert(src_t v) {
  if constexpr (std::is_same_v<dst_t, src_t>) {
    return v;
  } else if constexpr (std::is_same_v<dst_t, bool>) {
    return static_cast<opmath_t<src_t>>(v) != opmath_t<src_t>(0);
  } else if constexpr (std::is_integral_v<dst_t> && !std::is_integral_v<src_t>) {
    // Through int64_t, as torch does: a negative float into uint8 wraps the same way on every machine (a direct
    // conversion is undefined; x86 wraps, CUDA saturates).
    return static_cast<dst_t>(static_cast<int64_t>(static_cast<opmath_t<src_t>>(v)));
  } else if constexpr (std::is_same_v<src_t, Half> || std::is_same_v<src_t, BFloat16>) {
    return static_cast<dst_t>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<dst_t, Half> || std::is_same_v<dst_t, BFloat16>) {
    return dst_t(static_cast<float>(v));
  } else {
    return static_cast<dst_t>(v);
  }
}

}  // namespace yaten
