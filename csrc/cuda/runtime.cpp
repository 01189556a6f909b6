// The CUDA runtime (see cuda_runtime.h): devices, streams, events, the caching allocator and pinned host memory.
// Host code only, so g++ compiles it; cudart is linked statically.
//
// Note [Caching allocator]: cudaMalloc is slow and cudaFree synchronizes the device, so freed device memory is kept
// and handed out again. Memory comes from the driver in segments (2 MiB for requests up to 1 MiB, the small pool;
// 20 MiB for requests up to 10 MiB; the request rounded to 2 MiB above that, the large pool) and is cut into blocks,
// split on allocation and merged with free neighbours on free. A request takes the smallest free block that fits
// (best fit) among those of its stream: a block freed on one stream is reused on that stream only, where the order
// of the stream makes reuse safe. A block also used on other streams (record_stream) returns to its pool only once
// the work queued there by the time it was freed has finished, which an event per stream tells. When cudaMalloc
// fails, the unused cached segments are released and the allocation retried once; then OutOfMemoryError.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.h"
#include "core/gil.h"
#include "cuda/cuda_runtime.h"

namespace yaten::cuda {

namespace {

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
  YATEN_FAIL(AcceleratorError, "CUDA error in ", what, ": ", cudaGetErrorString(err));
}

std::string format_bytes(int64_t n) {
  char buffer[64];
  const double v = static_cast<double>(n);
  if (v >= 1024.0 * 1024 * 1024) {
    std::snprintf(buffer, sizeof buffer, "%.2f GiB", v / (1024.0 * 1024 * 1024));
  } else if (v >= 1024.0 * 1024) {
    std::snprintf(buffer, sizeof buffer, "%.2f MiB", v / (1024.0 * 1024));
  } else {
    std::snprintf(buffer, sizeof buffer, "%lld bytes", static_cast<long long>(n));
  }
  return buffer;
}

// The device the calling thread last set, cached: cudaGetDevice on every op would cost more than the rest of it.
thread_local int t_current_device = -1;

constexpr int kMaxDevices = 64;
// The current stream of each device for this thread (nullptr: the default stream).
thread_local cudaStream_t t_current_streams[kMaxDevices] = {};

// ------------------------------------------------------------------------------------------------ allocator

constexpr size_t kRound = 512;                 // every block size is a multiple of this
constexpr size_t kSmallSize = 1 << 20;         // requests up to this go to the small pool
constexpr size_t kSmallSegment = 2 << 20;      // the small pool's segments
constexpr size_t kLargeSegment = 20 << 20;     // segments for requests below kMinLargeAlloc
constexpr size_t kMinLargeAlloc = 10 << 20;    // from here, a segment per request, rounded to kRoundLarge
constexpr size_t kRoundLarge = 2 << 20;

struct Block;
struct BlockOrder {  // best fit within a stream: (stream, size, address)
  bool operator()(const Block* a, const Block* b) const;
};
using Pool = std::set<Block*, BlockOrder>;

struct Block {
  int device;
  cudaStream_t stream;
  size_t size;
  char* ptr;
  Pool* pool;
  size_t requested = 0;
  bool allocated = false;
  int pending_events = 0;           // events recorded on other streams at free that have not completed
  std::vector<cudaStream_t> stream_uses;  // streams other than its own that used it (record_stream)
  Block* prev = nullptr;            // neighbours cut from the same segment
  Block* next = nullptr;
};

bool BlockOrder::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
}

