// Small helpers over shapes for the kernels: "[2, 3, 4]" as error messages print a shape (torch's style), and the
// trailing sizes of a shape (the image sizes of a pooling or im2col input, read by derivative formulas).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace yaten::native {
inline std::string sizes_text(const std::vector<int64_t>& v) {
  std::string text = "[";
  for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
  return text + "]";
}

inline std::vector<int64_t> trailing_sizes(const std::vector<int64_t>& sizes, size_t n) {
  return std::vector<int64_t>(sizes.end() - std::min(n, sizes.size()), sizes.end());
}
}  // namespace yaten::native
