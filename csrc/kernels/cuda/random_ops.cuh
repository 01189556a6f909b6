// CUDA random kernels: uniform_, normal_, random_, bernoulli_, multinomial, _randperm_. Each thread turns Philox
// blocks into elements with the functors of kernels/random_math.h, the CPU's own, from the same counters the CPU
// would use (the generator's offset advances by the same number of blocks), so with one seed a CUDA tensor holds
// the CPU's numbers bit for bit (Note [Same bits on every device]). The counters are reserved when the kernel is
// queued; the generator is the tensor's device's default (yaten.cuda.default_generators) unless one for that device
// is passed. Non-contiguous tensors are filled through a contiguous buffer, as on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <optional>

#include "core/generator.h"
#include "cuda/cuda_runtime.h"
#include "kernels/random_math.h"
#include "kernels/sort_support.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/all.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/gt.h"
#include "yaten/ops/isfinite.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/le.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/normal.h"
#include "yaten/ops/uniform.h"
#include "yaten/ops/view_as_real.h"

namespace yaten::native::cuda {

namespace random_detail {

// One Philox block per thread, grid-stride over the blocks.
template <typename scalar_t, typename ElementOp>
__global__ void __launch_bounds__(256) philox_fill(scalar_t* out, int64_t n, uint64_t key, uint64_t first,
                                                   ElementOp op) {
  constexpr int kPer = ElementOp::kPerBlock;
  const int64_t blocks = (n + kPer - 1) / kPer;
  for (int64_t blk = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; blk < blocks;
       blk += int64_t(blockDim.x) * gridDim.x) {
    uint32_t r[4];
    philox4x32(key, first + static_cast<uint64_t>(blk), 0, r);
    const int64_t at = blk * kPer;
    op(r, out + at, at, static_cast<int>(n - at < kPer ? n - at : kPer));
  }
}

template <typename scalar_t, typename ElementOp>
Tensor fill_random(const char* name, const Tensor& self, const std::optional<Generator>& generator,
                   const ElementOp& op) {
  YATEN_CHECK(self.device().is_cuda(), RuntimeError, name, ": expected a CUDA tensor, got ", self.device().str());
  Generator g = generator_for(name, generator, self.device());
  Tensor dst = self.is_contiguous() ? self : yaten::empty(self.sizes(), self.dtype(), self.device());
  const int64_t n = dst.numel();
  if (n > 0) {
    const int64_t blocks = (n + ElementOp::kPerBlock - 1) / ElementOp::kPerBlock;
    uint64_t key = 0;
    const uint64_t first = g.reserve(static_cast<uint64_t>(blocks), &key);
    const int index = self.device().index;
    yaten::cuda::DeviceGuard guard(index);
    const int64_t grid = std::min<int64_t>((blocks + 255) / 256, 65536);
    philox_fill<scalar_t><<<static_cast<unsigned>(grid), 256, 0,
                            static_cast<cudaStream_t>(yaten::cuda::current_stream(index))>>>(dst.data<scalar_t>(), n,
                                                                                            key, first, op);
    yaten::cuda::check_launch(name);
  }
  if (!dst.is_same(self)) yaten::copy_(self, dst);
  return self;
}

// 64 random bits per element, as the CPU's randperm draws them.
struct Bits64 {
  static constexpr int kPerBlock = 2;
  __device__ void operator()(const uint32_t r[4], uint64_t* out, int64_t, int count) const {
    for (int j = 0; j < kPerBlock; ++j) {
      if (j < count) out[j] = random_math::bits64(r[2 * j], r[2 * j + 1]);
    }
  }
};

// Uniform doubles in [0, 1), 53 bits, as the CPU's multinomial draws them.
struct UnitDoubles {
  static constexpr int kPerBlock = 2;
  __device__ void operator()(const uint32_t r[4], double* out, int64_t, int count) const {
    for (int j = 0; j < kPerBlock; ++j) {
      if (j < count) out[j] = random_math::unit_double(r[2 * j], r[2 * j + 1]);
    }
  }
};

// Draws n elements of a contiguous buffer of T with `op` from `generator` (a CUDA generator for `device`).
template <typename T, typename ElementOp>
void draw(const char* name, T* out, int64_t n, Device device, const std::optional<Generator>& generator,
          const ElementOp& op) {
  if (n <= 0) return;
  Generator g = generator_for(name, generator, device);
  const int64_t blocks = (n + ElementOp::kPerBlock - 1) / ElementOp::kPerBlock;
  uint64_t key = 0;
  const uint64_t first = g.reserve(static_cast<uint64_t>(blocks), &key);
  yaten::cuda::DeviceGuard guard(device.index);
  const int64_t grid = std::min<int64_t>((blocks + 255) / 256, 65536);
  philox_fill<T><<<static_cast<unsigned>(grid), 256, 0,
                   static_cast<cudaStream_t>(yaten::cuda::current_stream(device.index))>>>(out, n, key, first, op);
  yaten::cuda::check_launch(name);
}

// With replacement: one thread per row adds up the row's cumulative weights in order (the CPU's sums, exactly),
// then one thread per sample finds its category by binary search, as the CPU's upper_bound.
__global__ void row_cumulative(const double* w, double* cdf, int64_t rows, int64_t cats) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  double acc = 0;
  for (int64_t c = 0; c < cats; ++c) cdf[r * cats + c] = acc += w[r * cats + c];
}
__global__ void sample_with_replacement(const double* w, const double* cdf, const double* u, int64_t* out,
                                        int64_t rows, int64_t cats, int64_t samples) {
  const int64_t n = rows * samples;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const int64_t r = i / samples;
    const double* row_cdf = cdf + r * cats;
    const double* row = w + r * cats;
    const double target = u[i] * row_cdf[cats - 1];
    int64_t lo = 0, hi = cats;  // the first cdf entry > target
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (row_cdf[mid] <= target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    int64_t c = lo;
    while (c > 0 && row[c < cats - 1 ? c : cats - 1] == 0) --c;  // rounding at the top: a positive category
    out[i] = c < cats - 1 ? c : cats - 1;
  }
}
// Without replacement: the exponential race's keys -log(1 - u) / w (the CPU's, with the shared log), as sortable
// integers; the positions sorted by them (stably: ties by position, as the CPU's pair order) give the draw.
__global__ void race_keys(const double* w, const double* u, uint64_t* keys, int64_t* positions, int64_t n,
                          int64_t cats) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    const double k = w[i] > 0 ? -random_math::log_positive(1.0 - u[i]) / w[i] : INFINITY;
    keys[i] = sorting::sort_key(k);
    positions[i] = i % cats;
  }
}
__global__ void first_of_rows(const int64_t* positions, int64_t* out, int64_t rows, int64_t cats, int64_t samples) {
  const int64_t n = rows * samples;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    out[i] = positions[(i / samples) * cats + i % samples];
  }
}

