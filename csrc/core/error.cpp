// Definitions for core/error.h, core/gil.h and core/deterministic.h: raising errors, warnings, the GIL hooks the
// Python layer sets, the determinism switch.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_set>

#include "core/deterministic.h"
#include "core/error.h"
#include "core/gil.h"

namespace yaten {

namespace detail {
void throw_error(ErrorType type, std::string message) { throw Error(type, std::move(message)); }
GilHooks g_gil_hooks;

void warn(const std::string& message) {
  if (g_gil_hooks.warn == nullptr) {
    std::fprintf(stderr, "yaten warning: %s\n", message.c_str());
    return;
  }
  YATEN_CHECK(g_gil_hooks.warn(message.c_str()), RuntimeError, message);
}

namespace {
std::atomic<bool> g_warn_always{false};
}  // namespace

void set_warn_always(bool always) { g_warn_always.store(always, std::memory_order_relaxed); }
bool warn_always() { return g_warn_always.load(std::memory_order_relaxed); }

void warn_once(const std::string& message) {
  if (!warn_always()) {
    static std::mutex mu;
    static std::unordered_set<std::string> given;
    std::lock_guard<std::mutex> g(mu);
    if (!given.insert(message).second) return;
  }
  warn(message);
}
}  // namespace detail

namespace {
std::atomic<int> g_deterministic{0};
}  // namespace

int deterministic_algorithms_mode() { return g_deterministic.load(std::memory_order_relaxed); }

void set_deterministic_algorithms_mode(int mode) {
  YATEN_CHECK(mode >= 0 && mode <= 2, ValueError, "use_deterministic_algorithms: mode must be 0 (off), 1 (warn) or "
              "2 (error), got ", mode);
  g_deterministic.store(mode, std::memory_order_relaxed);
}

void alert_not_deterministic(const char* what) {
  const int mode = deterministic_algorithms_mode();
  if (mode == 0) return;
  const std::string message = std::string(what) + " does not have a deterministic implementation, but you set "
      "'yaten.use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, or you can "
      "use the 'warn_only=True' option, if that's acceptable for your application.";
  YATEN_CHECK(mode != 2, RuntimeError, message);
  detail::warn(message);
}

}  // namespace yaten
