// An extension's Python module; see extension.h.
#include "python/extension.h"

#include <string>

namespace yaten::python {

ExtensionBinding::ExtensionBinding(ExtensionFunctions& functions, const char* name,
                                   PyObject* (*fn)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*),
                                   const char* doc) {
  functions.defs.push_back(PyMethodDef{name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)),
                                       METH_FASTCALL | METH_KEYWORDS, doc});
}

PyObject* create_extension_module(const char* name, const char* ns, ExtensionFunctions& functions,
                                  const char* doc) {
  // The Tensor type and the dtypes live in yaten._C: make sure it is initialized before any binding runs.
  PyObject* yaten_module = PyImport_ImportModule("yaten");
  if (!yaten_module) return nullptr;
  Py_DECREF(yaten_module);
  if (functions.defs.empty() || functions.defs.back().ml_name != nullptr) {
    functions.defs.push_back(PyMethodDef{nullptr, nullptr, 0, nullptr});
  }
  functions.def = PyModuleDef{PyModuleDef_HEAD_INIT, name, doc, -1, functions.defs.data(),
                              nullptr, nullptr, nullptr, nullptr};
  PyObject* module = PyModule_Create(&functions.def);
  if (!module) return nullptr;
  try {
    // Named-tuple return types declared by this extension (registered when its code loaded, after yaten's), in
    // NAME.return_types as yaten's are in yaten.return_types (on the module itself they would shadow the ops).
    const std::string qualified = std::string(name) + ".return_types";
    PyObject* return_types = PyModule_New(qualified.c_str());
    if (!return_types || PyModule_AddObject(module, "return_types", return_types) < 0) {
      Py_XDECREF(return_types);
      throw PythonErrorSet();
    }
    for (NamedTupleType* t : registered_named_tuples()) {
      if (!t->created()) t->create(return_types);
    }
  } catch (const PythonErrorSet&) {
    Py_DECREF(module);
    return nullptr;
  } catch (const std::exception& e) {
    set_python_error(e);
    Py_DECREF(module);
    return nullptr;
  } catch (...) {
    set_unknown_python_error();
    Py_DECREF(module);
    return nullptr;
  }
  if (PyModule_AddStringConstant(module, "__yaten_namespace__", ns) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}

}  // namespace yaten::python
