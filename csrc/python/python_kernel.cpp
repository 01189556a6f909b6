#include "python/python_kernel.h"

namespace yaten::python {

PythonKernelCall::PythonKernelCall(const char* op_name, DispatchKeySet ks)
    : op_(&Dispatcher::singleton().operator_entry(op_name)), gil_(PyGILState_Ensure()) {
  // The key this call was dispatched to (computed before the Python key is excluded below), and its registration
  // now, read under the GIL, which every registration and removal of a Python kernel holds: if it is still a
  // Python kernel, its callable is alive.
  const KernelFunction fn = op_->kernel(op_->dispatch_key(ks));
  if (fn.boxed == &python_boxed_kernel) callable_ = static_cast<PythonKernelRef*>(fn.context)->callable;
  Py_XINCREF(callable_);
}

PythonKernelCall::~PythonKernelCall() {
  for (PyObject* a : args_) Py_XDECREF(a);
  Py_XDECREF(callable_);
  PyGILState_Release(gil_);
}

void PythonKernelCall::push(PyObject* o) {
  if (!o) throw PythonErrorSet();
  args_.push_back(o);
}

void PythonKernelCall::arg(const std::vector<int64_t>& v) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(v.size()));
  if (!t) throw PythonErrorSet();
  for (size_t i = 0; i < v.size(); ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  push(t);
}
void PythonKernelCall::arg(const std::vector<Scalar>& v) {
  push(to_python(v));
}

PyObject* PythonKernelCall::call() {
  PyObject* args = PyTuple_New(static_cast<Py_ssize_t>(args_.size()));
  if (!args) throw PythonErrorSet();
  for (size_t i = 0; i < args_.size(); ++i) PyTuple_SET_ITEM(args, i, args_[i]);  // steals
  args_.clear();
  PyObject* result;
  {
    ExcludeDispatchKeyGuard no_python(DispatchKey::Python);
    result = PyObject_Call(callable_, args, nullptr);
  }
  Py_DECREF(args);
  if (!result) throw PythonErrorSet();
  return result;
}

namespace {
[[noreturn]] void bad_result(const OperatorEntry& op, PyObject* result, const char* expected) {
  std::string got = Py_TYPE(result)->tp_name;
  Py_DECREF(result);
  YATEN_FAIL(TypeError, op.name(), ": the Python kernel returned ", got, ", expected ", expected);
}

Tensor tensor_result(const OperatorEntry& op, PyObject* result) {
  if (!is_tensor(result)) bad_result(op, result, "a Tensor");
  Tensor t = unwrap(result);
  Py_DECREF(result);
  return t;
}

std::vector<Tensor> tensors_result(const OperatorEntry& op, PyObject* result, Py_ssize_t expected) {
  if (!PyTuple_Check(result) && !PyList_Check(result)) bad_result(op, result, "a tuple of Tensors");
  PyObject* seq = PySequence_Fast(result, "");
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  std::vector<Tensor> out;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
    if (!is_tensor(item)) {
      Py_DECREF(seq);
      bad_result(op, result, "a tuple of Tensors");
    }
    out.push_back(unwrap(item));
  }
  Py_DECREF(seq);
  if (expected >= 0 && n != expected) bad_result(op, result, "a tuple of the schema's length");
  Py_DECREF(result);
  return out;
}
}  // namespace

template <> Tensor PythonKernelCall::result<Tensor>() { return tensor_result(*op_, call()); }
template <> std::vector<Tensor> PythonKernelCall::result<std::vector<Tensor>>() {
  return tensors_result(*op_, call(), -1);
}
template <> std::tuple<Tensor, Tensor> PythonKernelCall::result<std::tuple<Tensor, Tensor>>() {
  auto v = tensors_result(*op_, call(), 2);
  return {v[0], v[1]};
}
template <> std::tuple<Tensor, Tensor, Tensor> PythonKernelCall::result<std::tuple<Tensor, Tensor, Tensor>>() {
  auto v = tensors_result(*op_, call(), 3);
  return {v[0], v[1], v[2]};
}
template <>
std::tuple<Tensor, Tensor, Tensor, Tensor> PythonKernelCall::result<std::tuple<Tensor, Tensor, Tensor, Tensor>>() {
  auto v = tensors_result(*op_, call(), 4);
  return {v[0], v[1], v[2], v[3]};
}
template <> bool PythonKernelCall::result<bool>() {
  PyObject* r = call();
  if (!PyBool_Check(r)) bad_result(*op_, r, "a bool");
  bool v = r == Py_True;
  Py_DECREF(r);
  return v;
}
template <> int64_t PythonKernelCall::result<int64_t>() {
  PyObject* r = call();
  if (!PyLong_Check(r)) bad_result(*op_, r, "an int");
  int64_t v = 0;
  try {
    v = int64_from_pylong(r, "the kernel's int result");
  } catch (...) {
    Py_DECREF(r);
    throw;
  }
  Py_DECREF(r);
  return v;
}
template <> double PythonKernelCall::result<double>() {
  PyObject* r = call();
  if (!PyFloat_Check(r) && !PyLong_Check(r)) bad_result(*op_, r, "a float");
  double v = PyFloat_AsDouble(r);
  Py_DECREF(r);
  return v;
}
template <> Scalar PythonKernelCall::result<Scalar>() {
  PyObject* r = call();
  if (!is_scalar_object(r)) bad_result(*op_, r, "a number");
  Scalar v = scalar_from_object(r);
  Py_DECREF(r);
  return v;
}
template <> void PythonKernelCall::result<void>() {  // `-> ()`: the kernel returns None
  PyObject* r = call();
  if (r != Py_None) bad_result(*op_, r, "None");
  Py_DECREF(r);
}

