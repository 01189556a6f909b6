// The CUDA runtime as the rest of yaten sees it. Defined in cuda_runtime.cu when yaten is built with CUDA and in
// no_cuda.cpp otherwise, so no other file needs to know which.
#pragma once

namespace yaten::cuda {

// The number of CUDA devices; 0 when there is no GPU or no driver (never an error).
int device_count();

}  // namespace yaten::cuda
