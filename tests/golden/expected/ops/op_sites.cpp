// @generated from ops.yaml by codegen (templates/op_sites.cpp.j2): edit those, not this
// Where each op of yaten is declared, for the dispatcher's messages: the only compiled file with ops.yaml line
// numbers, so an entry inserted mid-file recompiles this file and its own (Note [ops.yaml line numbers live in one
// compiled file], codegen/gen.py).
#include "dispatch/op_sites.h"

namespace {
const ::yaten::OpSite sites[] = {
    {"yaten::scale.Tensor", "ops.yaml:4"},
    {"yaten::scale_.Tensor", "ops.yaml:4"},
    {"yaten::scale.out", "ops.yaml:4"},
    {"yaten::scale.Scalar", "ops.yaml:17"},
    {"yaten::fill_range", "ops.yaml:23"},
    {"yaten::minmax", "ops.yaml:30"},
    {"yaten::swap_dims", "ops.yaml:37"},
    {"yaten::join", "ops.yaml:46"},
    {"yaten::nonzero_rows", "ops.yaml:53"},
    {"yaten::affine", "ops.yaml:60"},
};
const ::yaten::OpSiteTable table(sites);
}  // namespace
