// What the CPU kernels of the multi-tensor ops build on (each op's kernels have a header of their own beside this
// one: Note [A foreach op per header], kernels/foreach/common.h): CpuForeach, the CPU backend of the _foreach ops'
// fragments, and the one pass over a fused step's lists.
//
// Each op splits its list as Note [Multi-tensor fast path] (kernels/foreach_support.h) says: the other indices run
// the per-tensor op, and the fast ones are cut into pieces of kGrainSize elements that one parallel_for shares out
// over yaten's threads, so a list of 148 tensors is one parallel region, not 148 (and small tensors, a bias of 768
// floats, run side by side instead of one after another). The element math is the per-tensor ops' own functors and
// kernels/optim_math.h's steps, the CUDA kernels' own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "kernels/foreach/common.h"
#include "kernels/foreach_support.h"

namespace yaten::native::cpu {

namespace foreach_detail {
using foreach::TensorList;

// Runs update(i, begin, end) over the elements of each tensor i of `indices`, in pieces of at most kGrainSize
// elements, all in one parallel_for.
template <typename Update>
void run_pieces(const TensorList& self, const std::vector<size_t>& indices, const Update& update) {
  struct Piece {
    size_t tensor;
    int64_t begin, end;
  };
  std::vector<Piece> pieces;
  int64_t total = 0;
  for (size_t i : indices) {
    const int64_t n = self[i].numel();
    total += n;
    for (int64_t b = 0; b < n; b += kGrainSize) pieces.push_back({i, b, std::min(n, b + kGrainSize)});
  }
  yaten::detail::ScopedGilRelease release_gil(total >= yaten::detail::kGilReleaseElements);
  parallel_for(static_cast<int64_t>(pieces.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) update(pieces[size_t(k)].tensor, pieces[size_t(k)].begin, pieces[size_t(k)].end);
  });
}

template <typename T, typename F, typename... In>
inline void update_range(T* x, const F& f, int64_t begin, int64_t end, const In*... in) {
  for (int64_t j = begin; j < end; ++j) x[j] = f(x[j], in[j]...);
}
}  // namespace foreach_detail

// The CPU backend of the _foreach ops' fragments (kernels/foreach/<op>.inc).
struct CpuForeach {
  template <typename scalar_t, typename Maker, typename Accept, typename Slow, typename... Lists>
  static void apply(const char* name, const foreach::TensorList& self, const std::vector<double>& numbers,
                    const Maker& make, const Accept& accept, const Slow& slow, const Lists&... inputs) {
    foreach::check_lists(name, self, {&inputs...});
    std::vector<size_t> fast;
    for (size_t i = 0; i < self.size(); ++i) {
      bool ok = false;
      if constexpr (foreach::kFast<scalar_t>) {
        ok = foreach::fast({&self, &inputs...}, i, scalar_type_of<scalar_t>) && accept(i);
      }
      if (ok) {
        yaten::detail::check_writable(self[i], name);
        fast.push_back(i);
      } else {
        slow(i);
      }
    }
    if constexpr (foreach::kFast<scalar_t>) {
      foreach_detail::run_pieces(self, fast, [&](size_t i, int64_t b, int64_t e) {
        foreach_detail::update_range(self[i].data<scalar_t>(), make(numbers.empty() ? 0.0 : numbers[i]), b, e,
                                     inputs[i].template data<scalar_t>()...);
      });
    }
  }
};

// ------------------------------------------------------------------------------------------------ fused steps

namespace foreach_detail {
// Runs step(work, i, begin, end) over every index of a fused op's lists in one pass (foreach::FusedLists: the
// indices off the fast path on copies).
template <typename scalar_t, typename Step>
void fused_apply(const char* name, std::initializer_list<const TensorList*> lists, const Step& step) {
  const foreach::FusedLists f(name, lists, scalar_type_of<scalar_t>);
  run_pieces(f.work[0], f.indices, [&](size_t i, int64_t b, int64_t e) { step(f.work, i, b, e); });
  f.copy_back();
}

// The scaler's inputs of a fused step: whether to skip it (found_inf nonzero), whether to unscale the gradients
// (grad_scale given), and by what.
struct Scaling {
  bool skip = false;
  bool unscale = false;
  double scale = 1;
};
inline Scaling scaling(const Tensor& grad_scale, const Tensor& found_inf) {
  Scaling s;
  if (found_inf.defined()) s.skip = foreach::item(found_inf).to_double() != 0;
  if (grad_scale.defined()) {
    s.unscale = true;
    s.scale = foreach::item(grad_scale).to_double();
  }
  return s;
}

}  // namespace foreach_detail

using ForeachBackend = CpuForeach;  // what the kernels of the fragments run on

}  // namespace yaten::native::cpu
