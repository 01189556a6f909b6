// The element math of torch.special's remaining functions, every group of kernels/special/ (what each holds and
// how it computes: kernels/special/common.h), for the CUDA kernels (kernels/cuda/special_functions.cuh, one nvcc
// unit). CPU kernels include their own group's header only (kernels/cpu/special/).
#pragma once

#include "kernels/special/airy.h"
#include "kernels/special/bessel_jy.h"
#include "kernels/special/bessel_k.h"
#include "kernels/special/gamma.h"
#include "kernels/special/normal.h"
#include "kernels/special/polynomials.h"
