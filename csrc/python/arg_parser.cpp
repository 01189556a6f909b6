#include "python/arg_parser.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "autograd/autograd.h"
#include "python/binding_docs.h"
#include "core/error.h"
#include "cuda/cuda_runtime.h"
#include "yaten/ops/copy.h"

namespace yaten::python {

namespace {

// An int, or anything with __index__ (NumPy integers), but not a bool: `x.var(False)` means unbiased=False, not
// dim=0 (torch's rule too). With `tensors`, also a 0-dim integral tensor (Note [Numbers given as tensors]).
bool is_int_object(PyObject* o, bool tensors = false) {
  if (PyBool_Check(o)) return false;
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) return tensors && is_number_tensor(o, /*integral=*/true);
  return PyIndex_Check(o) && !PyFloat_Check(o);
}

bool is_int_sequence(PyObject* o, int size, bool tensors) {
  if (!PyTuple_Check(o) && !PyList_Check(o)) return is_int_object(o, tensors);  // a bare int stands for [int] * size
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  if (size > 1 && n != size) return false;  // int[1] (a dim list) takes any length, or a bare int
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!is_int_object(items[i], tensors)) return false;
  }
  return true;
}

// A number where a float is expected: an int or a bool too (torch's THPUtils_checkDouble: a bool is an int), or
// with `tensors` a 0-dim tensor of any dtype.
bool is_float_object(PyObject* o, bool tensors) {
  return PyFloat_Check(o) || PyBool_Check(o) || is_int_object(o) || (tensors && is_number_tensor(o, false));
}

// `numbers`: a Python number also stands for a Tensor (Note [Numbers given for tensors]).
bool matches(ArgType type, PyObject* o, int size, bool tensors, bool numbers) {
  switch (type) {
    case ArgType::Tensor: return is_tensor(o) || (numbers && is_scalar_object(o));
    case ArgType::OptionalTensor: return o == Py_None || is_tensor(o) || (numbers && is_scalar_object(o));
    case ArgType::TensorList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!is_tensor(PySequence_Fast_ITEMS(o)[i])) return false;
      }
      return true;
    }
    case ArgType::Int: return is_int_object(o, tensors);
    case ArgType::OptionalInt: return o == Py_None || is_int_object(o, tensors);
    case ArgType::IntList: return is_int_sequence(o, size, tensors);
    case ArgType::Float: return is_float_object(o, tensors);
    case ArgType::OptionalFloat: return o == Py_None || is_float_object(o, tensors);
    case ArgType::Bool: return PyBool_Check(o);
    case ArgType::OptionalBool: return o == Py_None || PyBool_Check(o);
    case ArgType::String: return PyUnicode_Check(o);
    case ArgType::Scalar: return is_scalar_object(o) || (tensors && is_number_tensor(o, false));
    case ArgType::OptionalScalar: return o == Py_None || is_scalar_object(o) || (tensors && is_number_tensor(o, false));
    case ArgType::DType: return o == Py_None || dtype_from_object(o).has_value();
    case ArgType::Device: return o == Py_None || PyUnicode_Check(o) || PyObject_HasAttrString(o, "_yaten_device");
    case ArgType::Generator: return o == Py_None || is_generator_object(o);
    case ArgType::OptionalIntList: return o == Py_None || is_int_sequence(o, size, tensors);
    case ArgType::OptionalString: return o == Py_None || PyUnicode_Check(o);
    case ArgType::ScalarList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
        if (!is_scalar_object(PySequence_Fast_ITEMS(o)[i])) return false;
      }
      return true;
    }
    case ArgType::BoolList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      if (PySequence_Fast_GET_SIZE(o) != size) return false;
      for (Py_ssize_t i = 0; i < size; ++i) {
        if (!PyBool_Check(PySequence_Fast_ITEMS(o)[i])) return false;
      }
      return true;
    }
  }
  return false;
}

