#include "dispatch/dispatcher.h"

#include <cstdio>
#include <cstdlib>

namespace yaten {

const char* dispatch_key_name(DispatchKey key) {
  switch (key) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Python: return "Python";
    default: return "?";
  }
}

std::string DispatchKeySet::str() const {
  std::string out = "DispatchKeySet(";
  bool first = true;
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    if (!has(static_cast<DispatchKey>(k))) continue;
    if (!first) out += ", ";
    out += dispatch_key_name(static_cast<DispatchKey>(k));
    first = false;
  }
  return out + ")";
}

std::string OperatorEntry::schema() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return schema_;
}

std::string OperatorEntry::schema_site() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return schema_site_;
}

void OperatorEntry::define(const std::string& schema, const std::string& site) {
  std::lock_guard<std::mutex> lock(mutex_);
  YATEN_CHECK(schema_.empty() || schema_ == schema, RuntimeError, "yaten::", name_,
              " is already defined with a different schema: '", schema_, "' (", schema_site_, "), now '", schema,
              "' (", site, ")");
  schema_ = schema;
  schema_site_ = site;
}

void OperatorEntry::register_kernel(DispatchKey key, void* fn, const std::string& site) {
  std::lock_guard<std::mutex> lock(mutex_);
  int k = static_cast<int>(key);
  if (kernels_[k].load() != nullptr) {
    std::fprintf(stderr, "yaten: warning: yaten::%s already has a %s kernel (%s); %s replaces it\n", name_.c_str(),
                 dispatch_key_name(key), sites_[k].c_str(), site.c_str());
  }
  sites_[k] = site;
  kernels_[k].store(fn, std::memory_order_release);
}

std::string OperatorEntry::dump() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out = "yaten::" + name_ + "\nschema: " + schema_ + "\n";
  if (!schema_site_.empty()) out += "defined at: " + schema_site_ + "\n";
  for (int k = kNumDispatchKeys - 1; k >= 0; --k) {
    if (kernels_[k].load() == nullptr) continue;
    out += std::string(dispatch_key_name(static_cast<DispatchKey>(k))) + ": " + sites_[k] + "\n";
  }
  return out;
}

void OperatorEntry::report_missing_kernel(DispatchKey key) const {
  std::string registered;
  std::string first_site;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int k = kNumDispatchKeys - 1; k >= 0; --k) {
      if (kernels_[k].load() == nullptr) continue;
      if (!registered.empty()) registered += ", ";
      registered += std::string(dispatch_key_name(static_cast<DispatchKey>(k))) + " (" + sites_[k] + ")";
      if (first_site.empty()) first_site = sites_[k];
    }
  }
  std::string fix;
  if (key == DispatchKey::CUDA) {
    fix = " Move the tensors with .cpu(), or add a CUDA kernel" + (first_site.empty() ? "" : " in " + first_site) +
          ".";
  } else if (key == DispatchKey::CPU) {
    fix = " Add a CPU kernel" + (first_site.empty() ? "" : " in " + first_site) + ".";
  }
  YATEN_FAIL(NotImplementedError, "yaten::", name_, " has no kernel for ", dispatch_key_name(key),
             ". Registered: ", registered.empty() ? std::string("nothing") : registered, ".", fix);
}

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* dispatcher = new Dispatcher();  // leaked on purpose: used by static destructors
  return *dispatcher;
}

OperatorEntry& Dispatcher::operator_entry(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (OperatorEntry* e : entries_) {
    if (e->name() == name) return *e;
  }
  entries_.push_back(new OperatorEntry(name));
  return *entries_.back();
}

OperatorEntry* Dispatcher::find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string bare = name.rfind("yaten::", 0) == 0 ? name.substr(7) : name;
  for (OperatorEntry* e : entries_) {
    if (e->name() == bare) return e;
  }
  return nullptr;
}

std::vector<std::string> Dispatcher::operator_names() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (OperatorEntry* e : entries_) names.push_back(e->name());
  return names;
}

namespace detail {
namespace {
bool read_trace_flag() {
  const char* v = std::getenv("YATEN_SHOW_DISPATCH_TRACE");
  return v != nullptr && v[0] != '\0' && v[0] != '0';
}
thread_local int t_trace_depth = 0;
}  // namespace

bool g_dispatch_trace = read_trace_flag();

void trace_call(const OperatorEntry& op, DispatchKeySet ks) {
  std::fprintf(stderr, "%*s[call] yaten::%s %s -> %s\n", 2 * t_trace_depth, "", op.name().c_str(), ks.str().c_str(),
               dispatch_key_name(ks.highest()));
}
TraceDepthGuard::TraceDepthGuard(bool on) : active(on) {
  if (active) ++t_trace_depth;
}
TraceDepthGuard::~TraceDepthGuard() {
  if (active) --t_trace_depth;
}
}  // namespace detail

}  // namespace yaten
