// yaten.Tensor and yaten.dtype as CPython types, and the hand-written parts of the Tensor API that are not ops:
// construction from Python data, conversion back (tolist, item, __array_interface__), attributes, the number
// protocol (arithmetic, @, bitwise and shifts, in place too) and comparisons, which route to the generated C++ API.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/dtype_switch.h"
#include "core/memory_format.h"
#include "core/type_promotion.h"
#include "python/arg_parser.h"
#include "python/binding_docs.h"
#include "python/tensor_type.h"
#include "autograd/autograd.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/alias.h"
#include "yaten/ops/bitwise_and.h"
#include "yaten/ops/bitwise_left_shift.h"
#include "yaten/ops/bitwise_not.h"
#include "yaten/ops/bitwise_or.h"
#include "yaten/ops/bitwise_right_shift.h"
#include "yaten/ops/bitwise_xor.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/floor_divide.h"
#include "yaten/ops/matmul.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/le.h"
#include "yaten/ops/lt.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/pow.h"
#include "yaten/ops/remainder.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/select.h"
#include "yaten/ops/slice.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/unsqueeze.h"

namespace yaten::python {

PyTypeObject* g_tensor_type = nullptr;

namespace {

// ---------------------------------------------------------------------------------------------------- dtype

struct PyDType {
  PyObject_HEAD
  ScalarType scalar_type;
};

PyTypeObject* g_dtype_type = nullptr;
// yaten.Size (python/yaten/_size.py, a tuple subclass that prints as torch.Size), set at import by _set_size_type;
// shapes are plain tuples until then.
PyTypeObject* g_size_type = nullptr;
PyObject* g_dtype_objects[kNumScalarTypes] = {};
PyObject* g_device_class = nullptr;

PyObject* dtype_repr(PyObject* self) {
  return PyUnicode_FromFormat("yaten.%s", dtype_name(reinterpret_cast<PyDType*>(self)->scalar_type));
}

PyObject* dtype_is_floating_point(PyObject* self, void*) {
  return PyBool_FromLong(is_floating_point(reinterpret_cast<PyDType*>(self)->scalar_type));
}
PyObject* dtype_is_complex(PyObject* self, void*) {
  return PyBool_FromLong(is_complex(reinterpret_cast<PyDType*>(self)->scalar_type));
}
PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromLongLong(element_size(reinterpret_cast<PyDType*>(self)->scalar_type));
}
PyObject* dtype_is_signed(PyObject* self, void*) {
  ScalarType t = reinterpret_cast<PyDType*>(self)->scalar_type;
  return PyBool_FromLong(t != ScalarType::Bool && !is_unsigned(t));
}

PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, nullptr, "Whether the dtype is a floating-point type.", nullptr},
    {"is_complex", dtype_is_complex, nullptr, "Whether the dtype is complex64 or complex128.", nullptr},
    {"itemsize", dtype_itemsize, nullptr, "Bytes per element.", nullptr},
    {"is_signed", dtype_is_signed, nullptr, "Whether the dtype can hold negative values.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyObject* dtype_reduce(PyObject* self, PyObject*) {
  return PyUnicode_FromString(dtype_name(reinterpret_cast<PyDType*>(self)->scalar_type));
}

PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

// ---------------------------------------------------------------------------------------------------- helpers

Tensor to_cpu(const Tensor& t) {
  return t.device().is_cpu() ? t : yaten::_to_copy(t, std::nullopt, Device(DeviceType::CPU));
}

PyObject* element_to_python(ScalarType dtype, const char* ptr) {
  return visit_any_dtype("tolist", dtype, [&](auto tag) -> PyObject* {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      T v;
      std::memcpy(&v, ptr, sizeof(T));
      return PyComplex_FromDoubles(static_cast<double>(v.re), static_cast<double>(v.im));
    } else if constexpr (std::is_same_v<T, bool>) {
      // as a byte: memory from empty(), NumPy or DLPack may hold any value, and only 0 and 1 are bools in C++
      uint8_t byte;
      std::memcpy(&byte, ptr, 1);
      return PyBool_FromLong(byte != 0);
    } else {
      T v;
      std::memcpy(&v, ptr, sizeof(T));
      if constexpr (std::is_same_v<T, uint64_t>) {
        return PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(v));
      } else if constexpr (std::is_integral_v<T>) {
        return PyLong_FromLongLong(static_cast<long long>(v));
      } else {
        return PyFloat_FromDouble(static_cast<double>(static_cast<opmath_t<T>>(v)));
      }
    }
  });
}

PyObject* tolist_recursive(const Tensor& t, const char* ptr, int64_t dim) {
  if (dim == t.dim()) return element_to_python(t.dtype(), ptr);
  const int64_t n = t.sizes()[dim];
  // (a dim of one element may have any stride, e.g. x[::2**62]: only a longer one's bytes fit the storage)
  const int64_t step = n > 1 ? t.strides()[dim] * element_size(t.dtype()) : 0;
  PyObject* list = PyList_New(n);
  if (!list) throw PythonErrorSet();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = tolist_recursive(t, ptr + i * step, dim + 1);
    if (!item) {
      Py_DECREF(list);
      throw PythonErrorSet();
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

// ---------------------------------------------------------------------------------------------------- yaten.tensor

struct DataInfo {
  std::vector<int64_t> shape;
  bool any_float = false;
  bool any_int = false;
  bool any_bool = false;
  bool any_complex = false;
  ScalarType numpy = ScalarType::Undefined;  // the promoted dtype of the NumPy scalars among the numbers
  int64_t leaf_dim = -1;  // the depth of the numbers: every number is at this depth, every sequence above it
};

constexpr int64_t kMaxDataDims = 64;  // deeper nesting is refused, before it can exhaust the C stack

// The dtype of a NumPy scalar (numpy.float16(1), numpy.bool_(True)), from its `dtype` attribute's name; nullopt
// for a dtype yaten lacks.
std::optional<ScalarType> numpy_scalar_dtype(PyObject* obj) {
  PyObject* dtype = PyObject_GetAttrString(obj, "dtype");
  if (!dtype) {
    PyErr_Clear();
    return std::nullopt;
  }
  PyObject* name = PyObject_Str(dtype);
  Py_DECREF(dtype);
  if (!name) {
    PyErr_Clear();
    return std::nullopt;
  }
  const char* text = PyUnicode_AsUTF8(name);
  const ScalarType t = text ? dtype_from_name(text) : ScalarType::Undefined;
  Py_DECREF(name);
  if (!text) PyErr_Clear();
  if (t == ScalarType::Undefined) return std::nullopt;
  return t;
}

void infer_data(PyObject* obj, int64_t dim, DataInfo& info) {
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    YATEN_CHECK(dim < kMaxDataDims, ValueError, "tensor: too many dimensions (the data nests more than ",
                kMaxDataDims, " sequences deep)");
    YATEN_CHECK(info.leaf_dim < 0 || dim < info.leaf_dim, ValueError, "tensor: found a sequence at dim ", dim,
                " where numbers were (the nesting is ragged)");
    const int64_t n = PySequence_Fast_GET_SIZE(obj);
    if (static_cast<int64_t>(info.shape.size()) == dim) {
      info.shape.push_back(n);
    } else {
      YATEN_CHECK(info.shape[dim] == n, ValueError, "tensor: expected sequence of length ", info.shape[dim],
                  " at dim ", dim, " (got ", n, ")");
    }
    for (int64_t i = 0; i < n; ++i) {
      YATEN_CHECK(PySequence_Fast_GET_SIZE(obj) == n, RuntimeError, "tensor: a list changed size while it was read");
      infer_data(PySequence_Fast_ITEMS(obj)[i], dim + 1, info);
    }
    return;
  }
  YATEN_CHECK(static_cast<int64_t>(info.shape.size()) == dim && (info.leaf_dim < 0 || info.leaf_dim == dim),
              ValueError, "tensor: found a number where a sequence was expected at dim ", dim,
              " (the nesting is ragged)");
  info.leaf_dim = dim;
  if (PyBool_Check(obj)) {
    info.any_bool = true;
    return;
  }
  if (std::strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) == 0) {  // a NumPy scalar brings its dtype, as in torch
    if (const std::optional<ScalarType> t = numpy_scalar_dtype(obj)) {
      info.numpy = info.numpy == ScalarType::Undefined ? *t : promote_types(info.numpy, *t);
      return;
    }
  }
  if (PyFloat_Check(obj)) {
    info.any_float = true;
    return;
  }
  if (PyComplex_Check(obj)) {
    info.any_complex = true;
    return;
  }
  if (is_scalar_object(obj)) {
    if (PyLong_Check(obj) || PyIndex_Check(obj)) info.any_int = true; else info.any_float = true;
    return;
  }
  YATEN_FAIL(TypeError, "tensor: could not infer dtype of ", Py_TYPE(obj)->tp_name,
             " (expected nested lists or tuples of numbers)");
}

