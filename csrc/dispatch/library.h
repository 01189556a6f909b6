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
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch/dispatcher.h"

namespace yaten {

namespace detail {
// TypeError unless a boxed call's stack holds `expected` arguments (library.cpp: the message is built in one place).
void check_stack_size(size_t size, size_t expected);

// Boxed entry point for a typed kernel `Ret (*)(DispatchKeySet, Args...)` stored as `context`.
template <typename Ret, typename... Args, size_t... I>
void call_unboxed_from_stack(DispatchKeySet ks, void* context, Stack& stack, std::index_sequence<I...>) {
  auto fn = reinterpret_cast<Ret (*)(DispatchKeySet, Args...)>(context);
  check_stack_size(stack.size(), sizeof...(Args));
  if constexpr (std::is_void_v<Ret>) {  // `-> ()`: nothing is pushed
    fn(ks, FromIValue<std::decay_t<Args>>::get(stack[I])...);
    stack.clear();
  } else {
    Ret result = fn(ks, FromIValue<std::decay_t<Args>>::get(stack[I])...);
    stack.clear();
    push_result(stack, std::move(result));
  }
}

template <typename Ret, typename... Args>
void boxed_adapter(const OperatorEntry&, DispatchKeySet ks, void* context, Stack& stack) {
  call_unboxed_from_stack<Ret, Args...>(ks, context, stack, std::index_sequence_for<Args...>{});
}

// Note [Shared boxed adapters]: a kernel's boxed entry point is instantiated in every unit that registers a kernel
// of that signature, and its chain (the stack's conversions, the result's push) is most of what registering an op
// costs to compile. The twelve signatures that six or more op units instantiated (of the 163 yaten's ops use) are
// instantiated once, in library.cpp, and declared here: an op unit of four unary families compiled in 2.8 s instead
// of 3.1, and each family alone in 1.2 s instead of 1.4. Any other signature is instantiated where it is used.
#define YATEN_FOR_SHARED_BOXED_SIGNATURES(X)                                      \
  X(Tensor, const Tensor&)                                                        \
  X(Tensor, const Tensor&, const Tensor&)                                         \
  X(Tensor, const Tensor&, const Tensor&, const Tensor&)                          \
  X(Tensor, const Tensor&, const Scalar&)                                         \
  X(Tensor, const Tensor&, const Scalar&, const Tensor&)                          \
  X(Tensor, const Tensor&, const Scalar&, const Scalar&)                          \
  X(Tensor, const Tensor&, const Tensor&, const Scalar&)                          \
  X(Tensor, const Scalar&, const Tensor&)                                         \
  X(Tensor, const Scalar&, const Tensor&, const Tensor&)                          \
  X(Tensor, const Tensor&, int64_t)                                               \
  X(Tensor, const Tensor&, const std::vector<int64_t>&)                           \
  X(std::tuple<Tensor, Tensor>, const Tensor&, int64_t, bool)
#define YATEN_DECLARE_BOXED_ADAPTER_(...) \
  extern template void boxed_adapter<__VA_ARGS__>(const OperatorEntry&, DispatchKeySet, void*, Stack&);
YATEN_FOR_SHARED_BOXED_SIGNATURES(YATEN_DECLARE_BOXED_ADAPTER_)
#undef YATEN_DECLARE_BOXED_ADAPTER_

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

  // Names, schemas and sites are string_views, so that each of the generated code's ~2,000 registration lines
  // passes pointers instead of building and freeing std::string temporaries inline. With the blocks' functions cold
  // (YATEN_LIBRARY_BLOCK_) and LibraryInit out of line, four unary families' sources compiled 2.4% faster apart.
  // Defines `ns::schema`. The site defaults to where the block is written.
  Library& def(std::string_view schema, std::string_view site = {});
  // Registers a kernel for `ns::name` under this block's key.
  template <typename Ret, typename... Args>
  Library& impl(std::string_view name, Ret (*fn)(DispatchKeySet, Args...), std::string_view site = {}) {
    return impl(name, detail::make_kernel(fn), site);
  }
  Library& impl(std::string_view name, KernelFunction fn, std::string_view site = {});
  // Registers `fn` for `key` explicitly (for kernels that serve several keys, like CompositeImplicit ones).
  Library& impl_for(DispatchKey key, std::string_view name, KernelFunction fn, std::string_view site = {});
  // The typed function that runs Python kernels of `name` (generated per op; see python/python_kernel.h).
  template <typename Ret, typename... Args>
  Library& python_trampoline(std::string_view name, Ret (*fn)(DispatchKeySet, Args...)) {
    return set_python_trampoline(name, reinterpret_cast<void*>(fn));
  }

 private:
  Library& set_python_trampoline(std::string_view name, void* fn);
  std::string qualified(std::string_view name) const;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string site_;
};

namespace detail {
struct LibraryInit {
  LibraryInit(const char* ns, std::optional<DispatchKey> key, void (*init)(Library&), const char* file, int line);
};
}  // namespace detail

}  // namespace yaten

// A block's function runs once, when the module loads: cold, so that it is compiled for size.
#define YATEN_CONCAT_INNER_(a, b) a##b
#define YATEN_CONCAT_(a, b) YATEN_CONCAT_INNER_(a, b)
#define YATEN_LIBRARY_BLOCK_(ns, key, m, uid)                                                                  \
  __attribute__((cold)) static void YATEN_CONCAT_(yaten_library_init_, uid)(::yaten::Library&);              \
  static const ::yaten::detail::LibraryInit YATEN_CONCAT_(yaten_library_, uid)(                                \
      #ns, key, &YATEN_CONCAT_(yaten_library_init_, uid), __FILE__, __LINE__);                                 \
  void YATEN_CONCAT_(yaten_library_init_, uid)(::yaten::Library & m)

// Defines operators of namespace `ns`. Any number of blocks per namespace, in any files.
#define YATEN_LIBRARY(ns, m) YATEN_LIBRARY_BLOCK_(ns, std::nullopt, m, __COUNTER__)
// Registers kernels of namespace `ns` for one dispatch key (CPU, CUDA, Autograd, Python).
#define YATEN_LIBRARY_IMPL(ns, key, m) YATEN_LIBRARY_BLOCK_(ns, ::yaten::DispatchKey::key, m, __COUNTER__)
