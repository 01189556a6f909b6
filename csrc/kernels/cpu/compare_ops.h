// CPU kernels of the comparisons, the logical ops, isclose, nan_to_num, clamp and where, each running its element
// functor from kernels/compare_math.h (shared with CUDA).
#pragma once

#include <optional>

#include "iter/cpu_loops.h"
#include "iter/vec.h"
#include "iter/vec_double.h"
#include "kernels/compare_math.h"
#include "kernels/pointwise_support.h"


namespace yaten::native::cpu {

template <typename scalar_t>
void eq_kernel(const TensorIterator& iter) { cpu_kernel(iter, EqOp<scalar_t>{}); }
template <typename scalar_t>
void ne_kernel(const TensorIterator& iter) { cpu_kernel(iter, NeOp<scalar_t>{}); }
template <typename scalar_t>
void lt_kernel(const TensorIterator& iter) { cpu_kernel(iter, LtOp<scalar_t>{}); }
template <typename scalar_t>
void le_kernel(const TensorIterator& iter) { cpu_kernel(iter, LeOp<scalar_t>{}); }
template <typename scalar_t>
void gt_kernel(const TensorIterator& iter) { cpu_kernel(iter, GtOp<scalar_t>{}); }
template <typename scalar_t>
void ge_kernel(const TensorIterator& iter) { cpu_kernel(iter, GeOp<scalar_t>{}); }
template <typename scalar_t>
void isnan_kernel(const TensorIterator& iter) { cpu_kernel(iter, IsnanOp<scalar_t>{}); }
template <typename scalar_t>
void isinf_kernel(const TensorIterator& iter) { cpu_kernel(iter, IsinfOp<scalar_t>{}); }
template <typename scalar_t>
void isfinite_kernel(const TensorIterator& iter) { cpu_kernel(iter, IsfiniteOp<scalar_t>{}); }
template <typename scalar_t>
void logical_and_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalAndOp<scalar_t>{}); }
template <typename scalar_t>
void logical_or_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalOrOp<scalar_t>{}); }
template <typename scalar_t>
void logical_xor_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalXorOp<scalar_t>{}); }
template <typename scalar_t>
void logical_not_kernel(const TensorIterator& iter) { cpu_kernel(iter, LogicalNotOp<scalar_t>{}); }
template <typename scalar_t>
void isclose_kernel(const TensorIterator& iter, double rtol, double atol, bool equal_nan) {
  check_isclose(iter, rtol, atol);
  cpu_kernel(iter, isclose_op<scalar_t>(rtol, atol, equal_nan));
}
// nan_to_num of float32: a vector whose lanes are all finite, the common case, is copied as it is (one test of a mask
// register); the others take the functor's selects in lanes (as a loop of selects alone, 1.4-1.9x torch's time).
template <typename scalar_t>
void nan_to_num_kernel(const TensorIterator& iter, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  const NanToNumOp<scalar_t> op = nan_to_num_op<scalar_t>(nan, posinf, neginf);
  if constexpr (std::is_same_v<scalar_t, float>) {
    const float inf = __builtin_inff();
    const vec::wfloat n = vec::broadcast<vec::wfloat>(op.nan), p = vec::broadcast<vec::wfloat>(op.posinf),
                      m = vec::broadcast<vec::wfloat>(op.neginf);
    unary_vec_kernel<float>(iter, [op](float x) { return op(x); }, [=](vec::wfloat x) {
      if (__builtin_expect(vec::all_between(x, -inf, inf), 1)) return x;
      return vec::abs(x) < inf ? x : (x != x ? n : (x > 0.0f ? p : m));
    });
  } else if constexpr (std::is_same_v<scalar_t, double>) {
    const double inf = __builtin_inf();
    const vec::wdouble n = vec::wdouble{} + op.nan, p = vec::wdouble{} + op.posinf, m = vec::wdouble{} + op.neginf;
    unary_vec_kernel<double>(iter, [op](double x) { return op(x); }, [](vec::wfloat x) { return x; },
                             [=](vec::wdouble x) {
                               if (__builtin_expect(vec::double_detail::all_between_double(x, -inf, inf), 1)) return x;
                               return vec::abs_double(x) < inf ? x : (x != x ? n : (x > 0.0 ? p : m));
                             });
  } else {
    cpu_kernel(iter, op);
  }
}
template <typename scalar_t>
void clamp_kernel(const TensorIterator& iter) { cpu_kernel(iter, ClampOp<scalar_t>{}); }

template <typename scalar_t>
Tensor where_kernel(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TensorIterator iter = where_iterator<scalar_t>(condition, self, other);
  // Branch-free: with a condition that is true at random (a relu mask), `c ? a : b` mispredicts half the time.
  cpu_kernel(iter, WhereOp<scalar_t>{});
  return iter.finish();
}

}  // namespace yaten::native::cpu