// Writes the numbers in order, checking each sequence against the shape found by infer_data: an element's
// __index__ or __float__ may have changed a list since (a list is held by reference, each item while it is read).
template <typename T>
void store_data(PyObject* obj, T*& out, T* end, int64_t dim, const std::vector<int64_t>& shape) {
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    YATEN_CHECK(dim < static_cast<int64_t>(shape.size()), RuntimeError, "tensor: a list changed while it was read");
    const int64_t n = shape[dim];
    for (int64_t i = 0; i < n; ++i) {
      YATEN_CHECK(PySequence_Fast_GET_SIZE(obj) == n, RuntimeError, "tensor: a list changed while it was read");
      PyObject* item = PySequence_Fast_ITEMS(obj)[i];
      Py_INCREF(item);
      try {
        store_data(item, out, end, dim + 1, shape);
      } catch (...) {
        Py_DECREF(item);
        throw;
      }
      Py_DECREF(item);
    }
    return;
  }
  YATEN_CHECK(dim == static_cast<int64_t>(shape.size()) && out < end, RuntimeError,
              "tensor: a list changed while it was read");
  const Scalar value = scalar_from_object(obj);
  if constexpr (is_complex_v<T>) {
    const Complex<double> z = value.to_complex();
    *out++ = T(static_cast<real_of_t<T>>(z.re), static_cast<real_of_t<T>>(z.im));
  } else if (value.is_complex()) {  // torch: a complex number into a real dtype is refused
    YATEN_FAIL(TypeError, "tensor: can't convert complex to ", dtype_name(CppTypeToScalarType<T>::value));
  } else if constexpr (std::is_integral_v<T>) {
    *out++ = value.to<T>();  // an integer that does not fit is torch's overflow error
  } else {
    *out++ = convert<T>(value.to<double>());  // a float out of range becomes inf, as torch.tensor gives
  }
}

}  // namespace

PyObject* dtype_object(ScalarType t) { return g_dtype_objects[static_cast<int>(t)]; }

std::optional<ScalarType> dtype_from_object(PyObject* o) {
  if (g_dtype_type && Py_TYPE(o) == g_dtype_type) return reinterpret_cast<PyDType*>(o)->scalar_type;
  return std::nullopt;
}

Device device_from_object(PyObject* o) {
  PyObject* text = PyObject_Str(o);
  if (!text) throw PythonErrorSet();
  std::string s = PyUnicode_AsUTF8(text);
  Py_DECREF(text);
  return Device::parse(s);
}

PyObject* device_object(Device d) {
  YATEN_CHECK(g_device_class != nullptr, RuntimeError, "yaten.device is not initialized");
  return PyObject_CallFunction(g_device_class, "s", d.str().c_str());
}

void set_device_class(PyObject* cls) {
  Py_XINCREF(cls);
  g_device_class = cls;
}

namespace {
// A new Python object of `type` (yaten.Tensor or a subclass) holding `t`.
PyObject* wrap_in(PyTypeObject* type, Tensor t) {
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) throw PythonErrorSet();
  new (&reinterpret_cast<PyTensor*>(obj)->tensor) Tensor(std::move(t));
  return obj;
}
}  // namespace

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  return wrap_in(g_tensor_type, std::move(t));
}

void set_size_type(PyObject* cls) {
  YATEN_CHECK(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &PyTuple_Type), TypeError,
              "_set_size_type: expected a subclass of tuple");
  Py_XDECREF(reinterpret_cast<PyObject*>(g_size_type));
  g_size_type = reinterpret_cast<PyTypeObject*>(Py_NewRef(cls));
}

PyObject* wrap_as(PyObject* cls, Tensor t) {
  YATEN_CHECK(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), g_tensor_type), TypeError,
              "_make_subclass: expected a subclass of yaten.Tensor, got ", PyType_Check(cls) ?
              reinterpret_cast<PyTypeObject*>(cls)->tp_name : Py_TYPE(cls)->tp_name);
  return wrap_in(reinterpret_cast<PyTypeObject*>(cls), std::move(t));
}

Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  if (is_tensor(data)) {
    const Tensor& t = unwrap(data);
    return yaten::_to_copy(t, dtype.value_or(t.dtype()), device.value_or(t.device()));
  }
  DataInfo info;
  infer_data(data, 0, info);
  // torch's rule: the numbers' dtypes promoted (a Python float is the default float dtype, an int int64, a NumPy
  // scalar its own dtype); no numbers at all give the default float dtype
  ScalarType inferred = ScalarType::Undefined;
  const auto join = [&](ScalarType t) { inferred = inferred == ScalarType::Undefined ? t : promote_types(inferred, t); };
  if (info.any_bool) join(ScalarType::Bool);
  if (info.any_int) join(ScalarType::Long);
  if (info.any_float) join(default_dtype());
  if (info.any_complex) join(default_complex_dtype());
  if (info.numpy != ScalarType::Undefined) join(info.numpy);
  if (inferred == ScalarType::Undefined) inferred = default_dtype();
  ScalarType target = dtype.value_or(inferred);
  Tensor out = detail::empty_tensor(info.shape, target, Device(DeviceType::CPU));
  visit_any_dtype("tensor", target, [&](auto tag) {
    using T = decltype(tag);
    T* cursor = out.data<T>();
    store_data<T>(data, cursor, cursor + out.numel(), 0, info.shape);
  });
  Device dev = device ? *device : default_factory_device().value_or(Device(DeviceType::CPU));
  return dev.is_cpu() ? out : yaten::_to_copy(out, std::nullopt, dev);
}