const char* type_name(ArgType type) {
  switch (type) {
    case ArgType::Tensor: return "Tensor";
    case ArgType::OptionalTensor: return "Tensor or None";
    case ArgType::TensorList: return "tuple of Tensors";
    case ArgType::Int: return "int";
    case ArgType::OptionalInt: return "int or None";
    case ArgType::IntList: return "tuple of ints";
    case ArgType::Float: return "float";
    case ArgType::OptionalFloat: return "float or None";
    case ArgType::Bool: return "bool";
    case ArgType::OptionalBool: return "bool or None";
    case ArgType::String: return "str";
    case ArgType::Scalar: return "Number";
    case ArgType::OptionalScalar: return "Number or None";
    case ArgType::DType: return "yaten.dtype";
    case ArgType::Device: return "yaten.device or str";
    case ArgType::Generator: return "yaten.Generator";
    case ArgType::OptionalIntList: return "tuple of ints or None";
    case ArgType::OptionalString: return "str or None";
    case ArgType::BoolList: return "tuple of bools";
    case ArgType::ScalarList: return "tuple of Numbers";
  }
  return "?";
}

std::string object_type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// None for an int list that has a default is that default, as torch's parser takes it: `x.sum(dim=None)`,
// `max_pool2d(x, 2, stride=None)`, `x.amax(None)`.
bool none_for_default(const ArgSpec& spec, PyObject* o) {
  return o == Py_None && spec.type == ArgType::IntList && spec.optional;
}

// "tuple of ints, not str", or for a sequence of the wrong things, torch's "tuple of ints, but found element of type
// bool at pos 0".
std::string mismatch(const ArgSpec& spec, PyObject* o) {
  std::string text = std::string(type_name(spec.type));
  const bool int_list = spec.type == ArgType::IntList || spec.type == ArgType::OptionalIntList;
  const bool bool_list = spec.type == ArgType::BoolList;
  if ((int_list || bool_list || spec.type == ArgType::TensorList) && (PyTuple_Check(o) || PyList_Check(o))) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    if ((int_list && spec.size > 1 && n != spec.size) || (bool_list && n != spec.size)) {
      return text + " of length " + std::to_string(spec.size) + ", not a " + object_type_name(o) + " of length " +
             std::to_string(n);
    }
    for (Py_ssize_t k = 0; k < n; ++k) {
      const bool ok = int_list ? is_int_object(items[k]) : bool_list ? PyBool_Check(items[k]) : is_tensor(items[k]);
      if (!ok) {
        return text + ", but found element of type " + object_type_name(items[k]) + " at pos " + std::to_string(k);
      }
    }
  }
  return text + ", not " + object_type_name(o);
}

int64_t int_from_object(PyObject* o) {
  if (PyLong_Check(o)) return int64_from_pylong(o, "an int argument");
  if (is_tensor(o)) {  // a 0-dim integral tensor (Note [Numbers given as tensors])
    PyObject* number = number_from_tensor(o);
    if (!PyLong_Check(number)) {  // matches() lets only integral tensors through; a caller that did not is a bug
      Py_DECREF(number);
      YATEN_FAIL(TypeError, "expected an int or a 0-dim integral tensor for an int argument, got a tensor of another "
                 "dtype");
    }
    const int64_t v = int64_from_pylong(number, "an int argument");
    Py_DECREF(number);
    return v;
  }
  long long v = PyLong_AsLongLong(o);  // __index__ objects
  if (v == -1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw PythonErrorSet();
    PyErr_Clear();
    YATEN_FAIL(ValueError, "Overflow when unpacking long: an int argument does not fit in int64");
  }
  return v;
}

}  // namespace

int64_t int64_from_pylong(PyObject* o, const char* what) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred()) throw PythonErrorSet();
  YATEN_CHECK(overflow == 0, ValueError, "Overflow when unpacking long: ", what, " does not fit in int64");
  return v;
}

