// The dispatcher: which kernel runs for a call, and why.
//
// Note [Dispatch key order]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Keys, highest priority first: Python, Autocast, Autograd, CUDA, CPU. A call's key set is the union of its tensors'
// backend keys, plus the thread's included keys (Python is always included; Autocast while a yaten.autocast region
// is enabled, Note [Autocast] in autocast.h), minus the thread's excluded keys.
// Of those, only keys that have a kernel for this operator count (each entry keeps a mask of them), so a key with
// nothing registered costs one AND. The kernel of the highest remaining key runs. A kernel that handles one layer
// (a Python kernel, an Autograd kernel) calls the op again below its own key, through an exclude guard or
// yaten::redispatch. So the bit order of DispatchKey below is the priority order: the highest set bit wins.
//
// Each operator has one OperatorEntry with a slot per key. A slot holds the typed ("unboxed") function pointer
// that the generated C++ API calls, and a boxed entry point for calls by name (see IValue). Registration (rare,
// under a lock) stores; a call (hot) loads without locking. See docs/trip-of-a-call.md.
//
// Note [Dispatcher slots are read as one unit]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A registration is three words (typed kernel, boxed kernel, context), and a call on another thread may race a
// registration or a removal. Were the three separate atomics, a call could pair one registration's boxed kernel
// with another's context: a Python kernel's entry point handed a C++ function pointer as its callable. So each
// registration is an immutable KernelFunction record, and a slot publishes a pointer to one: a call loads the
// pointer once and reads all three words from the same record. Records are never freed (a call may still hold
// one that was just replaced; an entry keeps them all, 24 bytes per registration ever made). Beside it, the slot
// keeps a copy of the live record's typed kernel, which the generated C++ API reads alone (a typed kernel of C++
// needs no context; the one of a Python kernel, its trampoline, rereads the record under the GIL:
// python/python_kernel.cpp). A Python kernel's context is a PythonKernelRef whose callable is cleared, under the
// GIL, when it is removed: a call that was dispatched to it just before then runs the kernel registered now.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dispatch/ivalue.h"

namespace yaten {

enum class DispatchKey : uint8_t { CPU = 0, CUDA = 1, Autograd = 2, Autocast = 3, Python = 4, NumKeys = 5 };
constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::NumKeys);
const char* dispatch_key_name(DispatchKey key);
// Parses "CPU", "CUDA", "Autograd", "Autocast", "Python"; NumKeys when unknown.
DispatchKey dispatch_key_from_name(const std::string& name);

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey key) : bits_(uint16_t(1u << static_cast<int>(key))) {}
  static constexpr DispatchKeySet from_bits(uint32_t bits) {
    DispatchKeySet s;
    s.bits_ = static_cast<uint16_t>(bits);
    return s;
  }
  constexpr DispatchKeySet add(DispatchKey key) const { return from_bits(bits_ | (1u << static_cast<int>(key))); }
  constexpr DispatchKeySet remove(DispatchKey key) const {
    return from_bits(bits_ & ~(1u << static_cast<int>(key)));
  }
  // The keys strictly below `key`: what a kernel for `key` redispatches to.
  constexpr DispatchKeySet below(DispatchKey key) const {
    return from_bits(bits_ & ((1u << static_cast<int>(key)) - 1));
  }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr bool has(DispatchKey key) const { return bits_ & (1u << static_cast<int>(key)); }
  constexpr bool empty() const { return bits_ == 0; }
  // The highest-priority key present. See Note [Dispatch key order].
  DispatchKey highest() const { return static_cast<DispatchKey>(31 - __builtin_clz(uint32_t(bits_))); }
  uint16_t bits() const { return bits_; }
  std::string str() const;  // "DispatchKeySet(CPU, Autograd)"

 private:
  uint16_t bits_ = 0;
};

inline DispatchKey backend_key(Device device) {
  return device.is_cuda() ? DispatchKey::CUDA : DispatchKey::CPU;
}

// The key set of a call's arguments: the backend keys of its defined tensors, and Autograd for tensors that
// carry autograd metadata.
inline void add_keys(DispatchKeySet& ks, const Tensor& t) {
  if (!t.defined()) return;
  ks = ks.add(backend_key(t.device()));
  if (__builtin_expect(t.impl()->autograd_meta() != nullptr, 0)) ks = ks.add(DispatchKey::Autograd);
}
inline void add_keys(DispatchKeySet& ks, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) add_keys(ks, t);
}
template <typename... Args>
DispatchKeySet dispatch_key_set(const Args&... tensors) {
  DispatchKeySet ks;
  (add_keys(ks, tensors), ...);
  return ks;
}

