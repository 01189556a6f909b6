// scaled_dot_product_attention as a composite of differentiable ops: softmax(q k^T * scale + bias) v, with torch's
// mask rules (a boolean mask says which positions take part, a float mask is added, is_causal keeps j <= i), grouped
// query attention (enable_gqa) and dropout on the weights. A row that every position is masked out of gets zero
// weights (torch's math path does the same), with no NaN in the forward or the backward. It runs on every device;
// on the CPU without dropout, the fused kernel runs instead (_flash_attention, Note [Flash attention on the CPU]):
// the same values, without the L x S scores in memory.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "autograd/autograd.h"
#include "kernels/composite/common.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_flash_attention.h"
#include "yaten/ops/_flash_attention_backward.h"
#include "yaten/ops/exp.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/zeros.h"
#include "yaten/ops/all.h"
#include "yaten/ops/dropout.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/logical_not.h"
#include "yaten/ops/masked_fill.h"
#include "yaten/ops/matmul.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/ones.h"
#include "yaten/ops/repeat_interleave.h"
#include "yaten/ops/softmax.h"
#include "yaten/ops/transpose.h"
#include "yaten/ops/tril.h"
#include "yaten/ops/where.h"

namespace yaten::native {

namespace attention_detail {
// Whether the fused CPU kernel takes the call: CPU tensors of one real floating dtype with 3 or 4 dims, the same
// batch (the heads of key and value may be grouped), nothing empty, no dropout, and a mask that needs no gradient
// and broadcasts to (B, H, L, S).
inline bool flash_applies(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                          bool enable_gqa) {
  if (!q.device().is_cpu() || dropout_p > 0 || is_complex(q.dtype())) return false;
  const int64_t d = q.dim();
  if ((d != 3 && d != 4) || k.dim() != d || v.dim() != d) return false;
  if (q.numel() == 0 || k.numel() == 0 || v.numel() == 0) return false;
  if (d == 4 && (k.sizes()[0] != q.sizes()[0] || v.sizes()[0] != q.sizes()[0])) return false;
  const int64_t heads = q.sizes()[size_t(d - 3)], kv_heads = k.sizes()[size_t(d - 3)];
  if (v.sizes()[size_t(d - 3)] != kv_heads) return false;
  if (heads != kv_heads && !(enable_gqa && heads % kv_heads == 0)) return false;
  if (mask.defined()) {
    if (mask.dim() > 4 || autograd::requires_grad(mask) || is_complex(mask.dtype())) return false;
    const std::vector<int64_t> full{d == 4 ? q.sizes()[0] : 1, heads, q.sizes()[size_t(d - 2)],
                                    k.sizes()[size_t(d - 2)]};
    for (int64_t i = 1; i <= mask.dim(); ++i) {
      const int64_t m = mask.sizes()[size_t(mask.dim() - i)];
      if (m != 1 && m != full[size_t(4 - i)]) return false;
    }
  }
  return true;
}

// The fused kernel's call: 3-dim operands as one batch, the mask made additive (a boolean one: 0 where a position
// takes part, -inf where not) in the kernel's compute dtype, of its own size, and broadcast as a view.
inline Tensor flash(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal,
                    double factor) {
  auto as4 = [](const Tensor& t) {  // the kernel reads strided heads and rows; the last dim must be contiguous
    const Tensor t4 = t.dim() == 3 ? yaten::unsqueeze(t, 0) : t;
    return t4.strides()[3] == 1 ? t4 : yaten::contiguous(t4);
  };
  const Tensor q4 = as4(q), k4 = as4(k), v4 = as4(v);
  Tensor additive;
  if (mask.defined()) {
    const ScalarType acc = q.dtype() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
    additive = mask.dtype() == ScalarType::Bool
                   ? yaten::masked_fill(yaten::zeros(mask.sizes(), acc, mask.device()), yaten::logical_not(mask),
                                        Scalar(-std::numeric_limits<double>::infinity()))
                   : yaten::_to_copy(mask, acc);
    additive = yaten::expand(additive, {q4.sizes()[0], q4.sizes()[1], q4.sizes()[2], k4.sizes()[2]});
  }
  const Tensor out = std::get<0>(yaten::_flash_attention(q4, k4, v4, additive, is_causal, factor));
  if (q.dim() == 3) return yaten::reshape(out, {out.sizes()[1], out.sizes()[2], out.sizes()[3]});
  return out;
}

// _flash_attention's gradients (its `derivatives:`): the fused backward kernel, unless a gradient of these gradients
// is being recorded (grad mode on inside backward: create_graph), where they are composed of differentiable ops from
// the same formulas: P = softmax(scale q k^T + mask) (zero in a row with no key), dV = P^T dO, dS = P * (dP -
// rowsum(dP * P)) with dP = dO V^T, dQ = scale dS K, dK = scale dS^T Q; grouped heads summed into their key head.
inline std::tuple<Tensor, Tensor, Tensor> flash_backward(const Tensor& grad, const Tensor& q, const Tensor& k,
                                                         const Tensor& v, const Tensor& mask, const Tensor& out,
                                                         const Tensor& lse, bool is_causal, double scale) {
  if (!autograd::grad_mode_enabled()) {
    return yaten::_flash_attention_backward(yaten::contiguous(grad), q, k, v, mask, out, lse, is_causal, scale);
  }
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], Hk = k.sizes()[1], S = k.sizes()[2];
  const int64_t group = H / Hk;
  const Tensor kk = group > 1 ? yaten::repeat_interleave(k, group, int64_t(1)) : k;
  const Tensor vv = group > 1 ? yaten::repeat_interleave(v, group, int64_t(1)) : v;
  Tensor s = yaten::mul(yaten::matmul(q, yaten::transpose(kk, -2, -1)), Scalar(scale));
  if (mask.defined()) s = yaten::add(s, mask);
  const double minus_inf = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    s = yaten::masked_fill(s, yaten::logical_not(yaten::tril(yaten::ones({L, S}, ScalarType::Bool, q.device()))),
                           Scalar(minus_inf));
  }
  const Tensor empty_rows = yaten::all(yaten::eq(s, Scalar(minus_inf)), std::vector<int64_t>{-1}, true);
  const Tensor p = yaten::masked_fill(yaten::softmax(yaten::masked_fill(s, empty_rows, Scalar(0.0)), -1, std::nullopt),
                                      empty_rows, Scalar(0.0));
  const Tensor dv_full = yaten::matmul(yaten::transpose(p, -2, -1), grad);
  const Tensor dp = yaten::matmul(grad, yaten::transpose(vv, -2, -1));
  const Tensor ds = yaten::mul(p, yaten::sub(dp, yaten::sum(yaten::mul(dp, p), std::vector<int64_t>{-1}, true,
                                                             std::nullopt), Scalar(int64_t(1))));
  const Tensor dq = yaten::mul(yaten::matmul(ds, kk), Scalar(scale));
  Tensor dk = yaten::mul(yaten::matmul(yaten::transpose(ds, -2, -1), q), Scalar(scale));
  Tensor dv = dv_full;
  if (group > 1) {  // each key head's gradient: the sum over its query heads
    dk = yaten::sum(yaten::reshape(dk, {B, Hk, group, S, k.sizes()[3]}), std::vector<int64_t>{2}, false,
                    std::nullopt);
    dv = yaten::sum(yaten::reshape(dv, {B, Hk, group, S, v.sizes()[3]}), std::vector<int64_t>{2}, false,
                    std::nullopt);
  }
  return {dq, dk, dv};
}
}  // namespace attention_detail

