// CompositeImplicit sorting ops: the stable= spellings, argsort, msort, median over everything, and the argument
// handling of searchsorted/bucketize around the one _searchsorted kernel.
#pragma once

#include <limits>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/type_promotion.h"
#include "core/wrap_dim.h"
#include "kernels/sort_support.h"
#include "yaten/ops/_searchsorted.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/any.h"
#include "yaten/ops/arange.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/cumsum.h"
#include "yaten/ops/empty.h"
#include "yaten/ops/fill.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gather.h"
#include "yaten/ops/index_copy.h"
#include "yaten/ops/index_select.h"
#include "yaten/ops/median.h"
#include "yaten/ops/movedim.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/nanmedian.h"
#include "yaten/ops/narrow.h"
#include "yaten/ops/ne.h"
#include "yaten/ops/nonzero.h"
#include "yaten/ops/ones.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/scatter_add.h"
#include "yaten/ops/select.h"
#include "yaten/ops/sort.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/zeros.h"

namespace yaten::native {

inline std::tuple<Tensor, Tensor> sort_stable_impl(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                                   bool descending) {
  (void)stable;  // every sort is stable
  return yaten::sort(self, dim, descending);
}
inline Tensor argsort_impl(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(yaten::sort(self, dim, descending));
}
inline Tensor argsort_stable_impl(const Tensor& self, bool stable, int64_t dim, bool descending) {
  (void)stable;
  return std::get<1>(yaten::sort(self, dim, descending));
}
inline Tensor msort_impl(const Tensor& self) { return std::get<0>(yaten::sort(self, 0, false)); }

// The median of no elements: NaN, as torch gives, in self's dtype (for integers that is Note [Floats into integers]:
// the lowest int32 or int64, 0 for the narrower ones, true for bool).
inline Tensor median_of_nothing(const Tensor& self) {
  if (is_floating_point(self.dtype())) {  // NaN computed from self, so the result belongs to its graph
    return yaten::add(yaten::mul(yaten::sum(self), Scalar(0.0)),
                      Scalar(std::numeric_limits<double>::quiet_NaN()));
  }
  return yaten::_to_copy(yaten::full({}, Scalar(std::numeric_limits<double>::quiet_NaN()), ScalarType::Double,
                                     self.device()), self.dtype(), std::nullopt);
}
inline Tensor median_impl(const Tensor& self) {
  if (self.numel() == 0) return median_of_nothing(self);
  return std::get<0>(yaten::median(yaten::reshape(self, {-1}), 0, false));
}
inline Tensor nanmedian_impl(const Tensor& self) {
  if (self.numel() == 0) return median_of_nothing(self);
  return std::get<0>(yaten::nanmedian(yaten::reshape(self, {-1}), 0, false));
}

// unique over dim (torch.unique(dim=)): the distinct slices along `dim`, in lexicographic order (always sorted, as
// torch's), each slice's index among them and how often each occurs. Slices are rows of an (n, rest) matrix, ordered
// by stable sorts on each column from the last to the first; a row that differs from the one before starts a group.
inline std::tuple<Tensor, Tensor, Tensor> unique_dim_impl(const Tensor& self, int64_t dim, bool sorted,
                                                          bool return_inverse, bool return_counts) {
  (void)sorted;
  (void)return_inverse;  // computed either way: cheap beside the sorts
  (void)return_counts;
  YATEN_CHECK(self.dim() > 0, IndexError, "unique_dim: Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim("unique_dim", dim, self.dim());
  for (int64_t k = 0; k < self.dim(); ++k) {
    YATEN_CHECK(k == d || self.sizes()[k] > 0, RuntimeError, "unique_dim: There are 0 sized dimensions, and they "
                "aren't selected, so unique cannot be applied");
  }
  const int64_t n = self.sizes()[d];
  const Device device = self.device();
  if (n == 0) {
    const Tensor none = yaten::empty({0}, ScalarType::Long, device);
    return {yaten::clone(self), none, none};
  }
  const Tensor moved = yaten::movedim(self, std::vector<int64_t>{d}, std::vector<int64_t>{0});
  const Tensor rows = yaten::reshape(moved, {n, -1});
  const int64_t m = rows.sizes()[1];
  Tensor order = yaten::arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Long, device);
  for (int64_t c = m - 1; c >= 0; --c) {
    const Tensor keys = yaten::index_select(yaten::select(rows, 1, c), 0, order);
    order = yaten::index_select(order, 0, std::get<1>(yaten::sort(keys, std::optional<bool>(true), 0, false)));
  }
  const Tensor sorted_rows = yaten::index_select(rows, 0, order);
  Tensor starts = yaten::ones({n}, ScalarType::Bool, device);
  if (n > 1 && m > 0) {
    const Tensor differs = yaten::any(yaten::ne(yaten::narrow(sorted_rows, 0, 1, n - 1),
                                                yaten::narrow(sorted_rows, 0, 0, n - 1)), std::vector<int64_t>{1},
                                      false);
    yaten::copy_(yaten::narrow(starts, 0, 1, n - 1), differs, false);
  } else if (n > 1) {  // slices of no elements are all equal
    yaten::fill_(yaten::narrow(starts, 0, 1, n - 1), Scalar(false));
  }
  const Tensor group = yaten::sub(yaten::cumsum(starts, 0, ScalarType::Long), Scalar(int64_t(1)), Scalar(int64_t(1)));
  const Tensor first = yaten::reshape(yaten::nonzero(starts), {-1});
  const int64_t groups = first.sizes()[0];
  std::vector<int64_t> shape = moved.sizes();
  shape[0] = groups;
  const Tensor values = yaten::movedim(yaten::reshape(yaten::index_select(sorted_rows, 0, first), shape),
                                       std::vector<int64_t>{0}, std::vector<int64_t>{d});
  Tensor inverse = yaten::empty({n}, ScalarType::Long, device);
  yaten::index_copy_(inverse, 0, order, group);
  Tensor counts = yaten::zeros({groups}, ScalarType::Long, device);
  yaten::scatter_add_(counts, 0, group, yaten::ones({n}, ScalarType::Long, device));
  return {yaten::contiguous(values), inverse, counts};
}

namespace sorting_detail {
inline bool right_side(const char* op, bool right, const std::optional<std::string>& side) {
  if (!side) return right;
  YATEN_CHECK(*side == "left" || *side == "right", RuntimeError, op, "(): side can only be 'left' or 'right' but got '",
              *side, "'");
  YATEN_CHECK(!(right && *side == "left"), RuntimeError, op, "(): side and right can't be set to opposites, got side "
              "of left while right was True");
  return *side == "right";
}
inline void check_shapes(const Tensor& seq, const Tensor& values) {
  sorting::check_searchsorted("searchsorted", seq, values, false);
}
}  // namespace sorting_detail

inline Tensor searchsorted_impl(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                                const std::optional<std::string>& side, const Tensor& sorter) {
  const bool r = sorting_detail::right_side("searchsorted", right, side);
  sorting_detail::check_shapes(sorted_sequence, self);
  Tensor seq = sorted_sequence;
  if (sorter.defined()) {
    YATEN_CHECK(sorter.dtype() == ScalarType::Long, TypeError, "searchsorted(): sorter must be a tensor of int64");
    YATEN_CHECK(sorter.sizes() == seq.sizes(), RuntimeError, "searchsorted(): boundaries and sorter must have the "
                "same size");
    seq = yaten::gather(seq, -1, sorter);
  }
  ResultTypeState state;
  state.add(seq);
  state.add(self);
  const ScalarType common = state.result();
  const auto as = [common](const Tensor& t) { return t.dtype() == common ? t : yaten::_to_copy(t, common, std::nullopt); };
  return yaten::_searchsorted(as(seq), as(self), out_int32, r);
}
inline Tensor searchsorted_scalar_impl(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                                       const std::optional<std::string>& side, const Tensor& sorter) {
  YATEN_CHECK(sorted_sequence.dim() == 1, RuntimeError, "searchsorted(): input value can be a scalar only when "
              "boundaries tensor dimension is 1, but we got boundaries tensor dim(", sorted_sequence.dim(), ")");
  ResultTypeState state;
  state.add(sorted_sequence);
  state.add(self);
  const Tensor value = yaten::full({}, self, state.result(), sorted_sequence.device());
  return searchsorted_impl(sorted_sequence, value, out_int32, right, side, sorter);
}
inline Tensor bucketize_impl(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  YATEN_CHECK(boundaries.dim() == 1, RuntimeError, "bucketize(): boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return searchsorted_impl(boundaries, self, out_int32, right, std::nullopt, Tensor());
}

}  // namespace yaten::native