// Thread-local keys added to and removed from every call's key set; edited only through the guards below.
struct LocalDispatchKeySet {
  DispatchKeySet included = DispatchKeySet(DispatchKey::Python);
  DispatchKeySet excluded;
};
namespace detail {
// Defined once, in libyaten (dispatcher.cpp), and exported: an `inline` variable here would give every module that
// binds its own copies locally (yaten._C, extensions) a second set of thread-local keys.
extern thread_local LocalDispatchKeySet t_local_dispatch_keys;
}  // namespace detail
inline LocalDispatchKeySet& local_dispatch_keys() { return detail::t_local_dispatch_keys; }

class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKey key);
  ~ExcludeDispatchKeyGuard();
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKey key);
  ~IncludeDispatchKeyGuard();
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

class OperatorEntry;
// A boxed kernel: reads its arguments from `stack`, replaces them with its results. `context` is what was
// registered with it (the typed function for C++ kernels, the callable for Python ones).
using BoxedKernel = void (*)(const OperatorEntry& op, DispatchKeySet ks, void* context, Stack& stack);

struct KernelFunction {
  void* unboxed = nullptr;  // Ret (*)(DispatchKeySet, Args...), the signature the generated C++ API calls
  BoxedKernel boxed = nullptr;
  void* context = nullptr;
  bool defined() const { return unboxed != nullptr || boxed != nullptr; }
};

class OperatorEntry {
 public:
  explicit OperatorEntry(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }  // "yaten::add.Tensor"
  std::string schema() const;
  std::string schema_site() const;
  // Whether the op writes its argument `index` (schema order; its type is annotated `(a!)`): a bit mask parsed once
  // when the op is defined and read without a lock. The boxed path uses it as the generated entry points use their
  // `mutated` list.
  bool writes_argument(size_t index) const {
    return index < 64 && ((written_.load(std::memory_order_acquire) >> index) & 1u) != 0;
  }
  bool is_defined() const;

  // The key that runs for `ks` once the thread's keys and this op's registered keys are applied.
  DispatchKey dispatch_key(DispatchKeySet ks) const {
    const LocalDispatchKeySet& local = local_dispatch_keys();
    const uint32_t bits = (ks.bits() | local.included.bits()) & ~local.excluded.bits() &
                          registered_.load(std::memory_order_acquire);
    if (__builtin_expect(bits == 0, 0)) report_missing_kernel(ks);
    return DispatchKeySet::from_bits(bits).highest();
  }

  // The typed kernel for a call with key set `ks`, cast to the op's C++ signature; NotImplementedError if none.
  template <typename Fn>
  Fn lookup(DispatchKeySet ks) const {
    return reinterpret_cast<Fn>(unboxed_kernel(dispatch_key(ks)));
  }
  // Like lookup, but `ks` is used as given (no thread-local keys): for kernels that redispatch below themselves.
  template <typename Fn>
  Fn lookup_exact(DispatchKeySet ks) const {
    const uint32_t bits = ks.bits() & registered_.load(std::memory_order_acquire);
    if (__builtin_expect(bits == 0, 0)) report_missing_kernel(ks);
    return reinterpret_cast<Fn>(unboxed_kernel(DispatchKeySet::from_bits(bits).highest()));
  }
  // Calls the op by name: arguments on the stack in, results out.
  void call_boxed(DispatchKeySet ks, Stack& stack) const;

  void define(const std::string& schema, const std::string& site);
  // Installs `fn` for `key`, remembering what it replaces; returns a token for `restore`.
  uint64_t register_kernel(DispatchKey key, KernelFunction fn, const std::string& site);
  // Removes the registration `token` made; the kernel it replaced comes back.
  void restore(DispatchKey key, uint64_t token);
  DispatchKeySet registered_keys() const { return DispatchKeySet::from_bits(registered_.load()); }
  bool has_kernel(DispatchKey key) const { return kernel(key).defined(); }
  // The live registration of `key`, read as one unit (Note [Dispatcher slots are read as one unit]).
  KernelFunction kernel(DispatchKey key) const {
    const KernelFunction* live = slots_[static_cast<int>(key)].live.load(std::memory_order_acquire);
    return live ? *live : KernelFunction{};
  }
  // The typed trampoline that runs a Python kernel for this op (generated per op), if there is one.
  void set_python_trampoline(void* fn) { python_trampoline_.store(fn); }
  void* python_trampoline() const { return python_trampoline_.load(); }
  // One line per key: "CPU: ops.yaml:12", for _dispatch_dump and error messages.
  std::string dump() const;

  [[noreturn]] void report_missing_kernel(DispatchKeySet ks) const;

 private:
  struct Slot {
    std::atomic<const KernelFunction*> live{nullptr};  // the registration in force (a record in records_)
    std::atomic<void*> unboxed{nullptr};                // live->unboxed, for the generated C++ API's one load
  };
  struct Registration {
    uint64_t token;
    KernelFunction fn;
    std::string site;
  };
  void* unboxed_kernel(DispatchKey key) const;
  void install_locked(DispatchKey key);

