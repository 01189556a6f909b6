// The element math of the binary pointwise ops (arithmetic, bitwise, shifts, lerp, addcmul, addcdiv), written once
// for both backends: every functor of kernels/binary/, for the CUDA kernels (kernels/cuda/binary_ops.cuh, one
// nvcc unit for the family). CPU kernels include their own op's header only.
//
// Note [A header per op]: an op of the binary family has its element function in kernels/binary/<op>.h (ops whose
// functors share one template share its header: kernels/binary/extremum.h) and its CPU kernel in
// kernels/cpu/binary/<kernel>.h, which includes that functor's header and kernels/cpu/binary/common.h alone. The
// generator groups op families into units by the header of their CPU kernel (Note [Op units], codegen/gen.py), so a
// family whose kernel has a header of its own compiles in a unit of its own, and an edit to its kernel or its
// functor recompiles that unit and not the 13 units that included every binary kernel and functor when they shared
// kernels/cpu/binary_ops.h and this header: from an edit to importable (CUDA off, this 2-core machine), atan2 4.4 s,
// add 6.6, pow 9.4 (the heaviest family), where a comment in cpu/binary_ops.h took 43 s. The unary, activation and
// compare families keep their CPU kernels the same way (kernels/cpu/unary/exp.h: 4.1 s); their functors, mostly
// one line each over the math:: functions, stay in one header per family (unary_math.h, 53 s). The exceptions are the functors the _foreach kernels run too (add, sub, mul, div, maximum, lerp,
// addcmul, addcdiv: kernels/foreach_ops.h includes their headers), whose edits recompile the _foreach units as well.
#pragma once

#include "kernels/binary/add.h"
#include "kernels/binary/addcdiv.h"
#include "kernels/binary/addcmul.h"
#include "kernels/binary/atan2.h"
#include "kernels/binary/bitwise_and.h"
#include "kernels/binary/bitwise_left_shift.h"
#include "kernels/binary/bitwise_not.h"
#include "kernels/binary/bitwise_or.h"
#include "kernels/binary/bitwise_right_shift.h"
#include "kernels/binary/bitwise_xor.h"
#include "kernels/binary/div.h"
#include "kernels/binary/div_trunc.h"
#include "kernels/binary/extremum.h"
#include "kernels/binary/floor_divide.h"
#include "kernels/binary/fmod.h"
#include "kernels/binary/hypot.h"
#include "kernels/binary/lerp.h"
#include "kernels/binary/mul.h"
#include "kernels/binary/pow.h"
#include "kernels/binary/remainder.h"
#include "kernels/binary/sub.h"
