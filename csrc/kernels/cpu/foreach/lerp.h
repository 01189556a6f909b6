// _foreach_lerp_'s CPU kernels: kernels/foreach/lerp.inc's, run by CpuForeach. A header of its own: an edit to
// lerp's functor recompiles lerp's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/lerp.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/lerp.h"

namespace yaten::native::cpu {

#include "kernels/foreach/lerp.inc"

}  // namespace yaten::native::cpu
