// Releasing Python's GIL around long kernels, without core/ knowing about Python: the Python layer installs the
// hooks when the module loads. A loop over many elements lets other Python threads run meanwhile.
#pragma once

#include <cstdint>
#include <string>

namespace yaten::detail {

struct GilHooks {
  void* (*release)() = nullptr;        // returns a token, or nullptr if the GIL was not held
  void (*restore)(void* token) = nullptr;
  bool (*warn)(const char* message) = nullptr;  // a Python UserWarning; false when warnings are errors
};
extern GilHooks g_gil_hooks;

// A warning the user should see (a Python UserWarning once the module is loaded, else a line on stderr). Under
// `-W error` it raises RuntimeError with the same message.
void warn(const std::string& message);
// torch's TORCH_WARN_ONCE: the first time a message is given in the process, unless set_warn_always(true).
void warn_once(const std::string& message);
void set_warn_always(bool always);
bool warn_always();

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
