// @generated from ops.yaml by codegen (templates/functions.h.j2): edit those, not this
// Every op of yaten's C++ API. For code outside yaten; its own sources include only the op headers they use.
#pragma once

#include "yaten/ops/scale.h"
#include "yaten/ops/fill_range.h"
#include "yaten/ops/minmax.h"
#include "yaten/ops/swap_dims.h"
#include "yaten/ops/join.h"
#include "yaten/ops/nonzero_rows.h"
#include "yaten/ops/affine.h"
