// The host side of gpu_kernel (iter/cuda_loops.cuh): the checks, the CPU scalars, the choice of path and each
// path's parameters, compiled once here, with g++ at the library's optimization, for every CUDA unit that launches
// pointwise kernels. Note [The functor-free launch plan].
#include <algorithm>
#include <cstring>

#include "core/convert.h"
#include "core/dtype_switch.h"
#include "cuda/cuda_runtime.h"
#include "iter/cuda_launch.h"
#include "iter/tensor_iterator.h"

namespace yaten::native::cuda_detail {

namespace {

// Writes operand `operand` of `iter`, a CPU scalar, converted to `to` (as convert<T> does), into `dst`.
void read_host_scalar(const TensorIterator& iter, int operand, ScalarType to, void* dst) {
  visit_any_dtype("gpu_kernel", to, [&](auto to_tag) {
    using T = decltype(to_tag);
    const T value = visit_any_dtype("gpu_kernel", iter.dtype(operand), [&](auto src) -> T {
      return convert<T>(*reinterpret_cast<const decltype(src)*>(iter.data(operand)));
    });
    std::memcpy(dst, &value, sizeof(T));
  });
}

// Whether every byte offset of every operand over `sizes` fits in 31 bits, and the element count too.
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

template <int N>
void launch_strided(StridedLaunch<N> launch, const void* op, StridedParams<N> p, const int64_t* sizes,
                    const int64_t (*strides)[N], int ndim, void* stream) {
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

template <int N>
struct LaunchPlan {
  const TensorIterator& iter;
  const PointwiseKernel<N>& kernel;
  void* stream;
  uint32_t scalar_mask = 0;
  ScalarArg scalars[N] = {};
  bool same_dtypes = true;

  LaunchPlan(const TensorIterator& it, const PointwiseKernel<N>& k) : iter(it), kernel(k) {
    YATEN_CHECK(iter.ninputs() == N - 1, RuntimeError, "gpu_kernel: the functor takes ", N - 1,
                " inputs but the iterator has ", iter.ninputs());
    YATEN_CHECK(iter.dtype(0) == kernel.out, RuntimeError, "gpu_kernel: the functor returns ",
                dtype_name(kernel.out), " but the output is ", dtype_name(iter.dtype(0)));
    stream = yaten::cuda::current_stream(iter.device().index);
    // The CPU-scalar inputs are read on the host, converted to the functor's argument types; the others must
    // have their argument's dtype for the vectorized path.
    for (int k = 0; k < N - 1; ++k) {
      if (iter.is_host_scalar(k + 1)) {
        scalar_mask |= 1u << k;
        read_host_scalar(iter, k + 1, kernel.args[k], scalars[k].bytes);
      } else if (iter.dtype(k + 1) != kernel.args[k]) {
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
      if (reinterpret_cast<uintptr_t>(iter.data(k)) % (itemsize * kernel.V) != 0) return false;
    }
    return true;
  }

  void vectorized() const {
    VectorParams<N> p{};
    for (int k = 0; k < N; ++k) p.data[k] = iter.data(k);
    p.scalar_mask = scalar_mask;
    std::copy(scalars, scalars + N, p.scalars);
    const int64_t per_block = int64_t(kThreads) * kernel.V;  // one vector per thread
    const auto blocks = static_cast<unsigned>(std::max<int64_t>(1, (iter.numel() + per_block - 1) / per_block));
    kernel.vectorized(kernel.op, iter.numel(), p, blocks, stream);
  }

  void strided() const {
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
    launch_strided<N>(kernel.strided, kernel.op, p, sizes, strides, iter.ndim(), stream);
  }
};

}  // namespace

template <int N>
bool launch_pointwise(const TensorIterator& iter, const PointwiseKernel<N>& kernel, bool vectorized_only) {
  if (iter.numel() == 0) return true;
  yaten::cuda::DeviceGuard guard(iter.device().index);
  const LaunchPlan<N> plan(iter, kernel);
  if (plan.vectorizable()) {
    plan.vectorized();
  } else if (vectorized_only) {
    return false;
  } else {
    YATEN_CHECK(kernel.strided != nullptr, RuntimeError, "gpu_kernel: the functor has no strided kernel");
    plan.strided();
  }
  yaten::cuda::check_launch("gpu_kernel");
  return true;
}

template bool launch_pointwise<1>(const TensorIterator&, const PointwiseKernel<1>&, bool);
template bool launch_pointwise<2>(const TensorIterator&, const PointwiseKernel<2>&, bool);
template bool launch_pointwise<3>(const TensorIterator&, const PointwiseKernel<3>&, bool);
template bool launch_pointwise<4>(const TensorIterator&, const PointwiseKernel<4>&, bool);
template bool launch_pointwise<5>(const TensorIterator&, const PointwiseKernel<5>&, bool);
static_assert(kMaxOperands == 5, "instantiate launch_pointwise for every arity up to kMaxOperands");

}  // namespace yaten::native::cuda_detail
