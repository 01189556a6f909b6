// The profiler's recording side; see Note [Profiler events] in profiler.h. The Python side (yaten/profiler.py)
// turns the events into tables, traces and stacks.
#include "profiler/profiler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <charconv>

#include "core/error.h"
#include "core/tensor.h"
#include "cuda/cuda_runtime.h"
#include "dispatch/dispatcher.h"

namespace yaten::profiler {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::atomic<bool> g_on{false};
std::atomic<bool> g_memory{false};
std::atomic<uint64_t> g_session{0};
std::atomic<int64_t> g_next_id{0};
Config g_config;
int64_t g_t0 = 0;
StackProvider g_stack_provider = nullptr;

// The two CUDA events around one call, and the event they belong to.
struct CudaMark {
  size_t event;
  int device;
  cuda::EventHandle start, end;
};

struct ThreadBuffer {
  std::mutex mu;  // taken by its own thread per event and by stop(): never contended while recording
  uint64_t session = 0;
  int64_t tid = 0;
  std::vector<Event> events;
  std::vector<size_t> open;  // indices of the open events, innermost last
  std::vector<CudaMark> marks;
  std::vector<size_t> open_marks;  // per open event: its index in marks + 1, or 0
};

std::mutex g_buffers_mu;
std::vector<std::shared_ptr<ThreadBuffer>> g_buffers;  // every thread that ever recorded; kept for stop()

// The calling thread's buffer, emptied first when it holds a previous profile's events. Its lock is held on return.
ThreadBuffer& locked_buffer(std::unique_lock<std::mutex>& lock) {
  thread_local std::shared_ptr<ThreadBuffer> mine = [] {
    auto b = std::make_shared<ThreadBuffer>();
    b->tid = static_cast<int64_t>(::syscall(SYS_gettid));
    std::lock_guard<std::mutex> g(g_buffers_mu);
    g_buffers.push_back(b);
    return b;
  }();
  lock = std::unique_lock<std::mutex>(mine->mu);
  const uint64_t session = g_session.load(std::memory_order_relaxed);
  if (mine->session != session) {
    mine->events.clear();
    mine->open.clear();
    mine->marks.clear();
    mine->open_marks.clear();
    mine->session = session;
  }
  return *mine;
}

// ---- CUDA events: a pool per device (creating one costs more than recording it), and an anchor per device that
// places GPU times on the profile's clock.
std::mutex g_cuda_mu;
std::map<int, std::vector<cuda::EventHandle>> g_event_pool;
struct Anchor {
  cuda::EventHandle event = nullptr;
  int64_t host_ns = 0;
};
std::map<int, Anchor> g_anchors;  // for the running profile

cuda::EventHandle take_event(int device) {
  {
    std::lock_guard<std::mutex> g(g_cuda_mu);
    auto& pool = g_event_pool[device];
    if (!pool.empty()) {
      cuda::EventHandle e = pool.back();
      pool.pop_back();
      return e;
    }
  }
  return cuda::create_event(device, /*enable_timing=*/true, /*blocking=*/false);
}

void anchor(int device) {
  std::lock_guard<std::mutex> g(g_cuda_mu);
  Anchor& a = g_anchors[device];
  if (a.event != nullptr) return;
  a.event = cuda::create_event(device, true, false);
  cuda::record_event(device, a.event, cuda::current_stream(device));
  a.host_ns = now_ns() - g_t0;
}

// ---- what a call's arguments look like

// Shapes and dtypes as text, built by appending (a stream here tripled the cost of a recorded call).
void append_int(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

void append_shape(std::string& out, const Tensor& t) {
  out += '[';
  if (t.defined()) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d) out += ", ";
      append_int(out, t.sizes()[d]);
    }
  }
  out += ']';
}

