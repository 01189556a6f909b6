// How many blocks of a kernel the device runs at once: a grid of exactly that many ("one full wave") keeps every
// multiprocessor busy to the end, where a grid a little larger leaves most of them idle while the last blocks run
// (1056 blocks of a reduction whose multiprocessors hold 6 each on a 132-SM H100 is 1.33 waves: a third of the
// time at a third of the speed).
#pragma once

#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "core/error.h"

namespace yaten::cuda {

// The blocks of `threads` threads of `kernel` resident on the whole of device `device` at once (at least one per
// multiprocessor), cached per kernel and device.
template <typename Kernel>
int64_t full_wave(Kernel kernel, int threads, int device) {
  struct Entry {
    const void* kernel;
    int threads, device;
    int64_t blocks;
  };
  thread_local std::vector<Entry> cache;
  const void* key = reinterpret_cast<const void*>(kernel);
  for (const Entry& e : cache) {
    if (e.kernel == key && e.threads == threads && e.device == device) return e.blocks;
  }
  int per_sm = 0;
  const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "cudaOccupancyMaxActiveBlocksPerMultiprocessor failed: ",
              cudaGetErrorString(err));
  const int64_t blocks = int64_t(per_sm > 0 ? per_sm : 1) * multiprocessor_count(device);
  cache.push_back({key, threads, device, blocks});
  return blocks;
}

}  // namespace yaten::cuda
