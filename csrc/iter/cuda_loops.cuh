// gpu_kernel(iter, functor): runs an element functor over a TensorIterator on a CUDA device, on the current stream.
//
// The functor is the op's element function, shared with the CPU (Design rule [Shared element math]): a struct whose
// call operator is YATEN_HOST_DEVICE and takes one value per input. Two launch paths, chosen per call:
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
#include <type_traits>
#include <utility>

#include "core/convert.h"
#include "core/dtype_switch.h"
#include "iter/cuda_launch.h"
#include "iter/function_traits.h"
#include "iter/tensor_iterator.h"

namespace yaten::native {

namespace cuda_detail {

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
    YATEN_FORALL_DTYPES(YATEN_LOAD_CASE)
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

// Note [Heavy functors out of line]: a functor whose element function is long (the special functions' series,
// erfinv, polygamma) declares `static constexpr bool out_of_line = true;`, and both kernels then call it through
// one __noinline__ device function per functor type instead of inlining it at every call site. The vectorized
// kernel calls a functor V times (eight for a 16-bit dtype), so inlined, polygamma's four dtypes were 106 thousand
// lines of PTX (42% of small_kernels.cu, whose ptxas took 31 of its 47 s); out of line the body is compiled once
// per dtype. Such a functor spends hundreds of instructions per element, and a call costs a few.
template <typename Op, typename = void>
struct called_out_of_line : std::false_type {};
template <typename Op>
struct called_out_of_line<Op, std::void_t<decltype(Op::out_of_line)>> : std::bool_constant<Op::out_of_line> {};

template <typename Op, typename... A>
__device__ __noinline__ typename detail::function_traits<Op>::result call_out_of_line(const Op op, const A... a) {
  return op(a...);
}

template <typename Op, typename... A>
__device__ __forceinline__ typename detail::function_traits<Op>::result call(const Op& op, const A&... a) {
  if constexpr (called_out_of_line<Op>::value) {
    return call_out_of_line(op, a...);
  } else {
    return op(a...);
  }
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
    *reinterpret_cast<out_t*>(p.data[0] + offsets[0]) = call(op, load(std::tuple_element_t<I, args>{}, int(I))...);
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

// Input k's vector i into `dst`; a CPU scalar input fills it with the scalar.
template <typename T, int V, int N>
__device__ __forceinline__ void load_vector(unsigned char* dst, const VectorParams<N>& p, int k, int64_t i) {
  auto& v = *reinterpret_cast<Vector<T, V>*>(dst);
  if (p.scalar_mask & (1u << k)) {
    const T s = scalar_value<T>(p.scalars[k]);
#pragma unroll
    for (int j = 0; j < V; ++j) v.v[j] = s;
  } else {
    v = reinterpret_cast<const Vector<T, V>*>(p.data[k + 1])[i];
  }
}

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
    (load_vector<std::tuple_element_t<I, args>, V>(in[I], p, int(I), i), ...);
    Vector<out_t, V> out;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      out.v[j] = call(op, reinterpret_cast<const std::tuple_element_t<I, args>*>(in[I])[j]...);
    }
    reinterpret_cast<Vector<out_t, V>*>(p.data[0])[i] = out;
  }
  // The tail that does not fill a vector: one element per thread of the first block.
  if (blockIdx.x == 0 && threadIdx.x < n - nvec * V) {
    const int64_t t = nvec * V + threadIdx.x;
    reinterpret_cast<out_t*>(p.data[0])[t] =
        call(op, (p.scalar_mask & (1u << I) ? scalar_value<std::tuple_element_t<I, args>>(p.scalars[I])
                                            : reinterpret_cast<const std::tuple_element_t<I, args>*>(p.data[I + 1])[t])...);
  }
}

template <typename Args, size_t... I>
constexpr size_t widest_arg(std::index_sequence<I...>) {
  size_t w = 1;
  ((w = std::max(w, sizeof(std::tuple_element_t<I, Args>))), ...);
  return w;
}

// The dtypes of a functor's arguments, as the iterator names them.
template <typename Args, size_t... I>
constexpr std::array<ScalarType, sizeof...(I)> arg_dtypes(std::index_sequence<I...>) {
  return {scalar_type_of<std::tuple_element_t<I, Args>>...};
}

// Note [The functor-free launch plan]: everything gpu_kernel works out before a launch (the checks, the CPU
// scalars, which path, each path's parameters, the split of a strided iterator too large for 32-bit offsets)
// depends on the functor only through its arity (N operands), its dtypes and its vector width. So it is compiled
// once, in csrc/cuda/gpu_kernel.cpp (launch_pointwise<N>, iter/cuda_launch.h), with g++ at the library's -O3, and
// a CUDA unit compiles per functor only the two functions that hold its <<<>>> launches. binary_ops.cu instantiates
// 189 functors: nvcc's host compile of it took 10.8 s with the planning in a Launch<Op> template, 6.1 s with it in
// a LaunchPlan<N> template in this header (compiled in each unit), 4.7 s with it in gpu_kernel.cpp.
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

// The functor's two launches, each one <<<>>> (the only host code compiled per functor).
template <typename Op, int N>
void launch_vectorized(const void* op, int64_t n, const VectorParams<N>& p, unsigned blocks, void* stream) {
  vectorized_kernel<FunctorTypes<Op>::V><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      n, p, *static_cast<const Op*>(op), std::make_index_sequence<N - 1>{});
}

template <typename Op, int N>
void launch_strided(const void* op, uint32_t n, const StridedParams<N>& p, unsigned blocks, void* stream) {
  strided_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(n, p, *static_cast<const Op*>(op),
                                                                             std::make_index_sequence<N - 1>{});
}

// With kStrided false, the strided kernel is not compiled (gpu_kernel_if_vectorizable).
template <bool kStrided, typename Op>
PointwiseKernel<FunctorTypes<Op>::N> pointwise_kernel(const Op& op) {
  using F = FunctorTypes<Op>;
  static_assert(F::N <= kMaxOperands, "gpu_kernel: a functor of at most kMaxOperands - 1 inputs");
  StridedLaunch<F::N> strided = nullptr;
  if constexpr (kStrided) strided = &launch_strided<Op, F::N>;
  return {F::arg_types.data(), scalar_type_of<typename F::out_t>, F::V, &op, &launch_vectorized<Op, F::N>, strided};
}
}  // namespace cuda_detail

// Runs `op` over `iter` on its device's current stream: the vectorized path where every operand allows it, the
// strided one otherwise.
template <typename Op>
void gpu_kernel(const TensorIterator& iter, const Op& op) {
  cuda_detail::launch_pointwise(iter, cuda_detail::pointwise_kernel<true>(op), false);
}

// The vectorized path alone, when every operand allows it; returns whether it ran (for callers that instantiate
// many functors, such as the converting copy, and have another way for the rest).
template <typename Op>
bool gpu_kernel_if_vectorizable(const TensorIterator& iter, const Op& op) {
  return cuda_detail::launch_pointwise(iter, cuda_detail::pointwise_kernel<false>(op), true);
}

}  // namespace yaten::native