// ------------------------------------------------------------------------------------------ boxed calls

IValue ivalue_from_python(PyObject* o, const std::string& type, const std::string& op, const std::string& arg) {
  const bool optional = !type.empty() && type.back() == '?';
  const std::string base = optional ? type.substr(0, type.size() - 1) : type;
  if (o == Py_None && optional) return IValue();
  if ((base == "int" || base == "float" || base == "Scalar") && is_number_tensor(o, base == "int")) {
    // Note [Numbers given as tensors]: the number it holds, converted as a Python number would be
    PyObject* number = number_from_tensor(o);
    try {
      IValue v = ivalue_from_python(number, type, op, arg);
      Py_DECREF(number);
      return v;
    } catch (...) {
      Py_DECREF(number);
      throw;
    }
  }
  auto fail = [&](const char* expected) {
    YATEN_FAIL(TypeError, op, "(): argument '", arg, "' must be ", expected, ", not ", Py_TYPE(o)->tp_name);
  };
  if (base == "Tensor") {
    if (!is_tensor(o)) fail("Tensor");
    return IValue(unwrap(o));
  }
  if (base == "Tensor[]") {
    if (!PyList_Check(o) && !PyTuple_Check(o)) fail("a list of Tensors");
    std::vector<Tensor> ts;
    for (Py_ssize_t i = 0; i < PySequence_Size(o); ++i) {
      PyObject* item = PySequence_GetItem(o, i);
      bool ok = is_tensor(item);
      if (ok) ts.push_back(unwrap(item));
      Py_DECREF(item);
      if (!ok) fail("a list of Tensors");
    }
    return IValue(std::move(ts));
  }
  if (base == "int") {
    if (!PyLong_Check(o)) fail("int");
    return IValue(int64_from_pylong(o, "an int argument"));
  }
  if (base.rfind("int[", 0) == 0) {
    std::vector<int64_t> ints;
    if (PyLong_Check(o)) {
      ints.push_back(int64_from_pylong(o, "an int argument"));
    } else if (PyList_Check(o) || PyTuple_Check(o)) {
      for (Py_ssize_t i = 0; i < PySequence_Size(o); ++i) {
        PyObject* item = PySequence_GetItem(o, i);
        bool ok = item != nullptr && PyLong_Check(item);
        try {
          if (ok) ints.push_back(int64_from_pylong(item, "an int argument"));
        } catch (...) {
          Py_XDECREF(item);
          throw;
        }
        Py_XDECREF(item);
        if (!ok) fail("a list of ints");
      }
    } else {
      fail("a list of ints");
    }
    return IValue(std::move(ints));
  }
  if (base.rfind("bool[", 0) == 0) {  // bool[N]: a list or tuple of exactly N bools
    const size_t n = std::stoul(base.substr(5));
    const std::string expected = "a list of " + std::to_string(n) + " bools";
    if (!(PyList_Check(o) || PyTuple_Check(o)) || size_t(PySequence_Fast_GET_SIZE(o)) != n) fail(expected.c_str());
    IValue v;
    v.tag = IValue::Tag::BoolList;
    for (size_t i = 0; i < n; ++i) {
      PyObject* item = PySequence_Fast_ITEMS(o)[i];  // borrowed
      if (!PyBool_Check(item)) fail(expected.c_str());
      v.bools.push_back(item == Py_True);
    }
    return v;
  }
  if (base == "float") {
    if (!PyFloat_Check(o) && !PyLong_Check(o)) fail("float");
    return IValue(PyFloat_AsDouble(o));
  }
  if (base == "bool") {
    if (!PyBool_Check(o)) fail("bool");
    return IValue(o == Py_True);
  }
  if (base == "str") {
    if (!PyUnicode_Check(o)) fail("str");
    return IValue(std::string(PyUnicode_AsUTF8(o)));
  }
  if (base == "Scalar[]") {  // a list or tuple of numbers
    if (!PyList_Check(o) && !PyTuple_Check(o)) fail("a list of numbers");
    IValue v;
    v.tag = IValue::Tag::ScalarList;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i) {
      PyObject* item = PySequence_Fast_ITEMS(o)[i];  // borrowed
      if (!is_scalar_object(item)) fail("a list of numbers");
      v.scalars.push_back(scalar_from_object(item));
    }
    return v;
  }
  if (base == "Scalar") {
    if (!is_scalar_object(o)) fail("a number");
    return IValue(scalar_from_object(o));
  }
  if (base == "ScalarType") {
    auto dtype = dtype_from_object(o);
    if (!dtype) fail("yaten.dtype");
    return IValue(*dtype);
  }
  if (base == "Device") return IValue(device_from_object(o));
  if (base == "Generator") {
    if (!is_generator_object(o)) fail("yaten.Generator");
    return IValue(generator_from_object(o));
  }
  YATEN_FAIL(NotImplementedError, op, "(): arguments of type ", type, " cannot be passed by name yet");
}

