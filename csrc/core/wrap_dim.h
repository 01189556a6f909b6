// wrap_dim: a dim in [-ndim, ndim) made non-negative, or torch's IndexError. A 0-d tensor accepts dims -1 and 0.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/error.h"

namespace yaten {
inline int64_t wrap_dim(const char* op, int64_t dim, int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  YATEN_CHECK(dim >= -n && dim < n, IndexError, op, ": dimension out of range (expected to be in range of [", -n,
              ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}
// For ops that need a real dim to index (unbind, chunk, unflatten, split_with_sizes): a 0-d tensor has none, so
// there it is torch's IndexError rather than the 0-d leniency of wrap_dim.
inline int64_t wrap_real_dim(const char* op, int64_t dim, int64_t ndim) {
  YATEN_CHECK(ndim > 0, IndexError, op, ": Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(op, dim, ndim);
}
}  // namespace yaten
