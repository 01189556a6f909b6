// The runtime of the generated Python bindings (Design rule [Python layer]).
//
// The Python tensor is a plain CPython object holding a yaten::Tensor, so unwrapping costs a pointer offset. Each
// generated entry point is a METH_FASTCALL | METH_KEYWORDS function that tries its overloads in ops.yaml order
// with ParsedArgs::parse against a generated Signature table, converts the matched arguments with the typed
// accessors, calls the C++ API, and wraps the result. Nothing here allocates on the success path except the
// result object.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <array>
#include <exception>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/tensor.h"

namespace yaten::python {

struct PyTensor {
  PyObject_HEAD
  Tensor tensor;
};

// A pinned (page-locked) copy of a CPU tensor (python/cuda_python.cpp): Tensor.pin_memory() and the factories'
// pin_memory=True; a RuntimeError on a build without CUDA.
Tensor pin_memory(const Tensor& self);

extern PyTypeObject* g_tensor_type;

inline bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == g_tensor_type || PyType_IsSubtype(Py_TYPE(o), g_tensor_type);
}
inline const Tensor& unwrap(PyObject* o) { return reinterpret_cast<PyTensor*>(o)->tensor; }
// A new Python tensor for `t` (None for an undefined tensor).
PyObject* wrap(Tensor t);

// Thrown by C++ code that called into Python and found an exception set; the binding returns nullptr.
struct PythonErrorSet {};
// Sets the Python exception that the caught `e` stands for: yaten's error types as the Python types of the same
// names, std::bad_alloc and anything else as RuntimeError. See Note [Exceptions are handled where they are caught].
void set_python_error(const std::exception& e);
// For a caught exception of no known type: RuntimeError.
void set_unknown_python_error();
// The class yaten.cuda.OutOfMemoryError (made on first use).
PyObject* out_of_memory_error();
// yaten.linalg.LinAlgError, a RuntimeError.
PyObject* linalg_error();
// yaten.AcceleratorError (ErrorType::AcceleratorError).
PyObject* accelerator_error();

// Note [Exceptions are handled where they are caught]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A toolchain that links the C++ runtime statically into each shared object (the GPU machine's g++, manylinux
// builds) gives libyaten, yaten._C and every extension module a runtime of their own, and with it their own record
// of the exception being handled. A bare `throw;` (or std::current_exception) run in libyaten for an exception
// caught in yaten._C finds no exception in hand and calls std::terminate: the process aborts where it should raise.
// So no function rethrows for its caller: each catch clause names the types it handles and passes the exception
// object on (set_python_error(e)), and these macros expand those clauses in the caller's own code.
#define YATEN_PY_BEGIN try {
#define YATEN_PY_END_RETURNING(failed)                                   \
  }                                                                      \
  catch (const ::yaten::python::PythonErrorSet&) {                       \
    return failed;                                                       \
  }                                                                      \
  catch (const std::exception& e) {                                      \
    ::yaten::python::set_python_error(e);                                \
    return failed;                                                       \
  }                                                                      \
  catch (...) {                                                          \
    ::yaten::python::set_unknown_python_error();                         \
    return failed;                                                       \
  }
#define YATEN_PY_END YATEN_PY_END_RETURNING(nullptr)

enum class ArgType : uint8_t {
  Tensor, OptionalTensor, TensorList, Int, OptionalInt, IntList, Float, OptionalFloat, Bool, OptionalBool,
  String, Scalar, OptionalScalar, DType, Device, OptionalIntList, OptionalString, Generator, BoolList, ScalarList,
};

struct ArgSpec {
  const char* name;
  ArgType type;
  bool keyword_only;
  bool optional;  // has a default, so may be omitted
  int size;       // int[N] and bool[N]: N; otherwise 0
};

struct Signature {
  const char* text;  // for error messages: "add(Tensor input, Tensor other, *, Number alpha=1)"
  const ArgSpec* args;
  int nargs;
};

class ParsedArgs {
 public:
  static constexpr int kMaxArgs = 16;

