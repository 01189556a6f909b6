// The CPU allocator: aligned blocks, huge pages for large ones, a cache of freed large blocks, and its statistics.
#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/storage.h"
#include "core/tensor.h"
#include "cuda/cuda_runtime.h"
#include "profiler/profiler.h"

namespace yaten {

// ---------------------------------------------------------------------------------------------------- allocators

namespace {
// 64-byte aligned for vector loads; large blocks are 2 MiB aligned and asked to use huge pages, because a fresh
// 4 KiB page costs ~2.5 us to fault in on this kind of machine (Design rule [Measured facts]).
std::atomic<int64_t> g_allocations{0}, g_huge_allocations{0}, g_bytes_in_use{0}, g_peak_bytes{0};

// Blocks of 128 KiB and more are kept for reuse when freed (up to YATEN_CPU_CACHE_MB, 1024 by default; 0 turns the
// cache off): `a + b` in a loop then writes into memory that is already faulted in, at the speed of a copy into a
// preallocated output, instead of paying a page fault per 2 MiB (or per 4 KiB without huge pages) every call. From
// 128 KiB, not only 2 MiB: glibc serves those sizes with mmap (or trims them off its heap when freed), so a training
// step of small layers (activations of 0.4-1.6 MB) faulted ~1,900 pages a step, 4.4x torch's count.
class BlockCache {
 public:
  static BlockCache& get() {
    static BlockCache* cache = new BlockCache();  // never destroyed: tensors may be freed during exit
    return *cache;
  }
  // A cached block of `rounded` bytes (up to 1/8 larger), or nullptr. Of several blocks of that size, the one
  // freed last, which is likeliest still in cache: `a + b` in a loop then writes into one block call after call,
  // instead of going round every block of its size that a backward pass left (a multimap finds the oldest first,
  // which made batch_norm's 6.4 MB output 35% slower after a convolution's backward).
  void* take(size_t rounded) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = blocks_.lower_bound(rounded);
    if (it == blocks_.end() || it->first > rounded + rounded / 8) return nullptr;
    it = std::prev(blocks_.upper_bound(it->first));  // keep() appends to its size's run: the newest is last
    void* p = it->second;
    cached_bytes_ -= it->first;
    sizes_[p] = it->first;
    blocks_.erase(it);
    hits_.fetch_add(1, std::memory_order_relaxed);
    return p;
  }
  // Keeps `p` (a block of `rounded` bytes) unless the cache is full; returns whether it did.
  bool keep(void* p, size_t rounded) {
    std::lock_guard<std::mutex> g(mu_);
    if (cached_bytes_ + rounded > limit_) return false;
    blocks_.emplace(rounded, p);
    cached_bytes_ += rounded;
    return true;
  }
  // The real size of a block handed out by take() (it may be larger than asked), else `rounded`.
  size_t real_size(void* p, size_t rounded) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = sizes_.find(p);
    if (it == sizes_.end()) return rounded;
    const size_t n = it->second;
    sizes_.erase(it);
    return n;
  }
  void release_all() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [size, p] : blocks_) std::free(p);
    blocks_.clear();
    cached_bytes_ = 0;
  }
  int64_t cached_bytes() {
    std::lock_guard<std::mutex> g(mu_);
    return static_cast<int64_t>(cached_bytes_);
  }
  int64_t hits() const { return hits_.load(); }

 private:
  BlockCache() {
    const char* v = std::getenv("YATEN_CPU_CACHE_MB");
    limit_ = (v ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : size_t(1024)) << 20;
  }
  std::mutex mu_;
  std::multimap<size_t, void*> blocks_;
  std::unordered_map<void*, size_t> sizes_;
  size_t cached_bytes_ = 0, limit_ = 0;
  std::atomic<int64_t> hits_{0};
};

// Note [Small blocks per thread]: blocks under 4 KiB (a tensor of up to 1,024 floats) are kept when freed, per thread,
// up to 16 of each 64-byte size, and handed out again by the next allocation of that size on the thread. glibc's
// aligned_alloc takes a chunk larger by the alignment and frees the ends it cut off: `a + b` on 100 floats took 442
// ns with it, 328 with the kept blocks (NumPy's 324), which cost a few ns. A block freed on another thread joins that
// thread's lists, as in tcmalloc. At thread exit the lists are freed; a block freed after that goes back to glibc.
class SmallBlocks {
 public:
  static constexpr size_t kLimit = 4096, kStep = 64, kClasses = kLimit / kStep, kPerClass = 16;
  static size_t class_of(size_t rounded) { return rounded / kStep - 1; }  // rounded: a multiple of 64 below kLimit
  void* take(size_t rounded) {
    const size_t c = class_of(rounded);
    return count_[c] ? blocks_[c][--count_[c]] : nullptr;
  }
  bool keep(void* p, size_t rounded) {
    const size_t c = class_of(rounded);
    if (count_[c] == kPerClass) return false;
    blocks_[c][count_[c]++] = p;
    return true;
  }
  void release_all() {
    for (size_t c = 0; c < kClasses; ++c) {
      while (count_[c]) std::free(blocks_[c][--count_[c]]);
    }
  }
  ~SmallBlocks() {
    release_all();
    dead_ = true;
  }
  // This thread's lists, or nullptr once they were destroyed (a tensor freed by a later thread-exit destructor).
  static SmallBlocks* mine() {
    if (dead_) return nullptr;
    thread_local SmallBlocks blocks;
    return &blocks;
  }

