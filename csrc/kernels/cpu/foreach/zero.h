// _foreach_zero_'s CPU kernels: kernels/foreach/zero.inc's, run by CpuForeach. A header of its own (Note [A foreach
// op per header], kernels/foreach/common.h).
#pragma once

#include "kernels/cpu/foreach/common.h"
#include "yaten/ops/zero.h"

namespace yaten::native::cpu {

#include "kernels/foreach/zero.inc"

}  // namespace yaten::native::cpu
