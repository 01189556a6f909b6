// The docstrings of yaten's generated Python bindings, by binding: the generator writes them all into one table,
// ops/op_docs.cpp, rather than into each op's source, so that an edit to an op's `doc:` in ops.yaml recompiles that
// small file alone instead of the op's unit (Note [Docstrings live in one compiled file], codegen/gen.py). Module
// init gives each binding registered without a docstring the table's. Light on purpose: the table's file includes
// only this.
#pragma once

#include <cstddef>

namespace yaten::python {

struct BindingDoc {
  const char* module;  // "" for yaten itself, else the ops.yaml python_module ("linalg", ...)
  const char* name;    // the Python name ("add", "add_")
  bool method;         // a Tensor method, or a function
  const char* doc;
};

// Adds `n` docstrings to the table module init reads (a static initializer in the generated file calls it).
void register_binding_docs(const BindingDoc* docs, size_t n);

struct BindingDocTable {
  template <size_t N>
  explicit BindingDocTable(const BindingDoc (&docs)[N]) {
    register_binding_docs(docs, N);
  }
};

// The docstring registered for (module, name, method), or nullptr.
const char* binding_doc(const char* module, const char* name, bool method);

}  // namespace yaten::python
