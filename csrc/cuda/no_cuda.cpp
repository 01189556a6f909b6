// yaten built without CUDA: there are no devices; whatever needs one raises, and asking about them is harmless.
#include "core/error.h"
#include "cuda/cuda_runtime.h"
#include "cuda/cusolver.h"
#include "cuda/cudnn.h"

namespace yaten::cuda {

namespace {
[[noreturn]] void no_cuda(const char* op) {
  YATEN_FAIL(RuntimeError, op, ": yaten was built without CUDA: rebuild with nvcc available "
             "(-Ccmake.define.YATEN_CUDA=ON)");
}
}  // namespace

int device_count() { return 0; }
int current_device() { return 0; }
void set_device(int) { no_cuda("set_device"); }
void check_device(const char* op, int) { no_cuda(op); }
Device resolve(Device device) {
  if (device.is_cuda() && device.index < 0) return Device(DeviceType::CUDA, 0);
  return device;
}
DeviceGuard::DeviceGuard(int) {}
DeviceGuard::~DeviceGuard() = default;
StreamHandle current_stream(int) { return nullptr; }
void set_current_stream(int, StreamHandle) { no_cuda("set_stream"); }
StreamHandle create_stream(int, int) { no_cuda("Stream"); }
void stream_synchronize(int, StreamHandle) { no_cuda("Stream.synchronize"); }
bool stream_query(int, StreamHandle) { no_cuda("Stream.query"); }
void stream_wait_event(int, StreamHandle, EventHandle) { no_cuda("Stream.wait_event"); }
void stream_wait_stream(int, StreamHandle, StreamHandle) { no_cuda("Stream.wait_stream"); }
std::pair<int, int> stream_priority_range() { return {0, 0}; }
void device_synchronize(int) { no_cuda("synchronize"); }
EventHandle create_event(int, bool, bool) { no_cuda("Event"); }
void destroy_event(int, EventHandle) {}
void record_event(int, EventHandle, StreamHandle) { no_cuda("Event.record"); }
void event_synchronize(EventHandle) { no_cuda("Event.synchronize"); }
bool event_query(EventHandle) { no_cuda("Event.query"); }
float event_elapsed_ms(EventHandle, EventHandle) { no_cuda("Event.elapsed_time"); }
AllocatorStats allocator_stats(int) { return {}; }
void reset_peak_stats(int) {}
void empty_cache() {}
void record_stream(const void*, StreamHandle) { no_cuda("record_stream"); }
Allocation allocate_pinned(size_t) { no_cuda("pin_memory"); }
bool is_pinned(const void*) { return false; }
void record_pinned_use(const void*, int, StreamHandle) {}
void memcpy(void*, const void*, size_t, CopyKind, int, bool) { no_cuda("copy_"); }
void check_launch(const char*) {}
void set_cublas_candidates(const std::vector<std::string>&) {}
std::string cublas_path() { no_cuda("cuBLAS"); }
void gemm(const char* op, ScalarType, int64_t, int64_t, int64_t, const GemmOperand&, const GemmOperand&, void*,
          int64_t, int64_t, int64_t, int) {
  no_cuda(op);
}
void set_cusolver_candidates(const std::vector<std::string>&) {}
std::string cusolver_path() { no_cuda("cuSOLVER"); }
void set_cufft_candidates(const std::vector<std::string>&) {}
std::string cufft_path() { no_cuda("cuFFT"); }
void fft(const char* op, FftType, ScalarType, const std::vector<int64_t>&, int64_t, const void*, void*, bool, int) {
  no_cuda(op);
}
void set_cudnn_candidates(const std::vector<std::string>&) {}
bool cudnn_available() { return false; }
std::string cudnn_path() { no_cuda("cuDNN"); }
int64_t cudnn_version() { no_cuda("cuDNN"); }
std::pair<int64_t, int64_t> cudnn_call_counts() { return {0, 0}; }
bool cudnn_takes(const ConvolutionDescription&) { return false; }
std::vector<int64_t> cudnn_output_size(const ConvolutionDescription&) { no_cuda("cuDNN"); }
void cudnn_convolution(const char* op, ConvolutionPass, const ConvolutionDescription&, void*, void*, void*) {
  no_cuda(op);
}
std::string device_name(int) { no_cuda("get_device_name"); }
std::vector<int64_t> device_properties(int) { no_cuda("get_device_properties"); }
int multiprocessor_count(int) { no_cuda("multiprocessor_count"); }

}  // namespace yaten::cuda
