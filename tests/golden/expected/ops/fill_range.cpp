// @generated from ops.yaml by codegen (templates/op_source.cpp.j2): edit those, not this
// The fill_range family: C++ API -> dispatcher -> backend wrapper (dtype switch) -> kernel, its registrations, and
// its Python bindings. See docs/trip-of-a-call.md for the whole trip.
#include "yaten/ops/fill_range.h"

#include "autograd/autograd.h"
#include "dispatch/library.h"
#include "iter/tensor_iterator.h"
#include "kernels/wrapper_support.h"
#include "python/arg_parser.h"
#include "python/python_kernel.h"

namespace yaten {

// ------------------------------------------------------------------------------------------------
// ops.yaml  fill_range(int[] size, Scalar start=0, *, ScalarType? dtype=None, Device? device=None) -> Tensor
Tensor fill_range(const std::vector<int64_t>& size, const Scalar& start, std::optional<ScalarType> dtype,
    std::optional<Device> device) {
  using Kernel = Tensor (*)(DispatchKeySet, const std::vector<int64_t>&, const Scalar&, std::optional<ScalarType>,
      std::optional<Device>);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::fill_range");
  const DispatchKeySet ks = DispatchKeySet(backend_key(device.value_or(Device(DeviceType::CPU))));
  detail::CallGuard call_(op, ks, size, start, dtype, device);  // trace and profiler hook
  return op.lookup<Kernel>(ks)(ks, size, start, dtype, device);
}

namespace redispatch {
Tensor fill_range(DispatchKeySet ks, const std::vector<int64_t>& size, const Scalar& start,
    std::optional<ScalarType> dtype, std::optional<Device> device) {
  using Kernel = Tensor (*)(DispatchKeySet, const std::vector<int64_t>&, const Scalar&, std::optional<ScalarType>,
      std::optional<Device>);
  static OperatorEntry& op = Dispatcher::singleton().operator_entry("yaten::fill_range");
  return op.lookup_exact<Kernel>(ks)(ks, size, start, dtype, device);
}
}  // namespace redispatch

namespace {
// ops.yaml  fill_range(int[] size, Scalar start=0, *, ScalarType? dtype=None, Device? device=None) -> Tensor  [CPU]
Tensor fill_range_cpu(DispatchKeySet, const std::vector<int64_t>& size, const Scalar& start,
    std::optional<ScalarType> dtype, std::optional<Device> device) {
  namespace kernels = native::cpu;
  const ScalarType dtype_ = factory_dtype(dtype, {start});
  switch (dtype_) {
    case ScalarType::Int:
      return static_cast<kernels::fill_range_kernel_t<int32_t>*>(&kernels::fill_range_kernel<int32_t>)(size, start,
          dtype, device);
    case ScalarType::Long:
      return static_cast<kernels::fill_range_kernel_t<int64_t>*>(&kernels::fill_range_kernel<int64_t>)(size, start,
          dtype, device);
    case ScalarType::Float:
      return static_cast<kernels::fill_range_kernel_t<float>*>(&kernels::fill_range_kernel<float>)(size, start, dtype,
          device);
    default:
      detail::dtype_not_supported("fill_range", "CPU", dtype_, "int32, int64, float32");
  }
}

// Runs a kernel registered from Python (yaten.library.impl) with this op's typed arguments.
Tensor fill_range_python(DispatchKeySet ks, const std::vector<int64_t>& size, const Scalar& start,
    std::optional<ScalarType> dtype, std::optional<Device> device) {
  if (python::PythonKernelCall call("yaten::fill_range", ks); call.found()) {
    call.arg(size);
    call.arg(start);
    call.arg(dtype);
    call.arg(device);
    return call.result<Tensor>();
  }
  // Removed by another thread since this call was dispatched here: the kernel registered now runs.
  using Kernel = Tensor (*)(DispatchKeySet, const std::vector<int64_t>&, const Scalar&, std::optional<ScalarType>,
      std::optional<Device>);
  return Dispatcher::singleton().operator_entry("yaten::fill_range").lookup<Kernel>(ks)(ks, size, start, dtype, device);
}
}  // namespace

// ------------------------------------------------------------------------------------------------ registration
YATEN_LIBRARY(yaten, m) {
  m.def("fill_range(int[] size, Scalar start=0, *, ScalarType? dtype=None, Device? device=None) -> Tensor", "ops.yaml");
  m.python_trampoline("fill_range", fill_range_python);
}

YATEN_LIBRARY_IMPL(yaten, CPU, m) {
  m.impl("fill_range", &fill_range_cpu, "ops.yaml (fill_range_cpu -> native::cpu::fill_range_kernel<scalar_t>)");
}

// ------------------------------------------------------------------------------------------------ Python
namespace python {
namespace {

// ops.yaml  fill_range(int[] size, Scalar start=0, *, ScalarType? dtype=None, Device? device=None) -> Tensor
constexpr ArgSpec function_fill_range_args[] = {
    {"size", ArgType::IntList, /*keyword_only=*/false, /*optional=*/false, /*size=*/0},
    {"start", ArgType::Scalar, /*keyword_only=*/false, /*optional=*/true, /*size=*/0},
    {"dtype", ArgType::DType, /*keyword_only=*/true, /*optional=*/true, /*size=*/0},
    {"device", ArgType::Device, /*keyword_only=*/true, /*optional=*/true, /*size=*/0},
};
constexpr Signature function_fill_range{"fill_range(int[] size, Number start=0, *, dtype? dtype=None, device? device=None)", function_fill_range_args, 4};

// yaten.fill_range
PyObject* py_fill_range(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  ParsedArgs p;
  // Note [Numbers given as tensors]: a 0-dim tensor stands for a number only when no overload takes it as it is.
  for (const bool numbers_from_tensors : {false, true}) {
    if (p.parse(function_fill_range, args, nargs, kwnames, nullptr, numbers_from_tensors)) {
      return to_python(yaten::fill_range(p.int_list(0), p.scalar(1, Scalar(int64_t(0))), p.dtype(2),
          p.factory_device(3)));
    }
  }
  static const Signature* const overloads[] = {&function_fill_range};
  raise_no_match("fill_range", overloads, 1, args, nargs, kwnames);
  YATEN_PY_END
}
const BindingRegistration register_py_fill_range{"fill_range", py_fill_range, /*method=*/false,
    /*doc: ops/op_docs.cpp*/ nullptr};

}  // namespace
}  // namespace python
}  // namespace yaten
