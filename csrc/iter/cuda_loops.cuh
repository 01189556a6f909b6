// gpu_kernel(iter, functor): runs an element functor over a TensorIterator on a CUDA device, on the current stream.
//
// The functor is the op's element function, shared with the CPU (DESIGN.md 5a): a struct whose call operator is
// YATEN_HOST_DEVICE and takes one value per input. Two launch paths, chosen per call:
//   - vectorized: every operand contiguous (or a scalar) and 16-byte aligned, and inputs of the functor's types:
//     each thread loads and stores one 16-byte vector per operand (Note [One vector per thread]);
//   - strided: anything else. Offsets come from the linear index through per-dimension divisions by invariant
//     integers (a multiply and a shift each, see IntDivider), in 32-bit arithmetic; an iterator too large for that
//     is split along its outer dimensions until each piece fits. An input whose dtype differs from the functor's
//     argument type is converted as it is loaded (the iterator leaves CUDA inputs in their own dtypes).
// A CPU scalar (a 0-dim CPU tensor, which is how Python numbers arrive) is read once on the host and passed in the
// kernel's arguments, never copied to the device.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cstdint>
#include <tuple>
#include <utility>

#include "core/convert.h"
#include "core/dtype_switch.h"
#include "cuda/cuda_runtime.h"
#include "iter/function_traits.h"
#include "iter/tensor_iterator.h"

namespace yaten::native {

namespace cuda_detail {
constexpr int kMaxDims = 16;
constexpr int kThreads = 128;
constexpr int kElementsPerThread = 4;  // strided path, in a loop that is not unrolled (Note [One vector per thread])

// n / d and n % d for a divisor fixed at launch: q = (umulhi(n, magic) + n) >> shift (Granlund and Montgomery).
struct IntDivider {
  uint32_t divisor = 1, magic = 0, shift = 0;
  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t(1) << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return (__umulhi(n, magic) + n) >> shift;  // n < 2^31, so the sum does not overflow
  }
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

template <typename T, int V>
struct alignas(sizeof(T) * V) Vector {
  T v[V];
};

// Loads a T from memory holding `dtype`. Not inlined: one copy per T, shared by every kernel of the file.
template <typename T>
__device__ __noinline__ T load_converted(const char* ptr, ScalarType dtype) {
  switch (dtype) {
#define YATEN_LOAD_CASE(ctype, name, pyname) \
  case ScalarType::name: return convert<T>(*reinterpret_cast<const ctype*>(ptr));
    YATEN_FORALL_SCALAR_TYPES_AND_COMPLEX(YATEN_LOAD_CASE)
#undef YATEN_LOAD_CASE
    default: return T();
  }
}

template <typename T>
__device__ __forceinline__ T scalar_value(const ScalarArg& s) {
  T v;
  memcpy(&v, s.bytes, sizeof(T));
  return v;
}

template <typename Op, int N, size_t... I>
__global__ void __launch_bounds__(kThreads) strided_kernel(uint32_t n, StridedParams<N> p, Op op,
                                                           std::index_sequence<I...>) {
  using traits = detail::function_traits<Op>;
  using out_t = typename traits::result;
  using args = typename traits::args;
  const uint32_t base = blockIdx.x * (kThreads * kElementsPerThread) + threadIdx.x;
#pragma unroll 1
  for (int u = 0; u < kElementsPerThread; ++u) {
    const uint32_t linear = base + u * kThreads;
    if (linear >= n) return;
    uint32_t offsets[N] = {};
    uint32_t rest = linear;
#pragma unroll 4
    for (int d = 0; d < p.ndim; ++d) {
      const uint32_t q = p.sizes[d].div(rest);
      const uint32_t idx = rest - q * p.sizes[d].divisor;
      rest = q;
#pragma unroll
      for (int k = 0; k < N; ++k) offsets[k] += idx * p.strides[d][k];
    }
    auto load = [&](auto tag, int k) {
      using T = decltype(tag);
      if (p.scalar_mask & (1u << k)) return scalar_value<T>(p.scalars[k]);
      const char* ptr = p.data[k + 1] + offsets[k + 1];
      if (p.dtypes[k + 1] == scalar_type_of<T>) return *reinterpret_cast<const T*>(ptr);
      return load_converted<T>(ptr, p.dtypes[k + 1]);
    };
    *reinterpret_cast<out_t*>(p.data[0] + offsets[0]) = op(load(std::tuple_element_t<I, args>{}, int(I))...);
  }
}

// Note [One vector per thread]: each thread of the vectorized path moves one 16-byte vector per operand, and each
// thread of the strided path takes four elements in a loop that is not unrolled. Unrolling more work per thread
// would not put more loads in flight: a thread's next load cannot move above its store (the output may be an input,
// so the compiler keeps their order; the PTX of four unrolled vectors showed load, store, load, store), and the
// loads in flight per multiprocessor stay one vector per operand per resident thread. It only repeated the
// functor's code: four unrolled vectors of a 16-bit dtype were 32 inlined calls of the functor per kernel. With
// four vectors per thread, unary_ops.cu, binary_ops.cu, compare_ops.cu and activation_ops.cu took 120 core-seconds
// of nvcc; with one, 59. torch's vectorized kernel also gives each thread one vector.
template <int V, typename Op, int N, size_t... I>
__global__ void __launch_bounds__(kThreads) vectorized_kernel(int64_t n, VectorParams<N> p, Op op,
                                                              std::index_sequence<I...>) {
  using traits = detail::function_traits<Op>;
  using out_t = typename traits::result;
  using args = typename traits::args;
  const int64_t nvec = n / V;
  const int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i < nvec) {
    // Each input's vector (at most 16 bytes) as raw bytes, no std::tuple in device code; a CPU scalar fills its
    // vector, so that the functor's V calls below are one copy of code whichever inputs are scalars.
    alignas(16) unsigned char in[sizeof...(I) > 0 ? sizeof...(I) : 1][16];
    (
        [&](auto tag, int k) {
          using T = decltype(tag);
          auto& v = *reinterpret_cast<Vector<T, V>*>(in[k]);
          if (p.scalar_mask & (1u << k)) {
            const T s = scalar_value<T>(p.scalars[k]);
#pragma unroll
            for (int j = 0; j < V; ++j) v.v[j] = s;
          } else {
            v = reinterpret_cast<const Vector<T, V>*>(p.data[k + 1])[i];
          }
        }(std::tuple_element_t<I, args>{}, int(I)),
        ...);
    Vector<out_t, V> out;
#pragma unroll
    for (int j = 0; j < V; ++j) out.v[j] = op(reinterpret_cast<const std::tuple_element_t<I, args>*>(in[I])[j]...);
    reinterpret_cast<Vector<out_t, V>*>(p.data[0])[i] = out;
  }
  // The tail that does not fill a vector: one element per thread of the first block.
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * V) {
    const int64_t t = nvec * V + threadIdx.x;
    reinterpret_cast<out_t*>(p.data[0])[t] =
        op((p.scalar_mask & (1u << I) ? scalar_value<std::tuple_element_t<I, args>>(p.scalars[I])
                                      : reinterpret_cast<const std::tuple_element_t<I, args>*>(p.data[I + 1])[t])...);
  }
}