inline bool host_true(const Tensor& t) { return yaten::_to_copy(t, std::nullopt, Device()).data<bool>()[0]; }

inline unsigned grid_for(int64_t n) { return static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 65536)); }

}  // namespace random_detail

#include "kernels/random_kernels.inc"  // uniform_, normal_, random_, bernoulli_(float), the same text on both backends

// The probabilities are checked to lie in [0, 1] before drawing, which costs one reduction and a wait for its
// one-byte result (a kernel cannot raise); torch checks with a device-side assert instead, which poisons the context.
template <typename scalar_t>
Tensor bernoulli_tensor_kernel(const Tensor& self, const Tensor& p, const std::optional<Generator>& generator) {
  if (self.numel() == 0) return self;  // Note [Random ops on empty tensors]: p is not looked at
  random_math::check_bernoulli_dtype(p.dtype());
  YATEN_CHECK(p.device() == self.device(), RuntimeError, "bernoulli_: expected p on ", self.device().str(),
              ", but got it on ", p.device().str());
  const Tensor probs = yaten::contiguous(yaten::_to_copy(yaten::expand(p, self.sizes()), ScalarType::Double,
                                                         std::nullopt));
  const Tensor in_range = yaten::_to_copy(
      yaten::all(yaten::logical_and(yaten::ge(probs, Scalar(0.0)), yaten::le(probs, Scalar(1.0)))), std::nullopt,
      Device());
  YATEN_CHECK(in_range.data<bool>()[0], RuntimeError, "bernoulli_: all elements of p must be in [0, 1]");
  return random_detail::fill_random<scalar_t>("bernoulli_", self, generator,
                                              random_math::Bernoulli<scalar_t>{0.0, probs.data<double>()});
}

