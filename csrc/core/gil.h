// Releasing Python's GIL around long kernels, without core/ knowing about Python: the Python layer installs the
// hooks when the module loads. A loop over many elements lets other Python threads run meanwhile.
#pragma once

#include <cstdint>

namespace yaten::detail {

struct GilHooks {
  void* (*release)() = nullptr;        // returns a token, or nullptr if the GIL was not held
  void (*restore)(void* token) = nullptr;
};
extern GilHooks g_gil_hooks;

// Work on at least this many elements releases the GIL.
constexpr int64_t kGilReleaseElements = 1 << 16;

class ScopedGilRelease {
 public:
  explicit ScopedGilRelease(bool when) {
    if (when && g_gil_hooks.release) token_ = g_gil_hooks.release();
  }
  ~ScopedGilRelease() {
    if (token_) g_gil_hooks.restore(token_);
  }
  ScopedGilRelease(const ScopedGilRelease&) = delete;
  ScopedGilRelease& operator=(const ScopedGilRelease&) = delete;

 private:
  void* token_ = nullptr;
};

}  // namespace yaten::detail
