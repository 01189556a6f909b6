// yaten.backends.cudnn's switches (cudnn.h), held once for both builds: a build without CUDA keeps their values too,
// as torch.backends.cudnn's are kept where there is no GPU.
#include <mutex>

#include "cuda/cudnn.h"

namespace yaten::cuda {

namespace {
std::mutex g_mutex;
CudnnSettings g_settings;
}  // namespace

CudnnSettings cudnn_settings() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_settings;
}

void set_cudnn_settings(const CudnnSettings& settings) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_settings = settings;
}

}  // namespace yaten::cuda
