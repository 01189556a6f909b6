// _foreach_add_'s CPU kernels: kernels/foreach/add.inc's, run by CpuForeach. A header of its own: an edit to
// add's functor recompiles add's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/add.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/add.h"

namespace yaten::native::cpu {

#include "kernels/foreach/add.inc"

}  // namespace yaten::native::cpu