inline Tensor scaled_dot_product_attention_impl(const Tensor& query, const Tensor& key, const Tensor& value,
                                                const Tensor& attn_mask, double dropout_p, bool is_causal,
                                                std::optional<double> scale, bool enable_gqa) {
  const char* op = "scaled_dot_product_attention";
  YATEN_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, RuntimeError, op, ": expected query, key and "
              "value of at least 2 dims (..., L, E), got ", query.dim(), ", ", key.dim(), " and ", value.dim());
  YATEN_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(), RuntimeError, op, ": Expected query, "
              "key, and value to have the same dtype, but got query.dtype: ", dtype_name(query.dtype()), " key.dtype: ",
              dtype_name(key.dtype()), " and value.dtype: ", dtype_name(value.dtype()), " instead.");
  YATEN_CHECK(is_floating_point(query.dtype()), RuntimeError, op, ": expected floating-point inputs, got ",
              dtype_name(query.dtype()));
  YATEN_CHECK(query.sizes().back() == key.sizes().back(), RuntimeError, op, ": query's and key's last dims (the "
              "embedding) must agree, got ", query.sizes().back(), " and ", key.sizes().back());
  YATEN_CHECK(key.sizes()[key.dim() - 2] == value.sizes()[value.dim() - 2], RuntimeError, op, ": key and value must "
              "have the same sequence length (dim -2), got ", sizes_text(key.sizes()), " and ",
              sizes_text(value.sizes()));
  YATEN_CHECK(dropout_p >= 0 && dropout_p <= 1, RuntimeError, op, ": dropout_p must be in [0, 1], got ", dropout_p);
  YATEN_CHECK(!(is_causal && attn_mask.defined()), RuntimeError, op, ": _scaled_dot_product_attention: Explicit "
              "attn_mask should not be set when is_causal=True");
  if (attention_detail::flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa)) {
    const double factor = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.sizes().back()));
    return attention_detail::flash(query, key, value, attn_mask, is_causal, factor);
  }
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3) {
    const int64_t heads = query.sizes()[query.dim() - 3], kv_heads = key.sizes()[key.dim() - 3];
    YATEN_CHECK(kv_heads > 0 && heads % kv_heads == 0, RuntimeError, op, ": with enable_gqa the query's heads (",
                heads, ") must be a multiple of the key's (", kv_heads, ")");
    if (heads != kv_heads) {
      k = yaten::repeat_interleave(k, heads / kv_heads, int64_t(-3));
      v = yaten::repeat_interleave(v, heads / kv_heads, int64_t(-3));
    }
  }
  const int64_t L = query.sizes()[query.dim() - 2], S = k.sizes()[k.dim() - 2];
  const double factor = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.sizes().back()));
  Tensor scores = yaten::mul(yaten::matmul(query, yaten::transpose(k, -2, -1)), Scalar(factor));
  const double minus_inf = -std::numeric_limits<double>::infinity();
  Tensor masked;  // true where a position does not take part
  if (is_causal) {
    masked = yaten::logical_not(yaten::tril(yaten::ones({L, S}, ScalarType::Bool, query.device())));
  } else if (attn_mask.defined()) {
    if (attn_mask.dtype() == ScalarType::Bool) {
      masked = yaten::logical_not(attn_mask);
    } else {
      scores = yaten::add(scores, attn_mask);
    }
  }
  if (masked.defined()) scores = yaten::masked_fill(scores, masked, Scalar(minus_inf));
  // rows with no position left: softmax of zeros there (no NaN), then zero weights
  const Tensor empty_rows = yaten::all(yaten::eq(scores, Scalar(minus_inf)), std::vector<int64_t>{-1}, true);
  scores = yaten::masked_fill(scores, empty_rows, Scalar(0.0));
  Tensor weights = yaten::masked_fill(yaten::softmax(scores, -1, std::nullopt), empty_rows, Scalar(0.0));
  if (dropout_p > 0) weights = yaten::dropout(weights, dropout_p, true);
  return yaten::matmul(weights, v);
}

}  // namespace yaten::native