bool ParsedArgs::parse(const Signature& sig, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                       std::string* why, bool tensors, bool numbers) {
  // tensors, numbers: numbers_from_tensors, numbers_as_tensors (the header's names)
  sig_ = &sig;
  varargs_ = nullptr;
  nvarargs_ = 0;
  for (int i = 0; i < sig.nargs; ++i) values_[i] = nullptr;
  int npositional = 0;
  while (npositional < sig.nargs && !sig.args[npositional].keyword_only) ++npositional;

  if (nargs > npositional) {
    // torch's `zeros(2, 3)`: an int list that is the only positional argument may be spread out.
    bool spread = npositional == 1 && sig.args[0].type == ArgType::IntList;
    for (Py_ssize_t i = 0; spread && i < nargs; ++i) spread = is_int_object(args[i], tensors);
    if (!spread) {
      if (why) {
        *why = "takes " + std::to_string(npositional) + " positional argument" + (npositional == 1 ? "" : "s") +
               " but " + std::to_string(nargs) + " were given";
      }
      return false;
    }
    varargs_ = args;
    nvarargs_ = nargs;
    values_[0] = args[0];
  } else {
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      const ArgSpec& spec = sig.args[i];
      if (none_for_default(spec, args[i])) continue;
      if (!matches(spec.type, args[i], spec.size, tensors, numbers)) {
        if (why) {
          *why = std::string("argument '") + spec.name + "' (position " + std::to_string(i + 1) + ") must be " +
                 mismatch(spec, args[i]);
        }
        return false;
      }
      values_[i] = args[i];
    }
  }

  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    PyObject* value = args[nargs + k];
    int found = -1;
    for (int i = 0; i < sig.nargs; ++i) {
      if (PyUnicode_CompareWithASCIIString(key, sig.args[i].name) == 0) {
        found = i;
        break;
      }
    }
    if (found < 0) {
      // `out=None` means no out=, as in torch: the overload without one takes the call
      if (value == Py_None && PyUnicode_CompareWithASCIIString(key, "out") == 0) continue;
      if (why) *why = std::string("got an unexpected keyword argument '") + PyUnicode_AsUTF8(key) + "'";
      return false;
    }
    const ArgSpec& spec = sig.args[found];
    if (values_[found] != nullptr) {
      if (why) *why = std::string("got multiple values for argument '") + spec.name + "'";
      return false;
    }
    if (none_for_default(spec, value)) continue;
    if (!matches(spec.type, value, spec.size, tensors, numbers)) {
      if (why) {
        *why = std::string("argument '") + spec.name + "' must be " + mismatch(spec, value);
      }
      return false;
    }
    values_[found] = value;
  }

  for (int i = 0; i < sig.nargs; ++i) {
    if (values_[i] == nullptr && !sig.args[i].optional) {
      if (why) *why = std::string("missing required argument '") + sig.args[i].name + "'";
      return false;
    }
  }
  for (int i = 0; numbers && i < sig.nargs; ++i) {
    const ArgType type = sig.args[i].type;
    if ((type == ArgType::Tensor || type == ArgType::OptionalTensor) && values_[i] != nullptr &&
        values_[i] != Py_None && !is_tensor(values_[i])) {
      numbers_[i] = detail::wrapped_scalar_tensor(scalar_from_object(values_[i]));
    }
  }
  return true;
}

PyObject* ParsedArgs::returned(int i) const {
  if (!numbers_[i].defined()) return Py_NewRef(values_[i]);
  numbers_[i].impl()->set_wrapped_number(false);  // an out= made from a number: an ordinary tensor once written
  return wrap(numbers_[i]);
}

Tensor ParsedArgs::optional_tensor(int i) const {
  return values_[i] == nullptr || values_[i] == Py_None ? Tensor() : unwrap(values_[i]);
}

std::vector<Tensor> ParsedArgs::tensor_list(int i) const {
  std::vector<Tensor> out;
  PyObject* o = values_[i];
  if (o == nullptr) return out;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  out.reserve(n);
  for (Py_ssize_t k = 0; k < n; ++k) out.push_back(unwrap(PySequence_Fast_ITEMS(o)[k]));
  return out;
}

