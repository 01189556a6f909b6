#include "dispatch/dispatcher.h"

#include "core/gil.h"
#include "dispatch/op_sites.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace yaten {

namespace detail {
thread_local LocalDispatchKeySet t_local_dispatch_keys;
}  // namespace detail

const char* dispatch_key_name(DispatchKey key) {
  switch (key) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Autocast: return "Autocast";
    case DispatchKey::Python: return "Python";
    default: return "?";
  }
}

DispatchKey dispatch_key_from_name(const std::string& name) {
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    if (name == dispatch_key_name(static_cast<DispatchKey>(k))) return static_cast<DispatchKey>(k);
  }
  return DispatchKey::NumKeys;
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

// ------------------------------------------------------------------------------------------ thread-local keys

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKey key) : saved_(local_dispatch_keys().excluded) {
  local_dispatch_keys().excluded = saved_.add(key);
}
ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() { local_dispatch_keys().excluded = saved_; }

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKey key) : saved_(local_dispatch_keys().included) {
  local_dispatch_keys().included = saved_.add(key);
}
IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() { local_dispatch_keys().included = saved_; }

// ------------------------------------------------------------------------------------------ op sites

namespace {
// op_sites.h: "yaten::add.Tensor" -> "ops.yaml:97", from the generated tables. Filled by static initializers, read
// when a message prints a site; registrations may run before or after their table, so sites are completed here,
// at print time, never when registered.
struct SiteTable {
  std::mutex mutex;
  std::unordered_map<std::string, const char*> sites;
};
SiteTable& site_table() {
  static SiteTable* table = new SiteTable();  // leaked on purpose, as the dispatcher
  return *table;
}

// "ops.yaml (Autograd)" registered for yaten::add.Tensor -> "ops.yaml:97 (Autograd)": a site whose first word is
// the file of the op's entry in the table gets the entry's line. Any other site is printed as it was registered.
std::string resolve_site(const std::string& op, const std::string& site) {
  const size_t end = site.find(' ');
  const std::string file = site.substr(0, end);
  if (file.empty() || file.find(':') != std::string::npos) return site;
  SiteTable& table = site_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  const auto it = table.sites.find(op);
  if (it == table.sites.end()) return site;
  const std::string full = it->second;
  if (full.compare(0, file.size() + 1, file + ":") != 0) return site;
  return full + (end == std::string::npos ? "" : site.substr(end));
}
}  // namespace

void register_op_sites(const OpSite* sites, size_t n) {
  SiteTable& table = site_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  for (size_t i = 0; i < n; ++i) table.sites[sites[i].op] = sites[i].site;
}

// ------------------------------------------------------------------------------------------ operator entries

std::string OperatorEntry::schema() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return schema_;
}

std::string OperatorEntry::schema_site() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return resolve_site(name_, schema_site_);
}

bool OperatorEntry::is_defined() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !schema_.empty();
}

namespace {
// For each argument of a schema ("neg_(Tensor(a!) self) -> Tensor(a!)"), whether it is written: its type carries an
// alias annotation with '!'. The keyword-only marker '*' is not an argument.
std::vector<bool> parse_written_arguments(const std::string& schema) {
  std::vector<bool> out;
  const size_t open = schema.find('(');
  if (open == std::string::npos) return out;
  int depth = 0;
  std::string piece;
  const auto finish = [&] {
    const size_t first = piece.find_first_not_of(' ');
    if (first != std::string::npos && piece.compare(first, std::string::npos, "*") != 0) {
      out.push_back(piece.find('!') != std::string::npos);
    }
    piece.clear();
  };
  for (size_t i = open + 1; i < schema.size(); ++i) {
    const char c = schema[i];
    if (depth == 0 && c == ')') break;
    if (depth == 0 && c == ',') {
      finish();
      continue;
    }
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    piece += c;
  }
  finish();
  return out;
}
}  // namespace

void OperatorEntry::define(const std::string& schema, const std::string& site) {
  std::lock_guard<std::mutex> lock(mutex_);
  YATEN_CHECK(schema_.empty() || schema_ == schema, RuntimeError, name_,
              " is already defined with a different schema: '", schema_, "' (", resolve_site(name_, schema_site_),
              "), now '", schema, "' (", resolve_site(name_, site), ")");
  schema_ = schema;
  schema_site_ = site;
  const std::vector<bool> written = parse_written_arguments(schema);
  uint64_t bits = 0;
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i]) continue;
    YATEN_CHECK(i < 64, NotImplementedError, name_, ": a written argument past the 64th is not supported");
    bits |= uint64_t{1} << i;
  }
  written_.store(bits, std::memory_order_release);
}

