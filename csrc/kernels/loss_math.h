// The element functions of the pointwise losses, shared by their CPU kernels (kernels/cpu/loss_ops.h, in SIMD lanes)
// and CUDA kernels (kernels/cuda/loss_ops.cuh): each formula is written once in `f`, over a type V that is a number in
// the op's math type (CUDA, and the CPU's strided rows) or a vector of lanes (the CPU's contiguous rows), with
// torch's order of operations, so the three paths round alike. The losses compose them with a reduction
// (kernels/composite/loss.h, nn.h): one pass for the elementwise loss instead of one per op of the formula.
#pragma once

#include "kernels/pointwise_math.h"
#if !defined(__CUDACC__)
#include "iter/vec_math.h"  // math:: of vector lanes, declared before the formulas below call math::
#endif

namespace yaten::native {

// |a - b| over a number or a vector of lanes (NaN stays NaN).
template <typename V>
YATEN_HOST_DEVICE inline V abs_difference(V a, V b) {
  const V d = a - b;
  return d < 0 ? -d : d;
}

// What gpu_kernel calls: Op's formula f on one element of each input, in the math type, rounded once to T.
template <typename T, typename Op>
struct PairwiseLoss {
  YATEN_HOST_DEVICE T operator()(T a, T b) const {
    return static_cast<T>(static_cast<const Op&>(*this).f(om<T>(a), om<T>(b)));
  }
};

// smooth_l1: 0.5 z^2 / beta where z = |a - b| < beta, z - 0.5 beta elsewhere (beta > 0).
template <typename T>
struct SmoothL1Op : PairwiseLoss<T, SmoothL1Op<T>> {
  om<T> beta;
  template <typename V>
  YATEN_HOST_DEVICE V f(V a, V b) const {
    const V z = abs_difference(a, b);
    return z < beta ? om<T>(0.5) * z * z / beta : z - om<T>(0.5) * beta;
  }
};

// huber: 0.5 z^2 where z = |a - b| < delta, delta (z - 0.5 delta) elsewhere (delta > 0).
template <typename T>
struct HuberOp : PairwiseLoss<T, HuberOp<T>> {
  om<T> delta;
  template <typename V>
  YATEN_HOST_DEVICE V f(V a, V b) const {
    const V z = abs_difference(a, b);
    return z < delta ? om<T>(0.5) * z * z : delta * (z - om<T>(0.5) * delta);
  }
};

// mse: (a - b)^2.
template <typename T>
struct SquaredDifferenceOp : PairwiseLoss<T, SquaredDifferenceOp<T>> {
  template <typename V>
  YATEN_HOST_DEVICE V f(V a, V b) const {
    const V d = a - b;
    return d * d;
  }
};

// binary_cross_entropy_with_logits: (1 - t) x - log_sigmoid(x), log_sigmoid(x) = min(x, 0) - log1p(e^-|x|) (exact
// for large |x| of either sign), as torch's and kernels/composite/loss.h's log_sigmoid.
template <typename T>
struct BceWithLogitsOp : PairwiseLoss<T, BceWithLogitsOp<T>> {
  template <typename V>
  YATEN_HOST_DEVICE V f(V x, V t) const {
    const V zero{};
    const V log_sigmoid = (x < 0 ? x : zero) - math::log1p(math::exp(x < 0 ? x : -x));
    return (om<T>(1) - t) * x - log_sigmoid;
  }
};

}  // namespace yaten::native
