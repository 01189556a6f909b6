// CUDA kernels of the indexing ops: gather, scatter_ (src and value), scatter_add_, index_select, index_copy_,
// advanced indexing (_index_front, _index_put_front_: x[idx] and x[idx] = v), and nonzero.
//
// Note [One walk for every indexing op]: each op walks a "work shape" W (gather: index's shape; index_select: the
// result's; advanced indexing: the indices' shape followed by self's dims not indexed) and, for each coordinate c of
// W, touches one element of self at
//     sum_k c_k * a_strides[k] + sum_j wrap(index_j[sum_k c_k * i_strides[k]]) * self's stride along dim j
// and one element of the other tensor (the result, src, source or values) at sum_k c_k * b_strides[k]. So one
// kernel, with a mode (read into the other tensor, write from it, write a value, or add atomically), serves all
// eight ops, and each op only says how its W maps onto the strides. Index tensors of any integer dtype are made
// contiguous int64 first.
//
// Index values are checked before the kernel runs (a kernel cannot raise): one small kernel per index tensor
// records how far its values fall outside the range, and one copy back to the host, the op's only wait for the
// device, turns that into the CPU's IndexError. torch checks with a device-side assert instead, which costs no
// wait but leaves the CUDA context unusable after a bad index.
//
// The walk's dims are merged where every tensor steps through them as through one (as TensorIterator coalesces),
// and coordinates are split off with a 32-bit division by multiplication (IntDivider) when the walk has fewer than
// 2^31 elements: a 64-bit division per dim per element was what the walk spent its time on.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "core/deterministic.h"
#include "cuda/cuda_runtime.h"
#include "iter/cuda_launch.h"
#include "kernels/indexing_support.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/narrow.h"

namespace yaten::native::cuda {

namespace index_detail {

constexpr int kMaxDims = 25;  // torch's limit on CUDA indexing

enum class Mode { Read, Write, WriteValue, Add, Prod, Amax, Amin };

struct Walk {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};  // self
  int64_t b_strides[kMaxDims] = {};  // the other tensor
  int64_t i_strides[kMaxDims] = {};  // every index tensor (they share one shape)
  int nidx = 0;
  const int64_t* idx[kMaxDims] = {};
  int64_t idx_size[kMaxDims] = {};      // the size of the dim index j picks in (for negative indices)
  int64_t idx_a_stride[kMaxDims] = {};  // self's stride along that dim
};

// 32-bit n / d by a multiply-high and a shift: gpu_kernel's divider (iter/cuda_launch.h).
using cuda_detail::IntDivider;

// Merges dims k and k + 1 of the walk where every tensor steps through them as through one dim, and drops dims of
// size 1, so that the kernel splits fewer coordinates.
inline void coalesce(Walk& w) {
  int out = 0;
  for (int k = 0; k < w.dims; ++k) {
    if (w.sizes[k] == 1 && w.dims > 1) continue;
    if (out > 0) {
      const int j = out - 1;
      const int64_t n = w.sizes[k];
      if (w.a_strides[j] == w.a_strides[k] * n && w.b_strides[j] == w.b_strides[k] * n &&
          w.i_strides[j] == w.i_strides[k] * n) {
        w.sizes[j] *= n;
        w.a_strides[j] = w.a_strides[k];
        w.b_strides[j] = w.b_strides[k];
        w.i_strides[j] = w.i_strides[k];
        continue;
      }
    }
    w.sizes[out] = w.sizes[k];
    w.a_strides[out] = w.a_strides[k];
    w.b_strides[out] = w.b_strides[k];
    w.i_strides[out] = w.i_strides[k];
    ++out;
  }
  if (out == 0) {  // every dim had size 1
    out = 1;
    w.sizes[0] = 1;
  }
  w.dims = out;
}

// *address = f(*address) for one element, atomically for every dtype: a compare-and-swap loop on the element's
// 32- or 64-bit word (the aligned 32-bit word that holds a 1- or 2-byte element).
template <typename T, typename F>
__device__ void atomic_update(T* address, F f) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using word_t = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    auto* word = reinterpret_cast<word_t*>(address);
    word_t old = *word, assumed;
    do {
      assumed = old;
      T current;
      memcpy(&current, &assumed, sizeof(T));
      const T next = f(current);
      word_t next_bits;
      memcpy(&next_bits, &next, sizeof(T));
      if (next_bits == assumed) return;  // already the result (an amax that loses)
      old = atomicCAS(word, assumed, next_bits);
    } while (old != assumed);
  } else {
    auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(address) & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(reinterpret_cast<uintptr_t>(address) & 3) * 8;
    const unsigned mask = sizeof(T) == 1 ? 0xffu : 0xffffu;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      T current;
      const unsigned bits = (assumed >> shift) & mask;
      if constexpr (sizeof(T) == 1) {
        const uint8_t b = static_cast<uint8_t>(bits);
        memcpy(&current, &b, 1);
      } else {
        const uint16_t b = static_cast<uint16_t>(bits);
        memcpy(&current, &b, 2);
      }
      const T next = f(current);
      unsigned next_bits = 0;
      memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~(mask << shift)) | ((next_bits & mask) << shift));
    } while (old != assumed);
  }
}

