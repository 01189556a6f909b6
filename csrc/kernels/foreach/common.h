// The in-place _foreach ops, written once for both backends.
//
// Note [A foreach op per header]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each op's kernels are a fragment, kernels/foreach/<op>.inc, that says which element functor runs at each index
// (kernels/binary/, kernels/unary/: the per-tensor op's own), which number it takes there, when an index must take the
// per-tensor op instead, and that op. Its CPU header, kernels/cpu/foreach/<op>.h, includes the op's functor header
// and the per-tensor op's, then the fragment inside namespace cpu; kernels/cuda/foreach.cuh includes every fragment
// inside namespace cuda (one nvcc unit for the family). So an edit to add's functor recompiles add's unit and
// _foreach_add's, not every _foreach op (Note [A header per op], kernels/binary_math.h). A backend names itself
// ForeachBackend (cpu/foreach/common.h CpuForeach, cuda/foreach.cuh CudaForeach) and supplies
//
//   template <typename scalar_t, typename Maker, typename Accept, typename Slow, typename... Lists>
//   static void apply(const char* name, const TensorList& self, const std::vector<double>& numbers,
//                     const Maker& make, const Accept& accept, const Slow& slow, const Lists&... inputs);
//
// which runs self[i] = make(numbers[i])(self[i], inputs[i]...) elementwise over the indices that take the fast path
// (Note [Multi-tensor fast path]) and `accept(i)`, and slow(i) at the others. `numbers` is empty when the op takes
// none; a Maker is a YATEN_HOST_DEVICE functor, so the CUDA kernel builds each tensor's functor on the device.
// This header holds what the fragments share: the makers and the Scalar forms' driver.
#pragma once

#include <type_traits>
#include <vector>

#include "core/scalar_type.h"
#include "kernels/foreach_support.h"
#include "kernels/pointwise_math.h"

namespace yaten::native::foreach {

// The dtypes the fast paths are compiled for: the floating ones, which optimizers update. Lists of other dtypes
// run the per-tensor ops.
template <typename T>
inline constexpr bool kFast = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// ------------------------------------------------------------------------------------------------ makers

// One functor for every tensor.
template <typename Op>
struct Same {
  Op op;
  YATEN_HOST_DEVICE Op operator()(double) const { return op; }
};
// x -> F(x, number), the number as the element type (as a Scalar operand is cast to it).
template <typename T, template <typename> class F>
struct WithNumber {
  struct Op {
    T c;
    YATEN_HOST_DEVICE T operator()(T x) const { return F<T>{}(x, c); }
  };
  YATEN_HOST_DEVICE Op operator()(double s) const { return Op{static_cast<T>(static_cast<om<T>>(s))}; }
};
// F{number}: the functor's parameter in the compute type (addcmul's value, lerp's weight).
template <typename T, template <typename> class F>
struct WithMember {
  YATEN_HOST_DEVICE F<T> operator()(double s) const { return F<T>{static_cast<om<T>>(s)}; }
};

// The numbers `make` takes, per tensor, from Scalars: as the element type (`as_element`), else as its compute type.
// Complex numbers and complex lists never reach the fast path; their number is 0.
template <typename T>
double number(const Scalar& s, bool as_element) {
  if constexpr (kFast<T>) {
    if (s.is_complex()) return 0;
    return as_element ? static_cast<double>(static_cast<om<T>>(s.to<T>())) : static_cast<double>(s.to<om<T>>());
  } else {
    return 0;
  }
}
template <typename T>
std::vector<double> numbers(const std::vector<Scalar>& scalars, bool as_element) {
  std::vector<double> out;
  for (const Scalar& s : scalars) out.push_back(number<T>(s, as_element));
  return out;
}
inline auto all(size_t) { return true; }

// ------------------------------------------------------------------------------------------------ Scalar forms

// self[i] = F(self[i], scalar) (the .Scalar forms) and F(self[i], scalars[i]) (the .ScalarList forms), on backend B.
template <typename B, typename T, template <typename> class F, typename Slow>
void with_scalar(const char* name, const TensorList& self, const Scalar& scalar, const Slow& slow) {
  const bool fits = scalar_fits(scalar, scalar_type_of<T>);
  const std::vector<double> n(self.size(), number<T>(scalar, true));
  B::template apply<T>(name, self, n, WithNumber<T, F>{}, [&](size_t) { return fits; }, slow);
}
template <typename B, typename T, template <typename> class F, typename Slow>
void with_scalars(const char* name, const TensorList& self, const std::vector<Scalar>& scalars, const Slow& slow) {
  check_scalars(name, self, scalars);
  B::template apply<T>(
      name, self, numbers<T>(scalars, true), WithNumber<T, F>{},
      [&](size_t i) { return scalar_fits(scalars[i], scalar_type_of<T>); }, slow);
}

}  // namespace yaten::native::foreach