// yaten.tensor(data, *, dtype=None, device=None, requires_grad=False), its arguments read here rather than through
// pybind11 and a Python wrapper: tensor([1., 2., 3., 4.]) is a hot call in user code (720 ns that way, ~270 here).
// NumPy arrays go to yaten._tensor_from_ndarray, which shares the array's memory before copying it.
namespace {
// module.name, imported on first use and kept for the life of the process (nullptr with the error set).
PyObject* python_function(const char* module_name, const char* name) {
  PyObject* module = PyImport_ImportModule(module_name);
  PyObject* fn = module ? PyObject_GetAttrString(module, name) : nullptr;
  Py_XDECREF(module);
  return fn;
}

PyObject* tensor_from_ndarray(PyObject* data, PyObject* dtype, PyObject* device) {
  static PyObject* helper = python_function("yaten", "_tensor_from_ndarray");
  if (helper == nullptr) throw PythonErrorSet();
  PyObject* out = PyObject_CallFunctionObjArgs(helper, data, dtype, device, nullptr);
  if (out == nullptr) throw PythonErrorSet();
  return out;
}

PyObject* py_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  YATEN_PY_BEGIN
  YATEN_CHECK(nargs <= 1, TypeError, "tensor() takes 1 positional argument but ", nargs, " were given");
  PyObject* data = nargs == 1 ? args[0] : nullptr;
  PyObject *dtype = Py_None, *device = Py_None, *requires_grad = Py_False, *pinned = Py_False;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (key == nullptr) throw PythonErrorSet();
    PyObject* value = args[nargs + k];
    if (std::strcmp(key, "data") == 0) {
      YATEN_CHECK(data == nullptr, TypeError, "tensor() got multiple values for argument 'data'");
      data = value;
    } else if (std::strcmp(key, "dtype") == 0) {
      dtype = value;
    } else if (std::strcmp(key, "device") == 0) {
      device = value;
    } else if (std::strcmp(key, "requires_grad") == 0) {
      requires_grad = value;
    } else if (std::strcmp(key, "pin_memory") == 0) {
      pinned = value;
    } else {
      YATEN_FAIL(TypeError, "tensor() got an unexpected keyword argument '", key, "'");
    }
  }
  YATEN_CHECK(data != nullptr, TypeError, "tensor() missing required argument 'data' (pos 1)");
  std::optional<ScalarType> scalar_type;
  if (dtype != Py_None) {
    scalar_type = dtype_from_object(dtype);
    YATEN_CHECK(scalar_type.has_value(), TypeError, "tensor(): argument 'dtype' must be yaten.dtype, not ",
                Py_TYPE(dtype)->tp_name);
  }
  YATEN_CHECK(PyBool_Check(requires_grad), TypeError, "tensor(): argument 'requires_grad' must be bool, not ",
              Py_TYPE(requires_grad)->tp_name);
  PyObject* out = nullptr;
  if (std::strcmp(Py_TYPE(data)->tp_name, "numpy.ndarray") == 0) {
    out = tensor_from_ndarray(data, dtype, device);
  } else {
    std::optional<Device> target;
    if (device != Py_None) target = device_from_object(device);
    out = wrap(tensor_from_data(data, scalar_type, target));
  }
  if (pinned == Py_True) {
    PyObject* copy = nullptr;
    try {
      copy = wrap(pin_memory(unwrap(out)));
    } catch (...) {
      Py_DECREF(out);
      throw;
    }
    Py_SETREF(out, copy);
  }
  if (requires_grad == Py_True) {
    try {
      autograd::set_requires_grad(unwrap(out), true);
    } catch (...) {
      Py_DECREF(out);
      throw;
    }
  }
  return out;
  YATEN_PY_END
}

const BindingRegistration tensor_binding(
    "tensor", py_tensor, /*method=*/false,
    "tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor\n\n"
    "A new tensor holding a copy of `data`: nested lists or tuples of numbers, a NumPy array or a tensor. The dtype "
    "is inferred like torch.tensor: bool, int64, the default float dtype, or the array's dtype. With "
    "requires_grad=True it is a leaf that autograd differentiates with respect to.");
}  // namespace

// ---------------------------------------------------------------------------------------------------- Tensor

namespace {

void tensor_dealloc(PyObject* self) {
  reinterpret_cast<PyTensor*>(self)->tensor.~Tensor();
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* tensor_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError,
                  "yaten.Tensor cannot be constructed directly; use yaten.tensor(data), yaten.empty(size) or "
                  "another factory");
  return nullptr;
}

// A yaten.Size of `values`, built as CPython builds a tuple subclass (tp_alloc with the item count, then the items).
PyObject* size_object(const std::vector<int64_t>& values) {
  const auto n = static_cast<Py_ssize_t>(values.size());
  PyObject* out = g_size_type ? g_size_type->tp_alloc(g_size_type, n) : PyTuple_New(n);
  if (!out) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyLong_FromLongLong(values[i]);
    if (!item) {
      Py_DECREF(out);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, i, item);
  }
  return out;
}

