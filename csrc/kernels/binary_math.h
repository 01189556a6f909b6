// The element math of the binary pointwise ops (arithmetic, bitwise, shifts, lerp, addcmul, addcdiv), written once
// for both backends: every functor of kernels/binary/, for the CUDA kernels (kernels/cuda/binary_ops.cuh, one
// nvcc unit for the family). CPU kernels include their own op's header only.
//
// Note [A header per op]: the pointwise families (binary, unary, activation, compare) keep each op's element
// function in a header of its own, kernels/<family>/<op>.h (ops whose functors share one template share its header:
// binary/extremum.h, unary/rounding.h), and each op's CPU kernel in kernels/cpu/<family>/<kernel>.h, which includes
// its functor's header and kernels/cpu/<family>/common.h (the family's loops and vector math) alone. The CUDA
// kernels stay one header per family, kernels/cuda/<family>_ops.cuh, through <family>_math.h (this header for the
// binary ops), which includes every functor of the family: the family is one nvcc unit anyway. The generator groups
// op families into units by the header of their CPU kernel (Note [Op units], codegen/gen.py), so a family whose
// kernel has a header of its own compiles in a unit of its own in the developer loop (YATEN_UNIT_PER_OP; a one-time
// build pools a folder's families a few to a unit), and an edit to its kernel or its functor recompiles that unit
// alone. From an edit to importable (CUDA off, this 2-core machine, median of 3): the kernels of atan2 4.4 s, add
// 6.6, pow 9.4 (the heaviest family), exp 4.1, gelu 4.5, eq 6.3, where 8.2; the functors of atan2 4.5 s, sin 5.8,
// gelu 5.0, eq 6.8. When the four families had a kernel header and a functor header each, an edit recompiled every
// unit of the family (a comment in cpu/binary_ops.h 43 s; activation_math.h 17 s, compare_math.h 31 s, unary_math.h
// 53 s). The functors the _foreach kernels run too (add, sub, mul, div, maximum, lerp, addcmul, addcdiv, exp, neg,
// sqrt) recompile that _foreach op's unit as well (Note [A foreach op per header], kernels/foreach/common.h; when
// one header included them all, every _foreach unit: exp's functor 25.5 s, add's 23 s); the ones several kernels share
// recompile each of them (unary/rounding.h: 10.0 s). The other CPU kernels whose family header had grown heavy follow
// the same layout, a folder with common.h and a header per op: kernels/cpu/reduce/ (sum 8.9 s, max 6.5), sort/ (sort
// 6.4, topk 8.0), indexing/ (5.1-8.4), special/ (4.6-7.2), foreach/ and pool/ (max_pool 9.9, the adaptive average 3.9;
// Note [A pooling op per header]); any kernels/cpu/<folder>/ counts as one header for a one-time build's units and as a
// header per op in the developer loop.
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
