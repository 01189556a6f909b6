// yaten._C: module setup. pybind11 serves what is off the per-op hot path (introspection, configuration,
// yaten.tensor); ops themselves are generated fastcall functions (DESIGN.md section 6).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/type_promotion.h"
#include "cuda/cuda_runtime.h"
#include "dispatch/dispatcher.h"
#include "python/tensor_type.h"

namespace py = pybind11;

namespace {

py::object dtype_handle(yaten::ScalarType t) {
  return py::reinterpret_borrow<py::object>(yaten::python::dtype_object(t));
}

yaten::ScalarType dtype_arg(const py::handle& o, const char* op) {
  auto t = yaten::python::dtype_from_object(o.ptr());
  YATEN_CHECK(t.has_value(), TypeError, op, ": expected a yaten.dtype, got ", Py_TYPE(o.ptr())->tp_name);
  return *t;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "yaten's compiled core: tensors, the dispatcher and the generated ops.";
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const yaten::Error&) {
      yaten::python::set_python_error();
    }
  });

  try {
    yaten::python::init_types(m.ptr());
  } catch (...) {
    yaten::python::set_python_error();
    throw py::error_already_set();
  }
  for (int i = 0; i < yaten::kNumScalarTypes; ++i) {
    auto t = static_cast<yaten::ScalarType>(i);
    m.attr(yaten::dtype_name(t)) = dtype_handle(t);
  }

  m.def(
      "tensor",
      [](py::handle data, py::object dtype, py::object device) {
        std::optional<yaten::ScalarType> d;
        if (!dtype.is_none()) d = dtype_arg(dtype, "tensor");
        std::optional<yaten::Device> dev;
        if (!device.is_none()) dev = yaten::python::device_from_object(device.ptr());
        yaten::Tensor t;
        try {
          t = yaten::python::tensor_from_data(data.ptr(), d, dev);
        } catch (const yaten::python::PythonErrorSet&) {
          throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(yaten::python::wrap(std::move(t)));
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      "tensor(data, *, dtype=None, device=None): a new tensor holding a copy of `data` (nested lists or tuples of "
      "numbers, or a tensor). The dtype is inferred like torch.tensor: bool, int64, or the default float dtype.");

  m.def("get_default_dtype", []() { return dtype_handle(yaten::default_dtype()); },
        "The dtype of new floating-point tensors (float32 unless changed).");
  m.def("set_default_dtype", [](py::handle d) { yaten::set_default_dtype(dtype_arg(d, "set_default_dtype")); },
        py::arg("d"), "Sets the dtype of new floating-point tensors.");
  m.def("promote_types",
        [](py::handle a, py::handle b) {
          return dtype_handle(yaten::promote_types(dtype_arg(a, "promote_types"), dtype_arg(b, "promote_types")));
        },
        py::arg("type1"), py::arg("type2"), "The smallest dtype both dtypes convert to without losing their kind.");
  m.def("_set_device_class", [](py::handle cls) { yaten::python::set_device_class(cls.ptr()); });

  m.def("_dispatch_dump",
        [](const std::string& name) {
          yaten::OperatorEntry* op = yaten::Dispatcher::singleton().find(name);
          YATEN_CHECK(op != nullptr, ValueError, "_dispatch_dump: no operator named '", name, "'");
          return op->dump();
        },
        py::arg("name"), "The kernel table of an operator: each key's kernel and where it was registered.");
  m.def("_dispatch_keys",
        [](py::handle t) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()), TypeError, "_dispatch_keys: expected a Tensor");
          return yaten::dispatch_key_set(yaten::python::unwrap(t.ptr())).str();
        },
        py::arg("tensor"), "The dispatch key set a call with this tensor computes.");
  m.def("_operator_names", []() { return yaten::Dispatcher::singleton().operator_names(); },
        "Every operator with a dispatcher entry, as 'name.overload'.");

  m.def("_cuda_device_count", []() { return yaten::cuda::device_count(); });
  py::dict config;
#ifdef YATEN_WITH_CUDA
  config["cuda"] = true;
  config["cuda_architectures"] = YATEN_CUDA_ARCHITECTURES;
#else
  config["cuda"] = false;
#endif
  config["blas"] = "none";
  config["compiler"] = YATEN_COMPILER;
  config["build_type"] = YATEN_BUILD_TYPE;
  m.attr("_build_config") = config;
}
