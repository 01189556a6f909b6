// yaten._C: module setup. pybind11 serves what is off the per-op hot path (introspection, configuration,
// yaten.tensor); ops themselves are generated fastcall functions (Design rule [Python layer]).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "autograd/autograd.h"
#include "core/deterministic.h"
#include "core/gil.h"
#include "core/blas.h"
#include "core/parallel.h"
#include "core/type_promotion.h"
#include "cuda/cuda_runtime.h"
#include "dispatch/autocast.h"
#include "dispatch/dispatcher.h"
#include "python/python_kernel.h"
#include "python/tensor_type.h"
#include "yaten/ops/add.h"

namespace py = pybind11;

namespace yaten::python {
void init_generator(PyObject* module);  // generator.cpp, in libyaten
void init_autograd(PyObject* module);   // autograd_python.cpp, in libyaten
void init_cuda(py::module_& m);       // cuda_python.cpp
void init_profiler(py::module_& m);   // profiler_python.cpp
}

namespace {

// " (did you mean 'X'?)" for the registered operator name nearest to `name` by edit distance (names compared without
// a `yaten::` prefix, and by their base name when `name` gives no overload), or "" when none is close.
std::string closest_operator(const std::string& name) {
  auto strip = [](const std::string& n) { return n.rfind("yaten::", 0) == 0 ? n.substr(7) : n; };
  const std::string wanted = strip(name);
  const bool base_only = wanted.find('.') == std::string::npos;
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_distance = std::max<size_t>(2, wanted.size() / 3) + 1;
  for (const std::string& full : yaten::Dispatcher::singleton().operator_names()) {
    std::string candidate = strip(full);
    if (base_only) candidate = candidate.substr(0, candidate.find('.'));
    const size_t d = distance(wanted, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

py::object dtype_handle(yaten::ScalarType t) {
  return py::reinterpret_borrow<py::object>(yaten::python::dtype_object(t));
}

yaten::ScalarType dtype_arg(const py::handle& o, const char* op) {
  auto t = yaten::python::dtype_from_object(o.ptr());
  YATEN_CHECK(t.has_value(), TypeError, op, ": expected a yaten.dtype, got ", Py_TYPE(o.ptr())->tp_name);
  return *t;
}

yaten::DispatchKey key_arg(const std::string& name, const char* op) {
  yaten::DispatchKey key = yaten::dispatch_key_from_name(name);
  YATEN_CHECK(key != yaten::DispatchKey::NumKeys, ValueError, op, ": unknown dispatch key '", name,
              "' (expected CPU, CUDA, Autograd, Autocast or Python)");
  return key;
}

yaten::OperatorEntry& defined_op(const std::string& name, const char* op) {
  yaten::OperatorEntry* entry = yaten::Dispatcher::singleton().find(name);
  YATEN_CHECK(entry != nullptr && entry->is_defined(), ValueError, op, ": no operator named '",
              yaten::Dispatcher::qualified(name), "'; define it first with yaten.library.define");
  return *entry;
}

// ---------------------------------------------------------------------------------------------- NumPy
// A tensor over memory that a Python object owns (a NumPy array): the storage holds a reference to the owner and
// drops it, under the GIL, when the last tensor using the memory goes away.
void release_owner(void* owner, size_t) {
  if (!Py_IsInitialized()) return;  // at interpreter exit the owner is gone with everything else
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(owner));
  PyGILState_Release(gil);
}

yaten::ScalarType dtype_from_typestr(const std::string& typestr) {
  static const std::map<std::string, yaten::ScalarType> types = {
      {"|b1", yaten::ScalarType::Bool},  {"|u1", yaten::ScalarType::Byte},  {"|i1", yaten::ScalarType::Char},
      {"<i2", yaten::ScalarType::Short}, {"<i4", yaten::ScalarType::Int},   {"<i8", yaten::ScalarType::Long},
      {"<f2", yaten::ScalarType::Half},  {"<f4", yaten::ScalarType::Float}, {"<f8", yaten::ScalarType::Double},
      {"<c8", yaten::ScalarType::ComplexFloat}, {"<c16", yaten::ScalarType::ComplexDouble},
      {"<u2", yaten::ScalarType::UInt16}, {"<u4", yaten::ScalarType::UInt32}, {"<u8", yaten::ScalarType::UInt64}};
  auto it = types.find(typestr);
  YATEN_CHECK(it != types.end(), TypeError, "from_numpy: can't convert np.ndarray of type '", typestr,
              "'. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
              "uint64, uint32, uint16, uint8, and bool.");
  return it->second;
}

yaten::Tensor tensor_over_array(py::handle owner, py::dict interface) {
  const yaten::ScalarType dtype = dtype_from_typestr(interface["typestr"].cast<std::string>());
  const int64_t itemsize = yaten::element_size(dtype);
  auto shape = interface["shape"].cast<std::vector<int64_t>>();
  std::vector<int64_t> strides;
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    for (int64_t bytes : interface["strides"].cast<std::vector<int64_t>>()) {
      YATEN_CHECK(bytes >= 0, ValueError, "from_numpy: at least one stride in the given numpy array is negative, "
                  "and tensors with negative strides are not currently supported. (You can probably work around "
                  "this by making a copy of your array with array.copy().)");
      YATEN_CHECK(bytes % itemsize == 0, ValueError, "from_numpy: given numpy array strides not a multiple of the "
                  "element byte size. Copy the numpy array to reallocate the memory.");
      strides.push_back(bytes / itemsize);
    }
  } else {
    strides = yaten::contiguous_strides(shape);
  }
  auto data = interface["data"].cast<py::tuple>();
  void* ptr = reinterpret_cast<void*>(data[0].cast<uintptr_t>());
  int64_t extent = 1;
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    empty = empty || shape[i] == 0;
    extent += (shape[i] - 1) * strides[i];
  }
  if (empty) extent = 0;
  // Note [Unaligned foreign memory]: kernels read elements through typed pointers, which C++ (and the vector code
  // compilers make of loops) may assume aligned; an array that starts off its element size's alignment (a view made
  // by np.frombuffer(...)[1:].view(...)) is refused here rather than read misaligned. as_tensor and tensor copy it.
  YATEN_CHECK(empty || reinterpret_cast<uintptr_t>(ptr) % static_cast<uintptr_t>(itemsize) == 0, ValueError,
              "from_numpy: the array's data does not start at a multiple of its ", itemsize, "-byte element size "
              "(an unaligned view); yaten shares only aligned memory: pass array.copy()");
  PyObject* keep = owner.ptr();
  Py_INCREF(keep);
  yaten::Allocation allocation{ptr, keep, &release_owner};
  auto storage = std::make_shared<yaten::StorageImpl>(allocation, static_cast<size_t>(extent * itemsize),
                                                      yaten::Device(yaten::DeviceType::CPU));
  // (pointer, read_only): a read-only array's memory stays unwritten (a memory map's may not even be writable)
  storage->set_read_only(data.size() > 1 && data[1].cast<bool>());
  return yaten::Tensor(std::make_shared<yaten::TensorImpl>(std::move(storage), dtype, shape, strides, 0));
}

// Python kernels registered with yaten.library.impl, kept alive until removed.
std::mutex g_python_kernels_mutex;
std::map<uint64_t, yaten::python::PythonKernelRef*> g_python_kernels;  // the live ones, by token

void* release_gil() {
  return PyGILState_Check() ? static_cast<void*>(PyEval_SaveThread()) : nullptr;
}
void restore_gil(void* token) { PyEval_RestoreThread(static_cast<PyThreadState*>(token)); }
bool python_warn(const char* message) {
  PyGILState_STATE gil = PyGILState_Ensure();
  const bool ok = PyErr_WarnEx(PyExc_UserWarning, message, 1) == 0;
  if (!ok) PyErr_Clear();
  PyGILState_Release(gil);
  return ok;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "yaten's compiled core: tensors, the dispatcher and the generated ops.";
  // yaten's errors as their Python types; a Python error already set stays (Note [Exceptions are handled where
  // they are caught]: the exception is rethrown and handled here, in the module that caught it)
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const yaten::python::PythonErrorSet&) {
    } catch (const yaten::Error& e) {
      yaten::python::set_python_error(e);
    } catch (const std::bad_alloc& e) {  // a RuntimeError, as set_python_error makes it (pybind11's is MemoryError)
      yaten::python::set_python_error(e);
    }
  });

  yaten::detail::g_gil_hooks = {&release_gil, &restore_gil, &python_warn};
  try {
    yaten::python::init_types(m.ptr());
  } catch (const yaten::python::PythonErrorSet&) {
    throw py::error_already_set();
  } catch (const std::exception& e) {
    yaten::python::set_python_error(e);
    throw py::error_already_set();
  } catch (...) {
    yaten::python::set_unknown_python_error();
    throw py::error_already_set();
  }
  for (int i = 0; i < yaten::kNumScalarTypes; ++i) {
    auto t = static_cast<yaten::ScalarType>(i);
    m.attr(yaten::dtype_name(t)) = dtype_handle(t);
  }

  yaten::python::init_generator(m.ptr());
  yaten::python::init_autograd(m.ptr());
  m.def("_from_array_interface",
        [](py::handle owner, py::dict interface) {
          return py::reinterpret_steal<py::object>(yaten::python::wrap(tensor_over_array(owner, interface)));
        },
        py::arg("owner"), py::arg("interface"),
        "A tensor sharing the memory described by `interface` (NumPy's __array_interface__), keeping `owner` alive.");
  m.def("_result_type",
        [](py::args operands) {
          yaten::ResultTypeState state;
          for (py::handle o : operands) {
            if (yaten::python::is_tensor(o.ptr())) {
              state.add(yaten::python::unwrap(o.ptr()));
            } else if (yaten::python::is_scalar_object(o.ptr())) {
              state.add(yaten::python::scalar_from_object(o.ptr()));
            } else {
              YATEN_FAIL(TypeError, "result_type: expected Tensors or numbers, got ", Py_TYPE(o.ptr())->tp_name);
            }
          }
          return dtype_handle(state.result());
        });
  m.def("_to_dlpack",
        [](py::handle t, bool versioned) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()), TypeError, "__dlpack__: expected a Tensor");
          return py::reinterpret_steal<py::object>(
              yaten::python::to_dlpack(yaten::python::unwrap(t.ptr()), versioned));
        },
        py::arg("tensor"), py::arg("versioned"));
  m.def("_from_dlpack",
        [](py::handle capsule) {
          return py::reinterpret_steal<py::object>(
              yaten::python::wrap(yaten::python::from_dlpack_capsule(capsule.ptr())));
        },
        py::arg("capsule"));
  m.def("_share_memory",
        [](py::handle t) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()), TypeError, "share_memory_: expected a Tensor");
          yaten::python::unwrap(t.ptr()).impl()->storage()->share_memory();
        });
  m.def("_set_size_type", [](py::handle cls) { yaten::python::set_size_type(cls.ptr()); });
  m.def("_make_subclass",
        [](py::handle cls, py::handle data, bool requires_grad) {
          YATEN_CHECK(yaten::python::is_tensor(data.ptr()), TypeError, "_make_subclass: expected a Tensor as data, "
                      "got ", Py_TYPE(data.ptr())->tp_name);
          yaten::Tensor alias = yaten::autograd::detach(yaten::python::unwrap(data.ptr()));
          if (requires_grad) yaten::autograd::set_requires_grad(alias, true);
          return py::reinterpret_steal<py::object>(yaten::python::wrap_as(cls.ptr(), std::move(alias)));
        },
        py::arg("cls"), py::arg("data"), py::arg("requires_grad") = false,
        "An instance of cls (a subclass of Tensor, such as nn.Parameter) sharing data's memory, a new leaf.");
  m.def("_set_data",
        [](py::handle t, py::handle value) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()) && yaten::python::is_tensor(value.ptr()), TypeError,
                      "data: expected a Tensor");
          const yaten::Tensor& self = yaten::python::unwrap(t.ptr());
          const yaten::Tensor& other = yaten::python::unwrap(value.ptr());
          YATEN_CHECK(!self.impl()->autograd_meta() || yaten::autograd::is_leaf(self), RuntimeError,
                      "data: only a leaf tensor's data can be replaced by one of another shape, dtype or device");
          self.impl()->set_data(*other.impl());
        },
        "t.data = value with another shape, dtype or device: t keeps its autograd identity and takes value's memory.");
  m.def("_as_subclass",
        [](py::handle t, py::handle cls) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()), TypeError, "as_subclass: expected a Tensor");
          return py::reinterpret_steal<py::object>(yaten::python::wrap_as(cls.ptr(), yaten::python::unwrap(t.ptr())));
        },
        "Tensor.as_subclass(cls): an instance of cls sharing t's tensor (its memory and its autograd history).");
  m.def("_set_default_device",
        [](py::handle device) {
          if (device.is_none()) {
            yaten::python::set_default_factory_device(std::nullopt);
          } else {
            yaten::python::set_default_factory_device(yaten::python::device_from_object(device.ptr()));
          }
        },
        "yaten.set_default_device: where Python's factory calls make tensors when no device= is given (None: CPU).");
  m.def("_default_device", [] {
    const auto d = yaten::python::default_factory_device();
    return py::reinterpret_steal<py::object>(yaten::python::device_object(d.value_or(yaten::Device(yaten::DeviceType::CPU))));
  });
  m.def("_set_deterministic_mode", &yaten::set_deterministic_algorithms_mode, py::arg("mode"),
        "yaten.use_deterministic_algorithms: 0 off, 1 warn, 2 error (core/deterministic.h).");
  m.def("_deterministic_mode", &yaten::deterministic_algorithms_mode);
  m.def("set_flush_denormal", &yaten::set_flush_denormal, py::arg("mode"),
        "Subnormal floats read and written as zero (x86's FTZ and DAZ) on this thread and yaten's pool threads; "
        "returns False where the CPU has no such mode.");
  m.def("set_warn_always", &yaten::detail::set_warn_always, py::arg("b"),
        "When True, warnings that yaten gives once per process (as torch's TORCH_WARN_ONCE) are given every time.");
  m.def("is_warn_always_enabled", &yaten::detail::warn_always, "Whether set_warn_always(True) is in effect.");
  m.def("_alert_not_deterministic", [](const std::string& what) { yaten::alert_not_deterministic(what.c_str()); },
        "What a kernel without a deterministic implementation calls before it runs (for tests).");
  m.def("_assign_tensor",
        [](py::handle t, py::handle value) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()) && yaten::python::is_tensor(value.ptr()), TypeError,
                      "_assign_tensor: expected two Tensors");
          reinterpret_cast<yaten::python::PyTensor*>(t.ptr())->tensor = yaten::python::unwrap(value.ptr());
        },
        "Makes the Python object t stand for value's tensor (its memory, shape and autograd history): the in-place "
        "view ops (t_, squeeze_, ...) on a tensor whose history autograd records, as torch's do.");
  m.def("_mark_array_api",
        [](py::handle t) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()), TypeError, "_mark_array_api: expected a Tensor");
          yaten::python::unwrap(t.ptr()).impl()->set_array_api(true);
          return t;
        },
        "Marks t as an array of yaten.array_api (Note [Two conventions, one tensor type]); returns t.");
  m.def("_is_array_api",
        [](py::handle t) {
          return yaten::python::is_tensor(t.ptr()) && yaten::python::unwrap(t.ptr()).impl()->is_array_api();
        },
        "Whether t is marked as an array of yaten.array_api.");
  m.def("_storage_info",
        [](py::handle t) {
          YATEN_CHECK(yaten::python::is_tensor(t.ptr()), TypeError, "untyped_storage: expected a Tensor");
          const auto& storage = yaten::python::unwrap(t.ptr()).impl()->storage();
          return py::make_tuple(reinterpret_cast<uintptr_t>(storage->data()), storage->nbytes(),
                                storage->device().str(), storage->is_shared(), storage->shared_fd());
        });
  m.def("_tensor_from_shared_fd",
        [](int fd, size_t nbytes, py::handle dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
           int64_t offset) {
          auto storage = yaten::StorageImpl::from_shared_fd(fd, nbytes);
          yaten::Tensor t(std::make_shared<yaten::TensorImpl>(std::move(storage), dtype_arg(dtype, "rebuild"),
                                                               std::move(sizes), std::move(strides), offset));
          return py::reinterpret_steal<py::object>(yaten::python::wrap(std::move(t)));
        });
  m.def("_blas_load", &yaten::blas::load, py::arg("path"), py::arg("prefix"),
        "Opens the BLAS shared library behind float32/float64 matmul (yaten/_blas.py calls it at import).");
  m.attr("_LinAlgError") = py::reinterpret_borrow<py::object>(yaten::python::linalg_error());
  m.attr("AcceleratorError") = py::reinterpret_borrow<py::object>(yaten::python::accelerator_error());
  m.def("_blas_config", &yaten::blas::config, "The loaded BLAS's build configuration, or '' when none is loaded.");
  m.def("get_num_threads", &yaten::get_num_threads,
        "The number of threads yaten's CPU kernels use (YATEN_NUM_THREADS, OMP_NUM_THREADS or the cores).");
  m.def("set_num_threads", &yaten::set_num_threads, py::arg("n"),
        "Sets the number of threads yaten's CPU kernels use.");
  m.def("empty_cache", &yaten::cpu_empty_cache,
        "Returns the freed CPU blocks that yaten keeps for reuse (see memory_stats()['cached_bytes']) to the system.");
  m.def("memory_stats",
        []() {
          const yaten::MemoryStats s = yaten::cpu_memory_stats();
          py::dict out;
          out["allocations"] = s.allocations;
          out["huge_page_allocations"] = s.huge_page_allocations;
          out["bytes_in_use"] = s.bytes_in_use;
          out["peak_bytes_in_use"] = s.peak_bytes_in_use;
          out["cached_bytes"] = s.cached_bytes;
          out["cache_hits"] = s.cache_hits;
          return out;
        },
        "What the CPU allocator has handed out: allocations ever made, those of at least 2 MiB (2 MiB aligned and "
        "advised to use huge pages), and the bytes in use now and at the peak.");
  m.def("_is_number", [](py::handle o) { return yaten::python::is_scalar_object(o.ptr()); });
  m.def("can_cast",
        [](py::handle from, py::handle to) {
          return yaten::can_cast(dtype_arg(from, "can_cast"), dtype_arg(to, "can_cast"));
        },
        py::arg("from_"), py::arg("to"), "Whether type promotion may write a value of dtype `from_` into `to`.");
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

  // Autocast's thread-local state (Note [Autocast]), torch's names; yaten.autocast is the context manager on them.
  auto autocast_device = [](const std::string& device_type, const char* op) {
    YATEN_CHECK(device_type == "cpu" || device_type == "cuda", RuntimeError, op,
                ": expected device_type 'cpu' or 'cuda', got '", device_type, "'");
    return device_type == "cuda" ? yaten::DeviceType::CUDA : yaten::DeviceType::CPU;
  };
  m.def("is_autocast_enabled",
        [=](const std::string& device_type) {
          return yaten::autocast::is_enabled(autocast_device(device_type, "is_autocast_enabled"));
        },
        py::arg("device_type") = "cuda", "Whether autocast is enabled on this thread for the device type.");
  m.def("set_autocast_enabled",
        [=](const std::string& device_type, bool enabled) {
          yaten::autocast::set_enabled(autocast_device(device_type, "set_autocast_enabled"), enabled);
        },
        py::arg("device_type"), py::arg("enabled"));
  m.def("get_autocast_dtype",
        [=](const std::string& device_type) {
          return dtype_handle(yaten::autocast::get_dtype(autocast_device(device_type, "get_autocast_dtype")));
        },
        py::arg("device_type"), "The lower-precision dtype of autocast regions on the device type.");
  m.def("set_autocast_dtype",
        [=](const std::string& device_type, py::handle dtype) {
          yaten::autocast::set_dtype(autocast_device(device_type, "set_autocast_dtype"),
                                     dtype_arg(dtype, "set_autocast_dtype"));
        },
        py::arg("device_type"), py::arg("dtype"));
  m.def("autocast_increment_nesting", &yaten::autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &yaten::autocast::decrement_nesting);
  m.def("is_autocast_cache_enabled", &yaten::autocast::is_cache_enabled);
  m.def("set_autocast_cache_enabled", &yaten::autocast::set_cache_enabled, py::arg("enabled"));
  m.def("clear_autocast_cache", &yaten::autocast::clear_cache,
        "Drops the casts of parameters kept by autocast regions (the outermost region's exit does).");

  m.def("_dispatch_dump",
        [](const std::string& name) {
          yaten::OperatorEntry* op = yaten::Dispatcher::singleton().find(name);
          YATEN_CHECK(op != nullptr, ValueError, "_dispatch_dump: no operator named '", name, "'",
                      closest_operator(name));
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

  // ---------------------------------------------------------------------------------------- yaten.library
  m.def("_library_define",
        [](const std::string& qualified, const std::string& schema, const std::string& site) {
          yaten::Dispatcher::singleton().operator_entry(qualified).define(schema, site);
        },
        py::arg("qualified_name"), py::arg("schema"), py::arg("site"));
  m.def("_library_impl",
        [](const std::string& name, const std::string& key_name, py::object fn, const std::string& site) {
          yaten::OperatorEntry& entry = defined_op(name, "library.impl");
          const yaten::DispatchKey key = key_arg(key_name, "library.impl");
          YATEN_CHECK(PyCallable_Check(fn.ptr()), TypeError, "library.impl: expected a callable kernel");
          // The ref owns the callable until the registration is removed (python/python_kernel.h).
          auto* ref = new yaten::python::PythonKernelRef{fn.release().ptr()};
          yaten::KernelFunction kernel{entry.python_trampoline(), &yaten::python::python_boxed_kernel, ref};
          const uint64_t token = entry.register_kernel(key, kernel, site);
          std::lock_guard<std::mutex> lock(g_python_kernels_mutex);
          g_python_kernels[token] = ref;
          return token;
        },
        py::arg("name"), py::arg("key"), py::arg("fn"), py::arg("site"));
  m.def("_library_remove",
        [](const std::string& name, const std::string& key_name, uint64_t token) {
          yaten::OperatorEntry& entry = defined_op(name, "library.impl(...).remove");
          entry.restore(key_arg(key_name, "remove"), token);
          PyObject* callable = nullptr;
          {
            std::lock_guard<std::mutex> lock(g_python_kernels_mutex);
            auto it = g_python_kernels.find(token);
            if (it != g_python_kernels.end()) {
              std::swap(callable, it->second->callable);  // a call that still holds the ref redispatches
              g_python_kernels.erase(it);
            }
          }
          Py_XDECREF(callable);
        },
        py::arg("name"), py::arg("key"), py::arg("token"));
  m.def("_dispatch_schema",
        [](const std::string& name) { return defined_op(name, "yaten.ops").schema(); }, py::arg("name"));
  m.def("_call_boxed",
        [](const std::string& name, py::list args) -> py::object {
          // args: (schema type, argument name, value) for each argument, in schema order.
          yaten::OperatorEntry& entry = defined_op(name, "yaten.ops");
          yaten::Stack stack;
          yaten::DispatchKeySet ks;
          std::optional<yaten::Device> device;
          std::vector<yaten::Tensor> mutated;  // the arguments the schema marks written (`Tensor(a!)`)
          for (py::handle item : args) {
            auto t = item.cast<py::tuple>();
            const std::string type = t[0].cast<std::string>(), arg = t[1].cast<std::string>();
            stack.push_back(yaten::python::ivalue_from_python(t[2].ptr(), type, name, arg));
            const yaten::IValue& v = stack.back();
            if (v.tag == yaten::IValue::Tag::Tensor) yaten::add_keys(ks, v.tensor);
            if (v.tag == yaten::IValue::Tag::TensorList) yaten::add_keys(ks, v.tensors);
            if (v.tag == yaten::IValue::Tag::Device && arg == "device") device = v.device;
            if (entry.writes_argument(stack.size() - 1)) {
              if (v.tag == yaten::IValue::Tag::Tensor && v.tensor.defined()) mutated.push_back(v.tensor);
              if (v.tag == yaten::IValue::Tag::TensorList) {
                for (const yaten::Tensor& x : v.tensors) {
                  if (x.defined()) mutated.push_back(x);
                }
              }
            }
          }
          if (ks.empty()) ks = yaten::DispatchKeySet(yaten::backend_key(device.value_or(yaten::Device())));
          // as the generated C++ entry points do: no write into read-only memory, and saved tensors over the
          // written memory go stale
          for (const yaten::Tensor& x : mutated) yaten::detail::check_writable(x, name.c_str());
          entry.call_boxed(ks, stack);
          for (const yaten::Tensor& x : mutated) yaten::detail::mark_written(x);
          if (stack.empty()) return py::none();  // `-> ()`
          if (stack.size() == 1) return py::reinterpret_steal<py::object>(yaten::python::ivalue_to_python(stack[0]));
          py::tuple out(stack.size());
          for (size_t i = 0; i < stack.size(); ++i) {
            out[i] = py::reinterpret_steal<py::object>(yaten::python::ivalue_to_python(stack[i]));
          }
          return out;
        },
        py::arg("name"), py::arg("args"));
  m.def("_excluded_keys", []() { return yaten::local_dispatch_keys().excluded.bits(); });
  m.def("_set_excluded_keys",
        [](uint16_t bits) { yaten::local_dispatch_keys().excluded = yaten::DispatchKeySet::from_bits(bits); });
  m.def("_dispatch_key_bit", [](const std::string& name) { return 1u << static_cast<int>(key_arg(name, "key")); });

  // ---------------------------------------------------------------------------------------- measurements
  m.def("_benchmark_dispatcher",
        [](int64_t iterations) {
          // ns per call of yaten::add on two 1-element tensors: through the dispatcher, and calling the CPU
          // kernel found once (what a call would cost without the dispatcher).
          using Clock = std::chrono::steady_clock;
          yaten::Tensor a = yaten::detail::empty_tensor({1}, yaten::ScalarType::Float, yaten::Device());
          *a.data<float>() = 1;
          const yaten::Scalar one(int64_t(1));
          auto& op = yaten::Dispatcher::singleton().operator_entry("yaten::add.Tensor");
          using Kernel = yaten::Tensor (*)(yaten::DispatchKeySet, const yaten::Tensor&, const yaten::Tensor&,
                                           const yaten::Scalar&);
          const yaten::DispatchKeySet ks = yaten::dispatch_key_set(a, a);
          Kernel direct = op.lookup<Kernel>(ks);
          Clock::time_point t0, t1, t2;
          {
            py::gil_scoped_release no_gil;
            t0 = Clock::now();
            for (int64_t i = 0; i < iterations; ++i) yaten::add(a, a, one);
            t1 = Clock::now();
            for (int64_t i = 0; i < iterations; ++i) direct(ks, a, a, one);
            t2 = Clock::now();
          }
          const double through = std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations;
          const double bypass = std::chrono::duration<double, std::nano>(t2 - t1).count() / iterations;
          return py::make_tuple(through, bypass);
        },
        py::arg("iterations"));

  yaten::python::init_cuda(m);
  yaten::python::init_profiler(m);
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
