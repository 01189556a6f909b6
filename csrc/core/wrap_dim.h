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
}  // namespace yaten