void describe_args(const detail::ArgRef* args, size_t count, Event& e) {
  std::string& shapes = e.shapes;
  std::string& dtypes = e.dtypes;
  shapes = "[";
  dtypes = "[";
  for (size_t i = 0; i < count; ++i) {
    if (i) {
      shapes += ", ";
      dtypes += ", ";
    }
    const detail::ArgRef& a = args[i];
    if (a.kind == detail::ArgRef::Single) {
      const auto& t = *static_cast<const Tensor*>(a.value);
      append_shape(shapes, t);
      if (t.defined()) dtypes += dtype_name(t.dtype());
    } else if (a.kind == detail::ArgRef::List) {
      const auto& list = *static_cast<const std::vector<Tensor>*>(a.value);
      shapes += '[';
      for (size_t j = 0; j < list.size(); ++j) {
        if (j) shapes += ", ";
        append_shape(shapes, list[j]);
      }
      shapes += ']';
      dtypes += "TensorList";
    } else {
      shapes += "[]";
      dtypes += "Scalar";
    }
  }
  shapes += ']';
  dtypes += ']';
}

// The CUDA device a call runs on: its first CUDA tensor's, else the current device.
int call_device(const detail::ArgRef* args, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (args[i].kind == detail::ArgRef::Single) {
      const auto& t = *static_cast<const Tensor*>(args[i].value);
      if (t.defined() && t.device().is_cuda()) return t.device().index;
    } else if (args[i].kind == detail::ArgRef::List) {
      for (const Tensor& t : *static_cast<const std::vector<Tensor>*>(args[i].value)) {
        if (t.defined() && t.device().is_cuda()) return t.device().index;
      }
    }
  }
  return cuda::current_device();
}

// Opens an event on this thread; returns its index.
size_t open_event(ThreadBuffer& b, Event&& e) {
  e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  e.thread = b.tid;
  e.parent = b.open.empty() ? -1 : b.events[b.open.back()].id;
  if (g_config.with_stack && g_stack_provider != nullptr && (b.open.empty() || e.kind == EventKind::UserRange)) {
    e.stack = g_stack_provider();
  }
  b.events.push_back(std::move(e));
  b.open.push_back(b.events.size() - 1);
  b.open_marks.push_back(0);
  b.events.back().start_ns = now_ns() - g_t0;
  return b.events.size() - 1;
}

void close_event(ThreadBuffer& b) {
  if (b.open.empty()) return;
  const int64_t end = now_ns() - g_t0;
  const size_t mark = b.open_marks.back();
  if (mark != 0) {
    const CudaMark& m = b.marks[mark - 1];
    cuda::record_event(m.device, m.end, cuda::current_stream(m.device));
  }
  b.events[b.open.back()].end_ns = end;
  b.open.pop_back();
  b.open_marks.pop_back();
}

void on_enter(const OperatorEntry& op, DispatchKeySet ks, const detail::ArgRef* args, size_t count) {
  if (!g_on.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock;
  ThreadBuffer& b = locked_buffer(lock);
  Event e;
  const std::string& full = op.name();
  const size_t dot = full.find('.');
  e.name = dot == std::string::npos ? full : full.substr(0, dot);
  if (dot != std::string::npos) e.overload = full.substr(dot + 1);
  try {
    e.key = dispatch_key_name(op.dispatch_key(ks));
  } catch (const Error&) {
    e.key = "(no kernel)";
  }
  if (g_config.record_shapes) describe_args(args, count, e);
  const bool on_gpu = g_config.cuda && ks.has(DispatchKey::CUDA);
  if (on_gpu) e.device = call_device(args, count);
  open_event(b, std::move(e));
  if (on_gpu) {
    const int device = b.events.back().device;
    anchor(device);
    CudaMark m{b.events.size() - 1, device, take_event(device), take_event(device)};
    cuda::record_event(device, m.start, cuda::current_stream(device));
    b.marks.push_back(m);
    b.open_marks.back() = b.marks.size();
  }
}

void on_leave() {
  std::unique_lock<std::mutex> lock;
  ThreadBuffer& b = locked_buffer(lock);
  close_event(b);
}

const bool g_installed = [] {
  detail::set_profiler_listener({on_enter, on_leave});
  return true;
}();

}  // namespace

void set_stack_provider(StackProvider provider) { g_stack_provider = provider; }

