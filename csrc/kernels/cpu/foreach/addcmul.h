// _foreach_addcmul_'s CPU kernels: kernels/foreach/addcmul.inc's, run by CpuForeach. A header of its own: an edit to
// addcmul's functor recompiles addcmul's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/addcmul.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/addcmul.h"

namespace yaten::native::cpu {

#include "kernels/foreach/addcmul.inc"

}  // namespace yaten::native::cpu
