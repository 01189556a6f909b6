// avg_pool2d_backward and avg_pool3d_backward's CPU kernels: kernels/pool/avg_pool_backward.inc's, over
// pool_detail::avg_pool_backward here. A header of its own: an edit recompiles its unit alone (Note [A pooling op per
// header], kernels/cpu/pool/common.h).
#pragma once

#include "kernels/cpu/pool/common.h"

namespace yaten::native::cpu {

namespace pool_detail {

// Note [avg_pool's backward on the CPU]: an input's gradient is the sum of grad[o] / divisor(o) over the windows o
// that hold it, in the order of o (avg_backward_value, CUDA's element). The CPU scatters instead, a plane per thread:
// for each output in order, its share to every input of its window. Each input then receives the same terms in the
// same order, so the sums are avg_backward_value's, without its per-input search for windows and divisions
// (8 x 64 x 56 x 56, k2, one thread: 26.6 -> 0.58 ms). Along a row's interior columns (interior_columns), all of its
// outputs add one tap at a time; taking the taps from the last to the first keeps each input's terms in the order
// of their outputs.
template <int64_t S, typename acc_t>
void avg_backward_interior(const Geometry& g, const acc_t* share, const pool::AvgDim* w, int64_t oc2, int64_t count,
                           acc_t* plane) {
  const int64_t s = S != 0 ? S : g.stride[2];
  const int64_t col = oc2 * s - g.pad[2];  // the first window's first column, inside the image
  for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
    for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
      acc_t* row = plane + (a * g.in[1] + b) * g.in[2] + col;
      for (int64_t c = g.kernel[2] - 1; c >= 0; --c) {
        acc_t* p = row + c;
        for (int64_t j = 0; j < count; ++j) p[j * s] += share[j];
      }
    }
  }
}

template <typename scalar_t>
Tensor avg_pool_backward(const char* op, int dims, const Tensor& grad_output, const Tensor& self,
                         const std::vector<int64_t>& k, const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  using acc_t = opmath_t<scalar_t>;
  constexpr bool kInPlace = std::is_same_v<acc_t, scalar_t>;  // else a plane of acc_t sums, rounded at the end
  const int64_t divisor = pool::divisor_of(op, divisor_override);
  const pool::Plan plan = pool::window_plan(op, self, dims, k, s, p, {}, ceil_mode);
  pool::check_grad_shape(op, grad_output, plan, self);
  const pool::Geometry& g = plan.g;
  const Tensor grad = yaten::contiguous(grad_output);
  Tensor out = yaten::empty(self.sizes(), self.dtype(), self.device());
  if (plan.planes * g.in_numel == 0) return out;
  const scalar_t* src = grad.data<scalar_t>();
  scalar_t* dst = out.data<scalar_t>();
  const std::pair<int64_t, int64_t> inner = interior_columns(g);
  const int64_t work = g.in_numel + g.out_numel * g.kernel[0] * g.kernel[1] * g.kernel[2];
  yaten::detail::ScopedGilRelease release_gil(true);
  parallel_for(plan.planes, std::max<int64_t>(1, kGrainSize / work), [&](int64_t begin, int64_t end) {
    std::vector<acc_t> sums(kInPlace ? 0 : static_cast<size_t>(g.in_numel));
    std::vector<acc_t> share(static_cast<size_t>(g.out[2]));
    for (int64_t plane = begin; plane < end; ++plane) {
      acc_t* in = kInPlace ? reinterpret_cast<acc_t*>(dst + plane * g.in_numel) : sums.data();
      std::fill(in, in + g.in_numel, acc_t(0));
      const scalar_t* grad_plane = src + plane * g.out_numel;
      pool::AvgDim w[3];
      for (int64_t oc0 = 0; oc0 < g.out[0]; ++oc0) {
        w[0] = pool::avg_dim(g, 0, oc0);
        for (int64_t oc1 = 0; oc1 < g.out[1]; ++oc1) {
          w[1] = pool::avg_dim(g, 1, oc1);
          const scalar_t* grad_row = grad_plane + (oc0 * g.out[1] + oc1) * g.out[2];
          const auto edge = [&](int64_t oc2) {
            w[2] = pool::avg_dim(g, 2, oc2);
            const acc_t v = static_cast<acc_t>(grad_row[oc2]) /
                            static_cast<acc_t>(pool::avg_divisor(w, count_include_pad, divisor));
            for (int64_t a = w[0].lo; a < w[0].hi; ++a) {
              for (int64_t b = w[1].lo; b < w[1].hi; ++b) {
                acc_t* row = in + (a * g.in[1] + b) * g.in[2];
                for (int64_t c = w[2].lo; c < w[2].hi; ++c) row[c] += v;
              }
            }
          };
          for (int64_t oc2 = 0; oc2 < inner.first; ++oc2) edge(oc2);
          const int64_t count = inner.second - inner.first;
          if (count > 0) {
            const auto d = static_cast<acc_t>(interior_divisor(g, w, count_include_pad, divisor));
            for (int64_t j = 0; j < count; ++j) share[j] = static_cast<acc_t>(grad_row[inner.first + j]) / d;
            with_last_stride(g, [&](auto S) {
              avg_backward_interior<decltype(S)::value>(g, share.data(), w, inner.first, count, in);
            });
          }
          for (int64_t oc2 = inner.second; oc2 < g.out[2]; ++oc2) edge(oc2);
        }
      }
      if constexpr (!kInPlace) {
        scalar_t* to = dst + plane * g.in_numel;
        for (int64_t i = 0; i < g.in_numel; ++i) to[i] = static_cast<scalar_t>(in[i]);
      }
    }
  });
  return out;
}

}  // namespace pool_detail

#include "kernels/pool/avg_pool_backward.inc"  // the kernels, the same text on both backends

}  // namespace yaten::native::cpu
