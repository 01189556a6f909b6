// _foreach_div_'s CPU kernels: kernels/foreach/div.inc's, run by CpuForeach. A header of its own: an edit to
// div's functor recompiles div's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/div.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/div.h"

namespace yaten::native::cpu {

#include "kernels/foreach/div.inc"

}  // namespace yaten::native::cpu
