// CompositeImplicit ops of complex numbers (docs/complex.md): the views between a complex tensor and its real parts
// (view_as_real, view_as_complex, real, imag), conj, angle, and the ops that make complex numbers (complex, polar).
// Autograd comes from view_as_real/view_as_complex/complex/conj_physical's formulas and the ops called.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "iter/tensor_iterator.h"
#include "core/type_promotion.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/atan2.h"
#include "yaten/ops/complex.h"
#include "yaten/ops/conj_physical.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/cos.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/full.h"
#include "yaten/ops/imag.h"
#include "yaten/ops/isnan.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/real.h"
#include "yaten/ops/select.h"
#include "yaten/ops/sin.h"
#include "yaten/ops/view_as_complex.h"
#include "yaten/ops/view_as_real.h"
#include "yaten/ops/where.h"

namespace yaten::native {

// (..., n) complex as (..., n, 2) real: every stride doubles, the new last dim has stride 1.
inline Tensor view_as_real_impl(const Tensor& self) {
  YATEN_CHECK(is_complex(self.dtype()), RuntimeError, "view_as_real is only supported for complex tensors, got ",
              dtype_name(self.dtype()));
  std::vector<int64_t> sizes = self.sizes(), strides = self.strides();
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return Tensor(std::make_shared<TensorImpl>(self.impl()->storage(), to_real_dtype(self.dtype()), std::move(sizes),
                                             std::move(strides), self.storage_offset() * 2));
}

// (..., 2) real (stride 1, even strides and offset) as (...) complex; torch's checks and messages.
inline Tensor view_as_complex_impl(const Tensor& self) {
  YATEN_CHECK(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double, RuntimeError,
              "view_as_complex is only supported for float32 and float64 tensors, but got a tensor of dtype ",
              dtype_name(self.dtype()));
  YATEN_CHECK(self.dim() != 0, RuntimeError, "view_as_complex: input tensor must have one or more dimensions");
  YATEN_CHECK(self.sizes().back() == 2, RuntimeError, "view_as_complex: tensor must have a last dimension of size 2");
  YATEN_CHECK(self.strides().back() == 1, RuntimeError,
              "view_as_complex: tensor must have a last dimension with stride 1");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 1);
  std::vector<int64_t> strides(self.strides().begin(), self.strides().end() - 1);
  for (int64_t& s : strides) {
    YATEN_CHECK(s % 2 == 0, RuntimeError, "view_as_complex: tensor must have a stride divisible by 2 for all but "
                "last dimension");
    s /= 2;
  }
  YATEN_CHECK(self.storage_offset() % 2 == 0, RuntimeError,
              "view_as_complex: tensor must have a storage_offset divisible by 2");
  return Tensor(std::make_shared<TensorImpl>(self.impl()->storage(), to_complex_dtype(self.dtype()),
                                             std::move(sizes), std::move(strides), self.storage_offset() / 2));
}

inline Tensor real_impl(const Tensor& self) {
  return is_complex(self.dtype()) ? yaten::select(yaten::view_as_real(self), -1, 0) : self;
}

inline Tensor imag_impl(const Tensor& self) {
  YATEN_CHECK(is_complex(self.dtype()), RuntimeError, "imag is not implemented for tensors with non-complex dtypes "
              "(got ", dtype_name(self.dtype()), ")");
  return yaten::select(yaten::view_as_real(self), -1, 1);
}

// No lazy conjugate bit (docs/torch-differences.md): conj of a complex tensor computes it, of a real one is itself.
inline Tensor conj_impl(const Tensor& self) {
  return is_complex(self.dtype()) ? yaten::conj_physical(self) : self;
}
inline Tensor resolve_conj_impl(const Tensor& self) { return self; }
inline bool is_conj_impl(const Tensor&) { return false; }

// atan2(imag, real) for complex; for real numbers pi below 0, else 0, NaN kept (integers in the default float dtype).
inline Tensor angle_impl(const Tensor& self) {
  if (is_complex(self.dtype())) return yaten::atan2(yaten::imag(self), yaten::real(self));
  const Tensor x = is_integral(self.dtype(), /*include_bool=*/true)
                       ? yaten::_to_copy(self, default_dtype(), std::nullopt)
                       : self;
  const auto constant = [&](double v) { return yaten::full({}, Scalar(v), x.dtype(), x.device()); };
  return yaten::where(yaten::isnan(x), x, yaten::where(yaten::lt(x, Scalar(int64_t(0))), constant(M_PI), constant(0)));
}

namespace complex_detail {
// complex() and polar() take two float32 or two float64 tensors (torch also takes float16, for complex32).
inline void check_parts(const char* op, const Tensor& a, const Tensor& b) {
  YATEN_CHECK((a.dtype() == ScalarType::Float || a.dtype() == ScalarType::Double) && a.dtype() == b.dtype(),
              RuntimeError, op, ": expected both inputs to be float32 or float64 tensors of one dtype, but got ",
              dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  YATEN_CHECK(a.device() == b.device(), RuntimeError, op, ": expected both inputs on one device, got ",
              a.device().str(), " and ", b.device().str());
}
}  // namespace complex_detail

// real + imag * 1j: each part copied (broadcast) into its half of a new complex tensor.
inline Tensor complex_impl(const Tensor& real, const Tensor& imag) {
  complex_detail::check_parts("complex", real, imag);
  const std::vector<int64_t> shape = broadcast_shapes("complex", real.sizes(), imag.sizes());
  Tensor out = yaten::empty(shape, to_complex_dtype(real.dtype()), real.device());
  const Tensor parts = yaten::view_as_real(out);
  yaten::copy_(yaten::select(parts, -1, 0), real);
  yaten::copy_(yaten::select(parts, -1, 1), imag);
  return out;
}

// abs * (cos(angle) + i sin(angle)); the gradient follows from complex()'s and the real ops'.
inline Tensor polar_impl(const Tensor& abs, const Tensor& angle) {
  complex_detail::check_parts("polar", abs, angle);
  return yaten::complex(yaten::mul(abs, yaten::cos(angle)), yaten::mul(abs, yaten::sin(angle)));
}

}  // namespace yaten::native
