// What every CPU kernel of the compare family (comparisons, logical ops, isclose, nan_to_num, clamp, where) builds
// on; each kernel has a header of its own beside this one, and includes its functor's, kernels/compare/<op>.h
// (Note [A header per op], kernels/binary_math.h): the loops, and iter/vec.h's lanes.
#pragma once

#include <optional>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "kernels/pointwise_math.h"
#include "kernels/pointwise_support.h"
