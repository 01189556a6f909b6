// The CUDA backend's runtime: its allocator, device count, and launch/memcpy error checks.
#include <cuda_runtime.h>

#include "core/storage.h"
#include "cuda/cuda_runtime.h"
#include "iter/cuda_loops.cuh"
#include "kernels/cuda/copy.cuh"

namespace yaten {

namespace {
void check(cudaError_t err, const char* what) {
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "CUDA error in ", what, ": ", cudaGetErrorString(err));
}

class CudaAllocator final : public Allocator {
 public:
  Allocation allocate(size_t nbytes, Device device) override {
    const int count = cuda::device_count();
    YATEN_CHECK(count > 0, RuntimeError, "CUDA: no CUDA GPU is available (yaten.cuda.is_available() is False); "
                "create the tensor on the CPU instead");
    YATEN_CHECK(device.index < count, RuntimeError, "CUDA: device ", device.str(), " does not exist (", count,
                " device", count == 1 ? "" : "s", " found)");
    if (nbytes == 0) return Allocation{};
    check(cudaSetDevice(device.index < 0 ? 0 : device.index), "cudaSetDevice");
    void* data = nullptr;
    check(cudaMalloc(&data, nbytes), "cudaMalloc");
    return Allocation{data, data, [](void* p, size_t) { cudaFree(p); }};
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
}  // namespace

namespace cuda {
int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: clear the sticky error and report none
    return 0;
  }
  return n;
}
}  // namespace cuda

namespace native {
namespace cuda_detail {
void check_launch(const char* what) { check(cudaGetLastError(), what); }
}  // namespace cuda_detail
namespace cuda::detail {
void memcpy_checked(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind) {
  check(cudaMemcpy(dst, src, nbytes, kind), "cudaMemcpy");
}
}  // namespace cuda::detail
}  // namespace native

}  // namespace yaten
