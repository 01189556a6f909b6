// The host side of gpu_kernel (iter/cuda_loops.cuh): the two paths' kernel parameters, and launch_pointwise, which
// plans and launches a pointwise kernel given only its functor's arity, dtypes and two launch functions. Plain C++
// (no CUDA syntax), so that csrc/cuda/gpu_kernel.cpp compiles it once, with g++, for every CUDA unit.
// Note [The functor-free launch plan].
#pragma once

#include <cstdint>

#include "core/scalar_type.h"

namespace yaten {
class TensorIterator;
}

namespace yaten::native::cuda_detail {
constexpr int kMaxDims = 16;
constexpr int kThreads = 128;
constexpr int kElementsPerThread = 4;  // strided path, in a loop that is not unrolled (Note [One vector per thread])
constexpr int kMaxOperands = 5;        // launch_pointwise is compiled for 1 to 5 operands (the output and 0-4 inputs)

// n / d and n % d for a divisor fixed at launch: q = (umulhi(n, magic) + n) >> shift (Granlund and Montgomery).
struct IntDivider {
  uint32_t divisor = 1, magic = 0, shift = 0;
  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t(1) << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d)) / d + 1);
  }
#if defined(__CUDACC__)
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return (__umulhi(n, magic) + n) >> shift;  // n < 2^31, so the sum does not overflow
  }
#endif
};

// A value of at most 16 bytes (complex128), for CPU scalars passed by value.
union ScalarArg {
  double d;
  int64_t i;
  alignas(16) unsigned char bytes[16];
};

template <int N>  // N operands, the output first
struct StridedParams {
  char* data[N];
  int ndim;
  IntDivider sizes[kMaxDims];        // innermost first
  uint32_t strides[kMaxDims][N];     // bytes
  ScalarType dtypes[N];              // of the inputs as stored; the loads convert where it differs
  uint32_t scalar_mask;              // bit k: input k (operand k + 1) is a CPU scalar, in scalars[k]
  ScalarArg scalars[N];
};

template <int N>
struct VectorParams {
  char* data[N];
  uint32_t scalar_mask;
  ScalarArg scalars[N];
};

// A functor's two launches (cuda_loops.cuh: launch_vectorized<Op, N> and launch_strided<Op, N>), each one <<<>>>
// on `stream` (a cudaStream_t) of the functor at `op`.
template <int N>
using VectorLaunch = void (*)(const void* op, int64_t n, const VectorParams<N>& p, unsigned blocks, void* stream);
template <int N>
using StridedLaunch = void (*)(const void* op, uint32_t n, const StridedParams<N>& p, unsigned blocks,
                               void* stream);

// What launch_pointwise needs to know of a functor.
template <int N>
struct PointwiseKernel {
  const ScalarType* args;  // the functor's argument dtypes, N - 1 of them
  ScalarType out;          // its result's dtype
  int V;                   // elements per 16-byte vector of its widest operand
  const void* op;          // the functor
  VectorLaunch<N> vectorized;
  StridedLaunch<N> strided;  // null for a functor that runs only where the vectorized path applies
};

// Runs `kernel` over `iter` on its device's current stream: the vectorized path where every operand is contiguous
// (or a CPU scalar), 16-byte aligned and of the functor's dtypes, the strided one otherwise. With `vectorized_only`,
// it launches nothing where the vectorized path does not apply, and says so by returning false. Defined in
// csrc/cuda/gpu_kernel.cpp for N = 1 to kMaxOperands.
template <int N>
bool launch_pointwise(const TensorIterator& iter, const PointwiseKernel<N>& kernel, bool vectorized_only);

}  // namespace yaten::native::cuda_detail