// A + B for one element: the hardware's atomic add where it has one, else atomic_update.
template <typename T>
__device__ void atomic_add(T* address, T value) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(address, value);
  } else if constexpr (is_complex_v<T>) {  // a complex sum is the sums of its parts, each atomic
    using R = decltype(value.real());
    R* parts = reinterpret_cast<R*>(address);
    atomic_add(parts, value.real());
    atomic_add(parts + 1, value.imag());
  } else if constexpr (sizeof(T) == 8) {  // int64: two's complement addition is the unsigned one
    atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  } else {
    using acc_t = opmath_t<T>;
    atomic_update(address, [value](T current) {
      return static_cast<T>(static_cast<acc_t>(current) + static_cast<acc_t>(value));
    });
  }
}

// _scatter_reduce_'s steps (indexing::scatter_combine, the CPU's element math), atomically.
template <Mode kMode, typename T>
__device__ void atomic_combine(T* address, T value) {
  constexpr indexing::ScatterReduce kind = kMode == Mode::Prod   ? indexing::ScatterReduce::Prod
                                           : kMode == Mode::Amax ? indexing::ScatterReduce::Amax
                                                                 : indexing::ScatterReduce::Amin;
  atomic_update(address, [value](T current) { return indexing::scatter_combine(kind, current, value); });
}

struct Dividers {
  IntDivider by[kMaxDims];
};

// kSmall: the walk has fewer than 2^31 elements, so coordinates split off with IntDivider.
template <typename scalar_t, Mode kMode, bool kSmall>
__global__ void __launch_bounds__(256) index_walk(scalar_t* self, scalar_t* other, scalar_t value, int64_t n,
                                                  Walk w, Dividers dividers) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    int64_t a = 0, b = 0, io = 0;
    if constexpr (kSmall) {
      uint32_t rest = static_cast<uint32_t>(i);
      for (int k = w.dims - 1; k > 0; --k) {
        const uint32_t q = dividers.by[k].div(rest), c = rest - q * dividers.by[k].divisor;
        rest = q;
        a += c * w.a_strides[k];
        b += c * w.b_strides[k];
        io += c * w.i_strides[k];
      }
      a += rest * w.a_strides[0];
      b += rest * w.b_strides[0];
      io += rest * w.i_strides[0];
    } else {
      int64_t rest = i;
      for (int k = w.dims - 1; k >= 0; --k) {
        const int64_t c = rest % w.sizes[k];
        rest /= w.sizes[k];
        a += c * w.a_strides[k];
        b += c * w.b_strides[k];
        io += c * w.i_strides[k];
      }
    }
    for (int j = 0; j < w.nidx; ++j) {
      int64_t v = w.idx[j][io];
      if (v < 0) v += w.idx_size[j];
      a += v * w.idx_a_stride[j];
    }
    if constexpr (kMode == Mode::Read) {
      other[b] = self[a];
    } else if constexpr (kMode == Mode::Write) {
      self[a] = other[b];
    } else if constexpr (kMode == Mode::WriteValue) {
      self[a] = value;
    } else if constexpr (kMode == Mode::Add) {
      atomic_add(self + a, other[b]);
    } else {
      atomic_combine<kMode>(self + a, other[b]);
    }
  }
}

