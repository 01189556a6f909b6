// _embedding_bag (F.embedding_bag): the rows of `weight` named by `indices`, reduced per bag (sum, mean or max),
// the bags given by `offsets` (where each starts in `indices`). A composition of index_select and scatter
// reductions, so it runs on every device and differentiates through the ops it calls.
//
// The four results are torch's: the reduced rows (bags x embedding_dim); offset2bag, the bag of each index;
// bag_size, the number of indices other than padding_idx in each bag; and max_indices, the weight row each maximum
// came from (max mode, bags x embedding_dim; bag_size otherwise). torch's CPU kernel leaves the last three empty or
// zero on its fast paths (docs/torch-differences.md); yaten fills them always.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "autograd/autograd.h"
#include "core/tensor.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/clamp_max.h"
#include "yaten/ops/clamp_min.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gather.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/reciprocal.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/scatter_reduce.h"
#include "yaten/ops/searchsorted.h"
#include "yaten/ops/slice.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

inline std::tuple<Tensor, Tensor, Tensor, Tensor> _embedding_bag_impl(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
    bool sparse, const Tensor& per_sample_weights, bool include_last_offset, int64_t padding_idx) {
  const char* op = "_embedding_bag";
  YATEN_CHECK(weight.dim() == 2, RuntimeError, op, ": weight must be 2-D, got ", weight.dim(), "-D");
  YATEN_CHECK(indices.dim() == 1 && offsets.dim() == 1, RuntimeError, op, ": indices and offsets must be 1-D, got ",
              indices.dim(), "-D and ", offsets.dim(), "-D");
  for (const Tensor* t : {&indices, &offsets}) {
    YATEN_CHECK(t->dtype() == ScalarType::Long || t->dtype() == ScalarType::Int, RuntimeError, op,
                ": expected indices and offsets of dtype int64 or int32, got ", dtype_name(t->dtype()));
  }
  YATEN_CHECK(mode >= 0 && mode <= 2, RuntimeError, op, ": mode must be 0 (sum), 1 (mean) or 2 (max), got ", mode);
  YATEN_CHECK(!sparse, NotImplementedError, op, ": sparse=True needs sparse gradients, which yaten does not have");
  const int64_t n = indices.numel();
  const int64_t bags = include_last_offset ? offsets.numel() - 1 : offsets.numel();
  YATEN_CHECK(bags >= 0, RuntimeError, op, ": include_last_offset needs at least one offset");
  if (per_sample_weights.defined()) {
    YATEN_CHECK(mode == 0, NotImplementedError, op, ": per_sample_weights was not None. per_sample_weights is only "
                "supported for mode='sum' (got mode=", mode, ")");
    YATEN_CHECK(per_sample_weights.dim() == 1 && per_sample_weights.numel() == n, RuntimeError, op,
                ": expected per_sample_weights to be 1-D with as many elements as indices (", n, "), got ",
                per_sample_weights.numel());
  }
  const Device device = weight.device();
  const Tensor index = yaten::_to_copy(indices, ScalarType::Long, std::nullopt);
  const Tensor starts = yaten::_to_copy(yaten::slice(offsets, 0, int64_t(0), bags, 1), ScalarType::Long, std::nullopt);
  {  // offsets are few: checked on the host
    const Tensor host = yaten::_to_copy(offsets, ScalarType::Long, Device(DeviceType::CPU));
    const int64_t* o = host.data<int64_t>();
    if (bags > 0) {
      YATEN_CHECK(o[0] == 0, RuntimeError, op, ": offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                  "has to start from position 0. However, got ", o[0]);
    }
    for (int64_t i = 1; i < host.numel(); ++i) {
      YATEN_CHECK(o[i] >= o[i - 1], RuntimeError, op, ": offsets must not decrease, got offsets[", i - 1, "] = ",
                  o[i - 1], " and offsets[", i, "] = ", o[i]);
    }
    if (host.numel() > 0) {
      YATEN_CHECK(o[host.numel() - 1] <= n, RuntimeError, op, ": offsets[-1] can not be greater than input's length ",
                  n, " but got offsets[-1] of ", o[host.numel() - 1]);
    }
  }
  // the bag of each index: how many bags start at or before its position, less one
  const Tensor positions = yaten::arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Long, device);
  const Tensor offset2bag = bags == 0 ? positions : yaten::sub(yaten::searchsorted(starts, positions, false, true),
                                                                Scalar(int64_t(1)), Scalar(int64_t(1)));
  const Tensor valid = padding_idx >= 0 ? yaten::ne(index, Scalar(padding_idx))
                                        : yaten::full({n}, Scalar(true), ScalarType::Bool, device);
  const Tensor bag_size = yaten::scatter_add(yaten::zeros({bags}, ScalarType::Long, device), 0, offset2bag,
                                             yaten::_to_copy(valid, ScalarType::Long, std::nullopt));

  Tensor source = weight;
  if (scale_grad_by_freq && autograd::requires_grad(weight)) {
    // the same values, with each row's gradient divided by how often `indices` names it (as F.embedding)
    const Tensor counts = yaten::scatter_add(yaten::zeros({weight.sizes()[0]}, weight.dtype(), device), 0, index,
                                             yaten::full({n}, Scalar(1.0), weight.dtype(), device));
    const Tensor scale = yaten::unsqueeze(yaten::reciprocal(yaten::clamp_min(counts, Scalar(1.0))), 1);
    const Tensor detached = autograd::detach(weight);
    source = yaten::add(detached, yaten::mul(yaten::sub(weight, detached, Scalar(int64_t(1))), scale),
                        Scalar(int64_t(1)));
  }
  const int64_t dim = weight.sizes()[1];
  Tensor rows = yaten::index_select(source, 0, index);  // [n, dim]
  const Tensor keep = yaten::unsqueeze(valid, 1);
  const Tensor bag_of_row = yaten::expand(yaten::unsqueeze(offset2bag, 1), {n, dim});
  const Tensor zeros = yaten::zeros({bags, dim}, weight.dtype(), device);
  if (mode == 2) {
    const Tensor lowest = yaten::full({}, Scalar(-INFINITY), weight.dtype(), device);
    const Tensor candidates = yaten::where(keep, rows, lowest);
    Tensor out = yaten::scatter_reduce(zeros, 0, bag_of_row, candidates, "amax", false);
    const Tensor empty = yaten::unsqueeze(yaten::eq(bag_size, Scalar(int64_t(0))), 1);
    out = yaten::where(empty, Scalar(0.0), out);
    // the first position holding each bag's maximum, and the weight row it read
    const Tensor hit = yaten::logical_and(keep, yaten::eq(candidates, yaten::index_select(out, 0, offset2bag)));
    const Tensor position = yaten::where(hit, yaten::expand(yaten::unsqueeze(positions, 1), {n, dim}), Scalar(n));
    const Tensor first = yaten::scatter_reduce(yaten::full({bags, dim}, Scalar(n), ScalarType::Long, device), 0,
                                               bag_of_row, position, "amin", true);
    const Tensor found = yaten::gather(yaten::expand(yaten::unsqueeze(index, 1), {n, dim}), 0,
                                       yaten::clamp_max(first, Scalar(std::max<int64_t>(n - 1, 0))));
    const Tensor max_indices = n == 0 ? yaten::zeros({bags, dim}, ScalarType::Long, device)
                                      : yaten::where(empty, Scalar(int64_t(0)), found);
    return {out, offset2bag, bag_size, max_indices};
  }
  if (per_sample_weights.defined()) rows = yaten::mul(rows, yaten::unsqueeze(per_sample_weights, 1));
  if (padding_idx >= 0) rows = yaten::where(keep, rows, Scalar(0.0));
  Tensor out = yaten::scatter_add(zeros, 0, bag_of_row, rows);
  if (mode == 1) {
    const Tensor count = yaten::unsqueeze(yaten::clamp_min(bag_size, Scalar(int64_t(1))), 1);
    out = yaten::div(out, count);
  }
  return {out, offset2bag, bag_size, yaten::_to_copy(bag_size, std::nullopt, std::nullopt)};
}

}  // namespace yaten::native
