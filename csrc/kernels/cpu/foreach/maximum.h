// _foreach_maximum_'s CPU kernels: kernels/foreach/maximum.inc's, run by CpuForeach. A header of its own: an edit to
// maximum's functor recompiles maximum's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/extremum.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/maximum.h"

namespace yaten::native::cpu {

#include "kernels/foreach/maximum.inc"

}  // namespace yaten::native::cpu
