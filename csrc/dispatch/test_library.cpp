// A hand-written operator namespace, registered with the same macros an extension would use, so the tests can
// check C++ registration, calls by name and registration sites without building an extension.
#include "dispatch/library.h"
#include "yaten/ops/add.h"
#include "yaten/ops/mul.h"

namespace yaten::native {
namespace {
Tensor twice_cpu(const Tensor& x) { return yaten::add(x, x, Scalar(int64_t(1))); }
Tensor scale_and_shift_cpu(const Tensor& x, double scale, const Scalar& shift) {
  return yaten::add(yaten::mul(x, Scalar(scale)), shift, Scalar(int64_t(1)));
}
}  // namespace
}  // namespace yaten::native

YATEN_LIBRARY(yaten_test, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("scale_and_shift(Tensor x, float scale, Scalar shift=0) -> Tensor");
  m.def("cuda_only(Tensor x) -> Tensor");
}

YATEN_LIBRARY_IMPL(yaten_test, CPU, m) {
  m.impl("twice", YATEN_FN(yaten::native::twice_cpu));
  m.impl("scale_and_shift", YATEN_FN(yaten::native::scale_and_shift_cpu));
}

YATEN_LIBRARY_IMPL(yaten_test, CUDA, m) {
  m.impl("cuda_only", YATEN_FN(yaten::native::twice_cpu));
}
