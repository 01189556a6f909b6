// _foreach_sub_'s CPU kernels: kernels/foreach/sub.inc's, run by CpuForeach. A header of its own: an edit to
// sub's functor recompiles sub's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/sub.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/sub.h"

namespace yaten::native::cpu {

#include "kernels/foreach/sub.inc"

}  // namespace yaten::native::cpu
