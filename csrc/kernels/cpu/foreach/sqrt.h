// _foreach_sqrt_'s CPU kernels: kernels/foreach/sqrt.inc's, run by CpuForeach. A header of its own: an edit to
// sqrt's functor recompiles sqrt's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "kernels/unary/sqrt.h"
#include "yaten/ops/sqrt.h"

namespace yaten::native::cpu {

#include "kernels/foreach/sqrt.inc"

}  // namespace yaten::native::cpu
