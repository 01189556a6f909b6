// row_energy, CompositeImplicit: written with yaten's C++ API, so it runs on every backend and autograd
// differentiates it through the ops it calls.
#pragma once

#include "yaten/ops/mul.h"
#include "yaten/ops/sum.h"

namespace myext::native {

inline ::yaten::Tensor row_energy_impl(const ::yaten::Tensor& self) {
  YATEN_CHECK(self.dim() == 2, ValueError, "row_energy: expected a matrix, got ", self.dim(), " dimensions");
  return ::yaten::sum(::yaten::mul(self, self), std::vector<int64_t>{1});
}

}  // namespace myext::native