void* OperatorEntry::unboxed_kernel(DispatchKey key) const {
  void* fn = slots_[static_cast<int>(key)].unboxed.load(std::memory_order_acquire);
  YATEN_CHECK(fn != nullptr, NotImplementedError, name_, " has only a boxed kernel for ", dispatch_key_name(key),
              " (registered without a C++ signature); call it by name through yaten.ops");
  return fn;
}

void OperatorEntry::call_boxed(DispatchKeySet ks, Stack& stack) const {
  const DispatchKey key = dispatch_key(ks);
  const KernelFunction fn = kernel(key);  // one unit: Note [Dispatcher slots are read as one unit]
  YATEN_CHECK(fn.boxed != nullptr, NotImplementedError, name_, " has no boxed kernel for ", dispatch_key_name(key),
              ": it can only be called from C++ or through its generated Python binding");
  fn.boxed(*this, ks, fn.context, stack);
}

void OperatorEntry::install_locked(DispatchKey key) {
  const int k = static_cast<int>(key);
  KernelFunction fn = registrations_[k].empty() ? KernelFunction{} : registrations_[k].back().fn;
  const KernelFunction* record = nullptr;
  if (fn.defined()) {
    records_.push_back(fn);
    record = &records_.back();
  }
  slots_[k].live.store(record, std::memory_order_release);
  slots_[k].unboxed.store(fn.unboxed, std::memory_order_release);
  uint32_t mask = registered_.load();
  mask = fn.defined() ? (mask | (1u << k)) : (mask & ~(1u << k));
  registered_.store(mask, std::memory_order_release);
}

uint64_t OperatorEntry::register_kernel(DispatchKey key, KernelFunction fn, const std::string& site) {
  const int k = static_cast<int>(key);
  std::string replaced;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!registrations_[k].empty()) replaced = registrations_[k].back().site;
  }
  // A Python UserWarning once the module is loaded (stderr before); under -W error it raises, before registering.
  if (!replaced.empty()) {
    detail::warn(name_ + " already has a " + dispatch_key_name(key) + " kernel (" + resolve_site(name_, replaced) +
                 "); " + resolve_site(name_, site) + " replaces it");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t token = next_token_++;
  registrations_[k].push_back(Registration{token, fn, site});
  install_locked(key);
  return token;
}

void OperatorEntry::restore(DispatchKey key, uint64_t token) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& regs = registrations_[static_cast<int>(key)];
  for (auto it = regs.begin(); it != regs.end(); ++it) {
    if (it->token == token) {
      regs.erase(it);
      install_locked(key);
      return;
    }
  }
  YATEN_FAIL(ValueError, name_, ": that ", dispatch_key_name(key), " registration was already removed");
}

std::string OperatorEntry::dump() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out = name_ + "\nschema: " + schema_ + "\n";
  if (!schema_site_.empty()) out += "defined at: " + resolve_site(name_, schema_site_) + "\n";
  for (int k = kNumDispatchKeys - 1; k >= 0; --k) {
    const auto& regs = registrations_[k];
    if (regs.empty()) continue;
    out += std::string(dispatch_key_name(static_cast<DispatchKey>(k))) + ": " + resolve_site(name_, regs.back().site);
    if (regs.size() > 1) out += "  (overrides " + resolve_site(name_, regs[regs.size() - 2].site) + ")";
    out += "\n";
  }
  return out;
}

void OperatorEntry::report_missing_kernel(DispatchKeySet ks) const {
  // The key the user asked for: the highest backend key of the call, else the highest key at all.
  const DispatchKeySet backends = ks & DispatchKeySet::from_bits((1u << static_cast<int>(DispatchKey::Autograd)) - 1);
  YATEN_CHECK(!ks.empty(), RuntimeError, name_, ": no tensor argument and no device to dispatch on");
  const DispatchKey key = backends.empty() ? ks.highest() : backends.highest();
  std::string registered;
  std::string first_site;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int k = kNumDispatchKeys - 1; k >= 0; --k) {
      if (registrations_[k].empty()) continue;
      // a missing backend kernel is reported beside the other backends' (Autograd is not one)
      if (!backends.empty() && k >= static_cast<int>(DispatchKey::Autograd)) continue;
      if (!registered.empty()) registered += ", ";
      const std::string site = resolve_site(name_, registrations_[k].back().site);
      registered += std::string(dispatch_key_name(static_cast<DispatchKey>(k))) + " (" + site + ")";
      if (first_site.empty()) first_site = site.substr(0, site.find(' '));
    }
  }
  std::string fix;
  if (key == DispatchKey::CUDA) {
    fix = " Move the tensors with .cpu(), or add a CUDA kernel" + (first_site.empty() ? "" : " in " + first_site) +
          ".";
  } else if (key == DispatchKey::CPU) {
    fix = " Add a CPU kernel" + (first_site.empty() ? "" : " in " + first_site) +
          ", or register one with yaten.library.impl.";
  }
  YATEN_FAIL(NotImplementedError, name_, " has no kernel for ", dispatch_key_name(key),
             ". Registered: ", registered.empty() ? std::string("nothing") : registered, ".", fix);
}

