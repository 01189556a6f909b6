// The element math of the activations and their fused gradients, written once for both backends: every functor of
// kernels/activation/, one header per op (Note [A header per op], kernels/binary_math.h), for the CUDA kernels
// (kernels/cuda/activation_ops.cuh, one nvcc unit for the family). CPU kernels include their own op's header only.
#pragma once

#include "kernels/activation/elu.h"
#include "kernels/activation/gelu.h"
#include "kernels/activation/gelu_backward.h"
#include "kernels/activation/glu_halves.h"
#include "kernels/activation/hardshrink.h"
#include "kernels/activation/hardsigmoid.h"
#include "kernels/activation/hardswish.h"
#include "kernels/activation/hardtanh.h"
#include "kernels/activation/leaky_relu.h"
#include "kernels/activation/mish.h"
#include "kernels/activation/silu.h"
#include "kernels/activation/silu_backward.h"
#include "kernels/activation/softplus.h"
#include "kernels/activation/softshrink.h"
#include "kernels/activation/threshold.h"
