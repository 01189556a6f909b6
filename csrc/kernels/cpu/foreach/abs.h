// _foreach_abs_'s CPU kernels: kernels/foreach/abs.inc's, run by CpuForeach. A header of its own: an edit to
// abs's functor recompiles abs's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "kernels/pointwise_math.h"
#include "yaten/ops/abs.h"

namespace yaten::native::cpu {

#include "kernels/foreach/abs.inc"

}  // namespace yaten::native::cpu
