// The element math of the comparisons, tests and selections (eq, isnan, logical_and, isclose, clamp, where), written
// once for both backends: every functor of kernels/compare/, one header per op (Note [A header per op],
// kernels/binary_math.h), for the CUDA kernels (kernels/cuda/compare_ops.cuh, one nvcc unit for the family). CPU
// kernels include their own op's header only.
#pragma once

#include "kernels/compare/clamp.h"
#include "kernels/compare/eq.h"
#include "kernels/compare/ge.h"
#include "kernels/compare/gt.h"
#include "kernels/compare/isclose.h"
#include "kernels/compare/isfinite.h"
#include "kernels/compare/isinf.h"
#include "kernels/compare/isnan.h"
#include "kernels/compare/le.h"
#include "kernels/compare/logical_and.h"
#include "kernels/compare/logical_not.h"
#include "kernels/compare/logical_or.h"
#include "kernels/compare/logical_xor.h"
#include "kernels/compare/lt.h"
#include "kernels/compare/nan_to_num.h"
#include "kernels/compare/ne.h"
#include "kernels/compare/where.h"
