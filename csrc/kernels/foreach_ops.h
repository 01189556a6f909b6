// The in-place _foreach ops, written once for both backends: each op says which element functor runs at each
// index (kernels/pointwise_math.h's, the per-tensor op's own), which number it takes there, when an index must take
// the per-tensor op instead, and that op. A backend (cpu/foreach.h CpuForeach, cuda/foreach.cuh CudaForeach)
// supplies
//
//   template <typename scalar_t, typename Maker, typename Accept, typename Slow, typename... Lists>
//   static void apply(const char* name, const TensorList& self, const std::vector<double>& numbers,
//                     const Maker& make, const Accept& accept, const Slow& slow, const Lists&... inputs);
//
// which runs self[i] = make(numbers[i])(self[i], inputs[i]...) elementwise over the indices that take the fast path
// (Note [Multi-tensor fast path]) and `accept(i)`, and slow(i) at the others. `numbers` is empty when the op takes
// none; a Maker is a YATEN_HOST_DEVICE functor, so the CUDA kernel builds each tensor's functor on the device.
#pragma once

#include <type_traits>
#include <vector>

#include "core/scalar_type.h"
#include "kernels/binary/add.h"
#include "kernels/binary/addcdiv.h"
#include "kernels/binary/addcmul.h"
#include "kernels/binary/div.h"
#include "kernels/binary/extremum.h"
#include "kernels/binary/lerp.h"
#include "kernels/binary/mul.h"
#include "kernels/binary/sub.h"
#include "kernels/foreach_support.h"
#include "kernels/unary/exp.h"
#include "kernels/unary/neg.h"
#include "kernels/unary/sqrt.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/addcdiv.h"
#include "yaten/ops/addcmul.h"
#include "yaten/ops/div.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/lerp.h"
#include "yaten/ops/maximum.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/sqrt.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/zero.h"

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

// x -> AddOp{alpha}(x, number): add's .Tensor form.
template <typename T>
struct AddAlphaNumber {
  om<T> alpha;
  struct Op {
    AddOp<T> add;
    T c;
    YATEN_HOST_DEVICE T operator()(T x) const { return add(x, c); }
  };
  YATEN_HOST_DEVICE Op operator()(double s) const {
    return Op{AddOp<T>{alpha}, static_cast<T>(static_cast<om<T>>(s))};
  }
};

