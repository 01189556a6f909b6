// _foreach_neg_'s CPU kernels: kernels/foreach/neg.inc's, run by CpuForeach. A header of its own: an edit to
// neg's functor recompiles neg's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "kernels/unary/neg.h"
#include "yaten/ops/neg.h"

namespace yaten::native::cpu {

#include "kernels/foreach/neg.inc"

}  // namespace yaten::native::cpu
