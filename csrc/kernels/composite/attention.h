// scaled_dot_product_attention as a composite of differentiable ops: softmax(q k^T * scale + bias) v, with torch's
// mask rules (a boolean mask says which positions take part, a float mask is added, is_causal keeps j <= i), grouped
// query attention (enable_gqa) and dropout on the weights. A row that every position is masked out of gets zero
// weights (torch's math path does the same), with no NaN in the forward or the backward. It runs on every device;
// the fused kernels that keep the scores out of memory are the attention issue's next step.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "kernels/composite/common.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/add.h"
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