PyObject* get_shape(PyObject* self, void*) { return size_object(unwrap(self).sizes()); }
PyObject* get_dtype(PyObject* self, void*) { return Py_NewRef(dtype_object(unwrap(self).dtype())); }
PyObject* get_device(PyObject* self, void*) {
  YATEN_PY_BEGIN
  return device_object(unwrap(self).device());
  YATEN_PY_END
}
PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(unwrap(self).dim()); }
PyObject* get_is_cuda(PyObject* self, void*) { return PyBool_FromLong(unwrap(self).device().is_cuda()); }
PyObject* get_array_interface(PyObject* self, void*) {
  YATEN_PY_BEGIN
  const Tensor& t = unwrap(self);
  YATEN_CHECK(t.device().is_cpu(), TypeError, "numpy: can't convert ", t.device().str(),
              " tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  const char* typestr = nullptr;
  switch (t.dtype()) {
    case ScalarType::Bool: typestr = "|b1"; break;
    case ScalarType::Byte: typestr = "|u1"; break;
    case ScalarType::Char: typestr = "|i1"; break;
    case ScalarType::Short: typestr = "<i2"; break;
    case ScalarType::Int: typestr = "<i4"; break;
    case ScalarType::Long: typestr = "<i8"; break;
    case ScalarType::UInt16: typestr = "<u2"; break;
    case ScalarType::UInt32: typestr = "<u4"; break;
    case ScalarType::UInt64: typestr = "<u8"; break;
    case ScalarType::Half: typestr = "<f2"; break;
    case ScalarType::Float: typestr = "<f4"; break;
    case ScalarType::Double: typestr = "<f8"; break;
    case ScalarType::ComplexFloat: typestr = "<c8"; break;
    case ScalarType::ComplexDouble: typestr = "<c16"; break;
    default:
      YATEN_FAIL(TypeError, "numpy: got unsupported dtype ", dtype_name(t.dtype()),
                 " (NumPy has no such type; convert with .float() first)");
  }
  const int64_t itemsize = element_size(t.dtype());
  PyObject* shape = PyTuple_New(t.dim());
  PyObject* strides = PyTuple_New(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t.sizes()[i]));
    // a dim of at most one element may have any stride (x[::2**62]); its byte stride is never used
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t.sizes()[i] > 1 ? t.strides()[i] * itemsize : itemsize));
  }
  // NumPy keeps a reference to this tensor as the array's base, so the memory outlives the array's users.
  return Py_BuildValue("{s:N,s:s,s:(Ni),s:N,s:i}", "shape", shape, "typestr", typestr, "data",
                       PyLong_FromVoidPtr(t.numel() ? t.data_ptr() : nullptr),
                       t.impl()->storage()->read_only() ? 1 : 0, "strides", strides, "version", 3);
  YATEN_PY_END
}

PyObject* get_size(PyObject* self, void*);

PyGetSetDef tensor_getset[] = {
    {"size", get_size, nullptr,
     "size(dim=None): the shape, or the size of one dimension. On an array of yaten.array_api, the standard's "
     "attribute: the number of elements, an int that can still be called so.", nullptr},
    {"shape", get_shape, nullptr, "The size of each dimension, as a tuple.", nullptr},
    {"dtype", get_dtype, nullptr, "The element type.", nullptr},
    {"device", get_device, nullptr, "The device the tensor's memory is on.", nullptr},
    {"ndim", get_ndim, nullptr, "The number of dimensions.", nullptr},
    {"is_cuda", get_is_cuda, nullptr, "Whether the tensor is on a CUDA device.", nullptr},
    {"__array_interface__", get_array_interface, nullptr, "NumPy's array interface (CPU tensors).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyObject* tensor_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).numel()); }
PyObject* tensor_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).dim()); }
// is_contiguous(memory_format=contiguous_format): row-major for contiguous_format and preserve_format (as torch
// answers), the NHWC / NDHWC strides for channels_last / channels_last_3d (yaten.memory_format objects are ints).
PyObject* tensor_is_contiguous(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"memory_format", nullptr};
  PyObject* format = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:is_contiguous", const_cast<char**>(names), &format)) {
    return nullptr;
  }
  const Tensor& t = unwrap(self);
  if (format == nullptr || format == Py_None) return PyBool_FromLong(t.is_contiguous());
  const long long code = PyLong_AsLongLong(format);
  if (code == -1 && PyErr_Occurred()) return nullptr;
  if (code < 0 || code > 3) {
    PyErr_Format(PyExc_ValueError, "is_contiguous: unknown memory_format %lld", code);
    return nullptr;
  }
  if (code <= 1) return PyBool_FromLong(t.is_contiguous());
  return PyBool_FromLong(has_channels_last_strides(t, code == 2 ? 4 : 5));
}
PyObject* tensor_suggests_channels_last(PyObject* self, PyObject*) {
  return PyBool_FromLong(channels_last_ordered(unwrap(self)));
}
PyObject* tensor_element_size(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(element_size(unwrap(self).dtype()));
}
PyObject* tensor_storage_offset(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(unwrap(self).storage_offset());
}
PyObject* tensor_data_ptr(PyObject* self, PyObject*) {
  const Tensor& t = unwrap(self);
  return PyLong_FromVoidPtr(t.numel() ? t.data_ptr() : nullptr);
}

PyObject* dims_tuple_or_item(PyObject* self, PyObject* const* args, Py_ssize_t nargs, bool strides) {
  YATEN_PY_BEGIN
  const Tensor& t = unwrap(self);
  const auto& values = strides ? t.strides() : t.sizes();
  if (!strides && (nargs == 0 || args[0] == Py_None)) return size_object(values);
  if (nargs == 0 || args[0] == Py_None) {
    PyObject* out = PyTuple_New(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(out, i, PyLong_FromLongLong(values[i]));
    return out;
  }
  YATEN_CHECK(nargs == 1 && PyLong_Check(args[0]), TypeError, strides ? "stride" : "size",
              "(): expected an int dim or nothing");
  int overflow = 0;
  const int64_t d = PyLong_AsLongLongAndOverflow(args[0], &overflow);
  const int64_t n = t.dim();
  YATEN_CHECK(overflow == 0, IndexError, strides ? "stride" : "size", "(): dimension out of range (expected to be "
              "in range of [", -n, ", ", n - 1, "], but got a number past int64)");
  YATEN_CHECK(d >= -n && d < n, IndexError, strides ? "stride" : "size", "(): dimension out of range (expected to be in range of [",
              -n, ", ", n - 1, "], but got ", d, ")");
  return PyLong_FromLongLong(values[d < 0 ? d + n : d]);
  YATEN_PY_END
}
PyObject* tensor_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return dims_tuple_or_item(self, args, nargs, false);
}
PyObject* tensor_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return dims_tuple_or_item(self, args, nargs, true);
}

bool is_marked(PyObject* o);  // Note [Two conventions, one tensor type], below

PyMethodDef g_size_method = {"size", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(tensor_size)),
                             METH_FASTCALL, "size(dim=None): the shape, or the size of one dimension."};

// t.size: torch's method, bound to t; on an array of yaten.array_api (Note [Two conventions, one tensor type]) the
// standard's attribute, the number of elements, as an int that can also be called like torch's method.
PyObject* get_size(PyObject* self, void*) {
  PyObject* bound = PyCFunction_New(&g_size_method, self);
  if (bound == nullptr || !is_marked(self)) return bound;
  static PyObject* array_size = python_function("yaten.array_api._core", "ArraySize");
  PyObject* out = array_size ? PyObject_CallFunctionObjArgs(array_size, bound, nullptr) : nullptr;
  Py_DECREF(bound);
  return out;
}

PyObject* tensor_tolist(PyObject* self, PyObject*) {
  YATEN_PY_BEGIN
  Tensor t = to_cpu(unwrap(self));
  return tolist_recursive(t, static_cast<const char*>(t.data_ptr()), 0);
  YATEN_PY_END
}

