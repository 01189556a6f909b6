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
  } else if constexpr (is_complex_v<src_t>) {  // into a real type: the real part (torch warns; the caller does)
    if constexpr (std::is_same_v<dst_t, bool>) {
      return v.re != 0 || v.im != 0;
    } else if constexpr (is_complex_v<dst_t>) {
      return dst_t(v);
    } else {
      return convert<dst_t>(v.re);
    }
  } else if constexpr (is_complex_v<dst_t>) {
    using part_t = real_of_t<dst_t>;
    return dst_t(convert<part_t>(v), part_t(0));
  } else if constexpr (std::is_same_v<dst_t, bool>) {
    return static_cast<opmath_t<src_t>>(v) != opmath_t<src_t>(0);
  } else if constexpr (std::is_integral_v<dst_t> && !std::is_integral_v<src_t>) {
    // Note [Floats into integers]: C++ leaves a float outside the integer's range (and NaN) undefined; x86 gives
    // the "integer indefinite" (the lowest value), CUDA saturates. yaten gives torch's results on x86 on every
    // device: int64 and uint8 (which torch takes through int64) from a 64-bit conversion, the other integers
    // from a 32-bit one whose low bits are kept; out of range or NaN converts to the lowest int64 or int32.
    // uint16 and uint32 go through int64 as torch's do; uint64 too, except that [2^63, 2^64) converts directly.
    using wide_t = std::conditional_t<std::is_same_v<dst_t, int64_t> || std::is_same_v<dst_t, uint8_t> ||
                                          std::is_same_v<dst_t, uint16_t> || std::is_same_v<dst_t, uint32_t> ||
                                          std::is_same_v<dst_t, uint64_t>,
                                      int64_t, int32_t>;
    using math_t = opmath_t<src_t>;
    const math_t x = static_cast<math_t>(v);
    if constexpr (std::is_same_v<dst_t, uint64_t>) {
      if (x >= static_cast<math_t>(9223372036854775808.0) && x < static_cast<math_t>(18446744073709551616.0)) {
        return static_cast<dst_t>(x);
      }
    }
    constexpr math_t limit = static_cast<math_t>(sizeof(wide_t) == 8 ? 9223372036854775808.0 : 2147483648.0);
    const wide_t wide = (x >= -limit && x < limit) ? static_cast<wide_t>(x) : static_cast<wide_t>(
        sizeof(wide_t) == 8 ? static_cast<wide_t>(INT64_MIN) : static_cast<wide_t>(INT32_MIN));
    return static_cast<dst_t>(wide);
  } else if constexpr (std::is_same_v<src_t, Half> || std::is_same_v<src_t, BFloat16>) {
    return static_cast<dst_t>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<dst_t, Half> || std::is_same_v<dst_t, BFloat16>) {
    return dst_t(static_cast<float>(v));
  } else {
    return static_cast<dst_t>(v);
  }
}

}  // namespace yaten