  // Matches the call against `sig`; on success the accessors below read the arguments. With `why`, a failure
  // explains itself there (used only to build the TypeError once every overload failed).
  // With `numbers_from_tensors`, a 0-dim tensor also stands for a number (Note [Numbers given as tensors]); with
  // `numbers_as_tensors`, a Python number stands for a Tensor argument (Note [Numbers given for tensors]).
  bool parse(const Signature& sig, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
             std::string* why = nullptr, bool numbers_from_tensors = false, bool numbers_as_tensors = false);

  PyObject* object(int i) const { return values_[i]; }
  bool has(int i) const { return values_[i] != nullptr; }

  const Tensor& tensor(int i) const { return numbers_[i].defined() ? numbers_[i] : unwrap(values_[i]); }
  // The Python object an op that returns argument `i` returns (a new reference): that very object, or the tensor
  // made for a number given in its place.
  PyObject* returned(int i) const;
  Tensor optional_tensor(int i) const;
  std::vector<Tensor> tensor_list(int i) const;
  int64_t int64(int i, int64_t fallback = 0) const;
  std::optional<int64_t> optional_int64(int i) const;
  std::vector<int64_t> int_list(int i, std::vector<int64_t> fallback = {}) const;
  double float64(int i, double fallback = 0) const;
  std::optional<double> optional_float64(int i) const;
  bool boolean(int i, bool fallback = false) const;
  std::optional<bool> optional_boolean(int i) const;
  std::string string(int i, std::string fallback = {}) const;
  std::optional<std::string> optional_string(int i) const;
  std::optional<std::vector<int64_t>> optional_int_list(int i) const;
  // bool[N] (torch's output_mask): parse() let through only a list or tuple of exactly N bools.
  template <size_t N>
  std::array<bool, N> bool_list(int i, std::array<bool, N> fallback = {}) const {
    if (values_[i] == nullptr) return fallback;
    std::array<bool, N> out{};
    for (size_t k = 0; k < N; ++k) out[k] = PySequence_Fast_ITEMS(values_[i])[k] == Py_True;
    return out;
  }
  yaten::Scalar scalar(int i, yaten::Scalar fallback = yaten::Scalar()) const;
  std::optional<yaten::Scalar> optional_scalar(int i) const;
  std::vector<yaten::Scalar> scalar_list(int i) const;  // Scalar[]: parse() let through a list or tuple of numbers
  std::optional<ScalarType> dtype(int i) const;
  std::optional<yaten::Device> device(int i) const;
  // A factory's device= (an op without Tensor arguments): when not given, yaten.set_default_device's, if any.
  std::optional<yaten::Device> factory_device(int i) const;
  std::optional<yaten::Generator> generator(int i) const;

 private:
  PyObject* values_[kMaxArgs];
  Tensor numbers_[kMaxArgs];  // wrapped-number tensors for numbers given as Tensor arguments
  const Signature* sig_ = nullptr;
  // `zeros(2, 3)`: the positional ints that stand for the first argument's int list.
  PyObject* const* varargs_ = nullptr;
  Py_ssize_t nvarargs_ = 0;
};

