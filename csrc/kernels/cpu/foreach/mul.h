// _foreach_mul_'s CPU kernels: kernels/foreach/mul.inc's, run by CpuForeach. A header of its own: an edit to
// mul's functor recompiles mul's unit and this one's, not every _foreach op's (Note [A foreach op per header],
// kernels/foreach/common.h).
#pragma once

#include "kernels/binary/mul.h"
#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/mul.h"

namespace yaten::native::cpu {

#include "kernels/foreach/mul.inc"

}  // namespace yaten::native::cpu
