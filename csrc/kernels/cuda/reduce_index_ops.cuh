// CUDA reductions that carry more than one number per element: max.dim/min.dim and argmax/argmin (a value and
// where it was), var_mean (a count, a mean and a sum of squared deviations).
//
// The rows are the CPU's (kernels/reduce_support.h: the reduced dims moved last, one contiguous row per output).
// A block reduces a row, or one segment of it when the rows are too few to fill one wave of blocks
// (cuda/occupancy.cuh), with cub::BlockReduce over a small state; a second kernel combines each row's segments and
// writes the results, on the device. The rules are the CPU's: the first extreme wins, a NaN beats every number (the
// first NaN); var and mean in double, each thread's share as shifted sums, merged with Chan's formula (the CPU makes
// two passes in double, so the two agree to about 1e-15 relative).
#pragma once

#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "cuda/cuda_runtime.h"
#include "cuda/occupancy.cuh"
#include "kernels/reduce_support.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/reshape.h"

namespace yaten::native::cuda {

namespace stat_detail {

constexpr int kThreads = 256;

// ---- the states and how two of them combine (both associative and commutative)

// The extreme so far and its index; index -1 is "nothing yet". Values compare in the dtype's opmath type (float
// for float16/bfloat16/float32, which holds each exactly), int64 for the other integers and bool, and uint64 for
// uint64 (in int64, values at and above 2^63 would compare as negative).
template <typename scalar_t>
using key_t = std::conditional_t<
    std::is_same_v<scalar_t, uint64_t>, uint64_t,
    std::conditional_t<std::is_integral_v<scalar_t> || std::is_same_v<scalar_t, bool>, int64_t, opmath_t<scalar_t>>>;

template <typename scalar_t>
struct Best {
  key_t<scalar_t> value;
  int64_t index;
};

template <typename scalar_t, bool kMax>
struct BestOp {
  __device__ Best<scalar_t> operator()(const Best<scalar_t>& a, const Best<scalar_t>& b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value == b.value) return a.index < b.index ? a : b;
    return (kMax ? a.value > b.value : a.value < b.value) ? a : b;
  }
};

struct Moments {
  double n, mean, m2;
};

struct MomentsOp {
  __device__ Moments operator()(const Moments& a, const Moments& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = a.n + b.n, delta = b.mean - a.mean, wb = b.n / n;
    // An infinite mean (an infinite element) would make delta inf - inf: the mean is then the weighted sum, inf
    // or NaN as sum / n is, and m2 NaN, as ThreadMoments and the CPU give
    if (!isfinite(a.mean) || !isfinite(b.mean)) return {n, a.mean * (a.n / n) + b.mean * wb, NAN};
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
};

// ---- what one thread accumulates before the block combines: by default the state itself, op by op; var_mean
// keeps shifted sums instead (below), which need no division per element.

template <typename State, typename Op, typename Load>
struct ThreadFold {
  State acc;
  Op op;
  Load load;
  template <typename scalar_t>
  __device__ void start(scalar_t) {}
  template <typename scalar_t>
  __device__ void add(scalar_t x, int64_t k) { acc = op(acc, load(x, k)); }
  __device__ State state() const { return acc; }
};

// ---- the two kernels

constexpr int kUnroll = 4;  // loads in flight per thread

// Block r reduces elements [s * seg, min(len, (s + 1) * seg)) of row r / segments (s = r % segments) into out[r].
template <typename scalar_t, typename State, typename Op, typename Thread>
__global__ void __launch_bounds__(kThreads) reduce_segments(const scalar_t* src, int64_t len, int64_t segments,
                                                            int64_t seg, Op op, Thread thread, State* out) {
  using BlockReduce = cub::BlockReduce<State, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  const int64_t r = blockIdx.x, row = r / segments, s = r % segments;
  const int64_t begin = s * seg, end = begin + seg < len ? begin + seg : len;
  const scalar_t* x = src + row * len;
  if (begin + threadIdx.x < end) thread.start(x[begin + threadIdx.x]);
  int64_t k = begin + threadIdx.x;
  for (; k + (kUnroll - 1) * kThreads < end; k += kUnroll * kThreads) {
    scalar_t v[kUnroll];
    for (int j = 0; j < kUnroll; ++j) v[j] = x[k + j * kThreads];
    for (int j = 0; j < kUnroll; ++j) thread.add(v[j], k + j * kThreads);
  }
  for (; k < end; k += kThreads) thread.add(x[k], k);
  const State acc = BlockReduce(temp).Reduce(thread.state(), op);
  if (threadIdx.x == 0) out[r] = acc;
}

// Thread `row` combines the row's segments and hands the result to finish(row, state).
template <typename State, typename Op, typename Finish>
__global__ void __launch_bounds__(kThreads) finish_rows(const State* partial, int64_t rows, int64_t segments,
                                                        State identity, Op op, Finish finish) {
  const int64_t row = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (row >= rows) return;
  State acc = identity;
  for (int64_t s = 0; s < segments; ++s) acc = op(acc, partial[row * segments + s]);
  finish(row, acc);
}

// Block `row` combines the row's segments (many: a full reduction is one row cut into a wave of segments, which one
// thread would read one after another).
template <typename State, typename Op, typename Finish>
__global__ void __launch_bounds__(kThreads) finish_long_rows(const State* partial, int64_t segments, State identity,
                                                             Op op, Finish finish) {
  using BlockReduce = cub::BlockReduce<State, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  const int64_t row = blockIdx.x;
  State acc = identity;
  for (int64_t s = threadIdx.x; s < segments; s += kThreads) acc = op(acc, partial[row * segments + s]);
  acc = BlockReduce(temp).Reduce(acc, op);
  if (threadIdx.x == 0) finish(row, acc);
}

// Reduces the rows of `p` (reduce_plan::plan's layout) to states, then calls finish(row, state) for each.
template <typename scalar_t, typename State, typename Op, typename Thread, typename Finish>
void run_with(const char* op_name, const reduce_plan::Plan& p, State identity, Op op, Thread thread,
              Finish finish) {
  if (p.outer == 0) return;
  const int device = p.src.device().index;
  yaten::cuda::DeviceGuard guard(device);
  const auto stream = static_cast<cudaStream_t>(yaten::cuda::current_stream(device));
  const int64_t wave = yaten::cuda::full_wave(reduce_segments<scalar_t, State, Op, Thread>, kThreads, device);
  int64_t segments = 1;
  if (p.outer < wave && p.inner >= 8192) segments = std::max<int64_t>(1, std::min(wave / p.outer, p.inner / 4096));
  const int64_t seg = (p.inner + segments - 1) / segments;
  Tensor partial = yaten::empty({static_cast<int64_t>(p.outer * segments * sizeof(State))}, ScalarType::Byte,
                                p.src.device());
  State* states = static_cast<State*>(partial.data_ptr());
  reduce_segments<scalar_t, State><<<static_cast<unsigned>(p.outer * segments), kThreads, 0, stream>>>(
      p.src.data<scalar_t>(), p.inner, segments, seg, op, thread, states);
  if (segments >= 32) {
    finish_long_rows<State><<<static_cast<unsigned>(p.outer), kThreads, 0, stream>>>(states, segments, identity, op,
                                                                                    finish);
  } else {
    finish_rows<State><<<static_cast<unsigned>((p.outer + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        states, p.outer, segments, identity, op, finish);
  }
  yaten::cuda::check_launch(op_name);
}

template <typename scalar_t, typename State, typename Op, typename Load, typename Finish>
void run(const char* op_name, const reduce_plan::Plan& p, State identity, Op op, Load load, Finish finish) {
  run_with<scalar_t>(op_name, p, identity, op, ThreadFold<State, Op, Load>{identity, op, load}, finish);
}

template <typename scalar_t>
struct BestLoad {
  __device__ Best<scalar_t> operator()(scalar_t x, int64_t k) const {
    return {static_cast<key_t<scalar_t>>(static_cast<opmath_t<scalar_t>>(x)), k};
  }
};

template <typename scalar_t>
struct BestStore {
  scalar_t* values;  // may be null (argmax)
  int64_t* indices;
  __device__ void operator()(int64_t row, const Best<scalar_t>& b) const {
    if (values != nullptr) values[row] = static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(b.value));
    indices[row] = b.index;
  }
};

template <typename scalar_t, bool kMax>
std::tuple<Tensor, Tensor> extreme_with_index(const char* op, const Tensor& self, int64_t dim, bool keepdim,
                                              bool want_values) {
  const auto p = reduce_plan::plan(op, self, {dim}, keepdim);
  YATEN_CHECK(p.inner > 0 || p.outer == 0, IndexError, op, "(): Expected reduction dim ", dim,
              " to have non-zero size.");
  Tensor values = want_values ? yaten::empty(p.out_shape, self.dtype(), self.device()) : Tensor();
  Tensor indices = yaten::empty(p.out_shape, ScalarType::Long, self.device());
  const Best<scalar_t> identity{key_t<scalar_t>(0), -1};
  run<scalar_t>(op, p, identity, BestOp<scalar_t, kMax>{}, BestLoad<scalar_t>{},
                BestStore<scalar_t>{want_values ? values.data<scalar_t>() : nullptr, indices.data<int64_t>()});
  return {values, indices};
}

template <typename scalar_t, bool kMax>
Tensor arg_extreme(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(extreme_with_index<scalar_t, kMax>(op, self, *dim, keepdim, false));
  YATEN_CHECK(self.numel() > 0, RuntimeError, op, "(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor index = std::get<1>(extreme_with_index<scalar_t, kMax>(op, yaten::reshape(self, {-1}), 0, false, false));
  if (keepdim) return yaten::reshape(index, std::vector<int64_t>(self.dim(), 1));
  return index;
}

// One thread's share of var_mean: sums of x - shift and of its square, shift being the thread's first element, so
// that each element costs a subtraction, an addition and a multiply-add in double (a merge per element would
// divide). For float inputs each difference and square is exact in double; the thread's moments are then
// mean = shift + s / n and m2 = sq - s * s / n. The plain sum gives the mean where something is infinite (as the
// CPU's sum / n does), and m2 is then NaN, as the CPU's.
template <typename scalar_t>
struct ThreadMoments {
  double shift = 0, n = 0, sum = 0, s = 0, sq = 0;
  __device__ void start(scalar_t x) { shift = static_cast<double>(static_cast<opmath_t<scalar_t>>(x)); }
  __device__ void add(scalar_t x, int64_t) {
    const double v = static_cast<double>(static_cast<opmath_t<scalar_t>>(x)), d = v - shift;
    n += 1;
    sum += v;
    s += d;
    sq = fma(d, d, sq);
  }
  __device__ Moments state() const {
    if (n == 0) return {0.0, 0.0, 0.0};
    const bool finite = isfinite(sum);
    const double mean = finite ? shift + s / n : sum / n;
    const double m2 = finite ? fmax(sq - s * s / n, 0.0) : NAN;
    return {n, mean, m2};
  }
};

template <typename scalar_t>
struct MomentsStore {
  scalar_t* var;
  scalar_t* mean;
  double correction;
  __device__ void operator()(int64_t row, const Moments& m) const {
    const double mu = m.n > 0 ? m.mean : NAN;
    const double dof = m.n - correction > 0 ? m.n - correction : 0.0;
    const double v = m.n > 0 ? m.m2 / dof : NAN;
    if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
      var[row] = scalar_t(static_cast<float>(v));
      mean[row] = scalar_t(static_cast<float>(mu));
    } else {
      var[row] = static_cast<scalar_t>(v);
      mean[row] = static_cast<scalar_t>(mu);
    }
  }
};

}  // namespace stat_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> max_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return stat_detail::extreme_with_index<scalar_t, true>("max", self, dim, keepdim, true);
}
template <typename scalar_t>
std::tuple<Tensor, Tensor> min_dim_kernel(const Tensor& self, int64_t dim, bool keepdim) {
  return stat_detail::extreme_with_index<scalar_t, false>("min", self, dim, keepdim, true);
}
template <typename scalar_t>
Tensor argmax_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return stat_detail::arg_extreme<scalar_t, true>("argmax", self, dim, keepdim);
}
template <typename scalar_t>
Tensor argmin_kernel(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return stat_detail::arg_extreme<scalar_t, false>("argmin", self, dim, keepdim);
}

template <typename scalar_t>
std::tuple<Tensor, Tensor> var_mean_kernel(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                                           const std::optional<Scalar>& correction, bool keepdim) {
  using namespace stat_detail;
  const double c = correction ? correction->to<double>() : 1.0;
  const auto p = reduce_plan::plan("var_mean", self, dim.value_or(std::vector<int64_t>{}), keepdim);
  Tensor var = yaten::empty(p.out_shape, self.dtype(), self.device());
  Tensor mean = yaten::empty(p.out_shape, self.dtype(), self.device());
  run_with<scalar_t>("var_mean", p, Moments{0.0, 0.0, 0.0}, MomentsOp{}, ThreadMoments<scalar_t>{},
                     MomentsStore<scalar_t>{var.data<scalar_t>(), mean.data<scalar_t>(), c});
  return {var, mean};
}

}  // namespace yaten::native::cuda