PyObject* tensor_item(PyObject* self, PyObject*) {
  YATEN_PY_BEGIN
  Tensor t = to_cpu(unwrap(self));
  YATEN_CHECK(t.numel() == 1, RuntimeError, "item: a Tensor with ", t.numel(),
              " elements cannot be converted to Scalar");
  return element_to_python(t.dtype(), static_cast<const char*>(t.data_ptr()));
  YATEN_PY_END
}

std::vector<PyMethodDef> g_tensor_methods = {
    {"numel", tensor_numel, METH_NOARGS, "The number of elements."},
    {"dim", tensor_dim, METH_NOARGS, "The number of dimensions."},
    {"is_contiguous", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(tensor_is_contiguous)),
     METH_VARARGS | METH_KEYWORDS, "Whether the elements are laid out row-major (or in memory_format), without gaps."},
    {"_suggests_channels_last", tensor_suggests_channels_last, METH_NOARGS,
     "Whether the strides run channels innermost and batch outermost (torch's suggest_memory_format)."},
    {"element_size", tensor_element_size, METH_NOARGS, "Bytes per element."},
    {"storage_offset", tensor_storage_offset, METH_NOARGS, "The offset of the first element in its storage."},
    {"data_ptr", tensor_data_ptr, METH_NOARGS, "The address of the first element."},
    {"stride", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(tensor_stride)), METH_FASTCALL,
     "stride(dim=None): the strides in elements, or the stride of one dimension."},
    {"tolist", tensor_tolist, METH_NOARGS, "The elements as nested Python lists."},
    {"item", tensor_item, METH_NOARGS, "The value of a one-element tensor as a Python number."},
};

// ---------------------------------------------------------------------------------------------------- operators

// `a + b` with a tensor on either side: Python numbers become wrapped zero-dim tensors (See Note [Type
// promotion]), so `2 - t` and `2 / t` are the Tensor overloads with the operands in order.
Tensor operand(PyObject* o) {
  if (is_tensor(o)) return unwrap(o);
  return detail::wrapped_scalar_tensor(scalar_from_object(o));
}

// Note [Two conventions, one tensor type]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// yaten.array_api (python/yaten/array_api) is the Python array API standard over the very Tensor type that the
// torch-style namespace uses: no wrapper object, no copy. Where the two conventions disagree inside an operator
// (the promotion of a zero-dim operand: torch's int8[3] + int16[] is int8, the standard's int16; `x // inf`, the
// sign of a zero remainder, negative slice steps), the standard's rule must hold for arrays of that namespace and
// torch's for every other tensor. So an array made by yaten.array_api carries a mark (TensorImpl::is_array_api),
// which its indexing passes on, and an operator with a marked operand is the namespace's function of that name
// (yaten/array_api/_operators.py), whose results are marked in turn. Where that function is yaten's own op (two
// arrays of one dtype, any operator but //, % and **) the C++ path runs and marks its result: `x + y` of two float32
// arrays costs what it costs on tensors. Unmarked tensors never leave the C++ path: torch's behaviour, and the
// cost of an operator, are unchanged for them. `x.size` (get_size above) is the standard's int on a marked array.
bool is_marked(PyObject* o) { return is_tensor(o) && unwrap(o).impl()->is_array_api(); }

// `a <op> b` (b is nullptr for a unary operator) by yaten.array_api's function for the operator `name`.
PyObject* array_api_operator(const char* name, PyObject* a, PyObject* b) {
  static PyObject* dispatch = python_function("yaten.array_api._operators", "operator");
  if (dispatch == nullptr) return nullptr;
  PyObject* op = PyUnicode_FromString(name);
  if (op == nullptr) return nullptr;
  PyObject* out = PyObject_CallFunctionObjArgs(dispatch, op, a, b ? b : Py_None, nullptr);
  Py_DECREF(op);
  return out;
}

// Whether the standard's function of operator `name` is yaten's op for two marked arrays of one dtype: then the
// operator takes the C++ path (and marks its result) instead of the Python call. Not for //, % and **, whose
// special values differ (torch's NaN for inf // 2, the sign of a zero remainder, sqrt's NaN for (-inf) ** 0.5).
bool same_as_yaten(const char* name, PyObject* a, PyObject* b) {
  return is_tensor(a) && is_tensor(b) && unwrap(a).dtype() == unwrap(b).dtype() &&
         std::strcmp(name, "floor_divide") != 0 && std::strcmp(name, "remainder") != 0 &&
         std::strcmp(name, "pow") != 0;
}

template <typename Fn>
PyObject* binary_operator(const char* name, PyObject* a, PyObject* b, Fn&& fn) {
  if ((!is_tensor(a) && !is_scalar_object(a)) || (!is_tensor(b) && !is_scalar_object(b))) Py_RETURN_NOTIMPLEMENTED;
  const bool marked = is_marked(a) || is_marked(b);
  if (marked && !same_as_yaten(name, a, b)) return array_api_operator(name, a, b);
  YATEN_PY_BEGIN
  Tensor result = fn(operand(a), operand(b));
  if (marked) result.impl()->set_array_api(true);
  return wrap(std::move(result));
  YATEN_PY_END
}

PyObject* nb_add(PyObject* a, PyObject* b) {
  return binary_operator("add", a, b,
                         [](const Tensor& x, const Tensor& y) { return yaten::add(x, y, Scalar(int64_t(1))); });
}
PyObject* nb_subtract(PyObject* a, PyObject* b) {
  return binary_operator("subtract", a, b,
                         [](const Tensor& x, const Tensor& y) { return yaten::sub(x, y, Scalar(int64_t(1))); });
}
PyObject* nb_multiply(PyObject* a, PyObject* b) {
  return binary_operator("multiply", a, b, [](const Tensor& x, const Tensor& y) { return yaten::mul(x, y); });
}
PyObject* nb_true_divide(PyObject* a, PyObject* b) {
  return binary_operator("divide", a, b, [](const Tensor& x, const Tensor& y) { return yaten::div(x, y); });
}
#define YATEN_BINARY_OPERATOR(slot, name, call)                                                         \
  PyObject* slot(PyObject* a, PyObject* b) {                                                            \
    return binary_operator(name, a, b, [](const Tensor& x, const Tensor& y) { return call(x, y); }); \
  }
