// Where each op of an ops.yaml is declared ("ops.yaml:97"), for the dispatcher's messages (_dispatch_dump, missing
// kernels, replaced kernels). The generator writes one table per ops.yaml, in ops/op_sites.cpp; it is the only
// compiled file that holds line numbers (Note [ops.yaml line numbers live in one compiled file], codegen/gen.py).
// The registrations themselves name just the file ("ops.yaml", "ops.yaml (Autograd)"), and the dispatcher
// completes the site from the table when it prints one. Light on purpose: the table's file includes only this.
#pragma once

#include <cstddef>

namespace yaten {

struct OpSite {
  const char* op;    // "yaten::add_.Tensor"
  const char* site;  // "ops.yaml:97" (a `forms:` overload has its entry's line)
};

// Adds `n` sites to the table the dispatcher reads (a static initializer in the generated file calls it).
void register_op_sites(const OpSite* sites, size_t n);

struct OpSiteTable {
  template <size_t N>
  explicit OpSiteTable(const OpSite (&sites)[N]) {
    register_op_sites(sites, N);
  }
};

}  // namespace yaten
