// _foreach_exp_'s CPU kernels: kernels/foreach/exp.inc's, run by CpuForeach. A header of its own: an edit to
// exp's functor recompiles exp's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "kernels/unary/exp.h"
#include "yaten/ops/exp.h"

namespace yaten::native::cpu {

#include "kernels/foreach/exp.inc"

}  // namespace yaten::native::cpu