PyObject* ivalue_to_python(const IValue& v) {
  switch (v.tag) {
    case IValue::Tag::None: Py_RETURN_NONE;
    case IValue::Tag::Tensor: return wrap(v.tensor);
    case IValue::Tag::TensorList: return to_python(v.tensors);
    case IValue::Tag::Int: return PyLong_FromLongLong(v.i);
    case IValue::Tag::Double: return PyFloat_FromDouble(v.d);
    case IValue::Tag::Bool: return PyBool_FromLong(v.b);
    case IValue::Tag::String: return PyUnicode_FromString(v.s.c_str());
    case IValue::Tag::Scalar: return to_python(v.scalar);
    case IValue::Tag::IntList: {
      PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(v.ints.size()));
      for (size_t i = 0; i < v.ints.size(); ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v.ints[i]));
      return t;
    }
    case IValue::Tag::BoolList: {
      PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(v.bools.size()));
      for (size_t i = 0; i < v.bools.size(); ++i) PyTuple_SET_ITEM(t, i, PyBool_FromLong(v.bools[i]));
      return t;
    }
    case IValue::Tag::ScalarList: return to_python(v.scalars);
    case IValue::Tag::DType: return Py_NewRef(dtype_object(v.dtype));
    case IValue::Tag::Device: return device_object(v.device);
    case IValue::Tag::Generator: return generator_object(*v.generator);
  }
  Py_RETURN_NONE;
}

namespace {
void push_python_result(const OperatorEntry& op, PyObject* r, Stack& stack) {
  if (is_tensor(r)) {
    stack.emplace_back(unwrap(r));
  } else if (PyTuple_Check(r)) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(r); ++i) push_python_result(op, PyTuple_GET_ITEM(r, i), stack);
  } else if (PyBool_Check(r)) {
    stack.emplace_back(r == Py_True);
  } else if (PyLong_Check(r)) {
    stack.emplace_back(int64_from_pylong(r, "the kernel's int result"));
  } else if (PyFloat_Check(r)) {
    stack.emplace_back(PyFloat_AsDouble(r));
  } else if (r == Py_None) {
    stack.emplace_back();
  } else {
    YATEN_FAIL(TypeError, op.name(), ": the Python kernel returned ", Py_TYPE(r)->tp_name,
               ", expected Tensors or numbers");
  }
}
}  // namespace

void python_boxed_kernel(const OperatorEntry& op, DispatchKeySet ks, void* context, Stack& stack) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* callable = static_cast<PythonKernelRef*>(context)->callable;  // alive while the GIL is held
  if (callable == nullptr) {
    // Removed by another thread after this call was dispatched here: the kernel registered now runs.
    PyGILState_Release(gil);
    op.call_boxed(ks, stack);
    return;
  }
  Py_INCREF(callable);
  PyObject* args = PyTuple_New(static_cast<Py_ssize_t>(stack.size()));
  for (size_t i = 0; i < stack.size(); ++i) PyTuple_SET_ITEM(args, i, ivalue_to_python(stack[i]));
  PyObject* result;
  {
    ExcludeDispatchKeyGuard no_python(DispatchKey::Python);
    result = PyObject_Call(callable, args, nullptr);
  }
  Py_DECREF(callable);
  Py_DECREF(args);
  if (!result) {
    PyGILState_Release(gil);
    throw PythonErrorSet();
  }
  stack.clear();
  try {
    push_python_result(op, result, stack);
  } catch (...) {
    Py_DECREF(result);
    PyGILState_Release(gil);
    throw;
  }
  Py_DECREF(result);
  PyGILState_Release(gil);
}

}  // namespace yaten::python
