// yaten's CPU FFT (kernels/cpu/fft_engine.cpp, the one translation unit that compiles it) behind a narrow interface.
// Shapes and strides are in elements (of the real type, or of the complex type for complex data); `axes` are the
// transformed dims in order; `fct` scales the result. `real_dtype` is float32 or float64. The GIL is released for
// large inputs, and the lines of a transform are split over yaten's threads.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scalar_type.h"

namespace yaten::native::fft_engine {

using Dims = std::vector<int64_t>;

// complex -> complex, shape is both sides'.
void c2c(ScalarType real_dtype, const Dims& shape, const Dims& in_strides, const Dims& out_strides, const Dims& axes,
         bool forward, const void* in, void* out, double fct);
// real -> complex, shape is the input's; the output's last axis holds shape[axes.back()] / 2 + 1 terms.
void r2c(ScalarType real_dtype, const Dims& shape_in, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct);
// complex (one-sided) -> real, the inverse transform; shape is the output's.
void c2r(ScalarType real_dtype, const Dims& shape_out, const Dims& in_strides, const Dims& out_strides,
         const Dims& axes, const void* in, void* out, double fct);

}  // namespace yaten::native::fft_engine