template <typename scalar_t, Mode kMode>
void launch(const char* op, const Tensor& self, scalar_t* other, scalar_t value, Walk w) {
  // floating sums and products through atomics combine repeated indices in an order that varies between runs
  if constexpr ((kMode == Mode::Add || kMode == Mode::Prod) && !std::is_integral_v<scalar_t> &&
                !std::is_same_v<scalar_t, bool>) {
    alert_not_deterministic((std::string(op) + " on CUDA (atomic adds of floating-point values)").c_str());
  }
  int64_t n = 1;
  for (int k = 0; k < w.dims; ++k) n *= w.sizes[k];
  if (n == 0) return;
  coalesce(w);
  const int index = self.device().index;
  yaten::cuda::DeviceGuard guard(index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(index));
  const auto grid = static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 65536));
  Dividers dividers;
  if (n < (int64_t(1) << 31)) {
    for (int k = 0; k < w.dims; ++k) dividers.by[k] = IntDivider(static_cast<uint32_t>(w.sizes[k]));
    index_walk<scalar_t, kMode, true><<<grid, 256, 0, stream>>>(self.data<scalar_t>(), other, value, n, w, dividers);
  } else {
    index_walk<scalar_t, kMode, false><<<grid, 256, 0, stream>>>(self.data<scalar_t>(), other, value, n, w,
                                                                 dividers);
  }
  yaten::cuda::check_launch(op);
}

inline void check_rank(const char* op, size_t dims) {
  YATEN_CHECK(dims <= static_cast<size_t>(kMaxDims), RuntimeError, op, ": CUDA indexing takes at most ", kMaxDims,
              " dims, got ", dims);
}

// How far the values of idx[0, n) fall outside [lo, size): out[0] = max(v - (size - 1)) and out[1] = max(lo - v)
// over the values outside, as unsigned differences (exact: both are below 2^64), 0 when none is.
__global__ void index_overshoot(const int64_t* idx, int64_t n, int64_t lo, int64_t size, unsigned long long* out) {
  unsigned long long above = 0, below = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t v = idx[i];
    if (v >= size) above = max(above, static_cast<unsigned long long>(v) - static_cast<unsigned long long>(size - 1));
    if (v < lo) below = max(below, static_cast<unsigned long long>(lo) - static_cast<unsigned long long>(v));
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    above = max(above, __shfl_down_sync(0xffffffffu, above, offset));
    below = max(below, __shfl_down_sync(0xffffffffu, below, offset));
  }
  if ((threadIdx.x & 31) == 0 && (above | below) != 0) {
    atomicMax(out, above);
    atomicMax(out + 1, below);
  }
}

// The index tensors as contiguous int64 on self's device, each one's values checked against [lo, sizes[j]) (lo is
// -size where negative indices count from the end, else 0) with the CPU's IndexError: one kernel per index, one
// copy of the results to the host.
inline std::vector<Tensor> checked_indices(const char* op, const Tensor& self, const std::vector<Tensor>& indices,
                                           const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims,
                                           bool allow_negative) {
  std::vector<Tensor> out;
  for (const Tensor& index : indices) {
    YATEN_CHECK(is_integral(index.dtype(), /*include_bool=*/false), IndexError, op,
                ": tensors used as indices must be long or int, got ", dtype_name(index.dtype()));
    YATEN_CHECK(index.device() == self.device(), RuntimeError, op, ": expected the index on ",
                self.device().str(), ", but got it on ", index.device().str());
    out.push_back(yaten::contiguous(index.dtype() == ScalarType::Long
                                        ? index
                                        : yaten::_to_copy(index, ScalarType::Long, std::nullopt)));
  }
  const int device = self.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
  Tensor found = yaten::empty({static_cast<int64_t>(2 * out.size())}, ScalarType::Long, self.device());
  auto* slots = reinterpret_cast<unsigned long long*>(found.data_ptr());
  cudaError_t err = cudaMemsetAsync(slots, 0, 2 * out.size() * sizeof(unsigned long long), stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, op, ": ", cudaGetErrorString(err));
  bool any = false;
  for (size_t j = 0; j < out.size(); ++j) {
    const int64_t n = out[j].numel();
    if (n == 0) continue;
    any = true;
    const auto grid = static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 1024));
    index_overshoot<<<grid, 256, 0, stream>>>(out[j].data<int64_t>(), n, allow_negative ? -sizes[j] : 0, sizes[j],
                                              slots + 2 * j);
  }
  if (!any) return out;
  yaten::cuda::check_launch(op);
  const Tensor host = yaten::_to_copy(found, std::nullopt, Device());  // waits for the device
  const auto* result = reinterpret_cast<const unsigned long long*>(host.data_ptr());
  for (size_t j = 0; j < out.size(); ++j) {
    const unsigned long long above = result[2 * j], below = result[2 * j + 1];
    if (above == 0 && below == 0) continue;
    const auto lo = static_cast<unsigned long long>(allow_negative ? -sizes[j] : 0);
    const auto bad = static_cast<int64_t>(above != 0 ? above + static_cast<unsigned long long>(sizes[j] - 1)
                                                     : lo - below);
    YATEN_CHECK(false, IndexError, op, ": index ", bad, " is out of bounds for dimension ", dims[j], " with size ",
                sizes[j]);
  }
  return out;
}