int64_t ParsedArgs::int64(int i, int64_t fallback) const {
  return values_[i] == nullptr ? fallback : int_from_object(values_[i]);
}

std::optional<int64_t> ParsedArgs::optional_int64(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return int_from_object(values_[i]);
}

std::vector<int64_t> ParsedArgs::int_list(int i, std::vector<int64_t> fallback) const {
  if (i == 0 && varargs_ != nullptr) {
    std::vector<int64_t> out(nvarargs_);
    for (Py_ssize_t k = 0; k < nvarargs_; ++k) out[k] = int_from_object(varargs_[k]);
    return out;
  }
  PyObject* o = values_[i];
  if (o == nullptr) return fallback;
  if (!PyTuple_Check(o) && !PyList_Check(o)) {
    int size = sig_->args[i].size;
    return std::vector<int64_t>(size > 0 ? size : 1, int_from_object(o));
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  std::vector<int64_t> out(n);
  PyObject** items = PySequence_Fast_ITEMS(o);
  bool exact_ints = true;  // converting these runs no Python code, so the list cannot change meanwhile
  for (Py_ssize_t k = 0; k < n && exact_ints; ++k) exact_ints = PyLong_CheckExact(items[k]);
  if (exact_ints) {
    for (Py_ssize_t k = 0; k < n; ++k) out[k] = int64_from_pylong(items[k], "an int argument");
    return out;
  }
  // An element's __index__ (or a tensor's item()) is Python code that may change the list, even free the element
  // being read: read a snapshot that owns its items (the reliability issue's second crash class).
  PyObject* snapshot = PySequence_Tuple(o);
  if (snapshot == nullptr) throw PythonErrorSet();
  try {
    for (Py_ssize_t k = 0; k < n; ++k) out[k] = int_from_object(PyTuple_GET_ITEM(snapshot, k));
  } catch (...) {
    Py_DECREF(snapshot);
    throw;
  }
  Py_DECREF(snapshot);
  return out;
}

double ParsedArgs::float64(int i, double fallback) const {
  if (values_[i] == nullptr) return fallback;
  double v = PyFloat_AsDouble(values_[i]);
  if (v == -1.0 && PyErr_Occurred()) throw PythonErrorSet();
  return v;
}

std::optional<double> ParsedArgs::optional_float64(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return float64(i);
}

bool ParsedArgs::boolean(int i, bool fallback) const { return values_[i] == nullptr ? fallback : values_[i] == Py_True; }

std::optional<bool> ParsedArgs::optional_boolean(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return values_[i] == Py_True;
}

std::string ParsedArgs::string(int i, std::string fallback) const {
  if (values_[i] == nullptr) return fallback;
  const char* s = PyUnicode_AsUTF8(values_[i]);
  if (!s) throw PythonErrorSet();
  return s;
}

std::optional<std::string> ParsedArgs::optional_string(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return string(i);
}

std::optional<std::vector<int64_t>> ParsedArgs::optional_int_list(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return int_list(i);
}

yaten::Scalar ParsedArgs::scalar(int i, yaten::Scalar fallback) const {
  return values_[i] == nullptr ? fallback : scalar_from_object(values_[i]);
}

std::optional<yaten::Scalar> ParsedArgs::optional_scalar(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return scalar_from_object(values_[i]);
}

std::vector<yaten::Scalar> ParsedArgs::scalar_list(int i) const {
  std::vector<yaten::Scalar> out;
  if (values_[i] == nullptr) return out;
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(values_[i]); ++k) {
    out.push_back(scalar_from_object(PySequence_Fast_ITEMS(values_[i])[k]));
  }
  return out;
}

std::optional<ScalarType> ParsedArgs::dtype(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return dtype_from_object(values_[i]);
}

std::optional<yaten::Generator> ParsedArgs::generator(int i) const {
  if (!values_[i] || values_[i] == Py_None) return std::nullopt;
  return generator_from_object(values_[i]);
}

std::optional<yaten::Device> ParsedArgs::device(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return std::nullopt;
  return device_from_object(values_[i]);
}