template <typename T>
struct AddNumber {  // add's and sub's Scalar forms: alpha 1
  YATEN_HOST_DEVICE T operator()(T x, T c) const { return AddOp<T>{om<T>(1)}(x, c); }
};
template <typename T>
struct SubNumber {
  YATEN_HOST_DEVICE T operator()(T x, T c) const { return SubOp<T>{om<T>(1)}(x, c); }
};
template <typename T>
struct ZeroOp {
  YATEN_HOST_DEVICE T operator()(T) const { return static_cast<T>(om<T>(0)); }
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

// ------------------------------------------------------------------------------------------------ the ops

template <typename B, typename T, template <typename> class F, typename Slow>
void with_scalar(const char* name, const TensorList& self, const Scalar& scalar, const Slow& slow) {
  const bool fits = scalar_fits(scalar, scalar_type_of<T>);
  const std::vector<double> n(self.size(), number<T>(scalar, true));
  B::template apply<T>(name, self, n, WithNumber<T, F>{}, [&](size_t) { return fits; }, slow);
}
template <typename B, typename T, template <typename> class F, typename Slow>
void with_scalars(const char* name, const TensorList& self, const std::vector<Scalar>& scalars, const Slow& slow) {
  check_scalars(name, self, scalars);
  B::template apply<T>(name, self, numbers<T>(scalars, true), WithNumber<T, F>{},
                       [&](size_t i) { return scalar_fits(scalars[i], scalar_type_of<T>); }, slow);
}

template <typename B, typename T>
struct Ops {
  static void add_scalar(const TensorList& self, const Scalar& s) {
    with_scalar<B, T, AddNumber>("_foreach_add_.Scalar", self, s, [&](size_t i) { yaten::add_(self[i], s); });
  }
  static void sub_scalar(const TensorList& self, const Scalar& s) {
    with_scalar<B, T, SubNumber>("_foreach_sub_.Scalar", self, s, [&](size_t i) { yaten::sub_(self[i], s); });
  }
  static void mul_scalar(const TensorList& self, const Scalar& s) {
    with_scalar<B, T, MulOp>("_foreach_mul_.Scalar", self, s, [&](size_t i) { yaten::mul_(self[i], s); });
  }
  static void div_scalar(const TensorList& self, const Scalar& s) {
    with_scalar<B, T, DivOp>("_foreach_div_.Scalar", self, s, [&](size_t i) { yaten::div_(self[i], s); });
  }
  static void add_scalars(const TensorList& self, const std::vector<Scalar>& s) {
    with_scalars<B, T, AddNumber>("_foreach_add_.ScalarList", self, s, [&](size_t i) { yaten::add_(self[i], s[i]); });
  }
  static void sub_scalars(const TensorList& self, const std::vector<Scalar>& s) {
    with_scalars<B, T, SubNumber>("_foreach_sub_.ScalarList", self, s, [&](size_t i) { yaten::sub_(self[i], s[i]); });
  }
  static void mul_scalars(const TensorList& self, const std::vector<Scalar>& s) {
    with_scalars<B, T, MulOp>("_foreach_mul_.ScalarList", self, s, [&](size_t i) { yaten::mul_(self[i], s[i]); });
  }
  static void div_scalars(const TensorList& self, const std::vector<Scalar>& s) {
    with_scalars<B, T, DivOp>("_foreach_div_.ScalarList", self, s, [&](size_t i) { yaten::div_(self[i], s[i]); });
  }
  // The .Tensor forms: the 0-dim tensor's value read once (a device sync for a CUDA tensor) and applied as the
  // .Scalar form's number; the per-tensor op where it would promote.
  static void mul_tensor(const TensorList& self, const Tensor& other) {
    check_scalar_tensor("_foreach_mul_.Tensor", other);
    const Scalar s = item(other);
    with_scalar<B, T, MulOp>("_foreach_mul_.Tensor", self, s, [&](size_t i) { yaten::mul_(self[i], other); });
  }
  static void div_tensor(const TensorList& self, const Tensor& other) {
    check_scalar_tensor("_foreach_div_.Tensor", other);
    const Scalar s = item(other);
    with_scalar<B, T, DivOp>("_foreach_div_.Tensor", self, s, [&](size_t i) { yaten::div_(self[i], other); });
  }
  static void add_tensor(const TensorList& self, const Tensor& other, const Scalar& alpha) {
    check_scalar_tensor("_foreach_add_.Tensor", other);
    const Scalar s = item(other);
    const bool fits = scalar_fits(s, scalar_type_of<T>) && scalar_fits(alpha, scalar_type_of<T>);
    const std::vector<double> n(self.size(), number<T>(s, true));
    B::template apply<T>(
        "_foreach_add_.Tensor", self, n, AddAlphaNumber<T>{static_cast<om<T>>(number<T>(alpha, false))},
        [&](size_t) { return fits; }, [&](size_t i) { yaten::add_(self[i], other, alpha); });
  }

  static void add_list(const TensorList& self, const TensorList& other, const Scalar& alpha) {
    const bool fits = scalar_fits(alpha, scalar_type_of<T>);
    B::template apply<T>("_foreach_add_.List", self, {}, Same<AddOp<T>>{{static_cast<om<T>>(number<T>(alpha, false))}},
                         [&](size_t) { return fits; }, [&](size_t i) { yaten::add_(self[i], other[i], alpha); },
                         other);
  }
  static void sub_list(const TensorList& self, const TensorList& other, const Scalar& alpha) {
    const bool fits = scalar_fits(alpha, scalar_type_of<T>);
    B::template apply<T>("_foreach_sub_.List", self, {}, Same<SubOp<T>>{{static_cast<om<T>>(number<T>(alpha, false))}},
                         [&](size_t) { return fits; }, [&](size_t i) { yaten::sub_(self[i], other[i], alpha); },
                         other);
  }
  static void mul_list(const TensorList& self, const TensorList& other) {
    B::template apply<T>("_foreach_mul_.List", self, {}, Same<MulOp<T>>{}, all,
                         [&](size_t i) { yaten::mul_(self[i], other[i]); }, other);
  }
  static void div_list(const TensorList& self, const TensorList& other) {
    B::template apply<T>("_foreach_div_.List", self, {}, Same<DivOp<T>>{}, all,
                         [&](size_t i) { yaten::div_(self[i], other[i]); }, other);
  }
  static void maximum_list(const TensorList& self, const TensorList& other) {
    B::template apply<T>("_foreach_maximum_.List", self, {}, Same<MaximumOp<T>>{}, all,
                         [&](size_t i) { yaten::maximum_out(self[i], other[i], self[i]); }, other);
  }