template <typename Args, size_t... I>
constexpr size_t widest_arg(std::index_sequence<I...>) {
  size_t w = 1;
  ((w = std::max(w, sizeof(std::tuple_element_t<I, Args>))), ...);
  return w;
}

// Whether every byte offset of every operand of `p` over `sizes` fits in 31 bits, and the element count too.
template <int N>
bool fits_32bit(const int64_t* sizes, const int64_t (*strides)[N], int ndim) {
  int64_t numel = 1;
  int64_t extent[N] = {};
  for (int d = 0; d < ndim; ++d) {
    numel *= sizes[d];
    for (int k = 0; k < N; ++k) extent[k] += (sizes[d] - 1) * strides[d][k];
  }
  if (numel >= (int64_t(1) << 31)) return false;
  for (int k = 0; k < N; ++k) {
    if (extent[k] >= (int64_t(1) << 31)) return false;
  }
  return true;
}

// Launches strided_kernel<Op> over one piece: launch_strided_piece<Op, N>, the strided path's one per-functor part.
template <int N>
using StridedLaunch = void (*)(const void* op, uint32_t n, const StridedParams<N>& p, unsigned blocks,
                               cudaStream_t stream);

template <typename Op, int N>
void launch_strided_piece(const void* op, uint32_t n, const StridedParams<N>& p, unsigned blocks,
                          cudaStream_t stream) {
  strided_kernel<<<blocks, kThreads, 0, stream>>>(n, p, *static_cast<const Op*>(op), std::make_index_sequence<N - 1>{});
}