size_t round_size(size_t n) { return n < kRound ? kRound : (n + kRound - 1) / kRound * kRound; }
size_t segment_size(size_t size) {
  if (size <= kSmallSize) return kSmallSegment;
  if (size < kMinLargeAlloc) return kLargeSegment;
  return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

class DeviceAllocator {
 public:
  explicit DeviceAllocator(int device) : device_(device) {}

  Block* allocate(size_t requested, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.allocation_requests;
    process_events();
    const size_t size = round_size(requested);
    Pool& pool = size <= kSmallSize ? small_ : large_;
    Block key{device_, stream, size, nullptr, nullptr};
    Block* block = nullptr;
    auto it = pool.lower_bound(&key);
    if (it != pool.end() && (*it)->stream == stream) {
      block = *it;
      pool.erase(it);
    } else {
      block = new_segment(segment_size(size), requested, stream, pool);
    }
    const size_t rest = block->size - size;
    if ((&pool == &small_ && rest >= kRound) || (&pool == &large_ && rest > kSmallSize)) {
      Block* tail = new Block{device_, stream, rest, block->ptr + size, &pool};
      tail->prev = block;
      tail->next = block->next;
      if (tail->next) tail->next->prev = tail;
      block->next = tail;
      block->size = size;
      pool.insert(tail);
    }
    block->allocated = true;
    block->requested = requested;
    active_.emplace(block->ptr, block);
    stats_.allocated_bytes += static_cast<int64_t>(block->size);
    stats_.requested_bytes += static_cast<int64_t>(requested);
    stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
    ++stats_.allocations;
    stats_.peak_allocations = std::max(stats_.peak_allocations, stats_.allocations);
    return block;
  }

  void free(Block* block) {
    std::lock_guard<std::mutex> lock(mutex_);
    active_.erase(block->ptr);
    block->allocated = false;
    stats_.allocated_bytes -= static_cast<int64_t>(block->size);
    stats_.requested_bytes -= static_cast<int64_t>(block->requested);
    --stats_.allocations;
    if (!block->stream_uses.empty()) {
      // Used on other streams: reusable once the work they have queued until now is done.
      DeviceGuard guard(device_);
      for (cudaStream_t s : block->stream_uses) {
        cudaEvent_t event;
        if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess ||
            cudaEventRecord(event, s) != cudaSuccess) {
          cudaGetLastError();
          cudaDeviceSynchronize();  // cannot track it: wait for everything instead
          continue;
        }
        ++block->pending_events;
        pending_.emplace_back(event, block);
      }
      block->stream_uses.clear();
      if (block->pending_events > 0) return;
    }
    release_to_pool(block);
  }

  void record_stream(const void* ptr, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = active_.find(const_cast<void*>(ptr));
    if (it == active_.end()) {  // a view into the block: find the block that holds the address
      for (auto& [p, b] : active_) {
        if (ptr >= p && static_cast<const char*>(ptr) < b->ptr + b->size) {
          it = active_.find(p);
          break;
        }
      }
    }
    YATEN_CHECK(it != active_.end(), ValueError, "record_stream: the tensor's memory was not allocated by yaten's "
                "CUDA caching allocator");
    Block* block = it->second;
    if (stream == block->stream) return;
    if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) == block->stream_uses.end()) {
      block->stream_uses.push_back(stream);
    }
  }

  // Frees every whole segment that is not in use.
  void release_cached() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached_locked();
  }

  AllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
    stats_.peak_reserved_bytes = stats_.reserved_bytes;
    stats_.peak_allocations = stats_.allocations;
  }

 private:
  Block* new_segment(size_t nbytes, size_t requested, cudaStream_t stream, Pool& pool) {
    DeviceGuard guard(device_);
    void* ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      ++stats_.num_alloc_retries;
      release_cached_locked();
      err = cudaMalloc(&ptr, nbytes);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      ++stats_.num_ooms;
      size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      cudaGetLastError();
      YATEN_FAIL(OutOfMemoryError, "CUDA out of memory. Tried to allocate ", format_bytes(int64_t(requested)),
                 ". GPU ", device_, " has a total capacity of ", format_bytes(int64_t(total_bytes)), " of which ",
                 format_bytes(int64_t(free_bytes)), " is free. Of the memory in use, ",
                 format_bytes(stats_.allocated_bytes), " is allocated by yaten and ",
                 format_bytes(stats_.reserved_bytes - stats_.allocated_bytes),
                 " is reserved by yaten but unallocated. Free tensors you no longer need, call "
                 "yaten.cuda.empty_cache() to return cached memory to the driver (for other processes), or use a "
                 "smaller batch.");
    }
    check(err, "cudaMalloc");
    ++stats_.num_device_alloc;
    ++stats_.segments;
    stats_.reserved_bytes += static_cast<int64_t>(nbytes);
    stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
    return new Block{device_, stream, nbytes, static_cast<char*>(ptr), &pool};
  }

  void release_to_pool(Block* block) {
    Pool& pool = *block->pool;
    for (Block* neighbour : {block->prev, block->next}) {
      if (neighbour == nullptr || neighbour->allocated || neighbour->pending_events > 0) continue;
      pool.erase(neighbour);
      if (neighbour == block->prev) {  // block folds into prev
        neighbour->size += block->size;
        neighbour->next = block->next;
        if (block->next) block->next->prev = neighbour;
        delete block;
        block = neighbour;
      } else {
        block->size += neighbour->size;
        block->next = neighbour->next;
        if (neighbour->next) neighbour->next->prev = block;
        delete neighbour;
      }
    }
    pool.insert(block);
  }

  void process_events() {
    while (!pending_.empty()) {
      auto [event, block] = pending_.front();
      const cudaError_t state = cudaEventQuery(event);
      if (state == cudaErrorNotReady) {
        cudaGetLastError();
        break;
      }
      cudaEventDestroy(event);
      pending_.pop_front();
      if (--block->pending_events == 0) release_to_pool(block);
    }
  }

  void release_cached_locked() {
    // Blocks waiting on events stay: wait for them first so their memory can go too.
    while (!pending_.empty()) {
      cudaEventSynchronize(pending_.front().first);
      process_events();
    }
    for (Pool* pool : {&small_, &large_}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* block = *it;
        if (block->prev == nullptr && block->next == nullptr) {
          DeviceGuard guard(device_);
          cudaFree(block->ptr);
          ++stats_.num_device_free;
          --stats_.segments;
          stats_.reserved_bytes -= static_cast<int64_t>(block->size);
          it = pool->erase(it);
          delete block;
        } else {
          ++it;
        }
      }
    }
  }

  int device_;
  std::mutex mutex_;
  Pool small_, large_;
  std::unordered_map<void*, Block*> active_;
  std::deque<std::pair<cudaEvent_t, Block*>> pending_;
  AllocatorStats stats_;
};

