// Storage in shared memory, for tensors sent to other processes (yaten.multiprocessing).
//
// The bytes move into an anonymous memfd mapped MAP_SHARED. Another process receives a duplicate of the file
// descriptor (multiprocessing passes it over its socket) and maps the same pages, so writes on either side are
// seen by the other. There is no name to unlink: the kernel frees the memory when the last mapping and descriptor
// are gone, i.e. when the last tensor using it in any process is freed.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/storage.h"

namespace yaten {

namespace {
struct SharedMapping {
  void* data;
  size_t length;
  int fd;
};

void release_mapping(void* context, size_t) {
  auto* m = static_cast<SharedMapping*>(context);
  if (m->data && m->length) munmap(m->data, m->length);
  close(m->fd);
  delete m;
}

void* map_shared(int fd, size_t length) {
  if (length == 0) return nullptr;
  void* data = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  YATEN_CHECK(data != MAP_FAILED, RuntimeError, "share_memory_: mmap of ", length, " bytes failed: ",
              std::strerror(errno));
  return data;
}
}  // namespace

void StorageImpl::share_memory() {
  if (is_shared()) return;
  YATEN_CHECK(device_.is_cpu(), RuntimeError, "share_memory_: only CPU tensors can be moved to shared memory");
  const int fd = memfd_create("yaten", MFD_CLOEXEC);
  YATEN_CHECK(fd >= 0, RuntimeError, "share_memory_: memfd_create failed: ", std::strerror(errno));
  if (nbytes_ > 0 && ftruncate(fd, static_cast<off_t>(nbytes_)) != 0) {
    close(fd);
    YATEN_FAIL(RuntimeError, "share_memory_: ftruncate failed: ", std::strerror(errno));
  }
  void* data = nullptr;
  try {
    data = map_shared(fd, nbytes_);
  } catch (...) {
    close(fd);
    throw;
  }
  if (nbytes_) std::memcpy(data, allocation_.data, nbytes_);
  Allocation old = allocation_;
  allocation_ = Allocation{data, new SharedMapping{data, nbytes_, fd}, &release_mapping};
  shared_fd_ = fd;
  if (old.deleter) old.deleter(old.context, nbytes_);
}

std::shared_ptr<StorageImpl> StorageImpl::from_shared_fd(int fd, size_t nbytes) {
  void* data;
  try {
    data = map_shared(fd, nbytes);
  } catch (...) {
    close(fd);
    throw;
  }
  auto storage = std::make_shared<StorageImpl>(
      Allocation{data, new SharedMapping{data, nbytes, fd}, &release_mapping}, nbytes, Device(DeviceType::CPU));
  storage->shared_fd_ = fd;
  return storage;
}

}  // namespace yaten
