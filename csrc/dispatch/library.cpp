// Definitions for dispatch/library.h: the YATEN_LIBRARY blocks' Library, which defines operators and registers
// kernels in the dispatcher, with the file:line each came from.
#include "dispatch/library.h"

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "dispatch/dispatcher.h"

namespace yaten {

Library::Library(std::string ns, std::optional<DispatchKey> key, std::string file, int line)
    : ns_(std::move(ns)), key_(key) {
  // Sites are reported relative to the source tree when the path says where it is.
  const size_t csrc = file.rfind("/csrc/");
  site_ = (csrc == std::string::npos ? file : file.substr(csrc + 1)) + ":" + std::to_string(line);
}

std::string Library::qualified(std::string_view name) const {
  return name.find("::") == std::string_view::npos ? ns_ + "::" + std::string(name) : std::string(name);
}

Library& Library::def(std::string_view schema, std::string_view site) {
  const std::string_view name = schema.substr(0, schema.find('('));
  YATEN_CHECK(!name.empty() && schema.find("->") != std::string_view::npos, ValueError,
              "Library::def: expected a schema like 'scale(Tensor x, float s) -> Tensor', got '", schema, "'");
  Dispatcher::singleton().operator_entry(qualified(name)).define(std::string(schema),
                                                                 site.empty() ? site_ : std::string(site));
  return *this;
}

Library& Library::impl(std::string_view name, KernelFunction fn, std::string_view site) {
  YATEN_CHECK(key_.has_value(), RuntimeError, "Library::impl: use YATEN_LIBRARY_IMPL(ns, KEY, m) to register ",
              "kernels; YATEN_LIBRARY blocks only define ops");
  return impl_for(*key_, name, fn, site);
}

Library& Library::impl_for(DispatchKey key, std::string_view name, KernelFunction fn, std::string_view site) {
  Dispatcher::singleton().operator_entry(qualified(name)).register_kernel(key, fn,
                                                                          site.empty() ? site_ : std::string(site));
  return *this;
}

Library& Library::set_python_trampoline(std::string_view name, void* fn) {
  Dispatcher::singleton().operator_entry(qualified(name)).set_python_trampoline(fn);
  return *this;
}

namespace detail {
void check_stack_size(size_t size, size_t expected) {
  YATEN_CHECK(size == expected, TypeError, "expected ", expected, " arguments, got ", size);
}

void push_result(Stack& stack, Tensor t) { stack.emplace_back(std::move(t)); }
void push_result(Stack& stack, std::vector<Tensor> ts) { stack.emplace_back(std::move(ts)); }
void push_result(Stack& stack, int64_t v) { stack.emplace_back(v); }
void push_result(Stack& stack, double v) { stack.emplace_back(v); }
void push_result(Stack& stack, bool v) { stack.emplace_back(v); }
void push_result(Stack& stack, Scalar v) { stack.emplace_back(v); }

// Note [Shared boxed adapters] in library.h.
#define YATEN_INSTANTIATE_BOXED_ADAPTER_(...) \
  template void boxed_adapter<__VA_ARGS__>(const OperatorEntry&, DispatchKeySet, void*, Stack&);
YATEN_FOR_SHARED_BOXED_SIGNATURES(YATEN_INSTANTIATE_BOXED_ADAPTER_)
#undef YATEN_INSTANTIATE_BOXED_ADAPTER_

LibraryInit::LibraryInit(const char* ns, std::optional<DispatchKey> key, void (*init)(Library&), const char* file,
                         int line) {
  Library library(ns, key, file, line);
  init(library);
}
}  // namespace detail

}  // namespace yaten