// One allocator per device, made on first use and never destroyed: tensors may outlive static destructors.
DeviceAllocator& allocator_of(int device) {
  static std::mutex mutex;
  static DeviceAllocator* allocators[kMaxDevices] = {};
  std::lock_guard<std::mutex> lock(mutex);
  if (allocators[device] == nullptr) allocators[device] = new DeviceAllocator(device);
  return *allocators[device];
}

class CudaAllocator final : public Allocator {
 public:
  Allocation allocate(size_t nbytes, Device device) override {
    const int index = resolve(device).index;
    check_device("CUDA", index);
    if (nbytes == 0) return Allocation{};
    Block* block = allocator_of(index).allocate(nbytes, static_cast<cudaStream_t>(current_stream(index)));
    return Allocation{block->ptr, block, [](void* context, size_t) {
                        Block* b = static_cast<Block*>(context);
                        allocator_of(b->device).free(b);
                      }};
  }
  const char* name() const override { return "cuda"; }
};

// Installs the CUDA allocator when the module loads; allocating on a GPU-less machine fails only when tried.
struct RegisterCudaAllocator {
  RegisterCudaAllocator() {
    static CudaAllocator allocator;
    set_allocator(DeviceType::CUDA, &allocator);
  }
} register_cuda_allocator;

// ------------------------------------------------------------------------------------------------ pinned memory

// Page-locked blocks of power-of-two sizes, reused once every copy recorded against them has finished.
class PinnedAllocator {
 public:
  struct PinnedBlock {
    char* ptr;
    size_t size;
    std::vector<std::pair<int, cudaEvent_t>> uses;  // (device, event) of copies still possibly in flight
  };

  Allocation allocate(size_t nbytes) {
    size_t size = 512;
    while (size < nbytes) size <<= 1;
    std::lock_guard<std::mutex> lock(mutex_);
    auto& free_list = free_[size];
    for (auto it = free_list.begin(); it != free_list.end(); ++it) {
      if (drained(**it)) {
        PinnedBlock* block = *it;
        free_list.erase(it);
        return make_allocation(block);
      }
    }
    void* ptr = nullptr;
    cudaError_t err = cudaHostAlloc(&ptr, size, cudaHostAllocDefault);
    if (err != cudaSuccess) {
      cudaGetLastError();
      for (auto& [s, list] : free_) {  // free the cache and retry once
        for (PinnedBlock* b : list) {
          for (auto& [d, e] : b->uses) cudaEventSynchronize(e), cudaEventDestroy(e);
          by_address_.erase(b->ptr);
          cudaFreeHost(b->ptr);
          delete b;
        }
        list.clear();
      }
      err = cudaHostAlloc(&ptr, size, cudaHostAllocDefault);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      YATEN_FAIL(OutOfMemoryError, "pin_memory: cannot allocate ", format_bytes(int64_t(size)),
                 " of page-locked host memory");
    }
    check(err, "cudaHostAlloc");
    auto* block = new PinnedBlock{static_cast<char*>(ptr), size, {}};
    by_address_.emplace(block->ptr, block);
    return make_allocation(block);
  }