inline Tensor checked_index(const char* op, const Tensor& self, const Tensor& index, int64_t size, int64_t dim,
                            bool allow_negative) {
  return checked_indices(op, self, {index}, {size}, {dim}, allow_negative)[0];
}

inline std::vector<int64_t> sizes_of(const Tensor& self, const std::vector<int64_t>& dims) {
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(self.sizes()[d]);
  return sizes;
}

// The walk of gather and the scatters: W is index's shape; self's position along `d` comes from the index.
inline Walk scatter_gather_walk(const Tensor& self, int64_t d, const Tensor& idx, const std::vector<int64_t>& b) {
  Walk w;
  w.dims = static_cast<int>(idx.dim());
  for (int k = 0; k < w.dims; ++k) {
    w.sizes[k] = idx.sizes()[k];
    w.a_strides[k] = k == d ? 0 : self.strides()[k];
    w.b_strides[k] = b.empty() ? 0 : b[k];
    w.i_strides[k] = idx.strides()[k];
  }
  w.nidx = 1;
  w.idx[0] = idx.data<int64_t>();
  w.idx_size[0] = self.dim() ? self.sizes()[d] : 1;
  w.idx_a_stride[0] = self.dim() ? self.strides()[d] : 0;
  return w;
}

// The walk of index_select and index_copy_: W is self's shape with len(index) along `d` (`shape`), the index read
// at W's coordinate along d.
inline Walk select_walk(const Tensor& self, int64_t d, const Tensor& idx, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& b) {
  Walk w;
  w.dims = static_cast<int>(shape.size());
  for (int k = 0; k < w.dims; ++k) {
    w.sizes[k] = shape[k];
    w.a_strides[k] = k == d ? 0 : self.strides()[k];
    w.b_strides[k] = b[k];
    w.i_strides[k] = k == d ? 1 : 0;
  }
  w.nidx = 1;
  w.idx[0] = idx.data<int64_t>();
  w.idx_size[0] = self.dim() ? self.sizes()[d] : 1;
  w.idx_a_stride[0] = self.dim() ? self.strides()[d] : 0;
  if (w.dims == 0) {  // a 0-d self: one element, picked when the index has one
    w.dims = 1;
    w.sizes[0] = idx.numel();
    w.a_strides[0] = 0;
    w.b_strides[0] = 0;
    w.i_strides[0] = 1;
  }
  return w;
}

