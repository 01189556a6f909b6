// Definitions for core/: errors, dtype names and promotion, devices, the CPU allocator, tensors.
#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "core/error.h"
#include "core/gil.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "core/type_promotion.h"
#include "cuda/cuda_runtime.h"
#include "profiler/profiler.h"

namespace yaten {

namespace detail {
void throw_error(ErrorType type, std::string message) { throw Error(type, std::move(message)); }
GilHooks g_gil_hooks;

void warn(const std::string& message) {
  if (g_gil_hooks.warn == nullptr) {
    std::fprintf(stderr, "yaten warning: %s\n", message.c_str());
    return;
  }
  YATEN_CHECK(g_gil_hooks.warn(message.c_str()), RuntimeError, message);
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------------- dtypes

const char* dtype_name(ScalarType t) {
  switch (t) {
#define YATEN_NAME_CASE(ctype, name, pyname) \
  case ScalarType::name: return #pyname;
    YATEN_FORALL_SCALAR_TYPES(YATEN_NAME_CASE)
#undef YATEN_NAME_CASE
    default: return "undefined";
  }
}

ScalarType dtype_from_name(const std::string& name) {
  static const std::unordered_map<std::string, ScalarType> names = {
      {"uint8", ScalarType::Byte},     {"int8", ScalarType::Char},      {"int16", ScalarType::Short},
      {"short", ScalarType::Short},    {"int32", ScalarType::Int},      {"int", ScalarType::Int},
      {"int64", ScalarType::Long},     {"long", ScalarType::Long},      {"float16", ScalarType::Half},
      {"half", ScalarType::Half},      {"float32", ScalarType::Float},  {"float", ScalarType::Float},
      {"float64", ScalarType::Double}, {"double", ScalarType::Double},  {"bool", ScalarType::Bool},
      {"bfloat16", ScalarType::BFloat16}};
  auto it = names.find(name);
  return it == names.end() ? ScalarType::Undefined : it->second;
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  // torch's table, restricted to our ten types, in enum order: u1 i1 i2 i4 i8 f2 f4 f8 b1 bf.
  constexpr ScalarType u1 = ScalarType::Byte, i1 = ScalarType::Char, i2 = ScalarType::Short,
                       i4 = ScalarType::Int, i8 = ScalarType::Long, f2 = ScalarType::Half,
                       f4 = ScalarType::Float, f8 = ScalarType::Double, b1 = ScalarType::Bool,
                       bf = ScalarType::BFloat16;
  static constexpr ScalarType table[kNumScalarTypes][kNumScalarTypes] = {
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------- promotion

namespace {
std::atomic<ScalarType> g_default_dtype{ScalarType::Float};

// torch's combine_categories: a lower tier matters only when its category is higher.
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (is_floating_point(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating_point(lower)) {
    return lower == ScalarType::Undefined ? higher : promote_types(higher, lower);
  }
  return higher;
}
}  // namespace

ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType dtype) {
  YATEN_CHECK(dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half ||
                  dtype == ScalarType::BFloat16,
              TypeError, "set_default_dtype: only floating-point dtypes are supported, got ", dtype_name(dtype));
  g_default_dtype.store(dtype);
}

void ResultTypeState::add(const Tensor& t) {
  if (!t.defined()) return;
  ScalarType dtype = t.dtype();
  if (t.impl()->is_wrapped_number()) {
    if (is_floating_point(dtype)) dtype = default_dtype();
    wrapped_result_ = promote_types(wrapped_result_, dtype);
  } else if (t.dim() == 0) {
    zero_dim_result_ = promote_types(zero_dim_result_, dtype);
  } else {
    dim_result_ = promote_types(dim_result_, dtype);
  }
}

void ResultTypeState::add(const Scalar& s) {
  ScalarType dtype = s.is_floating_point() ? default_dtype() : s.natural_dtype();
  wrapped_result_ = promote_types(wrapped_result_, dtype);
}

ScalarType ResultTypeState::result() const {
  return combine_categories(dim_result_, combine_categories(zero_dim_result_, wrapped_result_));
}

ScalarType result_type(const std::vector<Tensor>& tensors) {
  ResultTypeState state;
  for (const Tensor& t : tensors) state.add(t);
  return state.result();
}

// ---------------------------------------------------------------------------------------------------- devices

Device Device::parse(const std::string& text) {
  if (text == "cpu") return Device(DeviceType::CPU);
  if (text == "cuda") return Device(DeviceType::CUDA, -1);
  if (text.rfind("cuda:", 0) == 0 && text.size() > 5) {
    int index = 0;
    for (size_t i = 5; i < text.size(); ++i) {
      YATEN_CHECK(text[i] >= '0' && text[i] <= '9' && index < 100, ValueError,
                  "device: expected 'cpu', 'cuda' or 'cuda:N', got '", text, "'");
      index = index * 10 + (text[i] - '0');
    }
    return Device(DeviceType::CUDA, index);
  }
  YATEN_FAIL(ValueError, "device: expected 'cpu', 'cuda' or 'cuda:N', got '", text, "'");
}

std::string Device::str() const {
  if (is_cpu()) return "cpu";
  return index < 0 ? std::string("cuda") : "cuda:" + std::to_string(index);
}

// ---------------------------------------------------------------------------------------------------- allocators

namespace {
// 64-byte aligned for vector loads; large blocks are 2 MiB aligned and asked to use huge pages, because a fresh
// 4 KiB page costs ~2.5 us to fault in on this kind of machine (DESIGN.md section 9).
std::atomic<int64_t> g_allocations{0}, g_huge_allocations{0}, g_bytes_in_use{0}, g_peak_bytes{0};

// Blocks of 2 MiB and more are kept for reuse when freed (up to YATEN_CPU_CACHE_MB, 1024 by default; 0 turns the
// cache off): `a + b` in a loop then writes into memory that is already faulted in, at the speed of a copy into a
// preallocated output, instead of paying a page fault per 2 MiB (or per 4 KiB without huge pages) every call.
class BlockCache {
 public:
  static BlockCache& get() {
    static BlockCache* cache = new BlockCache();  // never destroyed: tensors may be freed during exit
    return *cache;
  }
  // A cached block of `rounded` bytes (up to 1/8 larger), or nullptr.
  void* take(size_t rounded) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = blocks_.lower_bound(rounded);
    if (it == blocks_.end() || it->first > rounded + rounded / 8) return nullptr;
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

class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kHugePage = size_t(2) << 20;

  Allocation allocate(size_t nbytes, Device) override {
    if (nbytes == 0) return Allocation{};
    size_t alignment = nbytes >= kHugePage ? kHugePage : 64;
    size_t rounded = (nbytes + alignment - 1) / alignment * alignment;
    void* data = alignment == kHugePage ? BlockCache::get().take(rounded) : nullptr;
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
                        if (n >= kHugePage) {
                          BlockCache& cache = BlockCache::get();
                          const size_t rounded = cache.real_size(p, (n + kHugePage - 1) / kHugePage * kHugePage);
                          if (cache.keep(p, rounded)) return;
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

void cpu_empty_cache() { BlockCache::get().release_all(); }

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

// ---------------------------------------------------------------------------------------------------- tensors

// Note [Checked size arithmetic]: every element count, byte count and storage extent is computed here, with
// overflow checks, so a size whose product does not fit in int64 is a RuntimeError at the source instead of a
// wrapped count (a tensor whose numel disagrees with its storage) further on.
namespace {
int64_t mul_or_fail(const char* op, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  YATEN_CHECK(!__builtin_mul_overflow(a, b, &r), RuntimeError, op, ": ", what, " overflows int64 (", a, " * ", b,
              ")");
  return r;
}
int64_t add_or_fail(const char* op, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  YATEN_CHECK(!__builtin_add_overflow(a, b, &r), RuntimeError, op, ": ", what, " overflows int64 (", a, " + ", b,
              ")");
  return r;
}
}  // namespace

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    // an empty tensor's sizes need not have a product that fits (zeros(0, 2**62, 2**62)); torch refuses these too
    if (i > 0) stride = mul_or_fail("contiguous strides", stride, std::max<int64_t>(sizes[i], 1), "a stride");
  }
  return strides;
}

int64_t checked_numel(const char* op, IntArrayRef sizes) {
  int64_t n = 1;
  bool empty = false;
  for (int64_t s : sizes) {
    YATEN_CHECK(s >= 0, ValueError, op, ": negative dimension ", s, " in size");
    empty = empty || s == 0;
  }
  if (empty) return 0;  // however large the other sizes
  for (int64_t s : sizes) n = mul_or_fail(op, n, s, "the number of elements");
  return n;
}

size_t checked_nbytes(const char* op, int64_t numel, ScalarType dtype) {
  return static_cast<size_t>(mul_or_fail(op, numel, element_size(dtype), "the size in bytes"));
}

int64_t checked_extent(const char* op, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t extent = offset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    extent = add_or_fail(op, extent, mul_or_fail(op, sizes[i] - 1, strides[i], "the storage extent"),
                         "the storage extent");
  }
  return add_or_fail(op, extent, 1, "the storage extent");
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      dtype_(dtype) {
  refresh_metadata();
}

void TensorImpl::resize_(IntArrayRef sizes) {
  const int64_t n = checked_numel("resize_", sizes);
  const size_t needed = checked_nbytes("resize_", add_or_fail("resize_", storage_offset_, n, "the size"), dtype_);
  if (needed > storage_->nbytes()) {
    storage_ = make_storage(checked_nbytes("resize_", n, dtype_), storage_->device());
    storage_offset_ = 0;
  }
  sizes_ = sizes;
  strides_ = contiguous_strides(sizes);
  refresh_metadata();
}

void TensorImpl::refresh_metadata() {
  numel_ = checked_numel("view", sizes_);
  // Contiguous: row-major strides, ignoring dims of size 1 (their stride never matters).
  is_contiguous_ = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[i];
  }
}

int64_t Tensor::size(int64_t d) const {
  int64_t n = dim();
  YATEN_CHECK(n > 0, IndexError, "size: dimension specified as ", d, " but tensor has no dimensions");
  YATEN_CHECK(d >= -n && d < n, IndexError, "size: dimension ", d, " out of range for a tensor of ", n,
              " dimensions");
  if (d < 0) d += n;
  return sizes()[d];
}

namespace detail {
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  const int64_t n = checked_numel("empty", sizes);
  Storage storage = make_storage(checked_nbytes("empty", n, dtype), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  checked_numel("empty_strided", sizes);
  const int64_t extent = checked_extent("empty_strided", sizes, strides, 0);  // one past the furthest element
Storage storage = make_storage(static_cast<size_t>(extent * element_size(dtype)), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

Tensor wrapped_scalar_tensor(const Scalar& value) {
  ScalarType dtype = value.natural_dtype();
  Tensor t = empty_tensor({}, dtype, Device(DeviceType::CPU));
  switch (dtype) {
    case ScalarType::Bool: *t.data<bool>() = value.to<bool>(); break;
    case ScalarType::Long: *t.data<int64_t>() = value.to<int64_t>(); break;
    default: *t.data<double>() = value.to<double>(); break;
  }
  t.impl()->set_wrapped_number(true);
  return t;
}
}  // namespace detail

}  // namespace yaten