  bool contains(const void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    return find(data) != nullptr;
  }

  void record_use(const void* data, int device, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    PinnedBlock* block = find(data);
    if (block == nullptr) return;
    DeviceGuard guard(device);
    cudaEvent_t event;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(event, stream), "cudaEventRecord");
    block->uses.emplace_back(device, event);
  }

 private:
  Allocation make_allocation(PinnedBlock* block) {
    return Allocation{block->ptr, block, [](void* context, size_t) {
                        instance().release(static_cast<PinnedBlock*>(context));
                      }};
  }
  void release(PinnedBlock* block) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[block->size].push_back(block);
  }
  // Whether every copy recorded against the block has finished (then forgets them).
  static bool drained(PinnedBlock& block) {
    for (auto& [device, event] : block.uses) {
      if (cudaEventQuery(event) == cudaErrorNotReady) {
        cudaGetLastError();
        return false;
      }
    }
    for (auto& [device, event] : block.uses) cudaEventDestroy(event);
    block.uses.clear();
    return true;
  }
  PinnedBlock* find(const void* data) {
    auto it = by_address_.upper_bound(static_cast<const char*>(data));
    if (it == by_address_.begin()) return nullptr;
    --it;
    PinnedBlock* block = it->second;
    return static_cast<const char*>(data) < block->ptr + block->size ? block : nullptr;
  }

 public:
  static PinnedAllocator& instance() {
    static PinnedAllocator* allocator = new PinnedAllocator;  // never destroyed, as the device allocators
    return *allocator;
  }

 private:
  std::mutex mutex_;
  std::map<size_t, std::vector<PinnedBlock*>> free_;
  std::map<const char*, PinnedBlock*> by_address_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------------- devices

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // no driver or no device: clear the sticky error and report none
      return 0;
    }
    return std::min(n, kMaxDevices);
  }();
  return count;
}

int current_device() {
  if (t_current_device < 0) {
    if (device_count() == 0) return 0;
    int index = 0;
    check(cudaGetDevice(&index), "cudaGetDevice");
    t_current_device = index;
  }
  return t_current_device;
}

void set_device(int index) {
  check_device("set_device", index);
  if (index == t_current_device) return;
  check(cudaSetDevice(index), "cudaSetDevice");
  t_current_device = index;
}

void check_device(const char* op, int index) {
  const int count = device_count();
  YATEN_CHECK(count > 0, RuntimeError, op, ": no CUDA GPU is available (yaten.cuda.is_available() is False); "
              "create the tensor on the CPU instead");
  YATEN_CHECK(index >= 0 && index < count, RuntimeError, op, ": device cuda:", index, " does not exist (", count,
              " CUDA device", count == 1 ? "" : "s", " found: cuda:0", count > 1 ? " to cuda:" : "",
              count > 1 ? std::to_string(count - 1) : std::string(), ")");
}

Device resolve(Device device) {
  if (device.is_cuda() && device.index < 0) return Device(DeviceType::CUDA, current_device());
  return device;
}

DeviceGuard::DeviceGuard(int index) {
  const int current = current_device();
  if (index == current || index < 0) return;
  set_device(index);
  previous_ = current;
}
DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0 && cudaSetDevice(previous_) == cudaSuccess) t_current_device = previous_;
}

std::string device_name(int index) {
  check_device("get_device_name", index);
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  return prop.name;
}

std::vector<int64_t> device_properties(int index) {
  check_device("get_device_properties", index);
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  return {prop.major, prop.minor, prop.multiProcessorCount, static_cast<int64_t>(prop.totalGlobalMem)};
}

int multiprocessor_count(int index) {
  thread_local int cached_device = -1, count = 0;
  if (index != cached_device) {
    count = static_cast<int>(device_properties(index)[2]);
    cached_device = index;
  }
  return count;
}

// ---------------------------------------------------------------------------------------------------- streams

StreamHandle current_stream(int device) {
  if (device < 0) device = current_device();
  return t_current_streams[device];
}

void set_current_stream(int device, StreamHandle stream) {
  check_device("set_stream", device);
  t_current_streams[device] = static_cast<cudaStream_t>(stream);
}

StreamHandle create_stream(int device, int priority) {
  DeviceGuard guard(device);
  cudaStream_t stream;
  check(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority), "cudaStreamCreateWithPriority");
  return stream;
}

