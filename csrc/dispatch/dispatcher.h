// The dispatcher: which kernel runs for a call, and why.
//
// Note [Dispatch key order]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Keys, highest priority first: Python, Autograd, CUDA, CPU. A call's key set is the union of its tensors'
// backend keys (plus Autograd and Python when those apply); the kernel of the highest key present runs. A kernel
// that handles one layer (Autograd, Python) redispatches with its own key and everything above it removed. So
// the bit order of DispatchKey below is the priority order: the highest set bit wins.
//
// Each operator has one OperatorEntry with a slot per key. Slots are atomics: registration (rare, under a lock)
// stores, a call (hot) loads without locking. A kernel is stored as an untyped function pointer; the generated C++
// API, which knows the op's signature, casts it back. See docs/trip-of-a-call.md.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace yaten {

enum class DispatchKey : uint8_t { CPU = 0, CUDA = 1, Autograd = 2, Python = 3, NumKeys = 4 };
constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::NumKeys);
const char* dispatch_key_name(DispatchKey key);

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey key) : bits_(uint16_t(1u << static_cast<int>(key))) {}
  constexpr DispatchKeySet add(DispatchKey key) const { return from_bits(bits_ | (1u << static_cast<int>(key))); }
  constexpr DispatchKeySet remove(DispatchKey key) const {
    return from_bits(bits_ & ~(1u << static_cast<int>(key)));
  }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr bool has(DispatchKey key) const { return bits_ & (1u << static_cast<int>(key)); }
  constexpr bool empty() const { return bits_ == 0; }
  // The highest-priority key present. See Note [Dispatch key order].
  DispatchKey highest() const { return static_cast<DispatchKey>(31 - __builtin_clz(uint32_t(bits_))); }
  uint16_t bits() const { return bits_; }
  std::string str() const;  // "DispatchKeySet(CPU, Autograd)"

 private:
  static constexpr DispatchKeySet from_bits(uint32_t bits) {
    DispatchKeySet s;
    s.bits_ = static_cast<uint16_t>(bits);
    return s;
  }
  uint16_t bits_ = 0;
};

inline DispatchKey backend_key(Device device) {
  return device.is_cuda() ? DispatchKey::CUDA : DispatchKey::CPU;
}

// The key set of a call: the backend keys of its defined tensors.
inline void add_keys(DispatchKeySet& ks, const Tensor& t) {
  if (t.defined()) ks = ks.add(backend_key(t.device()));
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

class OperatorEntry {
 public:
  explicit OperatorEntry(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  std::string schema() const;
  std::string schema_site() const;

  // The kernel for the highest key in `ks`, cast to the op's C++ signature; a NotImplementedError if none.
  template <typename Fn>
  Fn lookup(DispatchKeySet ks) const {
    YATEN_CHECK(!ks.empty(), RuntimeError, name_, ": no tensor argument and no device to dispatch on");
    void* fn = kernels_[static_cast<int>(ks.highest())].load(std::memory_order_acquire);
    if (__builtin_expect(fn == nullptr, 0)) report_missing_kernel(ks.highest());
    return reinterpret_cast<Fn>(fn);
  }

  void define(const std::string& schema, const std::string& site);
  void register_kernel(DispatchKey key, void* fn, const std::string& site);
  bool has_kernel(DispatchKey key) const { return kernels_[static_cast<int>(key)].load() != nullptr; }
  // One line per key: "CPU: ops.yaml:12", for _dispatch_dump and error messages.
  std::string dump() const;

  [[noreturn]] void report_missing_kernel(DispatchKey key) const;

 private:
  std::string name_;
  std::array<std::atomic<void*>, kNumDispatchKeys> kernels_{};
  mutable std::mutex mutex_;  // guards the strings below; never taken by a call
  std::string schema_;
  std::string schema_site_;
  std::array<std::string, kNumDispatchKeys> sites_;
};

class Dispatcher {
 public:
  static Dispatcher& singleton();
  // The entry for "add.Tensor", created on first use so that registration order between files never matters.
  OperatorEntry& operator_entry(const std::string& name);
  OperatorEntry* find(const std::string& name);
  std::vector<std::string> operator_names();

 private:
  std::mutex mutex_;
  std::vector<OperatorEntry*> entries_;  // never freed: generated code keeps references in statics
};

// Static registration objects, used by generated code (and open to hand-written code).
struct OperatorDefinition {
  OperatorDefinition(const char* name, const char* schema, const char* site) {
    Dispatcher::singleton().operator_entry(name).define(schema, site);
  }
};
struct KernelRegistration {
  KernelRegistration(const char* name, DispatchKey key, void* fn, const char* site) {
    Dispatcher::singleton().operator_entry(name).register_kernel(key, fn, site);
  }
};

// Tracing: YATEN_SHOW_DISPATCH_TRACE=1 prints each call as it happens. Off, it costs one predictable branch.
namespace detail {
extern bool g_dispatch_trace;
void trace_call(const OperatorEntry& op, DispatchKeySet ks);
struct TraceDepthGuard {
  bool active;
  explicit TraceDepthGuard(bool on);
  ~TraceDepthGuard();
};
}  // namespace detail

}  // namespace yaten
