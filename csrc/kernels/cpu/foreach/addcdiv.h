// _foreach_addcdiv_'s CPU kernels: kernels/foreach/addcdiv.inc's, run by CpuForeach. A header of its own: an edit to
// addcdiv's functor recompiles addcdiv's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/addcdiv.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/addcdiv.h"

namespace yaten::native::cpu {

#include "kernels/foreach/addcdiv.inc"

}  // namespace yaten::native::cpu
