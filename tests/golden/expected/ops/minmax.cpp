// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The minmax family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/minmax.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  minmax(Tensor self) -> (Tensor min, Tensor max)
std::tuple<Tensor, Tensor> minmax(const Tensor& self) {
  using Kernel = std::tuple<Tensor, Tensor> (*)(DispatchKeySet, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::minmax");
  const DispatchKeySet ks = dispatch_key_set(self);
  detail::CallGuard call_(op, ks, self);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, self);
}

namespace redispatch {
std::tuple<Tensor, Tensor> minmax(DispatchKeySet ks, const Tensor& self) {
  using Kernel = std::tuple<Tensor, Tensor> (*)(DispatchKeySet, const Tensor&);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::minmax");
  return op.lookup_exact<Kernel>(ks)(ks, self);
}
}  // namespace redispatch

namespace {
// ops.yaml  minmax(Tensor self) -> (Tensor min, Tensor max)  [CPU]
std::tuple<Tensor, Tensor> minmax_cpu(DispatchKeySet, const Tensor& self) {
  namespace kernels = native::cpu;
  const ScalarType dtype_ = self.dtype();
  switch (dtype_) {
    case ScalarType::Byte:
      return static_cast<kernels::minmax_kernel_t<uint8_t>*>(&kernels::minmax_kernel<uint8_t>)(self);
    case ScalarType::Char:
      return static_cast<kernels::minmax_kernel_t<int8_t>*>(&kernels::minmax_kernel<int8_t>)(self);
    case ScalarType::Short:
      return static_cast<kernels::minmax_kernel_t<int16_t>*>(&kernels::minmax_kernel<int16_t>)(self);
    case ScalarType::Int:
      return static_cast<kernels::minmax_kernel_t<int32_t>*>(&kernels::minmax_kernel<int32_t>)(self);
    case ScalarType::Long:
      return static_cast<kernels::minmax_kernel_t<int64_t>*>(&kernels::minmax_kernel<int64_t>)(self);
    case ScalarType::Half:
      return static_cast<kernels::minmax_kernel_t<Half>*>(&kernels::minmax_kernel<Half>)(self);
    case ScalarType::Float:
      return static_cast<kernels::minmax_kernel_t<float>*>(&kernels::minmax_kernel<float>)(self);
    case ScalarType::Double:
      return static_cast<kernels::minmax_kernel_t<double>*>(&kernels::minmax_kernel<double>)(self);
    case ScalarType::Bool:
      return static_cast<kernels::minmax_kernel_t<bool>*>(&kernels::minmax_kernel<bool>)(self);
    case ScalarType::BFloat16:
      return static_cast<kernels::minmax_kernel_t<BFloat16>*>(&kernels::minmax_kernel<BFloat16>)(self);
    default:
      detail::dtype_not_supported("minmax", "CPU", dtype_,
          "uint8, int8, int16, int32, int64, float16, float32, float64, bool, bfloat16");
  }
}

// ops.yaml  minmax(Tensor self) -> (Tensor min, Tensor max)  [Autograd: fallback]
std::tuple<Tensor, Tensor> minmax_autograd(DispatchKeySet ks, const Tensor& self) {
  const bool need = autograd::compute_requires_grad({&self});
  std::shared_ptr<autograd::NotImplementedBackward> node;
  if (need) {
    node = std::make_shared<autograd::NotImplementedBackward>("minmax");
    node->next_edges.push_back(autograd::gradient_edge(self));
  }
  auto result_ = [&] {
    ExcludeDispatchKeyGuard below_autograd(DispatchKey::Autograd);
    return redispatch::minmax(ks.below(DispatchKey::Autograd), self);
  }();
  if (node) {
    autograd::set_differentiable_history(std::get<0>(result_), node, 0);
    autograd::set_differentiable_history(std::get<1>(result_), node, 1);
  }
  return result_;
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
std::tuple<Tensor, Tensor> minmax_python(DispatchKeySet ks, const Tensor& self) {
  if (python::PythonKernelCall call("yaten::minmax", ks); call.found()) {
    call.arg(self);
    return call.result<std::tuple<Tensor, Tensor>>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = std::tuple<Tensor, Tensor> (*)(DispatchKeySet, const Tensor&);
  return Dispatcher::singleton().operator_entry("yaten::minmax").lookup<Kernel>(ks)(ks, self);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("minmax(Tensor self) -> (Tensor min, Tensor max)", "ops.yaml");
  m.python_trampoline("minmax", minmax_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("minmax", &minmax_cpu, "ops.yaml (minmax_cpu -> native::cpu::minmax_kernel<scalar_t>)");
}

YATEN_LIBRARY_IMPL(yaten, Autograd, m) {
  m.impl("minmax", &minmax_autograd, "ops.yaml (Autograd: minmax_autograd)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {
// ops.yaml  yaten.return_types.minmax
const NamedTupleType return_type_minmax{"minmax", {"min", "max"}};

// ops.yaml  minmax(Tensor self) -> (Tensor min, Tensor max)
constexpr ArgSpec function_minmax_args[] = {
    {"input", ArgType::Tensor, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
};
constexpr Signature function_minmax{"minmax(Tensor input)", function_minmax_args, 1};

// yaten.special.minmax
PyObject* py_minmax(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_minmax, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return return_type_minmax.make(yaten::minmax(p.tensor(0)));
    }
  }
  static const Signature* const overloads[] = {&function_minmax};
  raise_no_match("minmax", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_minmax{"minmax", py_minmax, /*method=*/false, /*doc: ops/op_docs.cpp*/ nullptr,
    "special"};

}  // namespace
}  // namespace python
}  // namespace yaten
