// einsum: the equation is parsed into integer labels (an ellipsis becomes one label per broadcast dim, aligned from
// the right); each operand takes the diagonal of labels it repeats and sums labels nobody else needs; then operands
// are contracted left to right, each pair as one batched matrix product: [batch, left, contracted] x
// [batch, contracted, right].
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/type_promotion.h"
#include "iter/tensor_iterator.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/bmm.h"
#include "yaten/ops/diagonal.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/permute.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/sum.h"

namespace yaten::native {

namespace einsum_detail {

constexpr int kEllipsisBase = 1000;  // label ids of ellipsis dims: kEllipsisBase + position

struct Operand {
  Tensor t;
  std::vector<int> labels;  // one per dim of t
};

inline int64_t size_of(const Operand& o, int label) {
  const auto it = std::find(o.labels.begin(), o.labels.end(), label);
  return it == o.labels.end() ? -1 : o.t.sizes()[it - o.labels.begin()];
}

// Sums away the labels of `o` that `needed` does not hold.
inline void sum_unneeded(Operand& o, const std::vector<int>& needed) {
  std::vector<int64_t> dims;
  std::vector<int> kept;
  for (size_t d = 0; d < o.labels.size(); ++d) {
    if (std::find(needed.begin(), needed.end(), o.labels[d]) == needed.end()) {
      dims.push_back(int64_t(d));
    } else {
      kept.push_back(o.labels[d]);
    }
  }
  if (dims.empty()) return;
  o.t = yaten::sum(o.t, dims, false, std::nullopt);
  o.labels = kept;
}

inline Operand contract(const Operand& a, const Operand& b, const std::vector<int>& needed) {
  const auto has = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
  std::vector<int> batch, left, right, summed;
  for (int l : a.labels) {
    if (has(b.labels, l)) {
      (has(needed, l) ? batch : summed).push_back(l);
    } else {
      left.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!has(a.labels, l)) right.push_back(l);
  }
  std::vector<int64_t> batch_sizes, left_sizes, right_sizes;
  int64_t nb = 1, nl = 1, nr = 1, nc = 1;
  for (int l : batch) {
    const int64_t sa = size_of(a, l), sb = size_of(b, l);
    YATEN_CHECK(sa == sb || sa == 1 || sb == 1, RuntimeError, "einsum(): operands do not broadcast with remapped "
                "shapes: a subscript has sizes ", sa, " and ", sb);
    batch_sizes.push_back(std::max(sa, sb));
    nb *= batch_sizes.back();
  }
  for (int l : summed) {
    const int64_t sa = size_of(a, l), sb = size_of(b, l);
    YATEN_CHECK(sa == sb, RuntimeError, "einsum(): subscript summed over has sizes ", sa, " and ", sb,
                " in two operands");
    nc *= sa;
  }
  for (int l : left) nl *= (left_sizes.push_back(size_of(a, l)), left_sizes.back());
  for (int l : right) nr *= (right_sizes.push_back(size_of(b, l)), right_sizes.back());
  const auto arrange = [](const Operand& o, const std::vector<std::vector<int>>& groups,
                          const std::vector<int64_t>& batch_shape, int64_t rows, int64_t cols, int64_t nbatch) {
    std::vector<int64_t> perm, shape;
    size_t bi = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      for (int l : groups[g]) {
        const int64_t d = std::find(o.labels.begin(), o.labels.end(), l) - o.labels.begin();
        perm.push_back(d);
        shape.push_back(g == 0 ? batch_shape[bi++] : o.t.sizes()[d]);
      }
    }
    const Tensor permuted = yaten::expand(yaten::permute(o.t, perm), shape);
    return yaten::reshape(permuted, {nbatch, rows, cols});
  };
  const Tensor a3 = arrange(a, {batch, left, summed}, batch_sizes, nl, nc, nb);
  const Tensor b3 = arrange(b, {batch, summed, right}, batch_sizes, nc, nr, nb);
  std::vector<int64_t> shape = batch_sizes;
  shape.insert(shape.end(), left_sizes.begin(), left_sizes.end());
  shape.insert(shape.end(), right_sizes.begin(), right_sizes.end());
  Operand out{yaten::reshape(yaten::bmm(a3, b3), shape), batch};
  out.labels.insert(out.labels.end(), left.begin(), left.end());
  out.labels.insert(out.labels.end(), right.begin(), right.end());
  return out;
}

}  // namespace einsum_detail

