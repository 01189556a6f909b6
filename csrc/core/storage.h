// Raw bytes from an allocator, shared by every tensor that views them.
//
// A Storage knows its device and how to free itself; it knows nothing of dtypes or shapes. Memory that yaten did
// not allocate (a NumPy array, a DLPack capsule) is held the same way, with a deleter that releases the owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <atomic>
#include <memory>

#include "core/device.h"

namespace yaten {

// Frees one allocation. The context is whatever the allocator needs (the pointer itself, an owner object); nbytes
// is the size the storage was made with.
using Deleter = void (*)(void* context, size_t nbytes);

struct Allocation {
  void* data = nullptr;
  void* context = nullptr;
  Deleter deleter = nullptr;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual Allocation allocate(size_t nbytes, Device device) = 0;
  virtual const char* name() const = 0;
};

// The allocator for a device type: the CPU one always, the CUDA one when the CUDA backend is compiled in.
Allocator* allocator_for(DeviceType type);
// Installs an allocator; the CUDA backend calls this when the module loads.
void set_allocator(DeviceType type, Allocator* allocator);

class StorageImpl {
 public:
  StorageImpl(Allocation allocation, size_t nbytes, Device device)
      : allocation_(allocation), nbytes_(nbytes), device_(device) {}
  ~StorageImpl() {
    if (allocation_.deleter) allocation_.deleter(allocation_.context, nbytes_);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  // Forgets the allocation without freeing it (its owner has been handed to another StorageImpl).
  void disown() { allocation_ = Allocation{}; }

  // Moves the bytes into an anonymous shared-memory file (Linux memfd), in place: every tensor over this storage
  // sees the new memory. No-op when already shared. See core/shared_memory.cpp.
  void share_memory();
  bool is_shared() const { return shared_fd_ >= 0; }
  int shared_fd() const { return shared_fd_; }
  // A storage over `nbytes` of the shared-memory file `fd`, which it takes over (closes when freed).
  static std::shared_ptr<StorageImpl> from_shared_fd(int fd, size_t nbytes);

  void* data() const { return allocation_.data; }
  size_t nbytes() const { return nbytes_; }
  // Bumped by every in-place op on a tensor over this storage (views share it); autograd compares it with the
  // version a saved tensor had.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  Device device() const { return device_; }
  // Memory its owner declared immutable (a read-only NumPy array or memory map, a DLPack producer's read-only
  // flag): every op that would write into it raises instead (detail::check_writable, called by each generated op
  // before its kernel). Reading stays zero-copy.
  bool read_only() const { return read_only_; }
  void set_read_only(bool read_only) { read_only_ = read_only; }

 private:
  Allocation allocation_;
  size_t nbytes_;
  std::atomic<uint32_t> version_{0};
  Device device_;
  int shared_fd_ = -1;
  bool read_only_ = false;
};

// yaten.memory_stats(): what the CPU allocator has handed out.
struct MemoryStats {
  int64_t allocations = 0;            // ever made
  int64_t huge_page_allocations = 0;  // of those, 2 MiB aligned with MADV_HUGEPAGE
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t cached_bytes = 0;  // freed 2 MiB+ blocks kept for reuse (YATEN_CPU_CACHE_MB)
  int64_t cache_hits = 0;    // allocations served from them
};
MemoryStats cpu_memory_stats();
// Returns the cached blocks to the system.
void cpu_empty_cache();

using Storage = std::shared_ptr<StorageImpl>;

// nbytes of fresh memory on `device`.
Storage make_storage(size_t nbytes, Device device);

}  // namespace yaten