void stream_synchronize(int device, StreamHandle stream) {
  DeviceGuard guard(device);
  detail::ScopedGilRelease release(true);
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

bool stream_query(int device, StreamHandle stream) {
  DeviceGuard guard(device);
  const cudaError_t err = cudaStreamQuery(static_cast<cudaStream_t>(stream));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  check(err, "cudaStreamQuery");
  return true;
}

void stream_wait_event(int device, StreamHandle stream, EventHandle event) {
  DeviceGuard guard(device);
  check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0),
        "cudaStreamWaitEvent");
}

void stream_wait_stream(int device, StreamHandle stream, StreamHandle other) {
  if (stream == other) return;
  EventHandle event = create_event(device, false, false);
  record_event(device, event, other);
  stream_wait_event(device, stream, event);
  destroy_event(device, event);  // destroying a recorded event is safe: the wait keeps what it needs
}

std::pair<int, int> stream_priority_range() {
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  return {least, greatest};
}

void device_synchronize(int device) {
  DeviceGuard guard(device);
  detail::ScopedGilRelease release(true);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

EventHandle create_event(int device, bool enable_timing, bool blocking) {
  DeviceGuard guard(device);
  cudaEvent_t event;
  unsigned flags = (enable_timing ? 0u : unsigned(cudaEventDisableTiming)) |
                   (blocking ? unsigned(cudaEventBlockingSync) : 0u);
  check(cudaEventCreateWithFlags(&event, flags), "cudaEventCreate");
  return event;
}

void destroy_event(int device, EventHandle event) {
  DeviceGuard guard(device);
  cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

void record_event(int device, EventHandle event, StreamHandle stream) {
  DeviceGuard guard(device);
  check(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)), "cudaEventRecord");
}

void event_synchronize(EventHandle event) {
  detail::ScopedGilRelease release(true);
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
}

bool event_query(EventHandle event) {
  const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  check(err, "cudaEventQuery");
  return true;
}

float event_elapsed_ms(EventHandle start, EventHandle end) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)),
        "cudaEventElapsedTime (were both events recorded with enable_timing=True, and have they completed?)");
  return ms;
}

// ---------------------------------------------------------------------------------------------------- memory

AllocatorStats allocator_stats(int device) {
  check_device("memory_stats", device);
  return allocator_of(device).stats();
}

void reset_peak_stats(int device) {
  check_device("reset_peak_memory_stats", device);
  allocator_of(device).reset_peak();
}

void empty_cache() {
  for (int d = 0; d < device_count(); ++d) allocator_of(d).release_cached();
}

void record_stream(const void* data, StreamHandle stream) {
  cudaPointerAttributes attributes;
  check(cudaPointerGetAttributes(&attributes, data), "record_stream");
  YATEN_CHECK(attributes.type == cudaMemoryTypeDevice, ValueError, "record_stream: expected a CUDA tensor");
  allocator_of(attributes.device).record_stream(data, static_cast<cudaStream_t>(stream));
}

Allocation allocate_pinned(size_t nbytes) {
  YATEN_CHECK(device_count() > 0, RuntimeError, "pin_memory: no CUDA GPU is available to pin memory for");
  if (nbytes == 0) return Allocation{};
  return PinnedAllocator::instance().allocate(nbytes);
}

bool is_pinned(const void* data) {
  if (data == nullptr || device_count() == 0) return false;
  if (PinnedAllocator::instance().contains(data)) return true;
  cudaPointerAttributes attributes;  // page-locked by someone else (torch, cudaHostRegister)
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

void record_pinned_use(const void* data, int device, StreamHandle stream) {
  PinnedAllocator::instance().record_use(data, device, static_cast<cudaStream_t>(stream));
}

void memcpy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device, bool blocking) {
  if (nbytes == 0) return;
  DeviceGuard guard(device);
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                            : cudaMemcpyDeviceToDevice;
  auto stream = static_cast<cudaStream_t>(current_stream(device));
  check(cudaMemcpyAsync(dst, src, nbytes, k, stream), "cudaMemcpyAsync");
  if (blocking) {
    detail::ScopedGilRelease release(nbytes >= (1 << 20));
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  } else if (kind != CopyKind::DeviceToDevice) {
    record_pinned_use(kind == CopyKind::HostToDevice ? src : dst, device, stream);
  }
}

void check_launch(const char* what) { check(cudaGetLastError(), what); }

}  // namespace yaten::cuda