inline Tensor einsum_impl(const std::string& equation, const std::vector<Tensor>& tensors) {
  using namespace einsum_detail;
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',') {
      terms.emplace_back();
    } else {
      terms.back() += c;
    }
  }
  YATEN_CHECK(terms.size() == tensors.size(), RuntimeError, "einsum(): ", terms.size(), " operand subscripts in the "
              "equation but ", tensors.size(), " operands given");
  // Parse each term; ellipsis dims are numbered from the right so they broadcast.
  std::vector<Operand> ops;
  std::map<int, int> count;  // label -> number of operands using it
  int64_t max_ellipsis = 0;
  std::vector<std::vector<int>> letters(terms.size());
  std::vector<int64_t> ellipsis_at(terms.size(), -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string& term = terms[i];
    for (size_t p = 0; p < term.size(); ++p) {
      if (term.compare(p, 3, "...") == 0) {
        YATEN_CHECK(ellipsis_at[i] < 0, RuntimeError, "einsum(): more than one ellipsis in operand ", i);
        ellipsis_at[i] = int64_t(letters[i].size());
        p += 2;
        continue;
      }
      const char c = term[p];
      YATEN_CHECK(std::isalpha(static_cast<unsigned char>(c)), RuntimeError, "einsum(): invalid subscript '", c,
                  "' in the equation (use letters, ',', '->' and '...')");
      letters[i].push_back(int(c));
    }
    const int64_t ne = tensors[i].dim() - int64_t(letters[i].size());
    YATEN_CHECK(ne == 0 || (ellipsis_at[i] >= 0 && ne > 0), RuntimeError, "einsum(): the number of subscripts in the "
                "equation (", letters[i].size(), ") does not match the number of dimensions (", tensors[i].dim(),
                ") for operand ", i, ellipsis_at[i] >= 0 ? "" : " and no ellipsis was given");
    max_ellipsis = std::max(max_ellipsis, ne);
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<int> labels = letters[i];
    if (ellipsis_at[i] >= 0) {
      const int64_t ne = tensors[i].dim() - int64_t(letters[i].size());
      std::vector<int> ell;
      for (int64_t j = 0; j < ne; ++j) ell.push_back(kEllipsisBase + int(max_ellipsis - ne + j));
      labels.insert(labels.begin() + ellipsis_at[i], ell.begin(), ell.end());
    }
    Operand o{tensors[i], labels};
    // A label repeated within an operand: its diagonal (which diagonal() moves to the end).
    for (bool again = true; again;) {
      again = false;
      for (size_t d1 = 0; d1 < o.labels.size() && !again; ++d1) {
        for (size_t d2 = d1 + 1; d2 < o.labels.size() && !again; ++d2) {
          if (o.labels[d1] != o.labels[d2]) continue;
          YATEN_CHECK(o.t.sizes()[d1] == o.t.sizes()[d2], RuntimeError, "einsum(): subscript ", char(o.labels[d1]),
                      " is repeated for operand ", i, " but the sizes don't match, ", o.t.sizes()[d1], " != ",
                      o.t.sizes()[d2]);
          const int label = o.labels[d1];
          o.t = yaten::diagonal(o.t, 0, int64_t(d1), int64_t(d2));
          o.labels.erase(o.labels.begin() + d2);
          o.labels.erase(o.labels.begin() + d1);
          o.labels.push_back(label);
          again = true;
        }
      }
    }
    for (int l : std::vector<int>(o.labels)) ++count[l];
    ops.push_back(std::move(o));
  }
  // The output labels: as written, or the ellipsis dims then the labels used once, alphabetically.
  std::vector<int> output;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    for (size_t p = 0; p < rhs.size(); ++p) {
      if (rhs.compare(p, 3, "...") == 0) {
        for (int64_t j = 0; j < max_ellipsis; ++j) output.push_back(kEllipsisBase + int(j));
        p += 2;
        continue;
      }
      const int l = int(rhs[p]);
      YATEN_CHECK(std::isalpha(static_cast<unsigned char>(rhs[p])), RuntimeError, "einsum(): invalid output subscript '",
                  rhs[p], "'");
      YATEN_CHECK(count.count(l), RuntimeError, "einsum(): output subscript ", rhs[p], " does not appear in the "
                  "equation for any input operand");
      YATEN_CHECK(std::find(output.begin(), output.end(), l) == output.end(), RuntimeError, "einsum(): output "
                  "subscript ", rhs[p], " appears more than once in the output");
      output.push_back(l);
    }
  } else {
    for (int64_t j = 0; j < max_ellipsis; ++j) output.push_back(kEllipsisBase + int(j));
    std::map<int, int> letter_uses;
    for (const auto& ls : letters) {
      for (int l : ls) ++letter_uses[l];
    }
    for (const auto& [l, n] : letter_uses) {
      if (n == 1) output.push_back(l);
    }
  }
  ResultTypeState state;
  for (const Tensor& t : tensors) state.add(t);
  const ScalarType dtype = state.result();
  for (Operand& o : ops) {
    if (o.t.dtype() != dtype) o.t = yaten::_to_copy(o.t, dtype, std::nullopt);
  }
  // Left to right: what later operands or the output need stays; the rest is summed or contracted.
  const auto needed_after = [&](size_t i) {
    std::vector<int> needed = output;
    for (size_t j = i + 1; j < ops.size(); ++j) needed.insert(needed.end(), ops[j].labels.begin(), ops[j].labels.end());
    return needed;
  };
  Operand acc = ops[0];
  {
    std::vector<int> needed = needed_after(0);
    sum_unneeded(acc, needed);
  }
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<int> needed = needed_after(i);
    std::vector<int> needed_b = needed;
    needed_b.insert(needed_b.end(), acc.labels.begin(), acc.labels.end());
    sum_unneeded(ops[i], needed_b);
    std::vector<int> needed_a = needed;
    needed_a.insert(needed_a.end(), ops[i].labels.begin(), ops[i].labels.end());
    sum_unneeded(acc, needed_a);
    acc = contract(acc, ops[i], needed);
  }
  sum_unneeded(acc, output);
  std::vector<int64_t> perm;
  for (int l : output) {
    const auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it != acc.labels.end()) perm.push_back(it - acc.labels.begin());
  }
  Tensor result = yaten::permute(acc.t, perm);
  // An ellipsis dim that no operand had at full width (fewer ellipsis dims than the widest) is absent: add it.
  if (int64_t(perm.size()) != int64_t(output.size())) {
    std::vector<int64_t> shape;
    size_t k = 0;
    for (int l : output) {
      const bool present = std::find(acc.labels.begin(), acc.labels.end(), l) != acc.labels.end();
      shape.push_back(present ? result.sizes()[k++] : 1);
    }
    result = yaten::reshape(result, shape);
  }
  return result;
}

}  // namespace yaten::native