// _randperm_: the positions 0..n-1 stably sorted by random 64-bit keys (cub::DeviceRadixSort), the CPU's algorithm
// and keys, so the same permutation.
template <typename scalar_t>
Tensor randperm_kernel(const Tensor& self, const std::optional<Generator>& generator) {
  YATEN_CHECK(self.dim() == 1, RuntimeError, "randperm: expected a 1-D destination");
  const int64_t n = self.numel();
  if (n > 0) {
    const double top = static_cast<double>(n - 1);
    YATEN_CHECK(static_cast<double>(random_math::narrow<scalar_t>(top)) == top, RuntimeError, "randperm: n is too "
                "large for result tensor type: '", dtype_name(self.dtype()), "'");
  }
  if (n == 0) return self;
  const Device device = self.device();
  Tensor keys_in = yaten::empty({n}, ScalarType::Long, device), keys_out = yaten::empty({n}, ScalarType::Long, device);
  Tensor positions = yaten::arange(Scalar(n), ScalarType::Long, device);
  Tensor perm = yaten::empty({n}, ScalarType::Long, device);
  auto* kin = static_cast<uint64_t*>(keys_in.data_ptr());
  random_detail::draw("randperm", kin, n, device, generator, random_detail::Bits64{});
  yaten::cuda::DeviceGuard guard(device.index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device.index));
  size_t bytes = 0;
  auto* kout = static_cast<uint64_t*>(keys_out.data_ptr());
  cudaError_t err = cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, positions.data<int64_t>(),
                                                    perm.data<int64_t>(), n, 0, 64, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "randperm: cub radix sort failed: ", cudaGetErrorString(err));
  Tensor temp = yaten::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::Byte, device);
  err = cub::DeviceRadixSort::SortPairs(temp.data_ptr(), bytes, kin, kout, positions.data<int64_t>(),
                                        perm.data<int64_t>(), n, 0, 64, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, "randperm: cub radix sort failed: ", cudaGetErrorString(err));
  yaten::copy_(self, perm);  // converts to self's dtype (exact: checked above)
  return self;
}

