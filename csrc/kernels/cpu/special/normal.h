// The CPU kernels of kernels/special/normal.h's functions, a header of their own (Note [A header per op],
// kernels/binary_math.h).
#pragma once

#include "iter/cpu_loops.h"
#include "kernels/special/normal.h"

namespace yaten::native::cpu {

template <typename scalar_t>
void erfcx_kernel(const TensorIterator& iter) { cpu_kernel(iter, ErfcxOp<scalar_t>{}); }
template <typename scalar_t>
void log_ndtr_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogNdtrOp<scalar_t>{}); }
template <typename scalar_t>
void ndtri_kernel(const TensorIterator& iter) { cpu_kernel(iter, NdtriOp<scalar_t>{}); }
template <typename scalar_t>
void entr_kernel(const TensorIterator& iter) { cpu_kernel(iter, EntrOp<scalar_t>{}); }

}  // namespace yaten::native::cpu