// The walk of advanced indexing: W is the indices' shape followed by self's dims not indexed (front_shape).
inline Walk advanced_walk(const char* op, const Tensor& self, const std::vector<Tensor>& idx,
                          const std::vector<int64_t>& dims, const std::vector<int64_t>& b) {
  Walk w;
  const std::vector<int64_t>& shape = idx[0].sizes();
  std::vector<bool> indexed(self.dim(), false);
  for (int64_t d : dims) indexed[d] = true;
  int k = 0;
  for (size_t j = 0; j < shape.size(); ++j, ++k) {
    w.sizes[k] = shape[j];
    w.a_strides[k] = 0;
    w.i_strides[k] = idx[0].strides()[j];
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (indexed[d]) continue;
    w.sizes[k] = self.sizes()[d];
    w.a_strides[k] = self.strides()[d];
    w.i_strides[k] = 0;
    ++k;
  }
  w.dims = k;
  for (int j = 0; j < k; ++j) w.b_strides[j] = b[j];
  w.nidx = static_cast<int>(idx.size());
  for (size_t j = 0; j < idx.size(); ++j) {
    w.idx[j] = idx[j].data<int64_t>();
    w.idx_size[j] = self.sizes()[dims[j]];
    w.idx_a_stride[j] = self.strides()[dims[j]];
  }
  return w;
}

// `t` as `dtype` on self's device, without a copy when it already is.
inline Tensor as_type_of(const Tensor& t, const Tensor& self) {
  return t.dtype() == self.dtype() && t.device() == self.device() ? t
                                                                   : yaten::_to_copy(t, self.dtype(), self.device());
}

// nonzero: flags[i] = x[i] != 0, as int64, for the scan that numbers the nonzero elements.
template <typename scalar_t>
__global__ void nonzero_flags(const scalar_t* x, int64_t* flags, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    flags[i] = static_cast<opmath_t<scalar_t>>(x[i]) != opmath_t<scalar_t>(0) ? 1 : 0;
  }
}

// Element i, when nonzero (its inclusive count steps up), writes its coordinates to row count - 1 of out.
__global__ void nonzero_coordinates(const int64_t* counts, int64_t n, Walk shape, int64_t* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t before = i > 0 ? counts[i - 1] : 0;
    if (counts[i] == before) continue;
    int64_t rest = i;
    for (int k = shape.dims - 1; k >= 0; --k) {
      out[before * shape.dims + k] = rest % shape.sizes[k];
      rest /= shape.sizes[k];
    }
  }
}

}  // namespace index_detail

// nonzero: the coordinates of the nonzero elements in row-major order. The elements are numbered by a device-wide
// inclusive scan (cub::DeviceScan) of their flags; the count is read back to size the result (a wait for the
// device, as in torch).
template <typename scalar_t>
Tensor nonzero_kernel(const Tensor& self) {
  using namespace index_detail;
  check_rank("nonzero", self.dim());
  const Tensor src = yaten::contiguous(self);
  const int64_t n = src.numel(), dims = self.dim();
  if (n == 0) return yaten::empty({0, dims}, ScalarType::Long, self.device());
  const int device = self.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 65536));
  Tensor flags = yaten::empty({n}, ScalarType::Long, self.device());
  Tensor counts = yaten::empty({n}, ScalarType::Long, self.device());
  nonzero_flags<scalar_t><<<grid, 256, 0, stream>>>(src.data<scalar_t>(), flags.data<int64_t>(), n);
  size_t bytes = 0;
  cudaError_t err = cub::DeviceScan::InclusiveSum(nullptr, bytes, flags.data<int64_t>(), counts.data<int64_t>(), n,
                                                  stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "nonzero: cub scan (size query) failed: ", cudaGetErrorString(err));
  Tensor temp = yaten::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::Byte, self.device());
  err = cub::DeviceScan::InclusiveSum(temp.data_ptr(), bytes, flags.data<int64_t>(), counts.data<int64_t>(), n,
                                      stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "nonzero: cub scan failed: ", cudaGetErrorString(err));
  const Tensor total = yaten::_to_copy(yaten::narrow(counts, 0, n - 1, 1), std::nullopt, Device());
  const int64_t count = total.data<int64_t>()[0];
  Tensor out = yaten::empty({count, dims}, ScalarType::Long, self.device());
  if (count > 0 && dims > 0) {
    Walk shape;
    shape.dims = static_cast<int>(dims);
    for (int k = 0; k < shape.dims; ++k) shape.sizes[k] = self.sizes()[k];
    nonzero_coordinates<<<grid, 256, 0, stream>>>(counts.data<int64_t>(), n, shape, out.data<int64_t>());
  }
  yaten::cuda::check_launch("nonzero");
  return out;
}