 private:
  static thread_local bool dead_;
  void* blocks_[kClasses][kPerClass];
  size_t count_[kClasses] = {};
};
thread_local bool SmallBlocks::dead_ = false;

class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kHugePage = size_t(2) << 20;
  static constexpr size_t kCached = size_t(128) << 10;  // blocks this large go through the cache
  // Large blocks are aligned (and rounded) to huge pages, cached ones below that to 4 KiB pages, the rest to 64 B.
  static size_t alignment_of(size_t nbytes) { return nbytes >= kHugePage ? kHugePage : nbytes >= kCached ? 4096 : 64; }
  static size_t rounded_of(size_t nbytes) {
    const size_t alignment = alignment_of(nbytes);
    return (nbytes + alignment - 1) / alignment * alignment;
  }

  Allocation allocate(size_t nbytes, Device) override {
    if (nbytes == 0) return Allocation{};
    const size_t alignment = alignment_of(nbytes), rounded = rounded_of(nbytes);
    void* data = nullptr;
    if (nbytes >= kCached) {
      data = BlockCache::get().take(rounded);
    } else if (rounded < SmallBlocks::kLimit) {
      if (SmallBlocks* small = SmallBlocks::mine()) data = small->take(rounded);
    }
    if (data == nullptr) {
      data = std::aligned_alloc(alignment, rounded);
      YATEN_CHECK(data != nullptr, RuntimeError, "CPU allocator: out of memory allocating ", nbytes, " bytes");
#ifdef MADV_HUGEPAGE
      if (alignment == kHugePage) madvise(data, rounded, MADV_HUGEPAGE);
#endif
    }
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (alignment == kHugePage) g_huge_allocations.fetch_add(1, std::memory_order_relaxed);
    const int64_t in_use = g_bytes_in_use.fetch_add(static_cast<int64_t>(nbytes)) + static_cast<int64_t>(nbytes);
    int64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
    while (in_use > peak && !g_peak_bytes.compare_exchange_weak(peak, in_use)) {
    }
    return Allocation{data, data, [](void* p, size_t n) {
                        g_bytes_in_use.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
                        if (n >= kCached) {
                          BlockCache& cache = BlockCache::get();
                          const size_t rounded = cache.real_size(p, rounded_of(n));
                          if (cache.keep(p, rounded)) return;
                        } else if (rounded_of(n) < SmallBlocks::kLimit) {
                          SmallBlocks* small = SmallBlocks::mine();
                          if (small != nullptr && small->keep(p, rounded_of(n))) return;
                        }
                        std::free(p);
                      }};
  }
  const char* name() const override { return "cpu"; }
};

Allocator* g_allocators[2] = {nullptr, nullptr};
}  // namespace

MemoryStats cpu_memory_stats() {
  return MemoryStats{g_allocations.load(), g_huge_allocations.load(), g_bytes_in_use.load(), g_peak_bytes.load(),
                     BlockCache::get().cached_bytes(), BlockCache::get().hits()};
}

void cpu_empty_cache() {
  BlockCache::get().release_all();
  if (SmallBlocks* small = SmallBlocks::mine()) small->release_all();
}

Allocator* allocator_for(DeviceType type) {
  static CpuAllocator cpu_allocator;
  if (type == DeviceType::CPU) return &cpu_allocator;
  Allocator* allocator = g_allocators[static_cast<int>(type)];
  YATEN_CHECK(allocator != nullptr, RuntimeError,
              "yaten was built without CUDA: rebuild with nvcc available (-Ccmake.define.YATEN_CUDA=ON)");
  return allocator;
}

void set_allocator(DeviceType type, Allocator* allocator) { g_allocators[static_cast<int>(type)] = allocator; }

namespace {
// While memory is profiled, each allocation tells the profiler its size now and when it is freed: the allocation's
// deleter is wrapped (profiler/profiler.h).
struct ProfiledAllocation {
  Allocation inner;
  int device_type;
};
Allocation profiled(Allocation allocation, size_t nbytes, Device device) {
  const int type = device.is_cuda() ? 1 : 0;
  profiler::record_memory(static_cast<int64_t>(nbytes), type);
  auto* wrapped = new ProfiledAllocation{allocation, type};
  return Allocation{allocation.data, wrapped, [](void* context, size_t n) {
                      auto* w = static_cast<ProfiledAllocation*>(context);
                      profiler::record_memory(-static_cast<int64_t>(n), w->device_type);
                      w->inner.deleter(w->inner.context, n);
                      delete w;
                    }};
}
}  // namespace

Storage make_storage(size_t nbytes, Device device) {
  device = cuda::resolve(device);  // "cuda" means the current device
  Allocation allocation = allocator_for(device.type)->allocate(nbytes, device);
  if (__builtin_expect(profiler::memory_profiling(), 0) && allocation.deleter != nullptr) {
    allocation = profiled(allocation, nbytes, device);
  }
  return std::make_shared<StorageImpl>(allocation, nbytes, device);
}

}  // namespace yaten
