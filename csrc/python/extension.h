// The Python side of an extension (docs/extensions.md): the module that an extension's generated code builds.
//
// yaten's own bindings register into yaten._C (BindingRegistration); an extension's generated bindings register
// into the ExtensionFunctions of their extension instead, and the extension's generated PyInit_<name> calls
// create_extension_module, which imports yaten (so the Tensor type exists), then makes the module.
#pragma once

#include "python/arg_parser.h"

namespace yaten::python {

struct ExtensionFunctions {
  std::vector<PyMethodDef> defs;  // the module's functions, in ops.yaml order
  PyModuleDef def{};              // lives as long as the extension's code
};

struct ExtensionBinding {
  ExtensionBinding(ExtensionFunctions& functions, const char* name,
                   PyObject* (*fn)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*), const char* doc);
};

// The module `name` (the extension's Python name) holding `functions`; its named-tuple return types are created
// inside it. Returns a new reference, or nullptr with a Python exception set.
PyObject* create_extension_module(const char* name, const char* ns, ExtensionFunctions& functions,
                                  const char* doc);

}  // namespace yaten::python