template <int N>
void launch_strided(StridedLaunch<N> launch, const void* op, StridedParams<N> p, const int64_t* sizes,
                    const int64_t (*strides)[N], int ndim, cudaStream_t stream) {
  if (!fits_32bit<N>(sizes, strides, ndim)) {
    // Split the outermost dimension in two; each half shifts its data by the first half's extent.
    int d = ndim - 1;
    int64_t half_sizes[kMaxDims];
    std::copy(sizes, sizes + ndim, half_sizes);
    const int64_t first = sizes[d] / 2;
    half_sizes[d] = first;
    launch_strided(launch, op, p, half_sizes, strides, ndim, stream);
    half_sizes[d] = sizes[d] - first;
    for (int k = 0; k < N; ++k) {
      if (!(k > 0 && (p.scalar_mask & (1u << (k - 1))))) p.data[k] += first * strides[d][k];
    }
    launch_strided(launch, op, p, half_sizes, strides, ndim, stream);
    return;
  }
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) {
    n *= sizes[d];
    p.sizes[d] = IntDivider(static_cast<uint32_t>(sizes[d]));
    for (int k = 0; k < N; ++k) p.strides[d][k] = static_cast<uint32_t>(strides[d][k]);
  }
  p.ndim = ndim;
  if (n == 0) return;
  const int64_t blocks = (n + kThreads * kElementsPerThread - 1) / (kThreads * kElementsPerThread);
  launch(op, static_cast<uint32_t>(n), p, static_cast<unsigned>(blocks), stream);
}

// Writes operand `operand` of `iter`, a CPU scalar, converted to `to` (as convert<T> does), into `dst`
// (csrc/cuda/gpu_kernel.cpp: one copy of the dtype-by-dtype conversion for every functor).
void read_host_scalar(const TensorIterator& iter, int operand, ScalarType to, void* dst);

// The dtypes of a functor's arguments, as the iterator names them.
template <typename Args, size_t... I>
constexpr std::array<ScalarType, sizeof...(I)> arg_dtypes(std::index_sequence<I...>) {
  return {scalar_type_of<std::tuple_element_t<I, Args>>...};
}

// Note [The functor-free launch plan]: everything gpu_kernel works out before a launch (the checks, the CPU
// scalars, which path, each path's parameters, the split of a strided iterator too large for 32-bit offsets)
// depends on the functor only through its arity (N operands), its dtypes and its vector width, so it is compiled
// once per N here and not for each functor (binary_ops.cu instantiates 189); only the two <<<>>> launches are per
// functor. nvcc's host compile of binary_ops.cu took 10.8 s with the planning inside a Launch<Op> template, 6.7 s
// with it here.
template <int N>
struct LaunchPlan {
  const TensorIterator& iter;
  const ScalarType* args;  // the functor's argument dtypes, N - 1 of them
  int V;                   // elements per 16-byte vector of the functor's widest operand
  cudaStream_t stream;
  uint32_t scalar_mask = 0;
  ScalarArg scalars[N] = {};
  bool same_dtypes = true;