template <typename scalar_t>
Tensor gather_kernel(const Tensor& self, int64_t dim, const Tensor& index) {
  using namespace index_detail;
  const int64_t d = indexing::check_scatter_gather_index("gather", self, dim, index);
  if (index.numel() == 0) return yaten::empty(index.sizes(), self.dtype(), self.device());
  check_rank("gather", index.dim());
  const Tensor idx = checked_index("gather", self, index, self.dim() ? self.sizes()[d] : 1, d, false);
  Tensor out = yaten::empty(index.sizes(), self.dtype(), self.device());
  launch<scalar_t, Mode::Read>("gather", self, out.data<scalar_t>(), scalar_t(0),
                               scatter_gather_walk(self, d, idx, out.strides()));
  return out;
}

template <typename scalar_t>
Tensor scatter_src_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  using namespace index_detail;
  const int64_t d = indexing::check_scatter_gather_index("scatter_", self, dim, index);
  indexing::check_scatter_src("scatter_", self, index, src);
  if (index.numel() == 0) return self;  // torch checks no shapes then: the walk would read dims self lacks
  check_rank("scatter_", index.dim());
  const Tensor idx = checked_index("scatter_", self, index, self.dim() ? self.sizes()[d] : 1, d, false);
  const Tensor from = as_type_of(src, self);
  std::vector<int64_t> b = from.strides();
  b.resize(idx.dim(), 0);
  launch<scalar_t, Mode::Write>("scatter_", self, from.data<scalar_t>(), scalar_t(0),
                                scatter_gather_walk(self, d, idx, b));
  return self;
}

template <typename scalar_t>
Tensor scatter_value_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  using namespace index_detail;
  const int64_t d = indexing::check_scatter_gather_index("scatter_", self, dim, index);
  if (index.numel() == 0) return self;  // torch checks no shapes then: the walk would read dims self lacks
  check_rank("scatter_", index.dim());
  const Tensor idx = checked_index("scatter_", self, index, self.dim() ? self.sizes()[d] : 1, d, false);
  launch<scalar_t, Mode::WriteValue>("scatter_", self, nullptr, value.to<scalar_t>(),
                                     scatter_gather_walk(self, d, idx, {}));
  return self;
}

// scatter_add_: repeated indices accumulate, with atomic adds (so float sums may differ from the CPU's in the order
// of their terms, as torch's do).
template <typename scalar_t>
Tensor scatter_add_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  using namespace index_detail;
  const char* op = "scatter_add_";
  const int64_t d = indexing::check_scatter_gather_index(op, self, dim, index);
  indexing::check_scatter_src(op, self, index, src);
  if (index.numel() == 0) return self;
  check_rank(op, index.dim());
  const Tensor idx = checked_index(op, self, index, self.dim() ? self.sizes()[d] : 1, d, false);
  const Tensor from = as_type_of(src, self);
  std::vector<int64_t> b = from.strides();
  b.resize(idx.dim(), 0);
  launch<scalar_t, Mode::Add>(op, self, from.data<scalar_t>(), scalar_t(0), scatter_gather_walk(self, d, idx, b));
  return self;
}

// _scatter_reduce_ (prod, amax, amin): atomic compare-and-swap steps, so repeated indices combine in any order (a
// float product may then differ from the CPU's in its last bits).
template <typename scalar_t>
Tensor scatter_reduce_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                             const std::string& reduce) {
  using namespace index_detail;
  const char* op = "scatter_reduce_";
  const indexing::ScatterReduce kind = indexing::scatter_reduce_kind(op, reduce);
  const int64_t d = indexing::check_scatter_gather_index(op, self, dim, index);
  indexing::check_scatter_src(op, self, index, src);
  if (index.numel() == 0) return self;
  check_rank(op, index.dim());
  const Tensor idx = checked_index(op, self, index, self.dim() ? self.sizes()[d] : 1, d, false);
  std::vector<int64_t> b = src.strides();
  b.resize(idx.dim(), 0);
  const Walk walk = scatter_gather_walk(self, d, idx, b);
  scalar_t* from = src.data<scalar_t>();
  if (kind == indexing::ScatterReduce::Prod) {
    launch<scalar_t, Mode::Prod>(op, self, from, scalar_t(0), walk);
  } else if (kind == indexing::ScatterReduce::Amax) {
    launch<scalar_t, Mode::Amax>(op, self, from, scalar_t(0), walk);
  } else {
    launch<scalar_t, Mode::Amin>(op, self, from, scalar_t(0), walk);
  }
  return self;
}