YATEN_BINARY_OPERATOR(nb_remainder, "remainder", yaten::remainder)
YATEN_BINARY_OPERATOR(nb_floor_divide, "floor_divide", yaten::floor_divide)
YATEN_BINARY_OPERATOR(nb_and, "bitwise_and", yaten::bitwise_and)
YATEN_BINARY_OPERATOR(nb_or, "bitwise_or", yaten::bitwise_or)
YATEN_BINARY_OPERATOR(nb_xor, "bitwise_xor", yaten::bitwise_xor)
YATEN_BINARY_OPERATOR(nb_lshift, "bitwise_left_shift", yaten::bitwise_left_shift)
YATEN_BINARY_OPERATOR(nb_rshift, "bitwise_right_shift", yaten::bitwise_right_shift)
#undef YATEN_BINARY_OPERATOR
PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary_operator("pow", a, b, [](const Tensor& x, const Tensor& y) { return yaten::pow(x, y); });
}
PyObject* nb_matrix_multiply(PyObject* a, PyObject* b) {
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  if (is_marked(a) || is_marked(b)) return array_api_operator("matmul", a, b);  // checks and promotes
  YATEN_PY_BEGIN
  return wrap(yaten::matmul(unwrap(a), unwrap(b)));
  YATEN_PY_END
}
// `a @= b`: torch computes a @ b and copies it into a, whose shape must not change.
PyObject* nb_inplace_matrix_multiply(PyObject* a, PyObject* b) {
  if (!is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  if (is_marked(a) || is_marked(b)) return array_api_operator("imatmul", a, b);
  YATEN_PY_BEGIN
  const Tensor& self = unwrap(a);
  Tensor product = yaten::matmul(self, unwrap(b));
  YATEN_CHECK(product.sizes() == self.sizes(), RuntimeError, "matmul: @= would change the shape of its left operand");
  yaten::copy_(self, product);
  return Py_NewRef(a);
  YATEN_PY_END
}
// ~a, abs(a), -a: yaten's op, whose result keeps a's array-API mark (the standard's function is yaten's op).
template <typename Fn>
PyObject* unary_operator(PyObject* a, Fn&& fn) {
  YATEN_PY_BEGIN
  Tensor result = fn(unwrap(a));
  if (is_marked(a)) result.impl()->set_array_api(true);
  return wrap(std::move(result));
  YATEN_PY_END
}
PyObject* nb_invert(PyObject* a) { return unary_operator(a, [](const Tensor& x) { return yaten::bitwise_not(x); }); }
PyObject* nb_absolute(PyObject* a) { return unary_operator(a, [](const Tensor& x) { return yaten::abs(x); }); }
PyObject* nb_negative(PyObject* a) { return unary_operator(a, [](const Tensor& x) { return yaten::neg(x); }); }
PyObject* nb_positive(PyObject* a) {
  if (is_marked(a)) return array_api_operator("positive", a, nullptr);  // a new array, as the standard's
  return Py_NewRef(a);
}

template <typename Fn>
PyObject* inplace_operator(const char* name, PyObject* a, PyObject* b, Fn&& fn) {
  if (!is_tensor(b) && !is_scalar_object(b)) Py_RETURN_NOTIMPLEMENTED;
  if (is_marked(a) || is_marked(b)) return array_api_operator(name, a, b);
  YATEN_PY_BEGIN
  fn(unwrap(a), operand(b));
  return Py_NewRef(a);
  YATEN_PY_END
}
PyObject* nb_inplace_add(PyObject* a, PyObject* b) {
  return inplace_operator("iadd", a, b,
                          [](const Tensor& x, const Tensor& y) { yaten::add_(x, y, Scalar(int64_t(1))); });
}
PyObject* nb_inplace_subtract(PyObject* a, PyObject* b) {
  return inplace_operator("isubtract", a, b,
                          [](const Tensor& x, const Tensor& y) { yaten::sub_(x, y, Scalar(int64_t(1))); });
}
PyObject* nb_inplace_multiply(PyObject* a, PyObject* b) {
  return inplace_operator("imultiply", a, b, [](const Tensor& x, const Tensor& y) { yaten::mul_(x, y); });
}
PyObject* nb_inplace_true_divide(PyObject* a, PyObject* b) {
  return inplace_operator("idivide", a, b, [](const Tensor& x, const Tensor& y) { yaten::div_(x, y); });
}

#define YATEN_INPLACE_OPERATOR(slot, name, call)                                               \
  PyObject* slot(PyObject* a, PyObject* b) {                                                   \
    return inplace_operator(name, a, b, [](const Tensor& x, const Tensor& y) { call(x, y); }); \
  }
YATEN_INPLACE_OPERATOR(nb_inplace_remainder, "iremainder", yaten::remainder_)
YATEN_INPLACE_OPERATOR(nb_inplace_floor_divide, "ifloor_divide", yaten::floor_divide_)
YATEN_INPLACE_OPERATOR(nb_inplace_and, "ibitwise_and", yaten::bitwise_and_)
YATEN_INPLACE_OPERATOR(nb_inplace_or, "ibitwise_or", yaten::bitwise_or_)
YATEN_INPLACE_OPERATOR(nb_inplace_xor, "ibitwise_xor", yaten::bitwise_xor_)
YATEN_INPLACE_OPERATOR(nb_inplace_lshift, "ibitwise_left_shift", yaten::bitwise_left_shift_)
YATEN_INPLACE_OPERATOR(nb_inplace_rshift, "ibitwise_right_shift", yaten::bitwise_right_shift_)
#undef YATEN_INPLACE_OPERATOR
PyObject* nb_inplace_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace_operator("ipow", a, b, [](const Tensor& x, const Tensor& y) { yaten::pow_(x, y); });
}

// a < b, a == b, ...: the comparison ops, with numbers on either side (Python reflects `2 < t` to `t > 2`).
PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_tensor(b) && !is_scalar_object(b)) Py_RETURN_NOTIMPLEMENTED;
  static const char* const names[] = {"less", "less_equal", "equal", "not_equal", "greater", "greater_equal"};
  const bool marked = is_marked(a) || is_marked(b);
  if (marked && !same_as_yaten(names[op], a, b)) return array_api_operator(names[op], a, b);  // Py_LT .. Py_GE: 0 .. 5
  YATEN_PY_BEGIN
  const Tensor x = operand(a), y = operand(b);
  Tensor result;
  switch (op) {
    case Py_LT: result = yaten::lt(x, y); break;
    case Py_LE: result = yaten::le(x, y); break;
    case Py_GT: result = yaten::gt(x, y); break;
    case Py_GE: result = yaten::ge(x, y); break;
    case Py_EQ: result = yaten::eq(x, y); break;
    default: result = yaten::ne(x, y); break;
  }
  if (marked) result.impl()->set_array_api(true);
  return wrap(std::move(result));
  YATEN_PY_END
}

// Tensors hash by identity, like torch's (== is elementwise, so it cannot define the hash).
Py_hash_t tensor_hash(PyObject* self) { return static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(self) >> 4); }

int nb_bool(PyObject* self) {
  YATEN_PY_BEGIN
    Tensor t = to_cpu(unwrap(self));
    YATEN_CHECK(t.numel() == 1, RuntimeError, "Boolean value of Tensor with ", t.numel() == 0 ? "no values" : "more than one value",
                " is ambiguous");
    PyObject* v = element_to_python(t.dtype(), static_cast<const char*>(t.data_ptr()));
    int truth = PyObject_IsTrue(v);
    Py_DECREF(v);
    return truth;
  YATEN_PY_END_RETURNING(-1)
}