// ------------------------------------------------------------------------------------------ the dispatcher

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* dispatcher = new Dispatcher();  // leaked on purpose: used by static destructors
  return *dispatcher;
}

std::string Dispatcher::qualified(const std::string& name) {
  return name.find("::") == std::string::npos ? "yaten::" + name : name;
}

OperatorEntry& Dispatcher::operator_entry(const std::string& name) {
  const std::string full = qualified(name);
  std::lock_guard<std::mutex> lock(mutex_);
  for (OperatorEntry* e : entries_) {
    if (e->name() == full) return *e;
  }
  entries_.push_back(new OperatorEntry(full));
  return *entries_.back();
}

OperatorEntry* Dispatcher::find(const std::string& name) {
  const std::string full = qualified(name);
  std::lock_guard<std::mutex> lock(mutex_);
  for (OperatorEntry* e : entries_) {
    if (e->name() == full) return e;
  }
  return nullptr;
}

std::vector<std::string> Dispatcher::operator_names() {
  std::vector<OperatorEntry*> entries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    entries = entries_;
  }
  std::vector<std::string> names;
  for (OperatorEntry* e : entries) {
    if (e->is_defined()) names.push_back(e->name());
  }
  return names;
}

// ------------------------------------------------------------------------------------------ call hooks

namespace detail {
namespace {
bool read_trace_flag() {
  const char* v = std::getenv("YATEN_SHOW_DISPATCH_TRACE");
  return v != nullptr && v[0] != '\0' && v[0] != '0';
}
const bool g_dispatch_trace = read_trace_flag();
std::atomic<bool> g_profiler_on{false};
CallListener g_profiler;
thread_local int t_trace_depth = 0;
thread_local std::vector<char> t_recorded;  // per open call: did the profiler record its start?

void print_call(const OperatorEntry& op, DispatchKeySet ks) {
  const LocalDispatchKeySet& local = local_dispatch_keys();
  // The keys that matter for this op: the call's backends and whatever the op has kernels for.
  const DispatchKeySet relevant = ks | op.registered_keys();
  const DispatchKeySet effective = DispatchKeySet::from_bits((ks.bits() | local.included.bits()) &
                                                             ~local.excluded.bits()) & relevant;
  const char* chosen = "?";
  try {
    chosen = dispatch_key_name(op.dispatch_key(ks));
  } catch (const Error&) {
    chosen = "(no kernel)";
  }
  std::fprintf(stderr, "%*s[call] %s %s -> %s\n", 2 * t_trace_depth, "", op.name().c_str(), effective.str().c_str(),
               chosen);
}
}  // namespace

std::atomic<bool> g_call_hook{g_dispatch_trace};

bool dispatch_trace_enabled() { return g_dispatch_trace; }

void trace_enter_span(const char* kind, const std::string& name) {
  if (!g_dispatch_trace) return;
  std::fprintf(stderr, "%*s[%s] %s\n", 2 * t_trace_depth, "", kind, name.c_str());
  ++t_trace_depth;
}

void trace_leave_span() {
  if (g_dispatch_trace) --t_trace_depth;
}

void set_profiler_listener(CallListener listener) { g_profiler = listener; }

void set_profiler_listening(bool on) {
  g_profiler_on.store(on && g_profiler.enter != nullptr);
  g_call_hook.store(g_dispatch_trace || g_profiler_on.load());
}

// Each enter is matched by one leave (CallGuard decides once, in its constructor), and the profiler hears the end
// of exactly the calls whose start it heard, so both stay balanced when a profile starts or stops mid-call.
void enter_call(const OperatorEntry& op, DispatchKeySet ks, const ArgRef* args, size_t count) {
  if (g_dispatch_trace) print_call(op, ks);
  const bool record = g_profiler_on.load(std::memory_order_relaxed);
  if (record) g_profiler.enter(op, ks, args, count);  // if this throws, the call fails and no leave follows
  ++t_trace_depth;
  t_recorded.push_back(record);
}

void fail_read_only(const char* op) {
  std::string name = std::strncmp(op, "yaten::", 7) == 0 ? op + 7 : op;
  name = name.substr(0, name.find('.'));  // the op, not its overload
  YATEN_FAIL(RuntimeError, name, ": cannot write into this tensor: its memory is read-only (it wraps memory its "
             "owner made immutable, such as a read-only NumPy array or memory map). Write into a copy "
             "(t = t.clone()) or make the source writable first");
}

void leave_call() {
  --t_trace_depth;
  if (t_recorded.empty()) return;
  const bool recorded = t_recorded.back();
  t_recorded.pop_back();
  if (recorded) g_profiler.leave();
}
}  // namespace detail

}  // namespace yaten