template <typename scalar_t>
Tensor index_select_kernel(const Tensor& self, int64_t dim, const Tensor& index) {
  using namespace index_detail;
  const char* op = "index_select";
  const int64_t d = wrap_dim(op, dim, self.dim());
  indexing::check_index_select_index(index);
  check_rank(op, self.dim());
  const Tensor idx = checked_index(op, self, index, self.dim() ? self.sizes()[d] : 1, d, true);
  std::vector<int64_t> shape = self.sizes();
  if (self.dim() > 0) shape[d] = idx.numel();
  Tensor out = yaten::empty(shape, self.dtype(), self.device());
  launch<scalar_t, Mode::Read>(op, self, out.data<scalar_t>(), scalar_t(0),
                               select_walk(self, d, idx, shape, out.strides()));
  return out;
}

template <typename scalar_t>
Tensor index_copy_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  using namespace index_detail;
  const char* op = "index_copy_";
  const int64_t d = wrap_dim(op, dim, self.dim());
  indexing::check_index_copy_args(self, index, source);
  YATEN_CHECK(index.dim() <= 1, IndexError, op, ": index should have at most 1 dimension, got ", index.dim());
  check_rank(op, self.dim());
  const Tensor idx = checked_index(op, self, index, self.dim() ? self.sizes()[d] : 1, d, true);
  std::vector<int64_t> expected = self.sizes();
  if (self.dim() > 0) expected[d] = idx.numel();
  YATEN_CHECK(source.sizes() == expected, RuntimeError, op, ": source has the wrong shape for ", idx.numel(),
              " indices along dimension ", d);
  const Tensor from = as_type_of(source, self);
  launch<scalar_t, Mode::Write>(op, self, from.data<scalar_t>(), scalar_t(0),
                                select_walk(self, d, idx, expected, from.strides()));
  return self;
}

template <typename scalar_t>
Tensor index_front_kernel(const Tensor& self, const std::vector<Tensor>& indices, const std::vector<int64_t>& dims) {
  using namespace index_detail;
  const std::vector<int64_t> wrapped = indexing::check_advanced("index", self, indices, dims);
  const std::vector<int64_t> shape = indexing::front_shape(self, indices, dims);
  check_rank("index", shape.size());
  const std::vector<Tensor> idx = checked_indices("index", self, indices, sizes_of(self, wrapped), wrapped, true);
  Tensor out = yaten::empty(shape, self.dtype(), self.device());
  launch<scalar_t, Mode::Read>("index", self, out.data<scalar_t>(), scalar_t(0),
                               advanced_walk("index", self, idx, wrapped, out.strides()));
  return out;
}

template <typename scalar_t>
Tensor index_put_front_kernel(const Tensor& self, const std::vector<Tensor>& indices,
                              const std::vector<int64_t>& dims, const Tensor& values) {
  using namespace index_detail;
  const char* op = "index_put_";
  const std::vector<int64_t> wrapped = indexing::check_advanced(op, self, indices, dims);
  const std::vector<int64_t> shape = indexing::front_shape(self, indices, dims);
  YATEN_CHECK(values.sizes() == shape, RuntimeError, "index_put_: values have the wrong shape");
  check_rank(op, shape.size());
  const std::vector<Tensor> idx = checked_indices(op, self, indices, sizes_of(self, wrapped), wrapped, true);
  const Tensor from = as_type_of(values, self);
  launch<scalar_t, Mode::Write>(op, self, from.data<scalar_t>(), scalar_t(0),
                                advanced_walk(op, self, idx, wrapped, from.strides()));
  return self;
}

}  // namespace yaten::native::cuda
