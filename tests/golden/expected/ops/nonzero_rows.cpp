// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The nonzero_rows family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/nonzero_rows.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  nonzero_rows(Tensor self) -> Tensor
Tensor nonzero_rows(const Tensor& self) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::nonzero_rows");
  const DispatchKeySet ks = dispatch_key_set(self);
  detail::CallGuard call_(op, ks, self);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, self);
}

namespace redispatch {
Tensor nonzero_rows(DispatchKeySet ks, const Tensor& self) {
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::nonzero_rows");
  return op.lookup_exact<Kernel>(ks)(ks, self);
}
}  // namespace redispatch

namespace {
// ops.yaml  nonzero_rows(Tensor self) -> Tensor  [CPU]
Tensor nonzero_rows_cpu(DispatchKeySet, const Tensor& self) {
  namespace kernels = native::cpu;
  const ScalarType dtype_ = self.dtype();
  switch (dtype_) {
    case ScalarType::Byte:
      return static_cast<kernels::nonzero_rows_kernel_t<uint8_t>*>(&kernels::nonzero_rows_kernel<uint8_t>)(self);
    case ScalarType::Char:
      return static_cast<kernels::nonzero_rows_kernel_t<int8_t>*>(&kernels::nonzero_rows_kernel<int8_t>)(self);
    case ScalarType::Short:
      return static_cast<kernels::nonzero_rows_kernel_t<int16_t>*>(&kernels::nonzero_rows_kernel<int16_t>)(self);
    case ScalarType::Int:
      return static_cast<kernels::nonzero_rows_kernel_t<int32_t>*>(&kernels::nonzero_rows_kernel<int32_t>)(self);
    case ScalarType::Long:
      return static_cast<kernels::nonzero_rows_kernel_t<int64_t>*>(&kernels::nonzero_rows_kernel<int64_t>)(self);
    case ScalarType::Half:
      return static_cast<kernels::nonzero_rows_kernel_t<Half>*>(&kernels::nonzero_rows_kernel<Half>)(self);
    case ScalarType::Float:
      return static_cast<kernels::nonzero_rows_kernel_t<float>*>(&kernels::nonzero_rows_kernel<float>)(self);
    case ScalarType::Double:
      return static_cast<kernels::nonzero_rows_kernel_t<double>*>(&kernels::nonzero_rows_kernel<double>)(self);
    case ScalarType::Bool:
      return static_cast<kernels::nonzero_rows_kernel_t<bool>*>(&kernels::nonzero_rows_kernel<bool>)(self);
    case ScalarType::BFloat16:
      return static_cast<kernels::nonzero_rows_kernel_t<BFloat16>*>(&kernels::nonzero_rows_kernel<BFloat16>)(self);
    default:
      detail::dtype_not_supported("nonzero_rows", "CPU", dtype_,
          "uint8, int8, int16, int32, int64, float16, float32, float64, bool, bfloat16");
  }
}

// ops.yaml  nonzero_rows(Tensor self) -> Tensor  [Autograd: nondifferentiable]
Tensor nonzero_rows_autograd(DispatchKeySet ks, const Tensor& self) {
  // no output of nonzero_rows is differentiable (ops.yaml: output_differentiability): nothing to record
  ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
  return redispatch::nonzero_rows(ks.below(DispatchKey::Autograd), self);
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor nonzero_rows_python(DispatchKeySet ks, const Tensor& self) {
  if (python::PythonKernelCall call("yaten::nonzero_rows", ks); call.found()) {
    call.arg(self);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const Tensor&);
  return Dispatcher::singleton().operator_entry("yaten::nonzero_rows").lookup<Kernel>(ks)(ks, self);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("nonzero_rows(Tensor self) -> Tensor", "ops.yaml");
  m.python_trampoline("nonzero_rows", nonzero_rows_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("nonzero_rows", &nonzero_rows_cpu,
      "ops.yaml (nonzero_rows_cpu -> native::cpu::nonzero_rows_kernel<scalar_t>)");
}

YATEN_LIBRARY_IMPL(yaten, Autograd, m) {
  m.impl("nonzero_rows", &nonzero_rows_autograd, "ops.yaml (Autograd: nonzero_rows_autograd)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {

// ops.yaml  nonzero_rows(Tensor self) -> Tensor
constexpr ArgSpec function_nonzero_rows_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature function_nonzero_rows{"nonzero_rows(Tensor input)", function_nonzero_rows_args, 1};

// yaten.nonzero_rows
PyObject* py_nonzero_rows(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_nonzero_rows, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::nonzero_rows(p.tensor(0)));
    }
  }
  static const Signature* const overloads[] = {&function_nonzero_rows};
  raise_no_match("nonzero_rows", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_nonzero_rows{"nonzero_rows", py_nonzero_rows, /*method=*/false,
    /*doc: ops/op_docs.cpp*/ nullptr};

}  // namespace
}  // namespace python
}  // namespace yaten
