// Small helpers over shapes for the kernels: "[2, 3, 4]" as error messages print a shape (torch's style), size
// arithmetic that refuses to overflow, and the trailing sizes of a shape (the image sizes of a pooling or im2col
// input, read by derivative formulas).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"

namespace yaten::native {
// "[2, 3, 4]". Out of line (iter/tensor_iterator.cpp): inline, it was compiled again in each unit that prints a shape.
std::string sizes_text(const std::vector<int64_t>& v);

// a * b and a + b for sizes computed from arguments, a RuntimeError naming `op` where int64 would overflow (a huge
// padding, stride or kernel must not wrap around into a small buffer).
inline int64_t checked_mul(const char* op, int64_t a, int64_t b) {
  int64_t r;
  YATEN_CHECK(!__builtin_mul_overflow(a, b, &r), RuntimeError, op, ": sizes too large (", a, " * ", b,
              " overflows int64)");
  return r;
}
inline int64_t checked_add(const char* op, int64_t a, int64_t b) {
  int64_t r;
  YATEN_CHECK(!__builtin_add_overflow(a, b, &r), RuntimeError, op, ": sizes too large (", a, " + ", b,
              " overflows int64)");
  return r;
}

inline std::vector<int64_t> trailing_sizes(const std::vector<int64_t>& sizes, size_t n) {
  return std::vector<int64_t>(sizes.end() - std::min(n, sizes.size()), sizes.end());
}
}  // namespace yaten::native
