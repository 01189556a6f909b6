// The CPU kernel of scaled_square: the contract is in the generated myext/ops/scaled_square.h
// (`template <typename scalar_t> void scaled_square_kernel(const TensorIterator& iter, double scale)`); the
// generated wrapper builds the TensorIterator (broadcasting, promotion, the output) and instantiates this template
// for each dtype that ops.yaml declares.
#pragma once

#include "iter/cpu_loops.h"
#include "src/scaled_square_math.h"

namespace myext::native::cpu {

template <typename scalar_t>
void scaled_square_kernel(const ::yaten::TensorIterator& iter, double scale) {
  using acc_t = ::yaten::opmath_t<scalar_t>;
  ::yaten::native::cpu_kernel(iter, ScaledSquareOp<scalar_t>{static_cast<acc_t>(scale)});
}

}  // namespace myext::native::cpu
