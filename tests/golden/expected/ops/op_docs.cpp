// @generated from ops.yaml by codegen (templates/op_docs.cpp.j2): edit those, not this
// The docstrings of yaten's Python bindings: the only compiled file with ops.yaml's `doc:` texts, so an edit to one
// recompiles this file alone (Note [Docstrings live in one compiled file], codegen/gen.py).
#include "python/binding_docs.h"

namespace {
const ::yaten::python::BindingDoc docs[] = {
    {"", "scale", false, "self * other * alpha."},
    {"", "scale", true, "self * other * alpha."},
    {"", "scale_", true, "In-place form of `scale`: self * other * alpha."},
    {"", "fill_range", false, "A tensor whose elements count up from start."},
    {"special", "minmax", false, "The smallest and largest element."},
    {"", "swap_dims", false, "A view with dimensions dim0 and dim1 swapped."},
    {"", "swap_dims", true, "A view with dimensions dim0 and dim1 swapped."},
    {"", "join", false, "The tensors joined along dim."},
    {"", "nonzero_rows", false,
        "The indices of the rows with a nonzero element (an integer result, without a gradient)."},
    {"", "affine", false, "input * weight + bias, and the scale it used; one formula gives all three gradients."},
};
const ::yaten::python::BindingDocTable table(docs);
}  // namespace
