// What every CPU kernel of the activation family (yaten.nn.functional's element functions) builds on; each kernel
// has a header of its own beside this one, and includes its functor's, kernels/activation/<op>.h (Note [A header
// per op], kernels/binary_math.h): the loops, and the vector math of iter/vec.h that the float32 hot ones (gelu,
// silu) and the element functions written over auto (elu, mish, softplus) run in lanes.
#pragma once

#include <string>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_math.h"
#include "kernels/pointwise_math.h"
#include "kernels/pointwise_support.h"
