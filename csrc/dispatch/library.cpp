// Definitions for dispatch/library.h: the YATEN_LIBRARY blocks' Library, which defines operators and registers
// kernels in the dispatcher, with the file:line each came from.
#include "dispatch/library.h"

#include <optional>
#include <string>

#include "core/error.h"
#include "dispatch/dispatcher.h"

namespace yaten {

Library::Library(std::string ns, std::optional<DispatchKey> key, std::string file, int line)
    : ns_(std::move(ns)), key_(key) {
  // Sites are reported relative to the source tree when the path says where it is.
  const size_t csrc = file.rfind("/csrc/");
  site_ = (csrc == std::string::npos ? file : file.substr(csrc + 1)) + ":" + std::to_string(line);
}

std::string Library::qualified(const std::string& name) const {
  return name.find("::") == std::string::npos ? ns_ + "::" + name : name;
}

Library& Library::def(const std::string& schema, const std::string& site) {
  const std::string name = schema.substr(0, schema.find('('));
  YATEN_CHECK(!name.empty() && schema.find("->") != std::string::npos, ValueError, "Library::def: expected a schema ",
              "like 'scale(Tensor x, float s) -> Tensor', got '", schema, "'");
  Dispatcher::singleton().operator_entry(qualified(name)).define(schema, site.empty() ? site_ : site);
  return *this;
}

Library& Library::impl(const std::string& name, KernelFunction fn, const std::string& site) {
  YATEN_CHECK(key_.has_value(), RuntimeError, "Library::impl: use YATEN_LIBRARY_IMPL(ns, KEY, m) to register ",
              "kernels; YATEN_LIBRARY blocks only define ops");
  return impl_for(*key_, name, fn, site);
}

Library& Library::impl_for(DispatchKey key, const std::string& name, KernelFunction fn, const std::string& site) {
  Dispatcher::singleton().operator_entry(qualified(name)).register_kernel(key, fn, site.empty() ? site_ : site);
  return *this;
}

}  // namespace yaten