// float(t), int(t): the one element as a Python number, then Python's own conversion.
PyObject* item_as(PyObject* self, PyObject* (*convert)(PyObject*)) {
  PyObject* v = tensor_item(self, nullptr);
  if (!v) return nullptr;
  PyObject* out = convert(v);
  Py_DECREF(v);
  return out;
}
PyObject* nb_float(PyObject* self) { return item_as(self, PyNumber_Float); }
PyObject* nb_int(PyObject* self) { return item_as(self, PyNumber_Long); }
// operator.index(t): a one-element integer tensor is an index (a[t], range(t), NumPy slicing), as in torch.
PyObject* nb_index(PyObject* self) {
  YATEN_PY_BEGIN
  const Tensor& t = unwrap(self);
  YATEN_CHECK(t.numel() == 1 && is_integral(t.dtype(), /*include_bool=*/true), TypeError,
              "only integer tensors of a single element can be converted to an index (got a ", dtype_name(t.dtype()),
              " tensor of ", t.numel(), " elements)");
  return item_as(self, PyNumber_Long);
  YATEN_PY_END
}

// ------------------------------------------------------------------------------------------------ t[index]
// Note [Basic indexing in C++]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Subscripts made only of ints, slices of ints (or None), None and one Ellipsis (t[i], t[i, j], t[1:3], t[:, 0],
// t[..., None]) give views, applied here with the same view ops (select, slice, unsqueeze) and checks that
// yaten/_indexing.py applies, so a row view does not pay for a Python function. Anything else (index tensors,
// lists, bools, NumPy integers, ...) goes to _indexing.getitem, which takes every index torch does.
struct BasicItem {
  enum Kind { Int, Slice, NewAxis, Ellipsis } kind;
  int64_t index = 0;  // Int
  std::optional<int64_t> start, stop;  // Slice
  int64_t step = 1;
};

// An exact Python int that fits int64 (bools, int subclasses and huge ints take the general path).
bool exact_int64(PyObject* o, int64_t& out) {
  if (!PyLong_CheckExact(o)) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  out = v;
  return true;
}

bool optional_int64(PyObject* o, std::optional<int64_t>& out) {
  if (o == Py_None) return true;
  int64_t v = 0;
  if (!exact_int64(o, v)) return false;
  out = v;
  return true;
}

bool basic_item(PyObject* o, BasicItem& item) {
  if (o == Py_None) {
    item.kind = BasicItem::NewAxis;
    return true;
  }
  if (o == Py_Ellipsis) {
    item.kind = BasicItem::Ellipsis;
    return true;
  }
  if (PySlice_Check(o)) {
    auto* slice = reinterpret_cast<PySliceObject*>(o);
    std::optional<int64_t> step;
    item.kind = BasicItem::Slice;
    if (!optional_int64(slice->start, item.start) || !optional_int64(slice->stop, item.stop) ||
        !optional_int64(slice->step, step)) {
      return false;
    }
    item.step = step.value_or(1);
    return true;
  }
  item.kind = BasicItem::Int;
  return exact_int64(o, item.index);
}

PyObject* python_getitem(PyObject* self, PyObject* index) {
  static PyObject* getitem = python_function("yaten._indexing", "getitem");
  if (getitem == nullptr) return nullptr;
  return PyObject_CallFunctionObjArgs(getitem, self, index, nullptr);
}

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  constexpr Py_ssize_t kMaxItems = 16;
  BasicItem items[kMaxItems];
  Py_ssize_t n = 1;
  if (PyTuple_CheckExact(index)) {
    n = PyTuple_GET_SIZE(index);
    if (n > kMaxItems) return python_getitem(self, index);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!basic_item(PyTuple_GET_ITEM(index, i), items[i])) return python_getitem(self, index);
    }
  } else if (!basic_item(index, items[0])) {
    return python_getitem(self, index);
  }
  // An array of yaten.array_api (Note [Two conventions, one tensor type]) takes negative steps, which
  // _indexing.getitem applies; its results are marked.
  const bool marked = is_marked(self);
  if (marked) {
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (items[i].kind == BasicItem::Slice && items[i].step < 0) return python_getitem(self, index);
    }
  }
  YATEN_PY_BEGIN
  const Tensor& t = unwrap(self);
  int64_t consumed = 0, ellipses = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    consumed += items[i].kind == BasicItem::Int || items[i].kind == BasicItem::Slice;
    ellipses += items[i].kind == BasicItem::Ellipsis;
  }
  YATEN_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  YATEN_CHECK(consumed <= t.dim(), IndexError, "too many indices for tensor of dimension ", t.dim());
  Tensor result = t;
  bool viewed = false;
  int64_t dim = 0;  // in result
  int64_t source_dim = 0;  // in t, which the messages name as torch's do
  for (Py_ssize_t i = 0; i < n; ++i) {
    const BasicItem& item = items[i];
    switch (item.kind) {
      case BasicItem::NewAxis:
        result = yaten::unsqueeze(result, dim++);
        viewed = true;
        break;
      case BasicItem::Ellipsis:
        dim += t.dim() - consumed;
        source_dim += t.dim() - consumed;
        break;
      case BasicItem::Int: {
        const int64_t size = result.size(dim);
        YATEN_CHECK(item.index >= -size && item.index < size, IndexError, "index ", item.index,
                    " is out of bounds for dimension ", source_dim, " with size ", size);
        result = yaten::select(result, dim, item.index);
        ++source_dim;
        viewed = true;
        break;
      }
      case BasicItem::Slice:
        YATEN_CHECK(item.step > 0, ValueError, "step must be greater than zero");
        result = yaten::slice(result, dim++, item.start, item.stop, item.step);
        ++source_dim;
        viewed = true;
        break;
    }
  }
  // t[...] and t[()] are views of all of t, as in torch (never t itself).
  Tensor out = viewed ? std::move(result) : yaten::alias(t);
  if (marked) out.impl()->set_array_api(true);
  return wrap(std::move(out));
  YATEN_PY_END
}

Py_ssize_t tensor_len(PyObject* self) {
  const Tensor& t = unwrap(self);
  if (t.dim() == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return static_cast<Py_ssize_t>(t.sizes()[0]);
}

}  // namespace