namespace {
std::mutex g_default_device_mutex;
std::optional<yaten::Device> g_default_device;
}  // namespace

std::optional<yaten::Device> default_factory_device() {
  std::lock_guard<std::mutex> lock(g_default_device_mutex);
  return g_default_device;
}

void set_default_factory_device(std::optional<yaten::Device> device) {
  std::lock_guard<std::mutex> lock(g_default_device_mutex);
  g_default_device = device;
}

std::optional<yaten::Device> ParsedArgs::factory_device(int i) const {
  if (values_[i] == nullptr || values_[i] == Py_None) return default_factory_device();
  return device_from_object(values_[i]);
}

void raise_no_match(const char* name, const Signature* const* overloads, int count, PyObject* const* args,
                    Py_ssize_t nargs, PyObject* kwnames) {
  std::string message;
  ParsedArgs p;
  if (count == 1) {
    std::string why;
    p.parse(*overloads[0], args, nargs, kwnames, &why);
    message = std::string(name) + "(): " + why + "\n  expected: " + overloads[0]->text;
  } else {
    message = std::string(name) + "(): arguments did not match any overload:";
    for (int i = 0; i < count; ++i) {
      std::string why;
      p.parse(*overloads[i], args, nargs, kwnames, &why);
      message += std::string("\n  ") + overloads[i]->text + ": " + why;
    }
  }
  YATEN_FAIL(TypeError, message);
}

PyObject* to_python(const std::vector<Tensor>& ts) {
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
  if (!out) throw PythonErrorSet();
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(out, i, wrap(ts[i]));
  return out;
}

PyObject* to_python(const std::vector<yaten::Scalar>& v) {
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(v.size()));
  if (!out) throw PythonErrorSet();
  for (size_t i = 0; i < v.size(); ++i) {
    PyObject* item = to_python(v[i]);
    if (!item) {
      Py_DECREF(out);
      throw PythonErrorSet();
    }
    PyTuple_SET_ITEM(out, i, item);
  }
  return out;
}

PyObject* to_python(const yaten::Scalar& v) {
  if (v.is_bool()) return PyBool_FromLong(v.to<bool>());
  if (v.is_big_unsigned()) return PyLong_FromUnsignedLongLong(v.to_uint64_bits());
  if (v.is_integral()) return PyLong_FromLongLong(v.to_int64());
  return PyFloat_FromDouble(v.to_double());
}

namespace {
// Python's complex, and NumPy's complex scalars (numpy.complex64 is no subclass of complex).
bool is_complex_object(PyObject* o) {
  return PyComplex_Check(o) || std::strncmp(Py_TYPE(o)->tp_name, "numpy.complex", 13) == 0;
}
}  // namespace

bool is_scalar_object(PyObject* o) {
  if (PyFloat_Check(o) || PyLong_Check(o) || is_complex_object(o)) return true;
  if (is_tensor(o)) return false;
  // NumPy scalars and other number types that convert exactly.
  return PyIndex_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float && !PyComplex_Check(o) &&
                              !PyUnicode_Check(o));
}

bool is_number_tensor(PyObject* o, bool integral) {
  if (!is_tensor(o)) return false;
  const Tensor& t = unwrap(o);
  if (t.dim() != 0 || autograd::requires_grad(t)) return false;
  return !integral || is_integral(t.dtype(), /*include_bool=*/false);
}

PyObject* number_from_tensor(PyObject* o) {
  PyObject* number = PyObject_CallMethod(o, "item", nullptr);
  if (number == nullptr) throw PythonErrorSet();
  return number;
}