bool is_profiling() { return g_on.load(std::memory_order_relaxed); }
bool memory_profiling() { return g_memory.load(std::memory_order_relaxed); }

void start(const Config& config) {
  YATEN_CHECK(!g_on.load(), RuntimeError, "profiler: a profile is already running (stop it first)");
  (void)g_installed;
  if (config.cuda && cuda::device_count() > 0) {
    for (int d = 0; d < cuda::device_count(); ++d) cuda::device_synchronize(d);  // the anchors then start idle
  }
  {
    std::lock_guard<std::mutex> g(g_cuda_mu);
    g_anchors.clear();
  }
  g_config = config;
  g_t0 = now_ns();
  g_next_id.store(0);
  g_session.fetch_add(1);
  g_memory.store(config.profile_memory);
  g_on.store(true);
  detail::set_profiler_listening(true);
}

std::vector<Event> stop() {
  YATEN_CHECK(g_on.load(), RuntimeError, "profiler: no profile is running");
  g_on.store(false);
  g_memory.store(false);
  detail::set_profiler_listening(false);
  const int64_t end = now_ns() - g_t0;
  const uint64_t session = g_session.load();
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  {
    std::lock_guard<std::mutex> g(g_buffers_mu);
    buffers = g_buffers;
  }
  std::vector<Event> out;
  std::map<int, Anchor> anchors;
  {
    std::lock_guard<std::mutex> g(g_cuda_mu);
    anchors.swap(g_anchors);
  }
  for (const auto& b : buffers) {
    std::lock_guard<std::mutex> g(b->mu);
    if (b->session != session) continue;
    for (size_t i : b->open) b->events[i].end_ns = end;  // still open at the stop
    for (size_t k = 0; k < b->open_marks.size(); ++k) {
      if (b->open_marks[k] != 0) {
        const CudaMark& m = b->marks[b->open_marks[k] - 1];
        cuda::record_event(m.device, m.end, cuda::current_stream(m.device));
      }
    }
    for (const CudaMark& m : b->marks) {
      cuda::event_synchronize(m.end);
      Event& e = b->events[m.event];
      e.cuda_us = 1000.0 * cuda::event_elapsed_ms(m.start, m.end);
      const Anchor& a = anchors[m.device];
      e.gpu_start_us = a.host_ns / 1000.0 + 1000.0 * cuda::event_elapsed_ms(a.event, m.start);
      std::lock_guard<std::mutex> pg(g_cuda_mu);
      g_event_pool[m.device].push_back(m.start);
      g_event_pool[m.device].push_back(m.end);
    }
    for (Event& e : b->events) out.push_back(std::move(e));
    b->events.clear();
    b->open.clear();
    b->marks.clear();
    b->open_marks.clear();
  }
  for (auto& [device, a] : anchors) {
    if (a.event != nullptr) cuda::destroy_event(device, a.event);
  }
  return out;
}

bool push_range(const std::string& name, EventKind kind) {
  if (!g_on.load(std::memory_order_relaxed)) return false;
  std::unique_lock<std::mutex> lock;
  ThreadBuffer& b = locked_buffer(lock);
  Event e;
  e.name = name;
  e.kind = kind;
  open_event(b, std::move(e));
  return true;
}

void pop_range() {
  std::unique_lock<std::mutex> lock;
  ThreadBuffer& b = locked_buffer(lock);
  close_event(b);
}

void record_memory(int64_t bytes, int device_type) {
  if (!g_memory.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock;
  ThreadBuffer& b = locked_buffer(lock);
  if (b.open.empty()) {  // outside every event: a [memory] event of its own, as torch shows
    Event e;
    e.name = "[memory]";
    e.kind = EventKind::Memory;
    e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    e.thread = b.tid;
    e.start_ns = e.end_ns = now_ns() - g_t0;
    (device_type == 0 ? e.cpu_memory : e.cuda_memory) = bytes;
    b.events.push_back(std::move(e));
    return;
  }
  Event& e = b.events[b.open.back()];
  (device_type == 0 ? e.cpu_memory : e.cuda_memory) += bytes;
}

}  // namespace yaten::profiler