void init_types(PyObject* module) {
  // yaten.dtype and its ten objects.
  static PyType_Slot dtype_slots[] = {
      {Py_tp_repr, reinterpret_cast<void*>(dtype_repr)},
      {Py_tp_getset, dtype_getset},
      {Py_tp_methods, dtype_methods},
      {Py_tp_doc, const_cast<char*>("The element type of a tensor: yaten.float32, yaten.int64, ...")},
      {0, nullptr},
  };
  static PyType_Spec dtype_spec = {"yaten.dtype", sizeof(PyDType), 0, Py_TPFLAGS_DEFAULT, dtype_slots};
  g_dtype_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&dtype_spec));
  if (!g_dtype_type) throw PythonErrorSet();
  PyModule_AddObject(module, "dtype", Py_NewRef(reinterpret_cast<PyObject*>(g_dtype_type)));
  for (int i = 0; i < kNumScalarTypes; ++i) {
    PyDType* d = PyObject_New(PyDType, g_dtype_type);
    d->scalar_type = static_cast<ScalarType>(i);
    g_dtype_objects[i] = reinterpret_cast<PyObject*>(d);
  }

  // The generated bindings' docstrings, from ops/op_docs.cpp (Note [Docstrings live in one compiled file]).
  for (Binding& b : registered_bindings()) {
    if (b.def.ml_doc == nullptr) b.def.ml_doc = binding_doc(b.module.c_str(), b.def.ml_name, b.method);
  }
  // yaten.Tensor: hand-written methods plus every generated method binding.
  static std::vector<PyMethodDef> methods;
  methods = g_tensor_methods;
  for (const Binding& b : registered_bindings()) {
    if (b.method) methods.push_back(b.def);
  }
  methods.push_back(PyMethodDef{nullptr, nullptr, 0, nullptr});
  static PyType_Slot tensor_slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(tensor_dealloc)},
      {Py_tp_new, reinterpret_cast<void*>(tensor_new)},
      {Py_tp_methods, nullptr},  // filled below
      {Py_tp_getset, tensor_getset},
      {Py_nb_add, reinterpret_cast<void*>(nb_add)},
      {Py_nb_subtract, reinterpret_cast<void*>(nb_subtract)},
      {Py_nb_multiply, reinterpret_cast<void*>(nb_multiply)},
      {Py_nb_true_divide, reinterpret_cast<void*>(nb_true_divide)},
      {Py_nb_negative, reinterpret_cast<void*>(nb_negative)},
      {Py_nb_positive, reinterpret_cast<void*>(nb_positive)},
      {Py_nb_absolute, reinterpret_cast<void*>(nb_absolute)},
      {Py_nb_invert, reinterpret_cast<void*>(nb_invert)},
      {Py_nb_matrix_multiply, reinterpret_cast<void*>(nb_matrix_multiply)},
      {Py_nb_inplace_matrix_multiply, reinterpret_cast<void*>(nb_inplace_matrix_multiply)},
      {Py_nb_remainder, reinterpret_cast<void*>(nb_remainder)},
      {Py_nb_floor_divide, reinterpret_cast<void*>(nb_floor_divide)},
      {Py_nb_power, reinterpret_cast<void*>(nb_power)},
      {Py_nb_and, reinterpret_cast<void*>(nb_and)},
      {Py_nb_or, reinterpret_cast<void*>(nb_or)},
      {Py_nb_xor, reinterpret_cast<void*>(nb_xor)},
      {Py_nb_lshift, reinterpret_cast<void*>(nb_lshift)},
      {Py_nb_rshift, reinterpret_cast<void*>(nb_rshift)},
      {Py_nb_inplace_remainder, reinterpret_cast<void*>(nb_inplace_remainder)},
      {Py_nb_inplace_floor_divide, reinterpret_cast<void*>(nb_inplace_floor_divide)},
      {Py_nb_inplace_power, reinterpret_cast<void*>(nb_inplace_power)},
      {Py_nb_inplace_and, reinterpret_cast<void*>(nb_inplace_and)},
      {Py_nb_inplace_or, reinterpret_cast<void*>(nb_inplace_or)},
      {Py_nb_inplace_xor, reinterpret_cast<void*>(nb_inplace_xor)},
      {Py_nb_inplace_lshift, reinterpret_cast<void*>(nb_inplace_lshift)},
      {Py_nb_inplace_rshift, reinterpret_cast<void*>(nb_inplace_rshift)},
      {Py_nb_inplace_add, reinterpret_cast<void*>(nb_inplace_add)},
      {Py_nb_inplace_subtract, reinterpret_cast<void*>(nb_inplace_subtract)},
      {Py_nb_inplace_multiply, reinterpret_cast<void*>(nb_inplace_multiply)},
      {Py_nb_inplace_true_divide, reinterpret_cast<void*>(nb_inplace_true_divide)},
      {Py_nb_bool, reinterpret_cast<void*>(nb_bool)},
      {Py_tp_richcompare, reinterpret_cast<void*>(tensor_richcompare)},
      {Py_tp_hash, reinterpret_cast<void*>(tensor_hash)},
      {Py_nb_float, reinterpret_cast<void*>(nb_float)},
      {Py_nb_int, reinterpret_cast<void*>(nb_int)},
      {Py_nb_index, reinterpret_cast<void*>(nb_index)},
      {Py_mp_length, reinterpret_cast<void*>(tensor_len)},
      {Py_mp_subscript, reinterpret_cast<void*>(tensor_getitem)},
      {Py_tp_doc, const_cast<char*>("A multi-dimensional array of one dtype on one device.")},
      {0, nullptr},
  };
  tensor_slots[2].pfunc = methods.data();
  static PyType_Spec tensor_spec = {"yaten.Tensor", sizeof(PyTensor), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                    tensor_slots};
  g_tensor_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&tensor_spec));
  if (!g_tensor_type) throw PythonErrorSet();
  PyModule_AddObject(module, "Tensor", Py_NewRef(reinterpret_cast<PyObject*>(g_tensor_type)));

  // Functions: yaten's own go on _C; each python_module gets a submodule (_C._linalg, _C._nn_functional, ...)
  // that python/yaten/<module>.py re-exports.
  static std::map<std::string, std::vector<PyMethodDef>> functions;
  for (const char* name : {"", "linalg", "special", "fft", "nn.functional"}) functions[name];
  for (const Binding& b : registered_bindings()) {
    if (!b.method) functions[b.module].push_back(b.def);
  }
  for (auto& [name, defs] : functions) {
    defs.push_back(PyMethodDef{nullptr, nullptr, 0, nullptr});
    PyObject* target = module;
    if (!name.empty()) {
      std::string attr = "_" + name;
      for (char& c : attr) c = c == '.' ? '_' : c;
      const std::string qualified = "yaten._C." + attr;
      target = PyModule_New(qualified.c_str());
      if (!target || PyDict_SetItemString(PyImport_GetModuleDict(), qualified.c_str(), target) < 0 ||
          PyModule_AddObject(module, attr.c_str(), target) < 0) {
        throw PythonErrorSet();
      }
    }
    if (PyModule_AddFunctions(target, defs.data()) < 0) throw PythonErrorSet();
  }

  PyObject* return_types = PyModule_New("yaten.return_types");
  if (!return_types || PyModule_AddObject(module, "return_types", return_types) < 0) throw PythonErrorSet();
  for (NamedTupleType* t : registered_named_tuples()) t->create(return_types);
}

}  // namespace yaten::python