yaten::Scalar scalar_from_object(PyObject* o) {
  if (PyBool_Check(o)) return yaten::Scalar(o == Py_True);
  if (is_tensor(o)) {  // a 0-dim tensor (Note [Numbers given as tensors]): its value, with its kind
    PyObject* number = number_from_tensor(o);
    try {
      const yaten::Scalar v = scalar_from_object(number);
      Py_DECREF(number);
      return v;
    } catch (...) {
      Py_DECREF(number);
      throw;
    }
  }
  if (PyLong_Check(o) || (!PyFloat_Check(o) && PyIndex_Check(o))) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw PythonErrorSet();
    if (overflow > 0) {  // [2^63, 2^64) is a uint64's (the only dtype besides the floats that holds it)
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return yaten::Scalar::from_uint64(u);
      PyErr_Clear();
    }
    if (overflow != 0) {  // torch's Scalar conversion raises Python's OverflowError here
      PyErr_SetString(PyExc_OverflowError,
                      "int too big to convert: a number argument holds at most an int64 (or a uint64 when positive)");
      throw PythonErrorSet();
    }
    return yaten::Scalar(static_cast<int64_t>(v));
  }
  if (is_complex_object(o)) {
    const Py_complex z = PyComplex_AsCComplex(o);
    if (z.real == -1.0 && PyErr_Occurred()) throw PythonErrorSet();
    return yaten::Scalar(yaten::Complex<double>(z.real, z.imag));
  }
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) throw PythonErrorSet();
  return yaten::Scalar(v);
}

PyObject* out_of_memory_error() {
  // yaten.cuda.OutOfMemoryError: a RuntimeError, so `except RuntimeError` catches it as in torch.
  static PyObject* type = PyErr_NewExceptionWithDoc(
      "yaten.cuda.OutOfMemoryError", "A CUDA allocation failed even after yaten freed its cached memory.",
      PyExc_RuntimeError, nullptr);
  return type;
}

PyObject* linalg_error() {
  // yaten.linalg.LinAlgError: a RuntimeError, as torch.linalg.LinAlgError is.
  static PyObject* type = PyErr_NewExceptionWithDoc(
      "yaten.linalg.LinAlgError", "A linear algebra routine failed: a singular or non-definite matrix, or an "
      "algorithm that did not converge.", PyExc_RuntimeError, nullptr);
  return type;
}

PyObject* accelerator_error() {
  // yaten.AcceleratorError: an error the GPU's runtime reported, a RuntimeError as torch.AcceleratorError is.
  static PyObject* type = PyErr_NewExceptionWithDoc(
      "yaten.AcceleratorError", "An error reported by the accelerator's runtime (CUDA): an illegal address, a "
      "launch failure, a device that cannot be used, ...", PyExc_RuntimeError, nullptr);
  return type;
}

PyObject* zero_division_error() {
  // Integer division by zero: torch raises RuntimeError("ZeroDivisionError"), Python and NumPy users catch
  // ZeroDivisionError; this type is both.
  static PyObject* type = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_RuntimeError, PyExc_ZeroDivisionError);
    PyObject* t = PyErr_NewExceptionWithDoc("yaten.ZeroDivisionError",
                                            "Integer division by zero (a RuntimeError, as in torch, and a "
                                            "ZeroDivisionError).", bases, nullptr);
    Py_XDECREF(bases);
    return t;
  }();
  return type;
}

void set_python_error(const std::exception& e) {
  PyObject* type = PyExc_RuntimeError;
  if (const auto* error = dynamic_cast<const yaten::Error*>(&e)) {
    switch (error->type()) {
      case ErrorType::TypeError: type = PyExc_TypeError; break;
      case ErrorType::ValueError: type = PyExc_ValueError; break;
      case ErrorType::IndexError: type = PyExc_IndexError; break;
      case ErrorType::NotImplementedError: type = PyExc_NotImplementedError; break;
      case ErrorType::RuntimeError: type = PyExc_RuntimeError; break;
      case ErrorType::ZeroDivisionError: type = zero_division_error(); break;
      case ErrorType::OutOfMemoryError: type = out_of_memory_error(); break;
      case ErrorType::LinAlgError: type = linalg_error(); break;
      case ErrorType::AcceleratorError: type = accelerator_error(); break;
    }
  } else if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    // as torch's CPU allocator: a RuntimeError (a MemoryError would escape `except RuntimeError`)
    PyErr_SetString(PyExc_RuntimeError, "out of memory: a host allocation failed (std::bad_alloc)");
    return;
  }
  PyErr_SetString(type, e.what());
}

