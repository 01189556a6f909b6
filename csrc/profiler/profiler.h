// The profiler: one event per operator call, user range (record_function) and autograd node, recorded where every
// call already passes (the dispatcher's CallGuard, dispatch/dispatcher.h), with CUDA time from CUDA events.
//
// Note [Profiler events]
// ~~~~~~~~~~~~~~~~~~~~~~
// Each thread appends to its own buffer (registered once, under a lock that calls never take again), so threads
// never contend and each lands on its own track. An event is opened when its call starts and closed when it ends;
// nested calls (matmul -> mm) are nested events, and an event's parent is the innermost one open on its thread when
// it started. Times are steady-clock nanoseconds from the profile's start. For a call on a CUDA tensor (with the
// CUDA activity), two CUDA events are recorded on the op's device's current stream around the call; their elapsed
// time, the GPU time of everything the call queued, is read when the profile stops (no synchronize while
// recording). Memory (profile_memory) is what the allocators hand out and take back while an event is the
// innermost open one on the thread: its self memory, per device type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace yaten::profiler {

struct Config {
  bool cpu = true;
  bool cuda = false;
  bool record_shapes = false;
  bool with_stack = false;
  bool profile_memory = false;
};

enum class EventKind : uint8_t { Op = 0, UserRange = 1, Backward = 2, Memory = 3 };

struct Event {
  std::string name;      // "yaten::mm", "MulBackward0", the user's range name, "[memory]"
  std::string overload;  // "Tensor" for yaten::add.Tensor; empty otherwise
  EventKind kind = EventKind::Op;
  std::string key;       // the dispatch key that ran ("CPU", "CUDA", "Autograd", "Python")
  int64_t thread = 0;    // the OS thread id
  int64_t start_ns = 0, end_ns = 0;
  int64_t id = 0;        // unique within the profile
  int64_t parent = -1;   // the id of the event that was open on this thread when this one began
  std::string shapes;    // with record_shapes: "[[2, 3], [3], []]" (a list per tensor list, [] for non-tensors)
  std::string dtypes;    // "[float32, float32, Scalar]"
  std::string stack;     // with with_stack: the Python frames, outermost first, "file:line(function)" joined by ';'
  int64_t cpu_memory = 0, cuda_memory = 0;  // with profile_memory: bytes allocated minus freed as innermost event
  int device = -1;       // the CUDA device of a CUDA call
  double cuda_us = -1;   // GPU time, when recorded
  double gpu_start_us = -1;  // when that GPU time began, on the profile's clock (see stop())
};

// Starts a profile (RuntimeError if one is running). Events recorded before are dropped.
void start(const Config& config);
// Stops the profile and returns its events, each thread's in order of start; waits for the GPU once, to read the
// CUDA events. Events still open are closed at the stop.
std::vector<Event> stop();
bool is_profiling();

// A user range (record_function) or an autograd node, nested like calls. push returns false when no profile runs
// (then pop must not be called for it).
bool push_range(const std::string& name, EventKind kind);
void pop_range();

// Records `bytes` (negative: freed) on `device_type` (0 CPU, 1 CUDA) against the thread's innermost open event.
void record_memory(int64_t bytes, int device_type);
// True while memory is profiled; the allocators ask before they call record_memory.
bool memory_profiling();

// Where the Python frames come from (the bindings install it; without it events have no stack).
using StackProvider = std::string (*)();
void set_stack_provider(StackProvider provider);

}  // namespace yaten::profiler
