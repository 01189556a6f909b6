// Registering operators and kernels from C++, like TORCH_LIBRARY / TORCH_LIBRARY_IMPL:
//
//   YATEN_LIBRARY(mylib, m) {
//     m.def("scale(Tensor x, float s) -> Tensor");
//   }
//   YATEN_LIBRARY_IMPL(mylib, CPU, m) {
//     m.impl("scale", YATEN_FN(scale_cpu));   // Tensor scale_cpu(const Tensor& x, double s)
//   }
//
// The generated code registers every op of ops.yaml this way too, naming ops.yaml as the site (the dispatcher adds
// the line from the generated table when it prints one: dispatch/op_sites.h). A kernel is stored typed (for the
// generated C++ API) and boxed (for calls by name through yaten.ops), both made here from its C++ signature.
// Blocks run when the module loads; each records the file and line it was written at.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dispatch/dispatcher.h"

namespace yaten {

namespace detail {
// Boxed entry point for a typed kernel `Ret (*)(DispatchKeySet, Args...)` stored as `context`.
template <typename Ret, typename... Args, size_t... I>
void call_unboxed_from_stack(DispatchKeySet ks, void* context, Stack& stack, std::index_sequence<I...>) {
  auto fn = reinterpret_cast<Ret (*)(DispatchKeySet, Args...)>(context);
  YATEN_CHECK(stack.size() == sizeof...(Args), TypeError, "expected ", sizeof...(Args), " arguments, got ",
              stack.size());
  Ret result = fn(ks, FromIValue<std::decay_t<Args>>::get(stack[I])...);
  stack.clear();
  push_result(stack, std::move(result));
}

template <typename Ret, typename... Args>
void boxed_adapter(const OperatorEntry&, DispatchKeySet ks, void* context, Stack& stack) {
  call_unboxed_from_stack<Ret, Args...>(ks, context, stack, std::index_sequence_for<Args...>{});
}

template <typename Ret, typename... Args>
KernelFunction make_kernel(Ret (*fn)(DispatchKeySet, Args...)) {
  return KernelFunction{reinterpret_cast<void*>(fn), &boxed_adapter<Ret, Args...>, reinterpret_cast<void*>(fn)};
}

// A kernel without the DispatchKeySet parameter, adapted at compile time (YATEN_FN).
template <auto F, typename Ret, typename... Args>
Ret drop_keyset(DispatchKeySet, Args... args) {
  return F(std::forward<Args>(args)...);
}
template <auto F, typename Ret, typename... Args>
KernelFunction make_plain_kernel(Ret (*)(Args...)) {
  return make_kernel(&drop_keyset<F, Ret, Args...>);
}
}  // namespace detail

// YATEN_FN(f): register a plain function `Ret f(Args...)` as a kernel.
#define YATEN_FN(f) ::yaten::detail::make_plain_kernel<&f>(&f)

class Library {
 public:
  // key: the dispatch key of YATEN_LIBRARY_IMPL blocks, nullopt for YATEN_LIBRARY.
  Library(std::string ns, std::optional<DispatchKey> key, std::string file, int line);

  // Defines `ns::schema`. The site defaults to where the block is written.
  Library& def(const std::string& schema, const std::string& site = "");
  // Registers a kernel for `ns::name` under this block's key.
  template <typename Ret, typename... Args>
  Library& impl(const std::string& name, Ret (*fn)(DispatchKeySet, Args...), const std::string& site = "") {
    return impl(name, detail::make_kernel(fn), site);
  }
  Library& impl(const std::string& name, KernelFunction fn, const std::string& site = "");
  // Registers `fn` for `key` explicitly (for kernels that serve several keys, like CompositeImplicit ones).
  Library& impl_for(DispatchKey key, const std::string& name, KernelFunction fn, const std::string& site = "");
  // The typed function that runs Python kernels of `name` (generated per op; see python/python_kernel.h).
  template <typename Ret, typename... Args>
  Library& python_trampoline(const std::string& name, Ret (*fn)(DispatchKeySet, Args...)) {
    Dispatcher::singleton().operator_entry(qualified(name)).set_python_trampoline(reinterpret_cast<void*>(fn));
    return *this;
  }

 private:
  std::string qualified(const std::string& name) const;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string site_;
};

namespace detail {
struct LibraryInit {
  LibraryInit(const char* ns, std::optional<DispatchKey> key, void (*init)(Library&), const char* file, int line) {
    Library library(ns, key, file, line);
    init(library);
  }
};
}  // namespace detail

}  // namespace yaten

#define YATEN_CONCAT_INNER_(a, b) a##b
#define YATEN_CONCAT_(a, b) YATEN_CONCAT_INNER_(a, b)
#define YATEN_LIBRARY_BLOCK_(ns, key, m, uid)                                                                  \
  static void YATEN_CONCAT_(yaten_library_init_, uid)(::yaten::Library&);                                     \
  static const ::yaten::detail::LibraryInit YATEN_CONCAT_(yaten_library_, uid)(                                \
      #ns, key, &YATEN_CONCAT_(yaten_library_init_, uid), __FILE__, __LINE__);                                 \
  void YATEN_CONCAT_(yaten_library_init_, uid)(::yaten::Library & m)

// Defines operators of namespace `ns`. Any number of blocks per namespace, in any files.
#define YATEN_LIBRARY(ns, m) YATEN_LIBRARY_BLOCK_(ns, std::nullopt, m, __COUNTER__)
// Registers kernels of namespace `ns` for one dispatch key (CPU, CUDA, Autograd, Python).
#define YATEN_LIBRARY_IMPL(ns, key, m) YATEN_LIBRARY_BLOCK_(ns, ::yaten::DispatchKey::key, m, __COUNTER__)