  std::string name_;
  std::array<Slot, kNumDispatchKeys> slots_{};
  std::atomic<uint32_t> registered_{0};
  std::atomic<void*> python_trampoline_{nullptr};
  mutable std::mutex mutex_;  // guards what follows; never taken by a call
  std::string schema_;
  std::string schema_site_;
  std::atomic<uint64_t> written_{0};  // bit i: argument i is written
  std::array<std::vector<Registration>, kNumDispatchKeys> registrations_;  // newest last; the last one is live
  std::deque<KernelFunction> records_;  // every record a slot has published; never shrinks (addresses stay valid)
  uint64_t next_token_ = 1;
};

class Dispatcher {
 public:
  static Dispatcher& singleton();
  // The entry for "yaten::add.Tensor" (or "add.Tensor", which means the same), created on first use so that
  // registration order between files never matters.
  OperatorEntry& operator_entry(const std::string& name);
  OperatorEntry* find(const std::string& name);
  std::vector<std::string> operator_names();
  static std::string qualified(const std::string& name);

 private:
  std::mutex mutex_;
  std::vector<OperatorEntry*> entries_;  // never freed: generated code keeps references in statics
};

// Call hooks. Every call through the generated C++ API opens a CallGuard, which tells the listeners (the trace that
// YATEN_SHOW_DISPATCH_TRACE=1 prints, the profiler in profiler/profiler.h) when the call starts, with its op, key set
// and arguments, and when it ends. With no listener it costs one predictable branch in the constructor and one in
// the destructor, both inline: the arguments are not even looked at.
namespace detail {
// True while someone listens (the trace, a profile); written only when one starts or stops.
extern std::atomic<bool> g_call_hook;

// One argument of a call as the listeners see it: a tensor, a list of tensors, or something else.
struct ArgRef {
  enum Kind : uint8_t { Other, Single, List } kind = Other;
  const void* value = nullptr;  // the Tensor or std::vector<Tensor>
};
inline ArgRef arg_ref(const Tensor& t) { return {ArgRef::Single, &t}; }
inline ArgRef arg_ref(const std::vector<Tensor>& ts) { return {ArgRef::List, &ts}; }
template <typename T>
ArgRef arg_ref(const T&) {
  return {};
}

void enter_call(const OperatorEntry& op, DispatchKeySet ks, const ArgRef* args, size_t count);

// Raises RuntimeError naming `op`: a write into memory its owner made read-only (dispatcher.cpp, out of line).
[[noreturn]] void fail_read_only(const char* op);
// Called by every generated op for each argument it writes (in place, out=), before its kernel runs.
inline void check_writable(const Tensor& t, const char* op) {
  if (__builtin_expect(t.defined() && t.impl()->storage()->read_only(), 0)) fail_read_only(op);
}
// Called by every generated op for each argument it wrote, after its kernel ran: saved tensors over this memory are
// now stale (autograd's version check).
inline void mark_written(const Tensor& t) {
  if (t.defined()) t.impl()->storage()->bump_version();
}
// The multi-tensor ops' written lists (`Tensor(a!)[]`): each tensor as one written argument.
inline void check_writable(const std::vector<Tensor>& ts, const char* op) {
  for (const Tensor& t : ts) check_writable(t, op);
}
inline void mark_written(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) mark_written(t);
}
void leave_call();

class CallGuard {
 public:
  template <typename... Args>
  CallGuard(const OperatorEntry& op, DispatchKeySet ks, const Args&... args)
      : active_(g_call_hook.load(std::memory_order_relaxed)) {
    if (__builtin_expect(active_, 0)) {
      const ArgRef refs[] = {arg_ref(args)..., ArgRef{}};
      enter_call(op, ks, refs, sizeof...(Args));
    }
  }
  ~CallGuard() {
    if (__builtin_expect(active_, 0)) leave_call();
  }
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  bool active_;
};

// The listeners enter_call and leave_call tell (at most one of each kind; the profiler installs itself).
struct CallListener {
  void (*enter)(const OperatorEntry& op, DispatchKeySet ks, const ArgRef* args, size_t count) = nullptr;
  void (*leave)() = nullptr;
};
void set_profiler_listener(CallListener listener);
// Recomputes g_call_hook from the trace flag and whether a profiler listens.
void set_profiler_listening(bool on);
bool dispatch_trace_enabled();
// A span of the trace that is not an op call (an autograd node's run): printed as `[kind] name` at the current
// depth, the calls made inside it indented under it, as the profiler nests them. No-ops without the trace.
void trace_enter_span(const char* kind, const std::string& name);
void trace_leave_span();
}  // namespace detail

}  // namespace yaten
