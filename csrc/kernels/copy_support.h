// What the CPU and CUDA copy_ kernels share besides convert<>: torch's warning for a complex source copied into a
// real destination.
#pragma once

#include "core/gil.h"
#include "core/tensor.h"

namespace yaten::native {

// A complex value copied into a real dtype keeps its real part; torch warns, and so does yaten (into bool, a value
// is "nonzero" and nothing is discarded).
inline void warn_if_discarding_imaginary(const Tensor& self, const Tensor& src) {
  if (is_complex(src.dtype()) && !is_complex(self.dtype()) && self.dtype() != ScalarType::Bool) {
    // once per process, as torch's TORCH_WARN_ONCE (every time after yaten.set_warn_always(True))
    yaten::detail::warn_once("Casting complex values to real discards the imaginary part");
  }
}

}  // namespace yaten::native