// Raises the TypeError for a call that matched none of `overloads`, explaining why each failed.
[[noreturn]] void raise_no_match(const char* name, const Signature* const* overloads, int count,
                                 PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// Python values of C++ results.
inline PyObject* to_python(Tensor t) { return wrap(std::move(t)); }
PyObject* to_python(const std::vector<Tensor>& ts);
inline PyObject* to_python(bool v) { return PyBool_FromLong(v); }
inline PyObject* to_python(int64_t v) { return PyLong_FromLongLong(v); }
inline PyObject* to_python(double v) { return PyFloat_FromDouble(v); }
PyObject* to_python(const yaten::Scalar& v);
PyObject* to_python(const std::vector<yaten::Scalar>& v);
template <typename... Ts>
PyObject* to_python(std::tuple<Ts...> values) {
  PyObject* out = PyTuple_New(sizeof...(Ts));
  if (!out) throw PythonErrorSet();
  Py_ssize_t i = 0;
  std::apply([&](auto&... v) { ((PyTuple_SET_ITEM(out, i++, to_python(std::move(v)))), ...); }, values);
  return out;
}

// Conversions shared with hand-written bindings.
bool is_scalar_object(PyObject* o);
// Note [Numbers given as tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As in torch, a 0-dim tensor that does not require grad stands for a number where a schema says Scalar or float
// (any dtype) or int (an integral dtype, also inside int lists): x.masked_fill(m, t.max()), x.narrow(0, i, n) with
// i a tensor. The bindings try every overload without this first, so an overload that takes a Tensor there wins:
// add(x, tensor(2.)) is add.Tensor, which promotes as a tensor, not add.Scalar. The value is read with item()
// (a device sync for a CUDA tensor, as in torch).
bool is_number_tensor(PyObject* o, bool integral);
// Note [Numbers given for tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The other way round, for the ops torch's parser names in `should_allow_numbers_as_tensors` (add, sub, mul, div,
// true_divide, floor_divide, copy_ and their aliases, in-place and out= forms): a Python number stands for any
// Tensor argument, as a 0-dim wrapped-number tensor (promoting as a number): `yaten.add(2, 3.5)`,
// `yaten.floor_divide(7, t)`, `t.copy_(1.5)`. Only in the parser's second pass, so `add(t, 2)` stays add.Scalar.
PyObject* number_from_tensor(PyObject* o);  // new reference: the tensor's item()
// A Python int as int64: ValueError naming `what` when it does not fit (never a pending OverflowError, which
// Python would report as SystemError), as torch's "Overflow when unpacking long long". (A number argument that does
// not fit is Python's OverflowError, as torch's "int too big to convert".)
int64_t int64_from_pylong(PyObject* o, const char* what);
yaten::Scalar scalar_from_object(PyObject* o);
PyObject* dtype_object(ScalarType t);                // borrowed: yaten.float32, ...
std::optional<ScalarType> dtype_from_object(PyObject* o);  // nullopt when `o` is no yaten.dtype
yaten::Device device_from_object(PyObject* o);      // str or yaten.device; ValueError otherwise
// yaten.set_default_device: where factories called from Python make tensors when device= is not given (nullopt:
// the CPU, yaten's default). C++ callers are not affected, as torch's default device is a Python-level mode.
std::optional<yaten::Device> default_factory_device();
void set_default_factory_device(std::optional<yaten::Device> device);
PyObject* device_object(yaten::Device d);           // new reference to a yaten.device
bool is_generator_object(PyObject* o);              // a yaten.Generator (defined with the module, in module.cpp)
yaten::Generator generator_from_object(PyObject* o);
PyObject* generator_object(const yaten::Generator& g);  // new reference

// Generated bindings register themselves here when the module's shared library loads; module init collects them.
// `module` is "" for yaten itself, or the ops.yaml python_module ("linalg", "nn.functional", ...). doc: nullptr for
// yaten's own, whose docstrings module init takes from ops/op_docs.cpp (python/binding_docs.h).
struct BindingRegistration {
  BindingRegistration(const char* name, PyObject* (*fn)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*),
                      bool method, const char* doc, const char* module = "");
};
struct Binding {
  PyMethodDef def;
  bool method;
  std::string module;
};
std::vector<Binding>& registered_bindings();

// A named tuple type for an op with named returns, like torch.return_types.max: yaten.return_types.NAME.
class NamedTupleType {
 public:
  NamedTupleType(const char* name, std::initializer_list<const char*> fields);
  // Creates the type inside `module` (yaten._C.return_types); called once at module init.
  void create(PyObject* module);
  bool created() const { return type_ != nullptr; }
  template <typename... Ts>
  PyObject* make(std::tuple<Ts...> values) const {
    PyObject* items = to_python(std::move(values));
    return from_tuple(items);
  }

 private:
  PyObject* from_tuple(PyObject* items) const;  // steals `items`
  std::string qualified_name_;
  std::vector<PyStructSequence_Field> fields_;
  PyStructSequence_Desc desc_{};
  PyTypeObject* type_ = nullptr;
};
std::vector<NamedTupleType*>& registered_named_tuples();

}  // namespace yaten::python
