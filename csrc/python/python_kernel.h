// Kernels written in Python (yaten.library.impl), called from the dispatcher.
//
// Two ways in: the generated per-op trampoline (typed arguments, used when the generated C++ API reaches a slot
// that holds a Python kernel) builds a PythonKernelCall; calls by name (yaten.ops) reach python_boxed_kernel with
// IValues. Both hold the GIL, and exclude the Python key while the Python function runs, so the ops it calls go to
// the kernels below it.
#pragma once

#include "dispatch/dispatcher.h"
#include "python/arg_parser.h"

namespace yaten::python {

// The context of a Python kernel's registration. It owns a reference to the callable until the registration is
// removed, which clears `callable` under the GIL; the ref itself is never freed, since a call on another thread may
// still hold it (Note [Dispatcher slots are read as one unit]).
struct PythonKernelRef {
  PyObject* callable;
};

class PythonKernelCall {
 public:
  // Takes the GIL and finds the Python kernel that `ks` dispatches to now; found() is false when another thread
  // removed it after this call was dispatched (the trampoline then runs the kernel registered now).
  PythonKernelCall(const char* op_name, DispatchKeySet ks);
  bool found() const { return callable_ != nullptr; }
  ~PythonKernelCall();
  PythonKernelCall(const PythonKernelCall&) = delete;
  PythonKernelCall& operator=(const PythonKernelCall&) = delete;

  void arg(const Tensor& t) { push(wrap(t)); }
  void arg(const std::vector<Tensor>& ts) { push(to_python(ts)); }
  void arg(const Scalar& s) { push(to_python(s)); }
  void arg(const std::vector<Scalar>& v);
  void arg(int64_t v) { push(PyLong_FromLongLong(v)); }
  void arg(double v) { push(PyFloat_FromDouble(v)); }
  void arg(bool v) { push(PyBool_FromLong(v)); }
  void arg(const std::string& v) { push(PyUnicode_FromString(v.c_str())); }
  void arg(const std::vector<int64_t>& v);
  template <size_t N>
  void arg(const std::array<bool, N>& v) {
    PyObject* t = PyTuple_New(Py_ssize_t(N));
    for (size_t k = 0; k < N; ++k) PyTuple_SET_ITEM(t, Py_ssize_t(k), PyBool_FromLong(v[k]));
    push(t);
  }
  void arg(ScalarType v) { push(Py_NewRef(dtype_object(v))); }
  void arg(Device v) { push(device_object(v)); }
  void arg(const Generator& g) { push(generator_object(g)); }
  template <typename T>
  void arg(const std::optional<T>& v) {
    if (v.has_value()) {
      arg(*v);
    } else {
      push(Py_NewRef(Py_None));
    }
  }

  // Calls the Python kernel with the arguments pushed so far and converts its result.
  template <typename R>
  R result();

 private:
  void push(PyObject* o);
  PyObject* call();  // new reference
  const OperatorEntry* op_;
  PyGILState_STATE gil_;
  PyObject* callable_ = nullptr;
  std::vector<PyObject*> args_;
};

template <> Tensor PythonKernelCall::result<Tensor>();
template <> std::vector<Tensor> PythonKernelCall::result<std::vector<Tensor>>();
template <> std::tuple<Tensor, Tensor> PythonKernelCall::result<std::tuple<Tensor, Tensor>>();
template <> std::tuple<Tensor, Tensor, Tensor> PythonKernelCall::result<std::tuple<Tensor, Tensor, Tensor>>();
template <>
std::tuple<Tensor, Tensor, Tensor, Tensor> PythonKernelCall::result<std::tuple<Tensor, Tensor, Tensor, Tensor>>();
template <> bool PythonKernelCall::result<bool>();
template <> int64_t PythonKernelCall::result<int64_t>();
template <> double PythonKernelCall::result<double>();
template <> Scalar PythonKernelCall::result<Scalar>();
template <> void PythonKernelCall::result<void>();

// The boxed entry point of every Python kernel; `context` is its PythonKernelRef.
void python_boxed_kernel(const OperatorEntry& op, DispatchKeySet ks, void* context, Stack& stack);

// IValues <-> Python objects, for calls by name. `type` is the schema's type of the argument ("Tensor", "int[]", ...).
IValue ivalue_from_python(PyObject* o, const std::string& type, const std::string& op, const std::string& arg);
PyObject* ivalue_to_python(const IValue& v);

}  // namespace yaten::python
