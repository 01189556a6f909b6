// What every CPU kernel of the binary family builds on (each op's kernel has a header of its own beside this one:
// Note [A header per op], kernels/binary_math.h): the loops (cpu_kernel, binary_vec_kernel), the vector math of
// iter/vec.h in float and double lanes, and the argument checks the wrappers' iterators leave to the kernels.
#pragma once

#include <optional>
#include <type_traits>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "iter/vec_double_trig.h"
#include "kernels/alpha_check.h"
#include "kernels/pointwise_support.h"

namespace yaten::native::cpu {

// add, sub, mul and div: float16 in float lanes, converted a vector at a time (Note [16-bit rows as float lanes];
// one element at a time, h + h took 5.9x torch's time), the same float arithmetic the functor does; every other
// dtype by the functor, which the compiler vectorizes (bfloat16's conversions too, which are integer steps: through
// the lanes b * b took 1.2x the functor's time).
template <typename scalar_t>
constexpr bool kHalfInLanes = std::is_same_v<scalar_t, Half>;

}  // namespace yaten::native::cpu