  static void addcmul_scalar(const TensorList& self, const TensorList& t1, const TensorList& t2, const Scalar& v) {
    const bool fits = scalar_fits(v, scalar_type_of<T>);
    B::template apply<T>("_foreach_addcmul_.Scalar", self, std::vector<double>(self.size(), number<T>(v, false)),
                         WithMember<T, AddcmulOp>{}, [&](size_t) { return fits; },
                         [&](size_t i) { yaten::addcmul_(self[i], t1[i], t2[i], v); }, t1, t2);
  }
  static void addcmul_scalars(const TensorList& self, const TensorList& t1, const TensorList& t2,
                              const std::vector<Scalar>& s) {
    check_scalars("_foreach_addcmul_.ScalarList", self, s);
    B::template apply<T>("_foreach_addcmul_.ScalarList", self, numbers<T>(s, false), WithMember<T, AddcmulOp>{},
                         [&](size_t i) { return scalar_fits(s[i], scalar_type_of<T>); },
                         [&](size_t i) { yaten::addcmul_(self[i], t1[i], t2[i], s[i]); }, t1, t2);
  }
  static void addcdiv_scalar(const TensorList& self, const TensorList& t1, const TensorList& t2, const Scalar& v) {
    const bool fits = scalar_fits(v, scalar_type_of<T>);
    B::template apply<T>("_foreach_addcdiv_.Scalar", self, std::vector<double>(self.size(), number<T>(v, false)),
                         WithMember<T, AddcdivOp>{}, [&](size_t) { return fits; },
                         [&](size_t i) { yaten::addcdiv_(self[i], t1[i], t2[i], v); }, t1, t2);
  }
  static void addcdiv_scalars(const TensorList& self, const TensorList& t1, const TensorList& t2,
                              const std::vector<Scalar>& s) {
    check_scalars("_foreach_addcdiv_.ScalarList", self, s);
    B::template apply<T>("_foreach_addcdiv_.ScalarList", self, numbers<T>(s, false), WithMember<T, AddcdivOp>{},
                         [&](size_t i) { return scalar_fits(s[i], scalar_type_of<T>); },
                         [&](size_t i) { yaten::addcdiv_(self[i], t1[i], t2[i], s[i]); }, t1, t2);
  }
  static void lerp_list(const TensorList& self, const TensorList& ends, const TensorList& weights) {
    B::template apply<T>("_foreach_lerp_.List", self, {}, Same<LerpTensorOp<T>>{}, all,
                         [&](size_t i) { yaten::lerp_(self[i], ends[i], weights[i]); }, ends, weights);
  }
  static void lerp_scalar(const TensorList& self, const TensorList& ends, const Scalar& w) {
    const bool fits = scalar_fits(w, scalar_type_of<T>);
    B::template apply<T>("_foreach_lerp_.Scalar", self, std::vector<double>(self.size(), number<T>(w, false)),
                         WithMember<T, LerpScalarOp>{}, [&](size_t) { return fits; },
                         [&](size_t i) { yaten::lerp_(self[i], ends[i], w); }, ends);
  }

  static void sqrt(const TensorList& self) {
    B::template apply<T>("_foreach_sqrt_", self, {}, Same<SqrtOp<T>>{}, all, [&](size_t i) { yaten::sqrt_(self[i]); });
  }
  static void neg(const TensorList& self) {
    B::template apply<T>("_foreach_neg_", self, {}, Same<NegOp<T>>{}, all, [&](size_t i) { yaten::neg_(self[i]); });
  }
  static void abs(const TensorList& self) {
    B::template apply<T>("_foreach_abs_", self, {}, Same<AbsOp<T>>{}, all, [&](size_t i) { yaten::abs_(self[i]); });
  }
  static void exp(const TensorList& self) {
    B::template apply<T>("_foreach_exp_", self, {}, Same<ExpOp<T>>{}, all, [&](size_t i) { yaten::exp_(self[i]); });
  }
  static void zero(const TensorList& self) {
    B::template apply<T>("_foreach_zero_", self, {}, Same<ZeroOp<T>>{}, all, [&](size_t i) { yaten::zero_(self[i]); });
  }
};

}  // namespace yaten::native::foreach