// multinomial: the CPU's draws (kernels/cpu/random_ops.h) on the same uniforms: inverse-CDF sampling with
// replacement, the exponential race without. The distribution checks read three flags back to the host.
template <typename scalar_t>
Tensor multinomial_kernel(const Tensor& self, int64_t num_samples, bool replacement,
                          const std::optional<Generator>& generator) {
  using namespace random_detail;
  const char* op = "multinomial";
  YATEN_CHECK(self.dim() == 1 || self.dim() == 2, RuntimeError, op, ": prob_dist must be 1 or 2 dim, got ",
              self.dim());
  YATEN_CHECK(num_samples > 0, RuntimeError, op, ": cannot sample n_sample <= 0 samples");
  const Tensor probs = yaten::contiguous(yaten::_to_copy(self, ScalarType::Double, std::nullopt));
  const int64_t cats = probs.sizes().back();
  const int64_t rows = self.dim() == 1 ? 1 : self.sizes()[0];
  YATEN_CHECK(replacement || num_samples <= cats, RuntimeError, op, ": cannot sample n_sample > "
              "prob_dist.size(-1) samples without replacement");
  std::vector<int64_t> shape = self.sizes();
  shape.back() = num_samples;
  Tensor out = yaten::empty(shape, ScalarType::Long, self.device());
  if (rows == 0) return out;
  YATEN_CHECK(host_true(yaten::all(yaten::logical_and(yaten::isfinite(probs), yaten::ge(probs, Scalar(0.0))))),
              RuntimeError, op, ": probability tensor contains either `inf`, `nan` or element < 0");
  YATEN_CHECK(host_true(yaten::all(yaten::gt(yaten::sum(probs, std::vector<int64_t>{-1}), Scalar(0.0)))),
              RuntimeError, op, ": invalid multinomial distribution (sum of probabilities <= 0)");
  if (!replacement) {
    const Tensor positive = yaten::sum(yaten::gt(probs, Scalar(0.0)), std::vector<int64_t>{-1});
    YATEN_CHECK(host_true(yaten::all(yaten::ge(positive, Scalar(num_samples)))), RuntimeError, op, ": invalid "
                "multinomial distribution (with replacement=False, not enough non-negative category to sample)");
  }
  const Device device = self.device();
  const int64_t per_row = replacement ? num_samples : cats;
  Tensor u = yaten::empty({rows * per_row}, ScalarType::Double, device);
  draw(op, u.data<double>(), rows * per_row, device, generator, UnitDoubles{});
  yaten::cuda::DeviceGuard guard(device.index);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device.index));
  const double* w = probs.data<double>();
  if (replacement) {
    Tensor cdf = yaten::empty({rows, cats}, ScalarType::Double, device);
    row_cumulative<<<grid_for(rows), 256, 0, stream>>>(w, cdf.data<double>(), rows, cats);
    sample_with_replacement<<<grid_for(rows * num_samples), 256, 0, stream>>>(
        w, cdf.data<double>(), u.data<double>(), out.data<int64_t>(), rows, cats, num_samples);
    yaten::cuda::check_launch(op);
    return out;
  }
  const int64_t n = rows * cats;
  Tensor keys_in = yaten::empty({n}, ScalarType::Long, device), keys_out = yaten::empty({n}, ScalarType::Long, device);
  Tensor pos_in = yaten::empty({n}, ScalarType::Long, device), pos_out = yaten::empty({n}, ScalarType::Long, device);
  auto* kin = static_cast<uint64_t*>(keys_in.data_ptr());
  auto* kout = static_cast<uint64_t*>(keys_out.data_ptr());
  race_keys<<<grid_for(n), 256, 0, stream>>>(w, u.data<double>(), kin, pos_in.data<int64_t>(), n, cats);
  yaten::cuda::check_launch(op);
  const Tensor offsets = yaten::mul(yaten::arange(Scalar(rows + 1), ScalarType::Long, device), Scalar(cats));
  const int64_t* off = offsets.data<int64_t>();
  size_t bytes = 0;
  cudaError_t err = cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, kin, kout, pos_in.data<int64_t>(),
                                                              pos_out.data<int64_t>(), n, rows, off, off + 1, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, op, ": cub segmented sort failed: ", cudaGetErrorString(err));
  Tensor temp = yaten::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::Byte, device);
  err = cub::DeviceSegmentedSort::StableSortPairs(temp.data_ptr(), bytes, kin, kout, pos_in.data<int64_t>(),
                                                  pos_out.data<int64_t>(), n, rows, off, off + 1, stream);
  YATEN_CHECK(err == cudaSuccess, RuntimeError, op, ": cub segmented sort failed: ", cudaGetErrorString(err));
  first_of_rows<<<grid_for(rows * num_samples), 256, 0, stream>>>(pos_out.data<int64_t>(), out.data<int64_t>(), rows,
                                                                   cats, num_samples);
  yaten::cuda::check_launch(op);
  return out;
}

}  // namespace yaten::native::cuda
