// Definitions for core/error.h and core/gil.h: raising errors, warnings, the GIL hooks the Python layer sets.
#include <cstdio>
#include <string>

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
}  // namespace detail

}  // namespace yaten