  LaunchPlan(const TensorIterator& it, const ScalarType* arg_types, ScalarType out_type, int vector_width)
      : iter(it), args(arg_types), V(vector_width) {
    YATEN_CHECK(iter.ninputs() == N - 1, RuntimeError, "gpu_kernel: the functor takes ", N - 1,
                " inputs but the iterator has ", iter.ninputs());
    YATEN_CHECK(iter.dtype(0) == out_type, RuntimeError, "gpu_kernel: the functor returns ", dtype_name(out_type),
                " but the output is ", dtype_name(iter.dtype(0)));
    stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(iter.device().index));
    // The CPU-scalar inputs are read on the host, converted to the functor's argument types; the others must
    // have their argument's dtype for the vectorized path.
    for (int k = 0; k < N - 1; ++k) {
      if (iter.is_host_scalar(k + 1)) {
        scalar_mask |= 1u << k;
        read_host_scalar(iter, k + 1, args[k], scalars[k].bytes);
      } else if (iter.dtype(k + 1) != args[k]) {
        same_dtypes = false;
      }
    }
  }
  bool is_scalar(int k) const { return k > 0 && (scalar_mask & (1u << (k - 1))); }

  // Every operand contiguous (or a CPU scalar), 16-byte aligned, and of the functor's dtypes.
  bool vectorizable() const {
    if (!same_dtypes || iter.ndim() > 1) return false;
    for (int k = 0; k < N; ++k) {
      if (is_scalar(k)) continue;
      const int64_t itemsize = element_size(iter.dtype(k));
      if (iter.ndim() == 1 && iter.shape()[0] > 1 && iter.strides(k)[0] != itemsize) return false;
      if (reinterpret_cast<uintptr_t>(iter.data(k)) % (itemsize * V) != 0) return false;
    }
    return true;
  }

  VectorParams<N> vector_params() const {
    VectorParams<N> p{};
    for (int k = 0; k < N; ++k) p.data[k] = iter.data(k);
    p.scalar_mask = scalar_mask;
    std::copy(scalars, scalars + N, p.scalars);
    return p;
  }
  unsigned vector_blocks() const {
    const int64_t per_block = int64_t(kThreads) * V;  // one vector per thread
    return static_cast<unsigned>(std::max<int64_t>(1, (iter.numel() + per_block - 1) / per_block));
  }

  void strided(StridedLaunch<N> launch, const void* op) const {
    YATEN_CHECK(iter.ndim() <= kMaxDims, RuntimeError, "gpu_kernel: ", iter.ndim(),
                " dimensions after coalescing; at most ", kMaxDims, " are supported");
    StridedParams<N> p{};
    int64_t sizes[kMaxDims];
    int64_t strides[kMaxDims][N];
    for (int d = 0; d < iter.ndim(); ++d) {
      sizes[d] = iter.shape()[d];
      for (int k = 0; k < N; ++k) strides[d][k] = is_scalar(k) ? 0 : iter.strides(k)[d];
    }
    for (int k = 0; k < N; ++k) {
      p.data[k] = iter.data(k);
      p.dtypes[k] = iter.dtype(k);
    }
    p.scalar_mask = scalar_mask;
    std::copy(scalars, scalars + N, p.scalars);
    launch_strided<N>(launch, op, p, sizes, strides, iter.ndim(), stream);
  }
};

// What gpu_kernel needs to know of a functor: its arity, its dtypes and its vector width.
template <typename Op>
struct FunctorTypes {
  using traits = detail::function_traits<Op>;
  using args = typename traits::args;
  using out_t = typename traits::result;
  static constexpr int N = traits::arity + 1;
  using indices = std::make_index_sequence<N - 1>;
  // Elements per 16-byte vector of the widest operand.
  static constexpr int V = static_cast<int>(16 / std::max(widest_arg<args>(indices{}), sizeof(out_t)));
  static constexpr std::array<ScalarType, N - 1> arg_types = arg_dtypes<args>(indices{});
};

template <typename Op>
void launch_vectorized(const LaunchPlan<FunctorTypes<Op>::N>& plan, const Op& op) {
  using F = FunctorTypes<Op>;
  vectorized_kernel<F::V><<<plan.vector_blocks(), kThreads, 0, plan.stream>>>(plan.iter.numel(), plan.vector_params(),
                                                                               op, typename F::indices{});
}
}  // namespace cuda_detail

// Runs `op` over `iter` on its device's current stream: the vectorized path where every operand allows it, the
// strided one otherwise.
template <typename Op>
void gpu_kernel(const TensorIterator& iter, const Op& op) {
  if (iter.numel() == 0) return;
  using F = cuda_detail::FunctorTypes<Op>;
  yaten::cuda::DeviceGuard guard(iter.device().index);
  const cuda_detail::LaunchPlan<F::N> plan(iter, F::arg_types.data(), scalar_type_of<typename F::out_t>, F::V);
  if (plan.vectorizable()) {
    cuda_detail::launch_vectorized(plan, op);
  } else {
    plan.strided(&cuda_detail::launch_strided_piece<Op, F::N>, &op);
  }
  yaten::cuda::check_launch("gpu_kernel");
}

// The vectorized path alone, when every operand allows it; returns whether it ran (for callers that instantiate
// many functors, such as the converting copy, and have another way for the rest).
template <typename Op>
bool gpu_kernel_if_vectorizable(const TensorIterator& iter, const Op& op) {
  if (iter.numel() == 0) return true;
  using F = cuda_detail::FunctorTypes<Op>;
  yaten::cuda::DeviceGuard guard(iter.device().index);
  const cuda_detail::LaunchPlan<F::N> plan(iter, F::arg_types.data(), scalar_type_of<typename F::out_t>, F::V);
  if (!plan.vectorizable()) return false;
  cuda_detail::launch_vectorized(plan, op);
  yaten::cuda::check_launch("gpu_kernel");
  return true;
}

}  // namespace yaten::native
