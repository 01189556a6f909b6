// The CUDA runtime as the rest of yaten sees it: devices, streams, events, the caching allocator, pinned memory.
//
// Defined in runtime.cpp when yaten is built with CUDA and in no_cuda.cpp otherwise, so no other file needs to know
// which. Streams and events cross this header as opaque handles (a cudaStream_t or cudaEvent_t cast to void*), so
// files compiled without the CUDA headers (the Python bindings) can hold them.
//
// Note [CUDA streams]: each thread has a current stream per device, the default (null) stream unless set with
// set_current_stream. Every kernel and copy runs on the current stream of its device; nothing synchronizes the host
// except copies to pageable host memory, .item(), and the explicit synchronize calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/scalar_type.h"
#include "core/storage.h"

namespace yaten::cuda {

using StreamHandle = void*;
using EventHandle = void*;

// The number of CUDA devices; 0 when there is no GPU or no driver (never an error).
int device_count();
int current_device();
void set_device(int index);
// RuntimeError naming `op` unless `index` is a device that exists (and a GPU is there at all).
void check_device(const char* op, int index);
// Resolves "cuda" (index -1) to the current device.
Device resolve(Device device);

// Makes `index` the current device for its lifetime, and restores the previous one (a no-op when they agree).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// Streams (see Note [CUDA streams]). Streams made by create_stream live as long as the process.
StreamHandle current_stream(int device);
void set_current_stream(int device, StreamHandle stream);
StreamHandle create_stream(int device, int priority);
void stream_synchronize(int device, StreamHandle stream);
bool stream_query(int device, StreamHandle stream);
void stream_wait_event(int device, StreamHandle stream, EventHandle event);
// Waits (on the GPU, without blocking the host) in `stream` for all work queued so far on `other`.
void stream_wait_stream(int device, StreamHandle stream, StreamHandle other);
std::pair<int, int> stream_priority_range();
void device_synchronize(int device);

EventHandle create_event(int device, bool enable_timing, bool blocking);
void destroy_event(int device, EventHandle event);
void record_event(int device, EventHandle event, StreamHandle stream);
void event_synchronize(EventHandle event);
bool event_query(EventHandle event);
// Milliseconds from `start` to `end`; both must have been recorded with timing enabled and have completed.
float event_elapsed_ms(EventHandle start, EventHandle end);

// The caching allocator's counters for one device, with torch.cuda.memory_stats()'s meanings.
struct AllocatorStats {
  int64_t allocated_bytes = 0, peak_allocated_bytes = 0;  // handed out to tensors (rounded sizes)
  int64_t reserved_bytes = 0, peak_reserved_bytes = 0;    // held from cudaMalloc, in use or cached
  int64_t requested_bytes = 0;                            // handed out, as asked for
  int64_t allocations = 0, peak_allocations = 0;          // blocks in use now
  int64_t segments = 0;                                   // cudaMalloc'd regions held now
  int64_t num_device_alloc = 0, num_device_free = 0;      // cudaMalloc / cudaFree calls ever made
  int64_t num_alloc_retries = 0, num_ooms = 0;            // cache flushes after a failed cudaMalloc; OOMs raised
  int64_t allocation_requests = 0;                        // allocate() calls ever made
};
AllocatorStats allocator_stats(int device);
void reset_peak_stats(int device);
// Returns every cached block that is not in use to the driver.
void empty_cache();
// Marks the memory at `data` (a CUDA tensor's storage) as used by `stream`: its block is not reused until the work
// queued on `stream` by the time the tensor is freed has finished.
void record_stream(const void* data, StreamHandle stream);

// Page-locked host memory for fast and asynchronous copies (Tensor.pin_memory()), cached for reuse.
Allocation allocate_pinned(size_t nbytes);
bool is_pinned(const void* data);
// `data` (pinned) is read or written by work on `stream`: its block is not reused until that work finishes.
void record_pinned_use(const void* data, int device, StreamHandle stream);

// Copies on `device`'s current stream. kind: 0 host->device, 1 device->host, 2 device->device. With `blocking`, the
// host waits for the copy (and all earlier work on the stream) to end.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void memcpy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device, bool blocking);

// RuntimeError naming `what` when the last kernel launch failed.
void check_launch(const char* what);

// ---- cuBLAS (cublas.cpp), opened with dlopen the first time a matmul needs it (Design rule [Run-time libraries]).
// Where to look for libcublas, in order (yaten/cuda.py sets the nvidia-cublas wheel's paths at import).
void set_cublas_candidates(const std::vector<std::string>& paths);
// The path of the loaded libcublas, opening it first; RuntimeError saying what to install when none opens.
std::string cublas_path();

// C = op(A) @ op(B) for `batch` matrices, column-major as cuBLAS counts (m x n results, k the inner size), on
// `device`'s current stream: op is a transpose where trans_* is set; the strides step from one matrix of the batch
// to the next (0 repeats one matrix). dtype: float16, bfloat16 (float accumulation), float32 (TF32 tensor cores only
// when float32_matmul_precision allows), float64. RuntimeError naming `op` on a size cuBLAS cannot take or a cuBLAS
// failure.
struct GemmOperand {
  const void* data;
  int64_t ld;
  int64_t batch_stride;
  bool transposed;
};
void gemm(const char* op, ScalarType dtype, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
          const GemmOperand& b, void* c, int64_t ldc, int64_t c_batch_stride, int64_t batch, int device);

// ---- cuFFT (cufft.cpp), opened with dlopen the first time an FFT on CUDA needs it, as cuBLAS is.
void set_cufft_candidates(const std::vector<std::string>& paths);
std::string cufft_path();
enum class FftType { C2C, R2C, C2R };
// `batch` unnormalized transforms of contiguous signals laid one after another in `in` and `out` (out of place), on
// `device`'s current stream. `signal`: 1 to 3 sizes, the real side's for R2C and C2R (whose complex side holds
// n // 2 + 1 terms along the last); real_dtype float32 or float64. C2R overwrites `in`. RuntimeError naming `op` on
// a size cuFFT cannot take or a cuFFT failure.
void fft(const char* op, FftType type, ScalarType real_dtype, const std::vector<int64_t>& signal, int64_t batch,
         const void* in, void* out, bool forward, int device);

std::string device_name(int index);
// (major, minor, multiprocessors, total memory in bytes)
std::vector<int64_t> device_properties(int index);
// The number of multiprocessors of `index` (what kernels size their grids by), cached per thread.
int multiprocessor_count(int index);

}  // namespace yaten::cuda
