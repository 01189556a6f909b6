// Raw bytes from an allocator, shared by every tensor that views them.
//
// A Storage knows its device and how to free itself; it knows nothing of dtypes or shapes. Memory that yaten did
// not allocate (a NumPy array, a DLPack capsule) is held the same way, with a deleter that releases the owner.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/device.h"

namespace yaten {

// Frees one allocation. The context is whatever the allocator needs (the pointer itself, an owner object).
using Deleter = void (*)(void* context);

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
    if (allocation_.deleter) allocation_.deleter(allocation_.context);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return allocation_.data; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  Allocation allocation_;
  size_t nbytes_;
  Device device_;
};

using Storage = std::shared_ptr<StorageImpl>;

// nbytes of fresh memory on `device`.
Storage make_storage(size_t nbytes, Device device);

}  // namespace yaten