void set_unknown_python_error() {
  PyErr_SetString(PyExc_RuntimeError, "an unknown C++ exception was raised (one not derived from std::exception)");
}

BindingRegistration::BindingRegistration(const char* name,
                                         PyObject* (*fn)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*),
                                         bool method, const char* doc, const char* module) {
  // without a docstring: module init takes the docs table's (Note [Docstrings live in one compiled file])
  PyMethodDef def{name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)),
                  METH_FASTCALL | METH_KEYWORDS, doc};
  registered_bindings().push_back(Binding{def, method, module});
}

std::vector<Binding>& registered_bindings() {
  static std::vector<Binding> bindings;
  return bindings;
}

namespace {
struct DocTables {
  std::vector<std::pair<const BindingDoc*, size_t>> tables;
  std::map<std::tuple<std::string, std::string, bool>, const char*> index;  // built on the first lookup
};
DocTables& doc_tables() {
  static DocTables t;
  return t;
}
}  // namespace

void register_binding_docs(const BindingDoc* docs, size_t n) { doc_tables().tables.emplace_back(docs, n); }

const char* binding_doc(const char* module, const char* name, bool method) {
  DocTables& t = doc_tables();
  if (t.index.empty()) {
    for (const auto& [docs, n] : t.tables) {
      for (size_t i = 0; i < n; ++i) t.index[{docs[i].module, docs[i].name, docs[i].method}] = docs[i].doc;
    }
  }
  const auto it = t.index.find({module, name, method});
  return it == t.index.end() ? nullptr : it->second;
}

NamedTupleType::NamedTupleType(const char* name, std::initializer_list<const char*> fields)
    : qualified_name_(std::string("yaten.return_types.") + name) {
  for (const char* f : fields) fields_.push_back(PyStructSequence_Field{f, nullptr});
  fields_.push_back(PyStructSequence_Field{nullptr, nullptr});
  registered_named_tuples().push_back(this);
}

void NamedTupleType::create(PyObject* module) {
  desc_ = PyStructSequence_Desc{qualified_name_.c_str(), nullptr, fields_.data(),
                                static_cast<int>(fields_.size() - 1)};
  type_ = PyStructSequence_NewType(&desc_);
  if (!type_) throw PythonErrorSet();
  const char* short_name = qualified_name_.c_str() + std::strlen("yaten.return_types.");
  if (PyModule_AddObject(module, short_name, Py_NewRef(reinterpret_cast<PyObject*>(type_))) < 0) {
    throw PythonErrorSet();
  }
}

PyObject* NamedTupleType::from_tuple(PyObject* items) const {
  PyObject* out = PyStructSequence_New(type_);
  if (!out) {
    Py_DECREF(items);
    throw PythonErrorSet();
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); ++i) {
    PyStructSequence_SetItem(out, i, Py_NewRef(PyTuple_GET_ITEM(items, i)));
  }
  Py_DECREF(items);
  return out;
}

std::vector<NamedTupleType*>& registered_named_tuples() {
  static std::vector<NamedTupleType*> types;
  return types;
}

// A pinned copy of a CPU tensor, with the same shape (contiguous).
Tensor pin_memory(const Tensor& self) {
  YATEN_CHECK(self.device().is_cpu(), RuntimeError, "pin_memory: cannot pin a ", self.device().str(),
              " tensor: only CPU memory can be pinned");
  const size_t nbytes = static_cast<size_t>(self.numel() * element_size(self.dtype()));
  auto storage = std::make_shared<StorageImpl>(cuda::allocate_pinned(nbytes), nbytes, Device(DeviceType::CPU));
  Tensor out(std::make_shared<TensorImpl>(std::move(storage), self.dtype(), self.sizes(),
                                          contiguous_strides(self.sizes()), 0));
  return yaten::copy_(out, self);
}

}  // namespace yaten::python
